//! [`Running`]: a container serving in the background, and how to stop it.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::ServeError;
use crate::listen::Gauges;

/// A container serving in the background.
#[derive(Debug)]
pub struct Running {
    pub(super) address: SocketAddr,
    pub(super) grpc_address: Option<SocketAddr>,
    pub(super) url: String,
    pub(super) stop: watch::Sender<bool>,
    pub(super) task: JoinHandle<std::io::Result<()>>,
    pub(super) gauges: Arc<Gauges>,
}

impl Running {
    /// The bound address.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The gRPC binding's bound address, when it serves gRPC (`A2A_BINDINGS` names
    /// `grpc`).
    pub fn grpc_address(&self) -> Option<SocketAddr> {
        self.grpc_address
    }

    /// The URL its card advertises (ends in `/`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its connections now: open, streaming, refused over the cap.
    pub fn connections(&self) -> &Gauges {
        &self.gauges
    }

    /// Stops accepting, lets in-flight work finish (within the grace), and returns.
    ///
    /// # Errors
    /// [`ServeError::Serve`] when the server had failed.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        let _ = self.stop.send(true);
        match self.task.await {
            Ok(result) => Ok(result?),
            Err(join) => Err(ServeError::Serve(std::io::Error::other(join))),
        }
    }
}
