//! moto's DynamoDB-compatible server, for the DynamoDB task store tests (the tables and
//! stores made on it are in `dynamo`).
//!
//! The server is moto (`moto[server]` from PyPI), run with the Python of the `.venv-tools`
//! virtual environment at the repository root; `make moto` installs it, and `make test`
//! does so first. Without it these tests fail, saying so: they never pass silently.
//!
//! One server is started per test process, on a free port, and every test makes its own
//! table (with the owner index and time to live, as the guide describes (docs/src/hosting/dynamodb.md)). The server is
//! killed when its handle drops, and in any case when this process ends: it watches its
//! standard input, and exits when the pipe closes.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long moto may take to start (it imports a lot of Python).
const MOTO_START: Duration = Duration::from_secs(60);

/// A moto server on a free port of 127.0.0.1.
pub struct Moto {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    /// What moto printed (the file is already unlinked: nothing is left behind).
    log: std::fs::File,
}

/// Runs moto's server, and exits as soon as the test process closes our standard input.
const MOTO_SCRIPT: &str = "\
import os, sys, threading
def _watch():
    sys.stdin.read()
    os._exit(0)
threading.Thread(target=_watch, daemon=True).start()
from moto.server import main
main(['-H', '127.0.0.1', '-p', sys.argv[1]])
";

impl Moto {
    fn start() -> Self {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest
            .join("..")
            .canonicalize()
            .unwrap_or_else(|_| manifest.join(".."));
        let python = root.join(".venv-tools/bin/python");
        let installed = Command::new(&python)
            .args(["-c", "import moto.server, flask"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        assert!(
            installed,
            "moto is not installed: {} cannot import moto.server. Run `make moto` (it \
             installs moto[server] from PyPI into .venv-tools at the repository root); \
             `make test` does it first",
            python.display()
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port())
            .expect("a free port");
        let log_path: PathBuf =
            std::env::temp_dir().join(format!("a2a-moto-{}-{port}.log", std::process::id()));
        let log_file = std::fs::File::create(&log_path).expect("moto's log file");
        let log = std::fs::File::open(&log_path).expect("moto's log file");
        let _ = std::fs::remove_file(&log_path);
        let child = Command::new(&python)
            .args(["-c", MOTO_SCRIPT, &port.to_string()])
            .stdin(Stdio::piped())
            .stdout(log_file.try_clone().expect("log file"))
            .stderr(log_file)
            .spawn()
            .expect("python starts");
        let mut moto = Self {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            log,
        };
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        loop {
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return moto;
            }
            if let Ok(Some(status)) = moto.child.try_wait() {
                panic!("moto exited ({status}) before it answered:\n{}", moto.log());
            }
            assert!(
                started.elapsed() < MOTO_START,
                "moto did not answer on port {port} within {MOTO_START:?}:\n{}",
                moto.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log(&self) -> String {
        let mut text = String::new();
        let mut log = &self.log;
        let _ = log.seek(SeekFrom::Start(0));
        let _ = log.read_to_string(&mut text);
        text
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// This process's moto server, started on first use.
pub fn moto() -> &'static Moto {
    static MOTO: OnceLock<Moto> = OnceLock::new();
    MOTO.get_or_init(Moto::start)
}
