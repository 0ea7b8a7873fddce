//! The router the function serves: the shared A2A router plus the Lambda-specific layers.
//!
//! - **Stage prefix**: API Gateway puts a named stage in the path (`/prod/…`); it is
//!   removed, so routes match with and without it.
//! - **Card URL**: without `A2A_PUBLIC_URL`, the card advertises the URL the request came
//!   to: its scheme, its host, and the path prefix the function is served under (the
//!   stage, or `cargo lambda watch`'s `/lambda-url/{function}`).
//! - **API key**: with `A2A_AUTH=api-key`, JSON-RPC and HTTP+JSON requests need
//!   `X-API-Key`; the card and `/ping` stay public (discovery and health).
//! - **Caller**: the [`Owner`] of the request's tasks comes from the event's request
//!   context only (see [`owner`]); a caller's `X-Amzn-Bedrock-AgentCore-Runtime-User-Id`
//!   header, which names a user in an AgentCore container, is removed.

use std::sync::Arc;

use a2a_lambda_core::card::Binding;
use a2a_lambda_server::host::engine::Engine;
use a2a_lambda_server::host::http::{CARD_PATH, CardUrl, RouterOptions, router};
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use lambda_http::RequestExt as _;
use lambda_http::request::RequestContext;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use a2a_lambda_server::host::identity::USER_ID_HEADER;
use a2a_lambda_server::owner::Owner;

use crate::config::{Auth, Config};

/// The name of the one key `A2A_API_KEY` sets: the owner of the tasks its holders make.
pub const API_KEY_NAME: &str = "default";

/// The service the function runs: the stage prefix is removed (and the card URL noted)
/// before routing, then the router answers. Cheap to clone (the router is shared), as
/// the runtime's workers on Lambda Managed Instances each hold a copy.
pub type App = tower::util::MapRequest<Router, Prepare>;

/// What is done to each request before routing (see [`App`]).
pub type Prepare = fn(Request<lambda_http::Body>) -> Request<lambda_http::Body>;

/// The function's service for an engine, with the user's layers applied to the router in
/// order (see [`crate::Lambda::layer`]).
pub fn app(engine: Arc<Engine>, config: &Config, layers: a2a_lambda_server::layers::Layers) -> App {
    let mut app = router(
        engine,
        RouterOptions {
            max_body_bytes: config.max_body_bytes,
            // The owner comes from the event's request context (see `identify`).
            identity: None,
        },
    );
    app = layers.apply(app);
    if let Auth::ApiKey(secret) = &config.auth {
        let secret: Arc<str> = Arc::from(secret.as_str());
        let rest = config.bindings.serves(Binding::HttpJson);
        // The check sits outside the router, so it gets the router's request id and
        // tracing layers again: a refusal carries the id and is logged.
        app = app
            .layer(middleware::from_fn(
                move |request: axum::extract::Request, next: Next| {
                    let secret = Arc::clone(&secret);
                    async move { require_api_key(&secret, rest, request, next).await }
                },
            ))
            .layer(TraceLayer::new_for_http())
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid));
    }
    let prepare: Prepare = if config.public_url.is_none() {
        |request| identify(strip_stage(request, true))
    } else {
        |request| identify(strip_stage(request, false))
    };
    tower::util::MapRequest::new(app, prepare)
}

/// Records the caller's [`Owner`] in the request's extensions (what the router reads), and
/// removes a caller's claim to be an AgentCore user.
fn identify<B>(mut request: Request<B>) -> Request<B> {
    request.headers_mut().remove(USER_ID_HEADER);
    let owner = owner(&request);
    if !owner.is_anonymous() {
        request.extensions_mut().insert(owner);
    }
    request
}

