//! The binding's routes: path templates and verbs for every operation (A2A specification
//! §11.3, `a2a.proto`'s `google.api.http` annotations), matched against a request path and
//! built into one for a client.
//!
//! Every route may also be prefixed by a tenant (`/{tenant}/message:send`), the proto's
//! `additional_bindings`. A path is matched without a tenant first, so `/tasks/abc` is the
//! task `abc`, never the task list of a tenant named `tasks`.
//!
//! `SubscribeToTask` is `GET /tasks/{id}:subscribe` in the proto; the specification's
//! prose (§11.3.2) writes `POST`. Both are served.

use http::Method;

use crate::percent;
use crate::version::Operation;

/// One route of the binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The operation it names.
    pub operation: Operation,
    /// The HTTP method.
    pub method: Method,
    /// The path template, as the proto writes it (`/tasks/{id}:cancel`).
    pub template: &'static str,
}

const fn route(operation: Operation, method: Method, template: &'static str) -> Route {
    Route {
        operation,
        method,
        template,
    }
}

/// Every route, in the order of the proto's service (subscribe's `POST` before its `GET`).
pub const ROUTES: [Route; 12] = [
    route(Operation::Send, Method::POST, "/message:send"),
    route(Operation::Stream, Method::POST, "/message:stream"),
    route(Operation::GetTask, Method::GET, "/tasks/{id}"),
    route(Operation::ListTasks, Method::GET, "/tasks"),
    route(Operation::CancelTask, Method::POST, "/tasks/{id}:cancel"),
    route(Operation::Subscribe, Method::POST, "/tasks/{id}:subscribe"),
    route(Operation::Subscribe, Method::GET, "/tasks/{id}:subscribe"),
    route(
        Operation::SetPushConfig,
        Method::POST,
        "/tasks/{id}/pushNotificationConfigs",
    ),
    route(
        Operation::GetPushConfig,
        Method::GET,
        "/tasks/{id}/pushNotificationConfigs/{configId}",
    ),
    route(
        Operation::ListPushConfigs,
        Method::GET,
        "/tasks/{id}/pushNotificationConfigs",
    ),
    route(
        Operation::DeletePushConfig,
        Method::DELETE,
        "/tasks/{id}/pushNotificationConfigs/{configId}",
    ),
    route(
        Operation::GetExtendedCard,
        Method::GET,
        "/extendedAgentCard",
    ),
];

/// A request path matched to its operation, with the path's parameters decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteMatch {
    /// The operation.
    pub operation: Operation,
    /// The tenant prefix, when the path had one.
    pub tenant: Option<String>,
    /// The `{id}` of a task route.
    pub task_id: Option<String>,
    /// The `{configId}` of a push configuration route.
    pub config_id: Option<String>,
}

/// Why a path names no route.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// No route has this path.
    #[error("no HTTP+JSON route has the path {0:?}")]
    NotFound(String),
    /// The path is a route's, but not with this method.
    #[error("{method} is not allowed on {path:?}; allowed: {}", allowed_list(.allowed))]
    MethodNotAllowed {
        /// The request's method.
        method: Method,
        /// The request's path.
        path: String,
        /// The methods the path takes.
        allowed: Vec<Method>,
    },
    /// A path parameter is not valid percent-encoded UTF-8, or is empty.
    #[error("the path parameter {name} is {problem}")]
    BadParameter {
        /// `id`, `configId` or `tenant`.
        name: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
}

