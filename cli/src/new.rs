//! `a2a new NAME`: writes a new agent crate, `./NAME/`, from the templates under
//! `cli/templates/` (compiled in, so the published `a2a` carries them): the agent, its
//! main, its tests, and what deploys it to AWS Lambda (SAM or cargo lambda) and to AgentCore
//! Runtime (a Dockerfile). The crate depends on the a2a-lambda crates of this CLI's own
//! version, or with `--crates-path` on a local checkout's.
//!
//! The folder is created first (which fails if anything has that name), then filled; if a
//! file cannot be written the folder is removed again, so nothing half-written is left.

use std::fmt;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::args::NewArgs;
use crate::exit;

mod name;

/// The version of the a2a-lambda crates a published-mode crate depends on: this CLI's own,
/// so the two move together.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The crates the new crate depends on, and where each lives in a checkout of the
/// a2a-lambda repository.
const CRATES: [(&str, &str); 4] = [
    ("a2a-lambda", "functions/lambda"),
    ("a2a-lambda-server", "server"),
    ("a2a-lambda-client", "client"),
    ("a2a-lambda-emulator", "emulator"),
];

/// A file of the new crate: its path in the crate, its template, and whether it is a
/// script (made executable).
struct Template {
    path: &'static str,
    text: &'static str,
    executable: bool,
}

/// Every file of the new crate. Templates that cargo or git would read where they lie
/// (`Cargo.toml`, `.gitignore`) are stored under other names.
const TEMPLATES: [Template; 13] = [
    file("Cargo.toml", include_str!("../templates/Cargo.toml.in")),
    file(".gitignore", include_str!("../templates/gitignore")),
    file("README.md", include_str!("../templates/README.md")),
    file("src/lib.rs", include_str!("../templates/src/lib.rs")),
    file("src/main.rs", include_str!("../templates/src/main.rs")),
    file(
        "tests/agent.rs",
        include_str!("../templates/tests/agent.rs"),
    ),
    file(
        "tests/lambda.rs",
        include_str!("../templates/tests/lambda.rs"),
    ),
    file(
        "tests/emulator.rs",
        include_str!("../templates/tests/emulator.rs"),
    ),
    file("template.yaml", include_str!("../templates/template.yaml")),
    Template {
        path: "deploy-lambda.sh",
        text: include_str!("../templates/deploy-lambda.sh"),
        executable: true,
    },
    file("Dockerfile", include_str!("../templates/Dockerfile")),
    file(".dockerignore", include_str!("../templates/dockerignore")),
    file(
        "request-headers.json",
        include_str!("../templates/request-headers.json"),
    ),
];

const fn file(path: &'static str, text: &'static str) -> Template {
    Template {
        path,
        text,
        executable: false,
    }
}

/// Where the new crate's a2a-lambda dependencies come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// crates.io, at this version (`"0.1.0"`: any compatible 0.1 release).
    Published(&'static str),
    /// A local checkout of the a2a-lambda repository (an absolute path).
    Checkout(PathBuf),
}

/// Why no crate was written.
#[derive(Debug)]
pub enum NewError {
    /// The name breaks a rule.
    Name { name: String, rule: name::Invalid },
    /// Something already has the folder's name.
    Exists(PathBuf),
    /// `--crates-path` is not a checkout of the a2a-lambda repository.
    NotACheckout { path: PathBuf, reason: String },
    /// A file or folder could not be written (the folder is gone again).
    Write { path: PathBuf, source: io::Error },
}

impl fmt::Display for NewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name { name, rule } => write!(f, "invalid crate name {name:?}: {rule}"),
            Self::Exists(path) => write!(
                f,
                "{} already exists; a2a new writes a new folder only (choose another name, or move it away)",
                path.display()
            ),
            Self::NotACheckout { path, reason } => write!(
                f,
                "--crates-path {} is not a checkout of the a2a-lambda repository: {reason}",
                path.display()
            ),
            Self::Write { path, source } => write!(
                f,
                "cannot write {}: {source} (nothing was left behind)",
                path.display()
            ),
        }
    }
}

impl NewError {
    /// The exit code: 2 for what the caller can fix in the command line, 1 for a failed
    /// write.
    fn code(&self) -> u8 {
        match self {
            Self::Name { .. } | Self::Exists(_) | Self::NotACheckout { .. } => exit::USAGE,
            Self::Write { .. } => exit::RPC_ERROR,
        }
    }
}