/// Who the Lambda event says is calling, from what AWS filled in after it checked the
/// caller (never from a header the caller chose):
///
/// - a Function URL with `AWS_IAM` auth, or an HTTP API IAM route:
///   `requestContext.authorizer.iam.userArn` ([`Owner::iam`]: a role's sessions share it);
/// - an HTTP API JWT authorizer: `requestContext.authorizer.jwt.claims` (`iss` with `sub`,
///   else `client_id` or `azp`);
/// - a REST API Cognito user pool authorizer: `requestContext.authorizer.claims`; a REST
///   API Lambda authorizer: `requestContext.authorizer.principalId`; REST API IAM auth:
///   `requestContext.identity.userArn`;
/// - otherwise anonymous (an `A2A_AUTH=api-key` caller is then the key's owner).
///
/// Sources: AWS Lambda Developer Guide, "Invoking Lambda function URLs" (the request
/// payload's `authorizer.iam`); API Gateway Developer Guide, "Working with AWS Lambda
/// proxy integrations for HTTP APIs" (payload 2.0 `authorizer.jwt.claims`, `authorizer.iam`)
/// and "Set up Lambda proxy integrations in API Gateway" (REST `requestContext.authorizer`
/// and `requestContext.identity`).
pub fn owner<B>(request: &Request<B>) -> Owner {
    match request.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(context)) => {
            let Some(authorizer) = &context.authorizer else {
                return Owner::anonymous();
            };
            if let Some(arn) = authorizer
                .iam
                .as_ref()
                .and_then(|iam| iam.user_arn.as_deref())
            {
                return Owner::iam(arn);
            }
            authorizer
                .jwt
                .as_ref()
                .map_or_else(Owner::anonymous, |jwt| {
                    let claim = |name: &str| jwt.claims.get(name).map(String::as_str);
                    let subject = claim("sub")
                        .filter(|sub| !sub.is_empty())
                        .or_else(|| claim("client_id"))
                        .or_else(|| claim("azp"));
                    Owner::jwt(claim("iss"), subject)
                })
        }
        Some(RequestContext::ApiGatewayV1(context)) => {
            let fields = &context.authorizer.fields;
            if let Some(serde_json::Value::Object(claims)) = fields.get("claims") {
                let owner = Owner::from_claims(claims);
                if !owner.is_anonymous() {
                    return owner;
                }
            }
            if let Some(principal) = fields
                .get("principalId")
                .and_then(serde_json::Value::as_str)
            {
                return Owner::authorizer(principal);
            }
            context
                .identity
                .user_arn
                .as_deref()
                .map_or_else(Owner::anonymous, Owner::iam)
        }
        _ => Owner::anonymous(),
    }
}

/// The API Gateway stage of a request, when it names one (not `$default`).
fn stage<B>(request: &Request<B>) -> Option<String> {
    let stage = match request.request_context_ref()? {
        RequestContext::ApiGatewayV1(context) => context.stage.clone(),
        RequestContext::ApiGatewayV2(context) => context.stage.clone(),
        _ => None,
    }?;
    (!stage.is_empty() && stage != "$default").then_some(stage)
}

/// The function `cargo lambda watch` invoked, when the request is one of its local
/// Function URL events.
///
/// `cargo lambda watch` serves each function under `/lambda-url/{function}/` (and the
/// only or default one, named `_`, at `/` too) and turns a request into an HTTP API v2
/// event whose `rawPath` and `requestContext.http.path` have that prefix removed; the
/// function name is only in `requestContext.domainPrefix`, next to
/// `requestContext.domainName` `localhost` and `requestContext.http.protocol` `http`
/// (AWS sends the Function URL's host and `HTTP/1.1` there). It sends no
/// `X-Forwarded-*` headers. Sources: cargo-lambda's
/// `crates/cargo-lambda-watch/src/trigger_router.rs` (`furls_handler`), and the events
/// cargo-lambda 1.9.2 sent (`tests/fixtures/cargo_lambda_watch_*.json`); AWS's shape:
/// <https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html#urls-payloads>.
fn cargo_lambda_function<B>(request: &Request<B>) -> Option<String> {
    let RequestContext::ApiGatewayV2(context) = request.request_context_ref()? else {
        return None;
    };
    let local = context.domain_name.as_deref() == Some("localhost")
        && context.http.protocol.as_deref() == Some("http");
    local.then(|| context.domain_prefix.clone().unwrap_or_default())
}

/// Routes on the path without its stage and, when asked, records the card URL.
///
/// The path comes from lambda_http's raw path (the event's own path: REST v1 leaves the
/// stage out, HTTP API v2 keeps it) with a leading `/{stage}` removed, so `/prod/`,
/// `/prod` and `/` all reach `/`, whatever `AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH` says.
/// A `cargo lambda watch` event's path already lacks its `/lambda-url/{function}`
/// prefix, so only the card URL gets it back (see [`cargo_lambda_function`]).
fn strip_stage<B>(mut request: Request<B>, derive_url: bool) -> Request<B> {
    let stage = stage(&request);
    let raw = request.raw_http_path();
    let path = if raw.is_empty() {
        request.uri().path().to_owned()
    } else {
        raw.to_owned()
    };
    let prefix = stage
        .as_ref()
        .map(|stage| format!("/{stage}"))
        .unwrap_or_default();
    let routed = match path.strip_prefix(&prefix) {
        Some(rest) if !prefix.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            if rest.is_empty() {
                "/".to_owned()
            } else {
                rest.to_owned()
            }
        }
        _ => path,
    };
    if routed != request.uri().path() {
        let target = match request.uri().query() {
            Some(query) => format!("{routed}?{query}"),
            None => routed,
        };
        let mut parts = request.uri().clone().into_parts();
        if let Ok(path_and_query) = target.parse() {
            parts.path_and_query = Some(path_and_query);
            if let Ok(uri) = Uri::from_parts(parts) {
                *request.uri_mut() = uri;
            }
        }
    }
    if derive_url {
        let served = match cargo_lambda_function(&request) {
            Some(function) => Served {
                local: true,
                prefix: match function.as_str() {
                    // `_` is the default function, which cargo lambda watch invokes for
                    // any path outside `/lambda-url/…`: it is served at the root.
                    "" | "_" => prefix,
                    // A binary's name, as a path segment (anything else cannot name a
                    // function cargo lambda watch runs).
                    function
                        if function
                            .bytes()
                            .all(|byte| byte.is_ascii_alphanumeric() || b"-_.".contains(&byte)) =>
                    {
                        format!("{prefix}/lambda-url/{function}")
                    }
                    _ => prefix,
                },
            },
            None => Served {
                local: false,
                prefix,
            },
        };
        if let Some(url) = card_url(&request, &served) {
            request.extensions_mut().insert(CardUrl(url));
        }
    }
    request
}

