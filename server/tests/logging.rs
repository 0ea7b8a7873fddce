//! The hosts' logs (`a2a_lambda_server::host::logging`): one line per request with its content intact,
//! written off the request path, and a burst beyond the queue reported with the count
//! dropped. Each test installs its own subscriber on its own thread (`set_default`); both
//! enable the same levels, so the callsites they share are interesting to both.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::host::logging::Logging;
use a2a_lambda_server::serve::{Container, LogFormat};
use serde_json::Value;

/// What the log writer wrote; writes wait while the gate is closed.
#[derive(Clone, Default)]
struct Sink {
    written: Arc<Mutex<Vec<u8>>>,
    gate: Arc<(Mutex<bool>, Condvar)>,
}

impl Sink {
    /// A sink whose writes wait until [`Sink::open`].
    fn closed() -> Self {
        let sink = Self::default();
        *sink.gate.0.lock().unwrap() = true;
        sink
    }

    fn open(&self) {
        *self.gate.0.lock().unwrap() = false;
        self.gate.1.notify_all();
    }

    /// The lines written, as JSON.
    fn lines(&self) -> Vec<Value> {
        let text = String::from_utf8(self.written.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("{line}")))
            .collect()
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (closed, opened) = &*self.gate;
        let mut closed = closed.lock().unwrap();
        while *closed {
            closed = opened.wait(closed).unwrap();
        }
        self.written.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn message(line: &Value) -> &str {
    line["fields"]["message"].as_str().unwrap_or("")
}

#[tokio::test]
async fn each_request_is_one_intact_line_written_by_the_time_the_guard_drops() {
    let sink = Sink::default();
    let (dispatch, guard) = Logging::new(LogFormat::Json)
        .filter("info")
        .build(sink.clone());
    let _default = tracing::dispatcher::set_default(&dispatch);
    let running = Container::new(EchoAgent)
        .address(([127, 0, 0, 1], 0).into())
        .bind()
        .await
        .unwrap();
    let client = reqwest::Client::new();
    let sent: BTreeSet<String> = (0..200).map(|n| format!("request-{n:03}")).collect();
    for id in &sent {
        let answer = client
            .post(running.url())
            .header("x-amzn-bedrock-agentcore-runtime-request-id", id)
            .header("content-type", "application/json")
            .body(
                r#"{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}}"#,
            )
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
    }
    running.shutdown().await.unwrap();
    drop(guard);

    let lines = sink.lines();
    let rpc: Vec<&Value> = lines.iter().filter(|line| message(line) == "rpc").collect();
    assert_eq!(rpc.len(), 200, "one line per request: {lines:#?}");
    let logged: BTreeSet<String> = rpc
        .iter()
        .map(|line| line["fields"]["request_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(logged, sent, "every request's own line, none twice");
    for line in &rpc {
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["fields"]["method"], "message/send");
        assert_eq!(line["fields"]["version"], "0.3");
        assert_eq!(line["fields"]["outcome"], "ok");
        assert!(line["fields"]["duration_ms"].as_f64().unwrap() >= 0.0);
    }
    assert!(
        !lines.iter().any(|line| message(line).contains("dropped")),
        "nothing dropped: {lines:#?}"
    );
}

#[test]
fn a_burst_beyond_the_queue_is_reported_once_with_the_count_dropped() {
    // The writer is stalled: the queue (2 KiB, a dozen lines) fills and the rest of the
    // burst is dropped without waiting. Reports are due only as the guard drops.
    let sink = Sink::closed();
    let (dispatch, guard) = Logging::new(LogFormat::Json)
        .filter("info")
        .buffer_bytes(2048)
        .report_every(Duration::from_secs(3600))
        .build(sink.clone());
    let started = std::time::Instant::now();
    tracing::dispatcher::with_default(&dispatch, || {
        for n in 0..1000 {
            tracing::info!(n, "burst");
        }
    });
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a full queue drops lines rather than waiting"
    );
    sink.open();
    // Once the writer has caught up, a last line gets through (each try that does not is
    // dropped too, and so counted).
    let mut tries = 0;
    while !sink.lines().iter().any(|line| message(line) == "after") {
        tries += 1;
        assert!(tries < 500, "the writer never caught up");
        tracing::dispatcher::with_default(&dispatch, || tracing::info!("after"));
        std::thread::sleep(Duration::from_millis(10));
    }
    let guard_dropped = guard.dropped() as u64;
    drop(guard);

    let lines = sink.lines();
    let reports: Vec<&Value> = lines
        .iter()
        .filter(|line| message(line).contains("dropped"))
        .collect();
    assert_eq!(
        reports.len(),
        1,
        "one report, not one per line: {reports:#?}"
    );
    let report = reports[0];
    assert_eq!(report["level"], "WARN");
    assert_eq!(
        message(report),
        "log lines dropped: the log queue was full (the writer is behind)"
    );
    let dropped = report["fields"]["dropped"].as_u64().unwrap();
    assert_eq!(report["fields"]["total"].as_u64().unwrap(), dropped);
    let burst = lines.iter().filter(|line| message(line) == "burst").count() as u64;
    assert!(burst > 0, "the queue's lines are written");
    assert_eq!(guard_dropped, dropped, "the report says the guard's count");
    // Every line logged is either written or counted as dropped (an "after" queued while
    // the loop looked may be written besides the one it saw).
    let after = lines.iter().filter(|line| message(line) == "after").count() as u64;
    assert_eq!(burst + after + dropped, 1000 + tries, "{lines:#?}");
    // The lines written are whole and in order.
    let numbers: Vec<u64> = lines
        .iter()
        .filter(|line| message(line) == "burst")
        .map(|line| line["fields"]["n"].as_u64().unwrap())
        .collect();
    assert!(
        numbers.windows(2).all(|pair| pair[0] < pair[1]),
        "{numbers:?}"
    );
}

#[test]
fn drops_are_reported_each_interval_while_the_host_runs() {
    let sink = Sink::closed();
    let (dispatch, guard) = Logging::new(LogFormat::Text)
        .filter("info")
        .buffer_bytes(512)
        .report_every(Duration::from_millis(50))
        .build(sink.clone());
    tracing::dispatcher::with_default(&dispatch, || {
        for n in 0..100 {
            tracing::info!(n, "burst");
        }
    });
    sink.open();
    // The guard still held: the periodic report, not the last one, says it.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let report = loop {
        let text = String::from_utf8(sink.written.lock().unwrap().clone()).unwrap();
        if let Some(line) = text.lines().find(|line| line.contains("log lines dropped")) {
            break line.to_owned();
        }
        assert!(std::time::Instant::now() < deadline, "no report: {text}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(report.contains("WARN"), "{report}");
    assert!(report.contains("dropped="), "{report}");
    drop(guard);
}
