//! What the Runtime and Extensions APIs call: the runtime's `next`, responses and errors,
//! the extensions' registrations, events and errors.

use super::*;

impl Instance {
    /// The runtime asks for its next invocation: counted as waiting until one comes.
    pub(crate) async fn next_invocation(&self) -> Handed {
        let mut waiting = Waiting {
            instance: self,
            extension: None,
            armed: true,
        };
        {
            let mut state = self.lock();
            state.runtime_waiting += 1;
            self.settle(&mut state);
        }
        let handed = self
            .until(|state| {
                if state.stopping {
                    return None;
                }
                let handed = state.queue.pop_front()?;
                state.runtime_waiting = state.runtime_waiting.saturating_sub(1);
                Some(handed)
            })
            .await;
        waiting.armed = false;
        handed
    }

    /// The runtime's whole response to `request_id`.
    pub(crate) fn respond(&self, request_id: &str, reply: Reply) -> Result<(), &'static str> {
        let mut state = self.lock();
        let inflight = state
            .inflight
            .get_mut(request_id)
            .ok_or("InvalidRequestID")?;
        if inflight.answered || inflight.reply.is_none() {
            return Err("InvalidStateTransition");
        }
        if let Reply::Failed(error) = &reply {
            inflight.failed = Some(error.error_type.clone());
            self.logs.line(format!(
                "{} {request_id} ERROR Invoke Error {}",
                crate::front::webhooks::rfc3339_millis(SystemTime::now()),
                error.to_json()
            ));
        }
        inflight.answered = true;
        if let Some(reply_tx) = inflight.reply.take() {
            let _ = reply_tx.send(reply);
        }
        self.settle(&mut state);
        Ok(())
    }

    /// The runtime starts streaming its response to `request_id`: the channel its bytes go
    /// to.
    pub(crate) fn start_stream(
        &self,
        request_id: &str,
        content_type: Option<String>,
    ) -> Result<mpsc::Sender<Chunk>, &'static str> {
        let mut state = self.lock();
        let inflight = state
            .inflight
            .get_mut(request_id)
            .ok_or("InvalidRequestID")?;
        let reply_tx = inflight.reply.take().ok_or("InvalidStateTransition")?;
        let (chunks_tx, chunks) = mpsc::channel(64);
        inflight.stream = Some(chunks_tx.clone());
        let _ = reply_tx.send(Reply::Streamed {
            content_type,
            chunks,
        });
        Ok(chunks_tx)
    }

    /// The runtime's streamed response to `request_id` ended (with `error` from its
    /// trailers, if any).
    pub(crate) fn end_stream(&self, request_id: &str, error: Option<FunctionError>) {
        let mut state = self.lock();
        if let Some(inflight) = state.inflight.get_mut(request_id) {
            inflight.stream = None;
            inflight.answered = true;
            if let Some(error) = error {
                inflight.failed = Some(error.error_type);
            }
        }
        self.settle(&mut state);
    }

    /// The runtime's `/runtime/init/error`.
    pub(crate) fn init_error(&self, error: FunctionError) {
        let mut state = self.lock();
        self.logs.line(format!(
            "INIT_REPORT Init Duration: {:.2} ms\tPhase: init\tStatus: error\tError Type: {}",
            self.started.elapsed().as_secs_f64() * 1000.0,
            error.error_type
        ));
        state.init = Init::Failed(error);
        drop(state);
        self.bump();
    }

    /// An extension registers (during init only).
    ///
    /// # Errors
    /// After init, for any event from an internal extension on Managed Instances, or for
    /// the `SHUTDOWN` event (which an internal extension — the only
    /// kind a function's own process can run — may not register for: "Using the Lambda
    /// Extensions API", troubleshooting,
    /// <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html>).
    pub(crate) fn register(
        &self,
        name: &str,
        events: &[String],
        external: bool,
    ) -> Result<String, FunctionError> {
        let mut state = self.lock();
        if state.init != Init::Starting {
            return Err(FunctionError::new(
                "Extension.RegistrationAfterInit",
                "extensions register during the init phase only",
            ));
        }
        // On Managed Instances an internal extension may register for no event at all
        // (AWS's runtime interface emulator for Managed Instances,
        // `internal/lambda-managed-instances/rapi/handler/agentregister.go` in
        // aws/aws-lambda-runtime-interface-emulator: 403, "No events allowed for internal
        // extensions"); registering still makes the shutdown a SIGTERM.
        if !external && !events.is_empty() && self.config.managed_instances() {
            return Err(FunctionError::new(
                "Extension.InvalidEventType",
                format!(
                    "{name}: no events allowed for internal extensions on Lambda Managed Instances"
                ),
            ));
        }
        if !external && events.iter().any(|event| event == "SHUTDOWN") {
            return Err(FunctionError::new(
                "ShutdownEventNotSupportedForInternalExtension",
                format!("{name}: an internal extension cannot register for the SHUTDOWN event"),
            ));
        }
        if let Some(unknown) = events
            .iter()
            .find(|event| *event != "INVOKE" && *event != "SHUTDOWN")
        {
            return Err(FunctionError::new(
                "InvalidEventType",
                format!("{name}: unknown event type {unknown}"),
            ));
        }
        let id = uuid::Uuid::new_v4().to_string();
        state.extensions.insert(
            id.clone(),
            Extension {
                name: name.to_owned(),
                external,
                invoke: events.iter().any(|event| event == "INVOKE"),
                shutdown: events.iter().any(|event| event == "SHUTDOWN"),
                shutdown_delivered: false,
                waiting: false,
                pending: VecDeque::new(),
            },
        );
        self.logs.line(format!(
            "EXTENSION Name: {name} State: Registered Events: {events:?}"
        ));
        self.bump();
        Ok(id)
    }

    /// An extension asks for its next event; `None` for an unknown extension.
    pub(crate) async fn next_event(&self, id: &str) -> Option<Value> {
        {
            let mut state = self.lock();
            let extension = state.extensions.get_mut(id)?;
            extension.waiting = true;
            self.settle(&mut state);
        }
        let mut waiting = Waiting {
            instance: self,
            extension: Some(id.to_owned()),
            armed: true,
        };
        let event = self
            .until(|state| {
                let extension = state.extensions.get_mut(id)?;
                let event = extension.pending.pop_front()?;
                extension.waiting = false;
                if event["eventType"] == "SHUTDOWN" {
                    extension.shutdown_delivered = true;
                }
                Some(event)
            })
            .await;
        waiting.armed = false;
        let mut state = self.lock();
        self.settle(&mut state);
        Some(event)
    }

    /// An extension's `/init/error` or `/exit/error`: the environment fails (init) or is
    /// reset.
    pub(crate) fn extension_error(&self, id: &str, error: FunctionError) -> bool {
        let mut state = self.lock();
        let Some(name) = state
            .extensions
            .get(id)
            .map(|extension| extension.name.clone())
        else {
            return false;
        };
        self.logs.line(format!(
            "EXTENSION Name: {name} State: {} Error: {error}",
            error.error_type
        ));
        if state.init == Init::Starting {
            state.init = Init::Failed(error);
            drop(state);
            self.bump();
        } else {
            drop(state);
            self.reset("an extension reported an error");
        }
        true
    }
}
