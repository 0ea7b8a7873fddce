//! Refusing a connection over the cap: the prepared `503` written at once, then the
//! connection read out briefly before it is closed (closing with unread request bytes
//! would reset it, and the client could lose the answer), and the refusals logged at most
//! once every [`LOG_EVERY`].

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// How long a refused connection is read out before it is closed.
const LINGER: Duration = Duration::from_secs(1);
/// Refused connections read out at once; past this they are closed at once.
const LINGERING: usize = 256;
/// How often refusals are logged, with their count since the last line.
pub(crate) const LOG_EVERY: Duration = Duration::from_secs(10);

/// Refuses connections with one prepared answer.
#[derive(Debug)]
pub(crate) struct Refuser {
    answer: Arc<[u8]>,
    lingering: Arc<AtomicUsize>,
    max_connections: usize,
    unlogged: u64,
    logged_at: Option<Instant>,
}

impl Refuser {
    pub(crate) fn new(max_connections: usize) -> Self {
        Self {
            answer: super::answers::over_capacity(max_connections).into(),
            lingering: Arc::default(),
            max_connections,
            unlogged: 0,
            logged_at: None,
        }
    }

    /// Answers `stream` with the refusal and lets it go.
    pub(crate) fn refuse(&mut self, stream: TcpStream) {
        self.log();
        // A fresh socket's send buffer is empty: the few hundred bytes fit at once.
        let _ = stream.try_write(&self.answer);
        if self.lingering.fetch_add(1, Ordering::AcqRel) >= LINGERING {
            self.lingering.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        let lingering = Arc::clone(&self.lingering);
        tokio::spawn(async move {
            let mut stream = stream;
            let _ = tokio::time::timeout(LINGER, async {
                let _ = stream.shutdown().await;
                let mut sink = [0_u8; 4096];
                while matches!(stream.read(&mut sink).await, Ok(read) if read > 0) {}
            })
            .await;
            lingering.fetch_sub(1, Ordering::AcqRel);
        });
    }

    /// One warning for the first refusal, then one every [`LOG_EVERY`] with the count.
    fn log(&mut self) {
        self.unlogged += 1;
        let now = Instant::now();
        if self
            .logged_at
            .is_some_and(|at| now.duration_since(at) < LOG_EVERY)
        {
            return;
        }
        tracing::warn!(
            refused = self.unlogged,
            max_connections = self.max_connections,
            "connections refused: the server is at its connection limit"
        );
        self.unlogged = 0;
        self.logged_at = Some(now);
    }
}
