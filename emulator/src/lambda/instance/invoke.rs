//! An invocation handed to the runtime, and its deadline.

use super::*;

impl Instance {
    /// Hands `event` to the runtime once the environment can take it (for Lambda's
    /// default, the previous invocation over; with Managed Instances at once), thawing it
    /// first; `permit` is the slot it holds until it is over (taken only when it is handed
    /// out: on an error it is still there, for another environment).
    ///
    /// # Errors
    /// The environment is gone (`Runtime.ExitError`) or shutting down.
    pub(crate) async fn dispatch(
        self: &Arc<Self>,
        event: Bytes,
        permit: &mut Option<OwnedSemaphorePermit>,
    ) -> Result<Invocation, FunctionError> {
        let managed = self.config.managed_instances();
        let request_id = uuid::Uuid::new_v4().to_string();
        let timeout = self.config.timeout;
        let (reply_tx, reply) = oneshot::channel();
        let mut reply_tx = Some(reply_tx);
        let arn = self.config.arn();
        let mut thawed = false;
        self.until(|state| {
            if let Some(reason) = &state.dead {
                return Some(Err(FunctionError::new("Runtime.ExitError", reason.clone())));
            }
            if state.stopping {
                return Some(Err(FunctionError::new(
                    "Runtime.Unavailable",
                    "the environment is shutting down",
                )));
            }
            let can = if managed {
                state.init == Init::Ready
            } else {
                state.runtime_waiting > 0
                    && Self::extensions_idle(state)
                    && state.inflight.is_empty()
            };
            if !can {
                return None;
            }
            if state.frozen {
                self.signal_all(Signal::SIGCONT);
                state.frozen = false;
                thawed = true;
            }
            let (Some(permit), Some(reply)) = (permit.take(), reply_tx.take()) else {
                return None;
            };
            let deadline_ms = unix_millis(SystemTime::now() + timeout);
            state.inflight.insert(
                request_id.clone(),
                Inflight {
                    started: Instant::now(),
                    reply: Some(reply),
                    stream: None,
                    answered: false,
                    failed: None,
                    permit: Some(permit),
                },
            );
            state.queue.push_back(Handed {
                request_id: request_id.clone(),
                event: event.clone(),
                deadline_ms,
            });
            for extension in state.extensions.values_mut() {
                if extension.invoke {
                    extension.pending.push_back(json!({
                        "eventType": "INVOKE",
                        "deadlineMs": deadline_ms,
                        "requestId": request_id,
                        "invokedFunctionArn": arn,
                        "tracing": {"type": "X-Amzn-Trace-Id", "value": trace_id()},
                    }));
                }
            }
            Some(Ok(()))
        })
        .await?;
        self.logs
            .line(format!("START RequestId: {request_id} Version: $LATEST"));
        self.recorder.started(thawed);
        self.bump();
        tokio::spawn(Arc::clone(self).deadline(request_id.clone(), timeout));
        Ok(Invocation {
            request_id,
            reply,
            thawed,
        })
    }

    /// At the deadline: an invocation not over has timed out.
    async fn deadline(self: Arc<Self>, request_id: String, timeout: Duration) {
        tokio::time::sleep(timeout).await;
        let mut state = self.lock();
        let Some(mut inflight) = state.inflight.remove(&request_id) else {
            return;
        };
        let message = format!(
            "RequestId: {request_id} Error: Task timed out after {:.2} seconds",
            timeout.as_secs_f64()
        );
        self.logs.line(format!(
            "{} {request_id} Task timed out after {:.2} seconds",
            crate::front::webhooks::rfc3339_millis(SystemTime::now()),
            timeout.as_secs_f64()
        ));
        self.fail(
            &mut inflight,
            FunctionError::new("Sandbox.Timedout", message),
        );
        inflight.failed = Some("Sandbox.Timedout".to_owned());
        // The slot is let go only once the environment is reset, so that the next
        // invocation starts a new one rather than wait on this one.
        let permit = inflight.permit.take();
        self.finish(&request_id, inflight, &mut state);
        self.recorder.timed_out(&request_id);
        if self.config.managed_instances() {
            self.settle(&mut state);
            return;
        }
        drop(state);
        self.reset("the invocation timed out");
        drop(permit);
    }
}