/// Runs `a2a new`: writes the crate in the current folder and prints the next steps.
pub fn command(args: &NewArgs) -> u8 {
    let written = match &args.crates_path {
        Some(path) => checkout(path)
            .and_then(|root| create(Path::new("."), &args.name, &Source::Checkout(root))),
        None => create(Path::new("."), &args.name, &Source::Published(VERSION)),
    };
    match written {
        Ok(folder) => {
            // The folder as the user named it (`demo`, not `./demo`).
            let folder = folder.strip_prefix(".").unwrap_or(&folder);
            // A closed stdout loses only the hints; the crate is written.
            let _ = io::stdout()
                .lock()
                .write_all(next_steps(&args.name, folder).as_bytes());
            exit::OK
        }
        Err(error) => {
            eprintln!("error: {error}");
            error.code()
        }
    }
}

/// What to do with the new crate.
fn next_steps(name: &str, folder: &Path) -> String {
    format!(
        "Created the agent crate `{name}` in {folder}/\n\
         \n\
         \x20 cd {folder}\n\
         \x20 cargo test                            # the agent alone, on the Lambda host, behind the AgentCore emulator\n\
         \x20 cargo run                             # serve it on http://127.0.0.1:9000 (as AgentCore runs it)\n\
         \x20 a2a send http://127.0.0.1:9000 hello  # from another terminal\n\
         \n\
         Deploy it to AWS Lambda with SAM (sam build --beta-features && sam deploy --guided) or\n\
         cargo lambda (./deploy-lambda.sh), or to AgentCore with the Dockerfile: see {folder}/README.md.\n",
        folder = folder.display()
    )
}

/// `path` as the root of an a2a-lambda checkout (absolute), once each crate the new one
/// depends on is found where it should be.
pub fn checkout(path: &Path) -> Result<PathBuf, NewError> {
    let not_a_checkout = |reason: String| NewError::NotACheckout {
        path: path.to_path_buf(),
        reason,
    };
    let root = std::fs::canonicalize(path).map_err(|error| not_a_checkout(error.to_string()))?;
    if root.to_str().is_none() {
        return Err(not_a_checkout(
            "its path is not valid UTF-8, which Cargo.toml cannot hold".to_owned(),
        ));
    }
    for (crate_name, folder) in CRATES {
        let manifest = root.join(folder).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest)
            .map_err(|error| not_a_checkout(format!("{}: {error}", manifest.display())))?;
        if !text.contains(&format!("name = \"{crate_name}\"")) {
            return Err(not_a_checkout(format!(
                "{} is not the manifest of {crate_name}",
                manifest.display()
            )));
        }
    }
    Ok(root)
}

/// Writes the crate `name` into `parent/name` and returns that folder. Nothing is left
/// behind on error.
pub fn create(parent: &Path, name: &str, source: &Source) -> Result<PathBuf, NewError> {
    name::check(name).map_err(|rule| NewError::Name {
        name: name.to_owned(),
        rule,
    })?;
    let folder = parent.join(name);
    write_crate(&folder, &render(name, source))?;
    Ok(folder)
}

/// Creates `folder` and writes `files` into it; removes it again if a file cannot be
/// written.
fn write_crate(folder: &Path, files: &[(&'static str, String, bool)]) -> Result<(), NewError> {
    // Creating the folder is what claims the name: it fails if anything has it already.
    match std::fs::create_dir(folder) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            return Err(NewError::Exists(folder.to_path_buf()));
        }
        Err(source) => {
            return Err(NewError::Write {
                path: folder.to_path_buf(),
                source,
            });
        }
    }
    write_all(folder, files).inspect_err(|_| {
        // Best effort: the error that matters is the write's.
        let _ = std::fs::remove_dir_all(folder);
    })
}

/// The new crate's files: each path with its text and whether it is executable.
pub fn render(name: &str, source: &Source) -> Vec<(&'static str, String, bool)> {
    let (dependencies, dev_dependencies) = dependencies(source);
    let identifier = name::identifier(name);
    TEMPLATES
        .iter()
        .map(|template| {
            let text = template
                .text
                .replace("{{dependencies}}", &dependencies)
                .replace("{{dev-dependencies}}", &dev_dependencies)
                .replace("{{rust-version}}", env!("CARGO_PKG_RUST_VERSION"))
                .replace("{{crate}}", &identifier)
                .replace("{{name}}", name);
            (template.path, text, template.executable)
        })
        .collect()
}

