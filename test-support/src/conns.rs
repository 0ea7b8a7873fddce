//! HTTP/1.1 spoken by hand over raw sockets, for the connection tests of the container and
//! the emulator's front: a test can stop mid-header, mid-body, or stop reading. The agent
//! they serve is [`crate::agents::Behaving`].

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// A v0.3 JSON-RPC request of `method` sending `text`, id 1.
pub fn rpc(method: &str, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"message":{{"kind":"message","messageId":"m-{}","role":"user","parts":[{{"kind":"text","text":"{text}"}}]}}}}}}"#,
        uuid_like()
    )
}

fn uuid_like() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The bytes of `POST {path}` with `body` (keep-alive unless `close`).
pub fn post(path: &str, body: &str, close: bool) -> Vec<u8> {
    let connection = if close { "close" } else { "keep-alive" };
    format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nConnection: {connection}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// An answer read off a socket.
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The header lines, lower-cased names, as `name: value`.
    pub headers: Vec<String>,
    /// The body.
    pub body: Vec<u8>,
}

impl Answer {
    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let prefix = format!("{name}: ");
        self.headers
            .iter()
            .find_map(|line| line.strip_prefix(prefix.as_str()))
    }

    /// The body as JSON.
    ///
    /// # Panics
    /// When it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Reads one answer with a `Content-Length` (bounded by 5 s).
pub async fn read_answer(stream: &mut TcpStream) -> Answer {
    tokio::time::timeout(Duration::from_secs(5), async {
        let (status, headers, mut body) = read_head(stream).await;
        let length: usize = headers
            .iter()
            .find_map(|line| line.strip_prefix("content-length: "))
            .expect("a content-length")
            .parse()
            .unwrap();
        while body.len() < length {
            let mut buffer = [0_u8; 8192];
            let read = stream.read(&mut buffer).await.unwrap();
            assert!(read > 0, "closed mid-body");
            body.extend_from_slice(&buffer[..read]);
        }
        Answer {
            status,
            headers,
            body,
        }
    })
    .await
    .expect("an answer within 5 s")
}

/// Reads up to the end of the head: the status, the header lines, the bytes after.
pub async fn read_head(stream: &mut TcpStream) -> (u16, Vec<String>, Vec<u8>) {
    let mut seen = Vec::new();
    loop {
        if let Some(end) = seen.windows(4).position(|window| window == b"\r\n\r\n") {
            let head = String::from_utf8(seen[..end].to_vec()).unwrap();
            let mut lines = head.split("\r\n");
            let status = lines.next().unwrap()[9..12].parse().unwrap();
            let headers = lines
                .map(|line| {
                    let (name, value) = line.split_once(": ").unwrap();
                    format!("{}: {value}", name.to_ascii_lowercase())
                })
                .collect();
            return (status, headers, seen[end + 4..].to_vec());
        }
        let mut buffer = [0_u8; 8192];
        let read = stream.read(&mut buffer).await.unwrap();
        assert!(read > 0, "closed before the head ended: {seen:?}");
        seen.extend_from_slice(&buffer[..read]);
    }
}

/// How a connection ended, read to its end within `within`.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// The server closed it cleanly, after these bytes.
    Closed(Vec<u8>),
    /// It was reset.
    Reset,
    /// Still open at the deadline.
    Open,
}

/// Reads the connection until it ends or `within` passes.
pub async fn read_to_end(stream: &mut TcpStream, within: Duration) -> End {
    let mut seen = Vec::new();
    let read = tokio::time::timeout(within, async {
        loop {
            let mut buffer = [0_u8; 8192];
            match stream.read(&mut buffer).await {
                Ok(0) => return true,
                Ok(read) => seen.extend_from_slice(&buffer[..read]),
                Err(_) => return false,
            }
        }
    })
    .await;
    match read {
        Ok(true) => End::Closed(seen),
        Ok(false) => End::Reset,
        Err(_) => End::Open,
    }
}

/// Polls `condition` every 10 ms for at most `within`; whether it came true.
pub async fn eventually(within: Duration, condition: impl Fn() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    condition()
}

/// Connects to `address`.
pub async fn connect(address: SocketAddr) -> TcpStream {
    TcpStream::connect(address).await.unwrap()
}

/// Sends `bytes` on a fresh connection.
pub async fn send(address: SocketAddr, bytes: &[u8]) -> TcpStream {
    let mut stream = connect(address).await;
    stream.write_all(bytes).await.unwrap();
    stream
}

/// Waits (up to 5 s) until every connection and stream a server counted is gone.
///
/// # Panics
/// When some are still open then.
pub async fn released(gauges: &a2a_lambda_server::host::listen::Gauges) {
    assert!(
        eventually(Duration::from_secs(5), || gauges.connections() == 0
            && gauges.streams() == 0)
        .await,
        "still open: {} connections, {} streams",
        gauges.connections(),
        gauges.streams()
    );
}
