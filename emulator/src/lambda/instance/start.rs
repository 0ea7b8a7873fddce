//! How an environment starts: the external extensions, then the runtime, and init.

use super::*;

impl Instance {
    /// Starts an environment: the Runtime API on `listener` (and on a second address for
    /// the external extensions, when there are any), served by `serve`; the external
    /// extensions' processes first, then — once each has registered, as Lambda starts the
    /// runtime after the extensions' init — the function's.
    ///
    /// # Errors
    /// A process that cannot be started, or an extension that never registers.
    pub(crate) async fn start(
        config: Arc<FunctionConfig>,
        listener: tokio::net::TcpListener,
        logs: Arc<Logs>,
        recorder: Recorder,
        serve: impl Fn(Arc<Self>, tokio::net::TcpListener, bool) -> JoinHandle<()>,
    ) -> Result<Arc<Self>, FunctionError> {
        let unknown =
            |error: std::io::Error| FunctionError::new("Runtime.Unknown", error.to_string());
        let address = listener.local_addr().map_err(unknown)?;
        let external = if config.extensions.is_empty() {
            None
        } else {
            Some(
                tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .map_err(unknown)?,
            )
        };
        let (exit_tx, exited) = watch::channel(None);
        let instance = Arc::new(Self {
            config: Arc::clone(&config),
            state: Mutex::new(State {
                init: Init::Starting,
                runtime_waiting: 0,
                extensions: HashMap::new(),
                queue: VecDeque::new(),
                inflight: HashMap::new(),
                frozen: false,
                dead: None,
                stopping: false,
                init_duration: None,
            }),
            changed: watch::Sender::new(0),
            pids: OnceLock::new(),
            group: OnceLock::new(),
            logs: Arc::clone(&logs),
            recorder,
            started: Instant::now(),
            servers: Mutex::new(Vec::new()),
            exited,
            reaped: AtomicBool::new(false),
            ended_by: AtomicI32::new(0),
            extension_processes: std::sync::atomic::AtomicUsize::new(0),
        });
        instance.recorder.state(SessionState::Starting, None);
        let mut servers = vec![serve(Arc::clone(&instance), listener, false)];
        if let Some(external) = external {
            let external_address = external.local_addr().map_err(unknown)?;
            servers.push(serve(Arc::clone(&instance), external, true));
            *instance
                .servers
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = servers;
            instance.start_extensions(external_address).await?;
        } else {
            *instance
                .servers
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = servers;
        }
        let group = instance.group.get().map(|group| group.as_raw());
        let child = process::spawn(
            &config.command,
            &config.args,
            process::environment(&config, address),
            &logs,
            group,
        )
        .map_err(|error| {
            instance.reset("the function's process could not start");
            FunctionError::new(
                "Runtime.InvalidEntrypoint",
                format!("cannot run {}: {error}", config.command.display()),
            )
        })?;
        let pid = child.id().unwrap_or(0);
        let _ = instance.pids.set(pid);
        let _ = instance.group.set(Pid::from_raw(
            group.unwrap_or_else(|| i32::try_from(pid).unwrap_or(0)),
        ));
        tokio::spawn(Self::wait_exit(Arc::clone(&instance), child, exit_tx));
        Ok(instance)
    }

    /// Starts the external extensions (the first leads the environment's process group)
    /// and waits until each has registered, within the init timeout.
    async fn start_extensions(
        self: &Arc<Self>,
        api: std::net::SocketAddr,
    ) -> Result<(), FunctionError> {
        let count = self.config.extensions.len();
        for path in &self.config.extensions {
            let group = self.group.get().map(|group| group.as_raw());
            let child = process::spawn(
                path,
                &[],
                process::environment(&self.config, api),
                &self.logs,
                group,
            )
            .map_err(|error| {
                self.reset("an extension could not start");
                FunctionError::new(
                    "Extension.LaunchError",
                    format!("cannot run {}: {error}", path.display()),
                )
            })?;
            if group.is_none() {
                let _ = self.group.set(Pid::from_raw(
                    i32::try_from(child.id().unwrap_or(0)).unwrap_or(0),
                ));
            }
            self.extension_processes.fetch_add(1, Ordering::AcqRel);
            tokio::spawn(Self::wait_extension(
                Arc::clone(self),
                child,
                path.display().to_string(),
            ));
        }
        let registered = tokio::time::timeout(
            super::super::config::INIT_TIMEOUT,
            self.until(|state| {
                if let Init::Failed(error) = &state.init {
                    return Some(Err(error.clone()));
                }
                let external = state
                    .extensions
                    .values()
                    .filter(|extension| extension.external)
                    .count();
                (external >= count).then_some(Ok(()))
            }),
        )
        .await;
        match registered {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => {
                self.reset("an extension failed its init");
                Err(error)
            }
            Err(_) => {
                self.reset("an extension did not register in time");
                Err(FunctionError::new(
                    "Extension.Timeout",
                    "an external extension did not register within the init phase",
                ))
            }
        }
    }

    /// An external extension's process ended: during init the init fails; later the
    /// environment is reset (Lambda's `Extension.Crash`).
    async fn wait_extension(instance: Arc<Self>, mut child: tokio::process::Child, name: String) {
        let status = child.wait().await;
        instance.extension_processes.fetch_sub(1, Ordering::AcqRel);
        let reason = match status {
            Ok(status) => format!("extension {name} exited: {status}"),
            Err(error) => format!("extension {name}: {error}"),
        };
        let mut state = instance.lock();
        if state.stopping || state.dead.is_some() {
            drop(state);
            instance.bump();
            return;
        }
        instance
            .logs
            .line(format!("EXTENSION Name: {name} State: Exited"));
        if state.init == Init::Starting {
            state.init = Init::Failed(FunctionError::new("Extension.Crash", reason));
            drop(state);
            instance.bump();
        } else {
            drop(state);
            instance.reset(&reason);
        }
    }

    /// Waits for init to end, at most `within`.
    ///
    /// # Errors
    /// The init error (the runtime's `/init/error`, its exit, or `Sandbox.Timedout`).
    pub(crate) async fn initialized(&self, within: Duration) -> Result<Duration, FunctionError> {
        let done = tokio::time::timeout(
            within,
            self.until(|state| match &state.init {
                Init::Starting => None,
                Init::Ready => Some(Ok(state.init_duration.unwrap_or_default())),
                Init::Failed(error) => Some(Err(error.clone())),
            }),
        )
        .await;
        match done {
            Ok(result) => result,
            Err(_) => {
                let error = FunctionError::new(
                    "Sandbox.Timedout",
                    format!(
                        "INIT_REPORT Init Duration: {:.2} ms\tPhase: init\tStatus: timeout",
                        within.as_secs_f64() * 1000.0
                    ),
                );
                self.lock().init = Init::Failed(error.clone());
                Err(error)
            }
        }
    }
}