/// The `[dependencies]` and `[dev-dependencies]` lines on the a2a-lambda crates.
fn dependencies(source: &Source) -> (String, String) {
    let line = |crate_name: &str, extra: &str| match source {
        Source::Published(version) => {
            if extra.is_empty() {
                format!("{crate_name} = \"{version}\"\n")
            } else {
                format!("{crate_name} = {{ version = \"{version}\"{extra} }}\n")
            }
        }
        Source::Checkout(root) => {
            let folder = CRATES
                .iter()
                .find(|(known, _)| *known == crate_name)
                .map_or(crate_name, |(_, folder)| folder);
            let path = root.join(folder);
            format!(
                "{crate_name} = {{ path = {}{extra} }}\n",
                toml_string(&path.to_string_lossy())
            )
        }
    };
    let note = match source {
        Source::Published(_) => String::new(),
        Source::Checkout(_) => format!(
            "# The a2a-lambda crates of a local checkout (`a2a new --crates-path`); the published\n\
             # ones are `a2a-lambda = \"{VERSION}\"` and so on.\n"
        ),
    };
    let dependencies = format!(
        "{note}{}{}",
        line("a2a-lambda", ""),
        line("a2a-lambda-server", "")
    );
    let dev_dependencies = format!(
        "{}{}",
        // No SigV4 signing: the tests call the local emulator.
        line("a2a-lambda-client", ", default-features = false"),
        line("a2a-lambda-emulator", "")
    );
    (dependencies, dev_dependencies)
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

fn write_all(folder: &Path, files: &[(&'static str, String, bool)]) -> Result<(), NewError> {
    for (path, text, executable) in files {
        let path = folder.join(path);
        let failed = |source| NewError::Write {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(failed)?;
        out.write_all(text.as_bytes()).map_err(failed)?;
        if *executable {
            make_executable(&out).map_err(failed)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn make_executable(file: &std::fs::File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    file.set_permissions(std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_: &std::fs::File) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A fresh, empty folder under the system's temporary folder.
    fn scratch(test: &str) -> PathBuf {
        let folder = std::env::temp_dir().join(format!(
            "a2a-new-{test}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&folder).unwrap();
        folder
    }

    fn read(folder: &Path, path: &str) -> String {
        std::fs::read_to_string(folder.join(path)).unwrap()
    }

    #[test]
    fn writes_every_file_with_the_names_filled_in() {
        let parent = scratch("files");
        let folder = create(&parent, "my-agent", &Source::Published(VERSION)).unwrap();
        assert_eq!(folder, parent.join("my-agent"));
        for template in &TEMPLATES {
            let text = read(&folder, template.path);
            assert!(
                !text.contains("{{"),
                "{}: a placeholder is left",
                template.path
            );
        }
        let manifest = read(&folder, "Cargo.toml");
        assert!(manifest.contains("name = \"my-agent\""), "{manifest}");
        assert!(read(&folder, "src/main.rs").contains("use my_agent::Agent;"));
        assert!(read(&folder, "src/main.rs").contains("a2a_lambda::run(Agent)"));
        assert!(read(&folder, "tests/agent.rs").contains("use my_agent::Agent;"));
        let template = read(&folder, "template.yaml");
        assert!(template.contains("Binary: my-agent"), "{template}");
        assert!(template.contains("InvokeMode: RESPONSE_STREAM"));
        assert!(read(&folder, "deploy-lambda.sh").contains("FUNCTION=my-agent"));
        assert!(read(&folder, "Dockerfile").contains("/usr/local/bin/my-agent"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(folder.join("deploy-lambda.sh"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o111, 0o111, "deploy-lambda.sh is not executable");
        }
        std::fs::remove_dir_all(parent).unwrap();
    }

    #[test]
    fn published_mode_depends_on_this_clis_version() {
        let files = render("demo", &Source::Published(VERSION));
        let manifest = &files
            .iter()
            .find(|(path, ..)| *path == "Cargo.toml")
            .unwrap()
            .1;
        for line in [
            format!("a2a-lambda = \"{VERSION}\""),
            format!("a2a-lambda-server = \"{VERSION}\""),
            format!("a2a-lambda-client = {{ version = \"{VERSION}\", default-features = false }}"),
            format!("a2a-lambda-emulator = \"{VERSION}\""),
        ] {
            assert!(
                manifest.lines().any(|l| l == line),
                "no {line} in\n{manifest}"
            );
        }
        assert!(!manifest.contains("path ="), "{manifest}");
        // The oldest Rust the a2a-lambda crates (and so this CLI) build with.
        let rust_version = format!("rust-version = \"{}\"", env!("CARGO_PKG_RUST_VERSION"));
        assert!(manifest.lines().any(|l| l == rust_version), "{manifest}");
        assert_eq!(VERSION, env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn checkout_mode_depends_on_the_checkouts_crates() {
        let root = PathBuf::from("/src/a2a \"lambda\"");
        let files = render("demo", &Source::Checkout(root));
        let manifest = &files
            .iter()
            .find(|(path, ..)| *path == "Cargo.toml")
            .unwrap()
            .1;
        assert!(
            manifest.contains("a2a-lambda-server = { path = \"/src/a2a \\\"lambda\\\"/server\" }"),
            "{manifest}"
        );
        assert!(manifest.contains(
            "a2a-lambda-client = { path = \"/src/a2a \\\"lambda\\\"/client\", default-features = false }"
        ));
        let on_a2a_lambda: Vec<&str> = manifest
            .lines()
            .filter(|line| line.starts_with("a2a-lambda"))
            .collect();
        assert_eq!(on_a2a_lambda.len(), 4, "{manifest}");
        assert!(
            on_a2a_lambda
                .iter()
                .all(|line| line.contains("{ path = ") && !line.contains("version")),
            "{manifest}"
        );
    }

    #[test]
    fn this_repository_is_a_checkout_and_other_folders_are_not() {
        let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let root = checkout(&repository).unwrap();
        assert!(root.is_absolute());
        assert!(root.join("functions/lambda/Cargo.toml").exists());

        let elsewhere = scratch("not-a-checkout");
        let error = checkout(&elsewhere).unwrap_err();
        assert!(matches!(error, NewError::NotACheckout { .. }), "{error}");
        assert!(
            error.to_string().contains("functions/lambda/Cargo.toml"),
            "{error}"
        );
        assert_eq!(error.code(), exit::USAGE);
        let missing = checkout(&elsewhere.join("nowhere")).unwrap_err();
        assert!(
            matches!(missing, NewError::NotACheckout { .. }),
            "{missing}"
        );
        std::fs::remove_dir_all(elsewhere).unwrap();
    }

    #[test]
    fn refuses_an_existing_folder_and_leaves_it_alone() {
        let parent = scratch("exists");
        std::fs::create_dir(parent.join("demo")).unwrap();
        std::fs::write(parent.join("demo/notes.txt"), "mine").unwrap();
        let error = create(&parent, "demo", &Source::Published(VERSION)).unwrap_err();
        assert!(matches!(error, NewError::Exists(_)), "{error}");
        assert!(error.to_string().contains("already exists"), "{error}");
        assert_eq!(error.code(), exit::USAGE);
        assert_eq!(read(&parent, "demo/notes.txt"), "mine");
        assert_eq!(std::fs::read_dir(parent.join("demo")).unwrap().count(), 1);

        // A file of that name is refused the same way.
        std::fs::write(parent.join("other"), "a file").unwrap();
        let error = create(&parent, "other", &Source::Published(VERSION)).unwrap_err();
        assert!(matches!(error, NewError::Exists(_)), "{error}");
        std::fs::remove_dir_all(parent).unwrap();
    }

    #[test]
    fn refuses_an_invalid_name_before_writing_anything() {
        let parent = scratch("invalid");
        let error = create(&parent, "My Agent", &Source::Published(VERSION)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid crate name \"My Agent\": it has the character ' '; a name has only ASCII \
             letters, digits, `-` and `_` (a Cargo package name that is also a Rust identifier)"
        );
        assert_eq!(error.code(), exit::USAGE);
        assert_eq!(std::fs::read_dir(&parent).unwrap().count(), 0);
        std::fs::remove_dir_all(parent).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_no_folder() {
        let parent = scratch("half");
        let folder = parent.join("demo");
        // The second file cannot be written: the first is a file where its folder should be.
        let files = [
            ("notes", "written".to_owned(), false),
            ("notes/more", "never".to_owned(), false),
        ];
        let error = write_crate(&folder, &files).unwrap_err();
        assert!(matches!(error, NewError::Write { .. }), "{error}");
        assert!(
            error.to_string().contains("nothing was left behind"),
            "{error}"
        );
        assert_eq!(error.code(), exit::RPC_ERROR);
        assert!(!folder.exists(), "the half-written folder is still there");
        std::fs::remove_dir_all(parent).unwrap();
    }
}
