//! Assembling the front an [`Emulator`] serves: its settings checked and turned into the
//! backend, the sessions and the front's configuration.

use a2a_lambda_server::push::delivery::{DeliveryPolicy, Webhooks};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_server::host::graceful;
use a2a_lambda_server::tasks::{DEFAULT_IN_MEMORY_CAPACITY, TaskBudget};

use super::{AGENT_STOP_GRACE, AUTHORIZATION_HEADER, Emulator, EmulatorError, Target};
#[cfg(feature = "auth")]
use crate::front::auth::{Guard, InboundAuth};
use crate::front::container::{Backend, Upstream};
use crate::front::limits::{FaultInjector, RateLimiter};
use crate::front::process::{ProcessSpec, Processes};
use crate::front::sessions::{self, SessionPolicy, Sessions};
use crate::front::{self, FrontConfig};
use crate::{DEFAULT_REQUEST_HEADER_ALLOWLIST, RequestHeaderAllowlist};

impl Emulator {
    /// The front service for a bound address.
    pub(super) fn front(
        self,
        bound: SocketAddr,
        public_url: &str,
        processes: Option<Arc<Processes>>,
        webhooks: Arc<front::webhooks::Sinks>,
        journal: Option<crate::inspector::Journal>,
        telemetry: Option<crate::telemetry::Telemetry>,
    ) -> Result<impl front::FrontService, EmulatorError> {
        if let Some(arn) = &self.runtime_arn
            && !front::is_runtime_arn(arn)
        {
            return Err(EmulatorError::Config(format!(
                "runtime ARN {arn:?} is not an AgentCore runtime ARN \
                 (arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/NAME-ID)"
            )));
        }
        // Authorization may be allowlisted only on a runtime with a customJWTAuthorizer
        // (runtime-header-allowlist page); ours, by default, allowlists it there, so the
        // container sees the caller the platform checked.
        #[cfg(feature = "auth")]
        let jwt_authorizer = self
            .auth
            .as_deref()
            .is_some_and(InboundAuth::forwards_authorization);
        #[cfg(not(feature = "auth"))]
        let jwt_authorizer = false;
        let request_header_allowlist = match &self.request_header_allowlist {
            None if jwt_authorizer => RequestHeaderAllowlist::new(
                DEFAULT_REQUEST_HEADER_ALLOWLIST
                    .iter()
                    .copied()
                    .chain([AUTHORIZATION_HEADER]),
                true,
            )?,
            None => RequestHeaderAllowlist::default(),
            Some(names) => RequestHeaderAllowlist::new(names, jwt_authorizer)?,
        };
        let backend = match self.target {
            Target::Upstream(url) => {
                a2a_lambda_core::card::validate_url("upstream", &url)?;
                #[cfg(not(feature = "tls"))]
                if url
                    .get(..8)
                    .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
                {
                    return Err(EmulatorError::Config(format!(
                        "the upstream {url} is https, which needs the emulator's `tls` feature \
                         (this a2a-emulator was built without it); build it in: \
                         `cargo run -p a2a-lambda-emulator --features tls -- --upstream …`"
                    )));
                }
                let client = reqwest::Client::builder()
                    .connect_timeout(Duration::from_secs(5))
                    .build()
                    .map_err(|error| EmulatorError::Config(format!("HTTP client: {error}")))?;
                Backend::Upstream(Arc::new(Upstream {
                    base: url.trim_end_matches('/').to_owned(),
                    client,
                }))
            }
            Target::Command(command) => {
                if command.trim().is_empty() {
                    return Err(EmulatorError::Config(
                        "the agent command is empty".to_owned(),
                    ));
                }
                let client = reqwest::Client::builder()
                    .no_proxy()
                    .connect_timeout(Duration::from_secs(5))
                    .build()
                    .map_err(|error| EmulatorError::Config(format!("HTTP client: {error}")))?;
                Backend::Process(ProcessSpec {
                    command,
                    startup_timeout: self.agent_startup_timeout,
                    stop_grace: AGENT_STOP_GRACE,
                    public_url: public_url.to_owned(),
                    client,
                    processes: processes.unwrap_or_default(),
                    push: self.push_targets,
                    otlp_endpoint: telemetry
                        .is_some()
                        .then(|| format!("http://{}", graceful::reachable(bound))),
                })
            }
            Target::Agent { make, .. } => Backend::InProcess {
                agent: make,
                profile: self.error_profile,
                max_body_bytes: self.max_body_bytes,
                public_url: public_url.to_owned(),
                owners: Arc::default(),
                budget: TaskBudget::new(DEFAULT_IN_MEMORY_CAPACITY, self.task_store_bytes),
                push: match self.push_targets {
                    Some(targets) => {
                        Some(Webhooks::new(targets, DeliveryPolicy::default()).map_err(
                            |error| EmulatorError::Config(format!("push notifications: {error}")),
                        )?)
                    }
                    None => None,
                },
            },
        };
        // Fail at startup, not at the first invocation, if the container cannot be made.
        let template = backend.template()?;
        let sessions = Arc::new(
            Sessions::new(
                backend,
                SessionPolicy {
                    idle_timeout: self.idle_timeout,
                    max_lifetime: self.max_lifetime,
                    startup: self.session_startup,
                    exclusive: self.exclusive_sessions,
                    max_sessions: self.max_sessions,
                },
            )
            .watched(journal.clone().map(crate::inspector::SessionWatch::new)),
        );
        sessions::spawn_reaper(&sessions);
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_nanos() as u64)
        });
        #[cfg(feature = "auth")]
        let auth = match self.auth {
            Some(auth) => Some(Arc::new(
                Guard::new(*auth).map_err(|error| EmulatorError::Config(error.to_string()))?,
            )),
            None => None,
        };
        let config = FrontConfig {
            base_url: format!("http://{}", graceful::reachable(bound)),
            runtime_arn: self.runtime_arn,
            max_body_bytes: self.max_body_bytes,
            rate_limit: RateLimiter::new(self.rate_limit),
            faults: self.faults.map(|spec| FaultInjector::new(spec, seed)),
            request_timeout: self.request_timeout,
            default_session: format!(
                "a2a-emulator-default-session-{}",
                a2a_lambda_core::model::new_id()
            ),
            interface_path: a2a_lambda_server::host::http::interface_path(public_url),
            request_header_allowlist,
            #[cfg(feature = "auth")]
            auth,
            max_stream: self.max_stream_duration,
            qualifier: self.qualifier,
            webhooks,
            journal,
            telemetry,
        };
        front::stack(config, sessions, template)
            .map_err(|error| EmulatorError::Config(error.to_string()))
    }
}