/// Where the event says the function is served.
struct Served {
    /// A local emulator's plain-HTTP event (`cargo lambda watch`), not AWS's.
    local: bool,
    /// The path before the routes (`/prod`, `/lambda-url/a2a-agent`), or empty.
    prefix: String,
}

/// `scheme://host{prefix}/` for the request, when its host is known.
///
/// - **Scheme**: `X-Forwarded-Proto` (ALB, API Gateway and Function URLs send it), else
///   `http` for a local emulator's event, else `https` (every AWS HTTP front end).
/// - **Host**: `Host` (the AWS front ends route on it, so it names the URL the request
///   came to), else the host lambda_http put in the URI from the event's domain name. Only
///   a value made of host and port characters is taken, so a header cannot add a path to
///   the URL. `X-Forwarded-Host` is not read: any client can send it, and the card is
///   served with a public `Cache-Control`, so a shared cache would keep a card naming the
///   client's host of choice. Behind a proxy that rewrites the host, set `A2A_PUBLIC_URL`.
///
/// Of `X-Forwarded-Proto`'s comma-separated list, the first entry is the client's (though
/// lambda_http 1.3 itself panics on a list while it builds the request's URI).
fn card_url<B>(request: &Request<B>, served: &Served) -> Option<String> {
    let headers = request.headers();
    let first = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(',').next())
            .map(str::trim)
            .filter(|value| !value.is_empty())
    };
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .filter(|host| !host.is_empty() && is_authority(host))
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(ToString::to_string))?;
    let scheme = match first("x-forwarded-proto") {
        Some(proto) if proto.eq_ignore_ascii_case("http") => "http",
        Some(proto) if proto.eq_ignore_ascii_case("https") => "https",
        _ if served.local => "http",
        _ => "https",
    };
    Some(format!("{scheme}://{host}{}/", served.prefix))
}

/// Whether `text` can be a URL's host and port (a name, an IPv4 or bracketed IPv6
/// address, and an optional `:port`).
fn is_authority(text: &str) -> bool {
    text.bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || b".-_:[]".contains(&byte))
}

/// Lets a request with the right `X-API-Key` (or for the card or `/ping`) through, and
/// answers the others 401 with a `WWW-Authenticate` challenge (A2A specification v1.0
/// §3.3.2: reject missing credentials, name the scheme): a JSON-RPC error, or, on a route
/// of the HTTP+JSON binding when `rest` (it is served), the google.rpc.Status body that
/// binding's errors have (§11.6), `UNAUTHENTICATED` (the canonical code of HTTP 401,
/// <https://google.aip.dev/193>) with no ErrorInfo, which §11.6 asks for A2A's own error
/// types only.
async fn require_api_key(
    secret: &str,
    rest: bool,
    mut request: axum::extract::Request,
    next: Next,
) -> Response {
    let public = request.uri().path() == CARD_PATH || request.uri().path() == "/ping";
    let given = request
        .headers()
        .get(a2a_lambda_core::card::security::API_KEY_HEADER)
        .and_then(|value| value.to_str().ok());
    let valid = given.is_some_and(|given| constant_time_eq(given.as_bytes(), secret.as_bytes()));
    if valid && request.extensions().get::<Owner>().is_none() {
        // No platform identity came with the event: the key's holder owns the tasks.
        request
            .extensions_mut()
            .insert(Owner::api_key(API_KEY_NAME));
    }
    if public || valid {
        return next.run(request).await;
    }
    let rest_route =
        rest && !a2a_lambda_core::rest::routes::allowed_methods(request.uri().path()).is_empty();
    let body = if rest_route {
        r#"{"error":{"code":401,"status":"UNAUTHENTICATED","message":"Unauthorized: send a valid X-API-Key header"}}"#
    } else {
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unauthorized: send a valid X-API-Key header"}}"#
    };
    (
        StatusCode::UNAUTHORIZED,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("ApiKey header=\"X-API-Key\""),
            ),
        ],
        Body::from(body),
    )
        .into_response()
}

/// Compares without stopping at the first difference.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
