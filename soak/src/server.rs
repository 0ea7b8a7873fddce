//! The server under load: a release binary started on a free loopback port (as
//! `scripts/load.py` starts them), its readiness, and what `/proc` says of it.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Why a server could not be started or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The binary is missing.
    #[error("{0} is missing: build it with `make soak` (cargo build --release)")]
    Missing(PathBuf),
    /// Starting it failed.
    #[error("cannot start {0}: {1}")]
    Spawn(PathBuf, std::io::Error),
    /// It did not answer `/ping` in time.
    #[error("{0} did not answer GET /ping within {1:?}")]
    NotReady(&'static str, Duration),
    /// No free port.
    #[error("no free port: {0}")]
    Port(std::io::Error),
}

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `a2a-emulator`: the AgentCore front over per-session containers.
    Front,
    /// `a2a-container`: `serve(agent)`, the router alone.
    Container,
}

impl Kind {
    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Self::Front => "front (a2a-emulator)",
            Self::Container => "container (a2a-container)",
        }
    }
}

/// A started server.
#[derive(Debug)]
pub struct Server {
    /// Which.
    pub kind: Kind,
    /// Its address.
    pub address: SocketAddr,
    child: Child,
}

fn free_port() -> Result<u16, ServerError> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(ServerError::Port)?;
    Ok(listener.local_addr().map_err(ServerError::Port)?.port())
}

/// The directory of the release binaries: this binary's own.
pub fn release_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("target/release"))
}

impl Server {
    /// Starts `kind` with the conformance agent (its `slow-` tasks stay working until
    /// canceled, its `tck-` ones complete), logs at `warn`, throttling off.
    ///
    /// # Errors
    /// [`ServerError`] when it cannot be started or never answers.
    pub async fn start(kind: Kind) -> Result<Self, ServerError> {
        let port = free_port()?;
        let dir = release_dir();
        let mut command = match kind {
            Kind::Front => {
                let binary = dir.join("a2a-emulator");
                let mut command = Command::new(&binary);
                command.args([
                    "--port",
                    &port.to_string(),
                    "--agent",
                    "conformance",
                    "--rate-limit",
                    "0",
                ]);
                command
            }
            Kind::Container => {
                let mut command = Command::new(dir.join("a2a-container"));
                command
                    .env("PORT", port.to_string())
                    .env("A2A_HOST", "127.0.0.1")
                    .env("A2A_AGENT", "conformance");
                command
            }
        };
        let program = PathBuf::from(command.get_program());
        if !program.exists() {
            return Err(ServerError::Missing(program));
        }
        let child = command
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| ServerError::Spawn(program, error))?;
        let server = Self {
            kind,
            address: SocketAddr::from(([127, 0, 0, 1], port)),
            child,
        };
        server.wait_ready(Duration::from_secs(15)).await?;
        Ok(server)
    }

    async fn wait_ready(&self, within: Duration) -> Result<(), ServerError> {
        let client = reqwest::Client::new();
        let deadline = Instant::now() + within;
        let url = format!("http://{}/ping", self.address);
        while Instant::now() < deadline {
            if let Ok(response) = client.get(&url).send().await
                && response.status().is_success()
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Err(ServerError::NotReady(self.kind.name(), within))
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory, KiB (`VmRSS` in `/proc/PID/status`).
    pub fn rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|line| line.strip_prefix("VmRSS:"))
                    .and_then(|value| value.split_whitespace().next()?.parse().ok())
            })
            .unwrap_or(0)
    }

    /// Open file descriptors (entries of `/proc/PID/fd`).
    pub fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .map(Iterator::count)
            .unwrap_or(0)
    }

    /// Sends SIGTERM.
    ///
    /// # Errors
    /// When the signal cannot be sent.
    pub fn terminate(&self) -> Result<(), nix::Error> {
        let pid = i32::try_from(self.pid()).unwrap_or(i32::MAX);
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        )
    }

    /// Waits (polled) up to `within` for the process to exit.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.terminate();
            let deadline = Instant::now() + Duration::from_secs(15);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