fn allowed_list(allowed: &[Method]) -> String {
    allowed
        .iter()
        .map(Method::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The methods a path takes, for an `Allow` header: empty when no route has it.
pub fn allowed_methods(path: &str) -> Vec<Method> {
    match shape(path) {
        Some(shape) => methods_of(shape.kind),
        None => Vec::new(),
    }
}

/// The route a method and path name. `path` is relative to the interface URL's path
/// (`/message:send`), and may carry a query, which is ignored.
///
/// # Errors
/// [`RouteError`]: no such path, a method the path does not take, or a path parameter
/// that is not valid percent-encoded UTF-8.
pub fn resolve(method: &Method, path: &str) -> Result<RouteMatch, RouteError> {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let shape = shape(path).ok_or_else(|| RouteError::NotFound(path.to_owned()))?;
    let operation =
        operation_of(shape.kind, method).ok_or_else(|| RouteError::MethodNotAllowed {
            method: method.clone(),
            path: path.to_owned(),
            allowed: methods_of(shape.kind),
        })?;
    Ok(RouteMatch {
        operation,
        tenant: shape.tenant.map(|raw| decode("tenant", raw)).transpose()?,
        task_id: shape.task_id.map(|raw| decode("id", raw)).transpose()?,
        config_id: shape
            .config_id
            .map(|raw| decode("configId", raw))
            .transpose()?,
    })
}

/// The path of an operation's route, without a tenant, with `task_id` and `config_id`
/// percent-encoded into it (ignored by routes that take none). Subscribe uses the proto's
/// `GET` route's path (both verbs share it).
pub fn path(operation: Operation, task_id: &str, config_id: Option<&str>) -> String {
    let id = percent::encode_component(task_id);
    match operation {
        Operation::Send => "/message:send".to_owned(),
        Operation::Stream => "/message:stream".to_owned(),
        Operation::GetTask => format!("/tasks/{id}"),
        Operation::CancelTask => format!("/tasks/{id}:cancel"),
        Operation::Subscribe => format!("/tasks/{id}:subscribe"),
        Operation::SetPushConfig | Operation::ListPushConfigs => {
            format!("/tasks/{id}/pushNotificationConfigs")
        }
        Operation::GetPushConfig | Operation::DeletePushConfig => format!(
            "/tasks/{id}/pushNotificationConfigs/{}",
            percent::encode_component(config_id.unwrap_or_default())
        ),
        Operation::GetExtendedCard => "/extendedAgentCard".to_owned(),
        // ListTasks, and any operation added later without a route of its own.
        _ => "/tasks".to_owned(),
    }
}

/// The method a client sends an operation with: its route's, and `POST` for subscribe
/// (the specification's prose, and what the official clients and the conformance suite
/// send; the proto's `GET` is served too).
pub fn method(operation: Operation) -> Method {
    ROUTES
        .iter()
        .find(|route| route.operation == operation)
        .map_or(Method::GET, |route| route.method.clone())
}

/// Which resource a path names, before the method is considered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Send,
    Stream,
    Tasks,
    Task,
    Cancel,
    Subscribe,
    Configs,
    Config,
    ExtendedCard,
}

struct Shape<'a> {
    kind: Kind,
    tenant: Option<&'a str>,
    task_id: Option<&'a str>,
    config_id: Option<&'a str>,
}

fn methods_of(kind: Kind) -> Vec<Method> {
    match kind {
        Kind::Send | Kind::Stream | Kind::Cancel => vec![Method::POST],
        Kind::Tasks | Kind::Task | Kind::ExtendedCard => vec![Method::GET],
        Kind::Subscribe | Kind::Configs => vec![Method::GET, Method::POST],
        Kind::Config => vec![Method::GET, Method::DELETE],
    }
}

fn operation_of(kind: Kind, method: &Method) -> Option<Operation> {
    let get = *method == Method::GET;
    let post = *method == Method::POST;
    Some(match kind {
        Kind::Send if post => Operation::Send,
        Kind::Stream if post => Operation::Stream,
        Kind::Tasks if get => Operation::ListTasks,
        Kind::Task if get => Operation::GetTask,
        Kind::Cancel if post => Operation::CancelTask,
        Kind::Subscribe if get || post => Operation::Subscribe,
        Kind::Configs if post => Operation::SetPushConfig,
        Kind::Configs if get => Operation::ListPushConfigs,
        Kind::Config if get => Operation::GetPushConfig,
        Kind::Config if *method == Method::DELETE => Operation::DeletePushConfig,
        Kind::ExtendedCard if get => Operation::GetExtendedCard,
        _ => return None,
    })
}

/// The resource a path names: without a tenant first, then with its first segment as one.
fn shape(path: &str) -> Option<Shape<'_>> {
    let path = path.strip_prefix('/')?;
    // One trailing slash is tolerated (`/tasks/`).
    let path = path.strip_suffix('/').unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    if let Some(found) = untenanted(&segments) {
        return Some(found);
    }
    let (tenant, rest) = segments.split_first()?;
    if tenant.is_empty() {
        return None;
    }
    untenanted(rest).map(|found| Shape {
        tenant: Some(tenant),
        ..found
    })
}

