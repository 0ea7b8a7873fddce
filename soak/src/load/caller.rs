//! One worker's JSON-RPC caller: a POST with the version and session headers, and the
//! answer as status, content type and body.

use serde_json::{Value, json};

use super::REQUEST_TIMEOUT;

/// A JSON-RPC caller for one worker.
pub(super) struct Caller {
    pub(super) client: reqwest::Client,
    pub(super) url: String,
    pub(super) session: Option<String>,
    pub(super) next: u64,
}

/// One answer: status, content type, body.
pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) sse: bool,
    pub(super) body: String,
}

impl Caller {
    pub(super) async fn call(
        &mut self,
        method: &str,
        params: Value,
        v1: bool,
    ) -> Result<(Value, Reply), String> {
        self.next += 1;
        let id = json!(self.next);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = self
            .raw(body.to_string().into_bytes(), v1, "application/json")
            .await?;
        Ok((id, reply))
    }

    pub(super) async fn raw(
        &self,
        body: Vec<u8>,
        v1: bool,
        content_type: &str,
    ) -> Result<Reply, String> {
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", content_type)
            .timeout(REQUEST_TIMEOUT)
            .body(body);
        if v1 {
            request = request.header("a2a-version", "1.0");
        }
        if let Some(session) = &self.session {
            request = request.header("x-amzn-bedrock-agentcore-runtime-session-id", session);
        }
        let response = request
            .send()
            .await
            .map_err(|error| format!("send: {error}"))?;
        let status = response.status().as_u16();
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let body = response
            .text()
            .await
            .map_err(|error| format!("body: {error}"))?;
        Ok(Reply { status, sse, body })
    }
}
