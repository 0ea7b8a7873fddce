//! Slow-loris connections: each opens a TCP connection, sends the start of a request and
//! then one more header byte a second, never finishing its headers — what a server
//! without a header timeout holds forever.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;

/// Slow connections running in the background until [`Slowloris::stop`].
#[derive(Debug)]
pub struct Slowloris {
    stop: Arc<AtomicBool>,
    /// Connections open now.
    pub open: Arc<AtomicUsize>,
    /// Connections the server closed on them (a header timeout at work).
    pub closed_by_server: Arc<AtomicUsize>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Slowloris {
    /// Opens `count` slow connections to `address`.
    pub async fn start(address: SocketAddr, count: usize) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let open = Arc::new(AtomicUsize::new(0));
        let closed_by_server = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::with_capacity(count);
        for n in 0..count {
            let (stop, open, closed) = (
                Arc::clone(&stop),
                Arc::clone(&open),
                Arc::clone(&closed_by_server),
            );
            tasks.push(tokio::spawn(async move {
                let Ok(mut stream) = TcpStream::connect(address).await else {
                    closed.fetch_add(1, Ordering::Relaxed);
                    return;
                };
                open.fetch_add(1, Ordering::Relaxed);
                let start = format!("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-{n}: ");
                let mut alive = stream.write_all(start.as_bytes()).await.is_ok();
                while alive && !stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    alive = stream.write_all(b"a").await.is_ok();
                }
                if !alive {
                    closed.fetch_add(1, Ordering::Relaxed);
                }
                open.fetch_sub(1, Ordering::Relaxed);
            }));
            if n % 64 == 63 {
                // Not all at once: a listen backlog is finite.
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        Self {
            stop,
            open,
            closed_by_server,
            tasks,
        }
    }

    /// Closes them all.
    pub async fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        for task in self.tasks {
            let _ = task.await;
        }
    }
}