fn untenanted<'a>(segments: &[&'a str]) -> Option<Shape<'a>> {
    let plain = |kind| Shape {
        kind,
        tenant: None,
        task_id: None,
        config_id: None,
    };
    let task = |kind, id: &'a str| {
        (!id.is_empty()).then_some(Shape {
            kind,
            tenant: None,
            task_id: Some(id),
            config_id: None,
        })
    };
    match segments {
        ["message:send"] => Some(plain(Kind::Send)),
        ["message:stream"] => Some(plain(Kind::Stream)),
        ["extendedAgentCard"] => Some(plain(Kind::ExtendedCard)),
        ["tasks"] => Some(plain(Kind::Tasks)),
        ["tasks", segment] => {
            // A custom verb follows the last colon of the last segment (AIP-136); an id
            // with a colon of its own is sent encoded (`%3A`).
            if let Some(id) = segment.strip_suffix(":cancel") {
                task(Kind::Cancel, id)
            } else if let Some(id) = segment.strip_suffix(":subscribe") {
                task(Kind::Subscribe, id)
            } else {
                task(Kind::Task, segment)
            }
        }
        ["tasks", id, "pushNotificationConfigs"] => task(Kind::Configs, id),
        ["tasks", id, "pushNotificationConfigs", config] if !config.is_empty() => {
            task(Kind::Config, id).map(|shape| Shape {
                config_id: Some(config),
                ..shape
            })
        }
        _ => None,
    }
}

fn decode(name: &'static str, raw: &str) -> Result<String, RouteError> {
    let decoded = percent::decode_component(raw).ok_or(RouteError::BadParameter {
        name,
        problem: "not valid percent-encoded UTF-8",
    })?;
    if decoded.is_empty() {
        return Err(RouteError::BadParameter {
            name,
            problem: "empty",
        });
    }
    Ok(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(method: Method, path: &str) -> RouteMatch {
        resolve(&method, path).unwrap_or_else(|error| panic!("{path}: {error}"))
    }

    #[test]
    fn every_route_resolves_to_its_operation() {
        for route in &ROUTES {
            let path = route
                .template
                .replace("{id}", "t-1")
                .replace("{configId}", "c-1");
            let matched = found(route.method.clone(), &path);
            assert_eq!(matched.operation, route.operation, "{path}");
            let tenanted = found(route.method.clone(), &format!("/acme{path}"));
            assert_eq!(tenanted.operation, route.operation, "/acme{path}");
            assert_eq!(tenanted.tenant.as_deref(), Some("acme"));
        }
    }

    #[test]
    fn paths_built_for_a_client_resolve_back() {
        let id = "task/with:odd chars";
        for operation in [
            Operation::GetTask,
            Operation::CancelTask,
            Operation::Subscribe,
            Operation::SetPushConfig,
            Operation::GetPushConfig,
        ] {
            let built = path(operation, id, Some("cfg:1"));
            let matched = found(method(operation), &built);
            assert_eq!(matched.operation, operation, "{built}");
            assert_eq!(matched.task_id.as_deref(), Some(id), "{built}");
        }
    }

    #[test]
    fn a_task_named_tasks_is_not_a_tenant() {
        let matched = found(Method::GET, "/tasks/tasks");
        assert_eq!(matched.operation, Operation::GetTask);
        assert_eq!(matched.task_id.as_deref(), Some("tasks"));
        assert_eq!(matched.tenant, None);
    }

    #[test]
    fn wrong_methods_and_unknown_paths_are_told_apart() {
        assert_eq!(
            resolve(&Method::GET, "/message:send"),
            Err(RouteError::MethodNotAllowed {
                method: Method::GET,
                path: "/message:send".to_owned(),
                allowed: vec![Method::POST],
            })
        );
        assert!(matches!(
            resolve(&Method::GET, "/nope"),
            Err(RouteError::NotFound(_))
        ));
        assert!(matches!(
            resolve(&Method::GET, "/tasks/%FF"),
            Err(RouteError::BadParameter { name: "id", .. })
        ));
        assert!(matches!(
            resolve(&Method::POST, "/tasks/:cancel"),
            Err(RouteError::NotFound(_))
        ));
        assert_eq!(
            allowed_methods("/tasks/a/pushNotificationConfigs/b"),
            vec![Method::GET, Method::DELETE]
        );
    }
}
