//! Inbound auth through the platform front (`--auth sigv4|jwt`): what a caller sees for
//! each refusal (status, headers, exact body), that our client's SigV4 signing passes, that
//! a test issuer's tokens pass, and that the agent sees the token's caller. (A token from
//! the binary's `a2a-emulator token`: `tests/tests/front_auth.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, SystemTime};

use a2a_lambda_client::{Auth, Client, text_params};
use a2a_lambda_emulator::{TestIssuer, TokenRequest};
use a2a_test_support::TempDir;
use a2a_test_support::harness::front::post_bearer;
use a2a_test_support::harness::front::{
    self, ARN, Reply, SESSION_HEADER, invocations, rpc, send_params, session_id,
};
use a2a_test_support::harness::{Emulator, Value, json};
use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;

const ACCESS: &str = "AKIDEMULATORTEST";

const SECRET: &str = "emulator-secret-key";

const MISMATCH: &str = "Authorization method mismatch. The agent is configured for a different \
    authorization method than what was used in your request. Check the agent's authorization \
    configuration and ensure your request uses the matching method (OAuth or SigV4)";
const SIGNATURE_MISMATCH: &str = "The request signature we calculated does not match the \
    signature you provided. Check your AWS Secret Access Key and signing method. Consult the \
    service documentation for details.";

fn sigv4_emulator(extra: &[&str]) -> Emulator {
    let credentials = format!("{ACCESS}:{SECRET}");
    let mut args = vec![
        "--auth",
        "sigv4",
        "--sigv4-credentials",
        credentials.as_str(),
    ];
    args.extend(extra);
    Emulator::start(&args)
}

/// Checks AWS's 403 AccessDeniedException with `message`, not JSON-RPC.
fn assert_denied(reply: &Reply, message: &str) {
    assert_eq!(reply.status, 403, "{reply:?}");
    assert_eq!(reply.json(), json!({ "message": message }), "{reply:?}");
    let header = |name| reply.headers.get(name).and_then(|v| v.to_str().ok());
    assert_eq!(header("x-amzn-errortype"), Some("AccessDeniedException"));
    assert_eq!(header("content-type"), Some("application/json"));
    assert!(header("x-amzn-requestid").is_some(), "{reply:?}");
    assert!(header("www-authenticate").is_none(), "{reply:?}");
}

/// The SigV4 headers for a request, signed at `at` with `secret`.
fn signed_headers(
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    access: &str,
    secret: &str,
    at: SystemTime,
) -> Vec<(String, String)> {
    let identity = Credentials::new(access, secret, None, None, "test").into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region("us-east-1")
        .name("bedrock-agentcore")
        .time(at)
        .settings(SigningSettings::default())
        .build()
        .unwrap()
        .into();
    let signable = SignableRequest::new(
        "POST",
        url,
        headers.iter().copied(),
        SignableBody::Bytes(body),
    )
    .unwrap();
    let (instructions, _) = sign(signable, &params).unwrap().into_parts();
    let (added, _) = instructions.into_parts();
    added
        .into_iter()
        .map(|header| (header.name().to_owned(), header.value().to_owned()))
        .collect()
}

/// Posts `body` to the invocation path with `headers`, signed over `signed_body`.
async fn post_signed(
    emulator: &Emulator,
    headers: &[(&str, &str)],
    signed_body: &[u8],
    body: Vec<u8>,
    secret: &str,
    access: &str,
    at: SystemTime,
) -> Reply {
    let path = invocations(ARN);
    let url = emulator.url(&path);
    let host = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut to_sign = vec![
        ("host", host.as_str()),
        ("content-type", "application/json"),
    ];
    to_sign.extend(headers);
    let added = signed_headers(&url, &to_sign, signed_body, access, secret, at);
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    all.extend(
        added
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
    );
    front::post(emulator, &path, &all, body).await
}

fn message() -> Vec<u8> {
    rpc(
        &json!("r-1"),
        "message/send",
        send_params("m-auth", "hello"),
    )
}

#[tokio::test]
async fn our_clients_sigv4_signature_passes() {
    let emulator = sigv4_emulator(&[]);
    let credentials = Credentials::new(ACCESS, SECRET, None, None, "test");
    let client = Client::builder(emulator.url(&invocations(ARN)))
        .session_id(session_id("sigv4-client"))
        .auth(Auth::SigV4(a2a_lambda_client::sigv4::SigV4::new(
            credentials,
            "us-east-1",
        )))
        .connect()
        .await
        .unwrap();
    let result = client.send(&text_params("signed hello")).await.unwrap();
    assert!(format!("{result:?}").contains("signed hello"), "{result:?}");
}

#[tokio::test]
async fn every_bad_signature_is_awss_access_denied() {
    let emulator = sigv4_emulator(&[]);
    let now = SystemTime::now();
    let body = message();
    let session = session_id("sigv4-refusals");
    let with_session = [(SESSION_HEADER, session.as_str())];

    let good = post_signed(
        &emulator,
        &with_session,
        &body,
        body.clone(),
        SECRET,
        ACCESS,
        now,
    )
    .await;
    assert_eq!(good.result()["status"]["state"], "completed", "{good:?}");

    let unsigned = front::post(&emulator, &invocations(ARN), &[], body.clone()).await;
    assert_denied(&unsigned, "Missing Authentication Token");

    let wrong_secret =
        post_signed(&emulator, &[], &body, body.clone(), "not-it", ACCESS, now).await;
    assert_denied(&wrong_secret, SIGNATURE_MISMATCH);

    let unknown_key = post_signed(
        &emulator,
        &[],
        &body,
        body.clone(),
        SECRET,
        "AKIDOTHER",
        now,
    )
    .await;
    assert_denied(
        &unknown_key,
        "The security token included in the request is invalid.",
    );

    let stale = now - Duration::from_secs(16 * 60);
    let expired = post_signed(&emulator, &[], &body, body.clone(), SECRET, ACCESS, stale).await;
    assert_eq!(expired.status, 403, "{expired:?}");
    let text = expired.json()["message"].as_str().unwrap().to_owned();
    assert!(
        text.starts_with("Signature expired: ") && text.ends_with(" - 15 min.)"),
        "{text}"
    );

    let mut tampered = body.clone();
    tampered.extend(b" ");
    let tampered_body = post_signed(&emulator, &[], &body, tampered, SECRET, ACCESS, now).await;
    assert_denied(&tampered_body, SIGNATURE_MISMATCH);

    // Signed with one session id, sent with another.
    let path = invocations(ARN);
    let url = emulator.url(&path);
    let host = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let other = session_id("sigv4-other");
    let to_sign = [
        ("host", host.as_str()),
        ("content-type", "application/json"),
        (SESSION_HEADER, session.as_str()),
    ];
    let added = signed_headers(&url, &to_sign, &body, ACCESS, SECRET, now);
    let mut headers: Vec<(&str, &str)> = vec![(SESSION_HEADER, other.as_str())];
    headers.extend(added.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    let tampered_header = front::post(&emulator, &path, &headers, body.clone()).await;
    assert_denied(&tampered_header, SIGNATURE_MISMATCH);

    let bearer = front::post(&emulator, &path, &[("authorization", "Bearer a.b.c")], body).await;
    assert_denied(&bearer, MISMATCH);
}

#[tokio::test]
async fn the_access_denied_fault_is_the_unsigned_answer() {
    let emulator = Emulator::start(&["--fault", "access-denied=1"]);
    let reply = front::post(&emulator, &invocations(ARN), &[], message()).await;
    assert_denied(&reply, "Missing Authentication Token");
}

/// A key file in a directory of its own, and the emulator trusting it.
struct JwtSetup {
    emulator: Emulator,
    issuer: TestIssuer,
    _dir: TempDir,
}

fn jwt_emulator(label: &str, issuer: TestIssuer, extra: &[&str]) -> JwtSetup {
    let dir = TempDir::new(label);
    let key = dir.0.join("key.pem");
    std::fs::write(&key, issuer.private_pem()).unwrap();
    let key = key.to_string_lossy().into_owned();
    let mut args = vec!["--auth", "jwt", "--jwt-signing-key", key.as_str()];
    args.extend(extra);
    JwtSetup {
        emulator: Emulator::start(&args),
        issuer,
        _dir: dir,
    }
}

const CHECKED: [&str; 6] = [
    "--jwt-allowed-audience",
    "runtime-aud",
    "--jwt-allowed-clients",
    "client-1",
    "--jwt-allowed-scopes",
    "a2a/invoke",
];

fn good(subject: &str) -> TokenRequest {
    TokenRequest::new(subject)
        .audience("runtime-aud")
        .client_id("client-1")
        .scope("openid a2a/invoke")
}

/// Checks AgentCore's 401 for an OAuth runtime: the metadata URL, a JSON-RPC body.
fn assert_unauthorized(emulator: &Emulator, reply: &Reply, message: &str) {
    assert_eq!(reply.status, 401, "{reply:?}");
    let encoded = front::encode(ARN);
    let expected = format!(
        "Bearer resource_metadata=\"{}/runtimes/{encoded}/invocations/.well-known/oauth-protected-resource?qualifier=DEFAULT\"",
        emulator.base_url()
    );
    let challenge = reply
        .headers
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok());
    assert_eq!(challenge, Some(expected.as_str()), "{reply:?}");
    assert_eq!(
        reply.json(),
        json!({"jsonrpc": "2.0", "id": "r-1", "error": {"code": -32001, "message": message}}),
    );
}

#[tokio::test]
async fn every_bad_token_is_refused_with_agentcores_401() {
    let setup = jwt_emulator("refusals", TestIssuer::generate().unwrap(), &CHECKED);
    let (emulator, issuer) = (&setup.emulator, &setup.issuer);
    let session = session_id("jwt-refusals");
    let token = |request: TokenRequest| issuer.token(&request).unwrap();

    let ok = post_bearer(emulator, &token(good("alice")), &session, message()).await;
    assert_eq!(ok.result()["status"]["state"], "completed", "{ok:?}");

    let missing = front::post(
        emulator,
        &invocations(ARN),
        &[(SESSION_HEADER, &session)],
        message(),
    )
    .await;
    assert_unauthorized(emulator, &missing, "Missing Authentication Token");

    let mut expired = good("alice");
    expired.expires_in = -600;
    let reply = post_bearer(emulator, &token(expired), &session, message()).await;
    assert_unauthorized(emulator, &reply, "Token has expired");

    let mut early = good("alice");
    early.not_before_in = Some(600);
    let reply = post_bearer(emulator, &token(early), &session, message()).await;
    assert_unauthorized(emulator, &reply, "Token is not yet valid (nbf)");

    let reply = post_bearer(
        emulator,
        &token(good("alice").audience("other")),
        &session,
        message(),
    )
    .await;
    assert_unauthorized(
        emulator,
        &reply,
        "Claim 'aud' value mismatch with configuration.",
    );

    let reply = post_bearer(
        emulator,
        &token(good("alice").client_id("client-2")),
        &session,
        message(),
    )
    .await;
    assert_unauthorized(
        emulator,
        &reply,
        "Claim 'client_id' value mismatch with configuration.",
    );

    let reply = post_bearer(
        emulator,
        &token(good("alice").scope("openid")),
        &session,
        message(),
    )
    .await;
    assert_unauthorized(
        emulator,
        &reply,
        "Claim 'scope' value mismatch with configuration.",
    );

    // Another key's signature under this key's kid.
    let stranger = TestIssuer::generate().unwrap();
    let forged = {
        let ours = token(good("alice"));
        let theirs = stranger.token(&good("alice")).unwrap();
        let (head, _) = ours.rsplit_once('.').unwrap();
        let (_, signature) = theirs.rsplit_once('.').unwrap();
        format!("{head}.{signature}")
    };
    let reply = post_bearer(emulator, &forged, &session, message()).await;
    assert_unauthorized(emulator, &reply, "Token signature verification failed");

    let unknown = stranger.token(&good("alice")).unwrap();
    let reply = post_bearer(emulator, &unknown, &session, message()).await;
    assert_unauthorized(
        emulator,
        &reply,
        "No key of the issuer matches the token's kid",
    );

    let garbage = post_bearer(emulator, "not-a-jwt", &session, message()).await;
    assert_denied(
        &garbage,
        "OAuth authorization failed: Failed to parse token",
    );

    let sigv4 = "AWS4-HMAC-SHA256 Credential=AK/20260101/us-east-1/bedrock-agentcore/aws4_request, \
                 SignedHeaders=host;x-amz-date, Signature=00";
    let headers = [("authorization", sigv4), (SESSION_HEADER, session.as_str())];
    let reply = front::post(emulator, &invocations(ARN), &headers, message()).await;
    assert_denied(&reply, MISMATCH);
}

#[tokio::test]
async fn an_rs256_key_signs_tokens_that_pass() {
    let pem = include_str!("fixtures/rsa-test-key.pem");
    let setup = jwt_emulator("rs256", TestIssuer::from_pem(pem).unwrap(), &[]);
    assert!(format!("{:?}", setup.issuer).contains("RS256"));
    let token = setup.issuer.token(&TokenRequest::new("carol")).unwrap();
    let reply = post_bearer(&setup.emulator, &token, &session_id("rs256"), message()).await;
    assert_eq!(reply.result()["status"]["state"], "completed", "{reply:?}");
}

#[tokio::test]
async fn the_agent_sees_the_tokens_caller() {
    let setup = jwt_emulator("owner", TestIssuer::generate().unwrap(), &[]);
    let (emulator, issuer) = (&setup.emulator, &setup.issuer);
    let session = session_id("jwt-owner");
    let alice = issuer.token(&TokenRequest::new("alice")).unwrap();
    let bob = issuer.token(&TokenRequest::new("bob")).unwrap();
    let sent = post_bearer(emulator, &alice, &session, message()).await;
    let task_id = sent.result()["id"].as_str().unwrap().to_owned();
    let get = || rpc(&json!("r-1"), "tasks/get", json!({"id": task_id}));
    let mine = post_bearer(emulator, &alice, &session, get()).await;
    assert_eq!(mine.result()["id"], Value::from(task_id.as_str()));
    // The same session, another caller: the task is not theirs.
    let theirs = post_bearer(emulator, &bob, &session, get()).await;
    assert_eq!(theirs.error_code(), -32001, "{theirs:?}");
}

#[tokio::test]
async fn an_allowlist_without_authorization_hides_the_caller_from_the_agent() {
    // AgentCore passes Authorization only when the runtime's allowlist names it: the
    // front still checks the token, but the container sees no caller.
    let extra = ["--request-header-allowlist", "A2A-Version"];
    let setup = jwt_emulator("hidden", TestIssuer::generate().unwrap(), &extra);
    let (emulator, issuer) = (&setup.emulator, &setup.issuer);
    let session = session_id("jwt-hidden");
    let alice = issuer.token(&TokenRequest::new("alice")).unwrap();
    let bob = issuer.token(&TokenRequest::new("bob")).unwrap();
    let sent = post_bearer(emulator, &alice, &session, message()).await;
    let task_id = sent.result()["id"].as_str().unwrap().to_owned();
    let get = rpc(&json!("r-1"), "tasks/get", json!({"id": task_id}));
    let anyone = post_bearer(emulator, &bob, &session, get).await;
    assert_eq!(
        anyone.result()["id"],
        Value::from(task_id.as_str()),
        "{anyone:?}"
    );
}

#[tokio::test]
async fn the_protected_resource_metadata_is_served_without_a_token() {
    let setup = jwt_emulator("metadata", TestIssuer::generate().unwrap(), &CHECKED);
    let emulator = &setup.emulator;
    let encoded = front::encode(ARN);
    let path = format!(
        "/runtimes/{encoded}/invocations/.well-known/oauth-protected-resource?qualifier=DEFAULT"
    );
    let reply = front::get(emulator, &path, &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(
        reply.json(),
        json!({
            "resource": format!("{}/runtimes/{encoded}/invocations?qualifier=DEFAULT", emulator.base_url()),
            "authorization_servers": ["a2a-emulator"],
            "scopes_supported": ["a2a/invoke"],
            "bearer_methods_supported": ["header"],
        })
    );
    // The card needs a token too.
    let card = front::get(
        emulator,
        &format!("/runtimes/{encoded}/invocations/.well-known/agent-card.json"),
        &[],
    )
    .await;
    assert_eq!(card.status, 401, "{card:?}");
}

#[tokio::test]
async fn a_jwks_file_names_the_trusted_keys() {
    let issuer = TestIssuer::generate().unwrap();
    let dir = TempDir::new("jwks");
    let jwks = dir.0.join("jwks.json");
    std::fs::write(&jwks, serde_json::to_string(&issuer.jwks()).unwrap()).unwrap();
    let jwks = jwks.to_string_lossy().into_owned();
    let emulator = Emulator::start(&["--auth", "jwt", "--jwt-jwks", jwks.as_str()]);
    let token = issuer.token(&TokenRequest::new("dave")).unwrap();
    let reply = post_bearer(&emulator, &token, &session_id("jwks"), message()).await;
    assert_eq!(reply.result()["status"]["state"], "completed", "{reply:?}");
}

/// An OIDC issuer: a discovery document naming `issuer` and its JWKS.
async fn oidc(issuer: &TestIssuer, name: &str) -> wiremock::MockServer {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    let server = wiremock::MockServer::start().await;
    let document = json!({ "issuer": name, "jwks_uri": format!("{}/jwks", server.uri()) });
    Mock::given(method("GET"))
        .and(path("/.well-known/openid-configuration"))
        .respond_with(ResponseTemplate::new(200).set_body_json(document))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/jwks"))
        .respond_with(ResponseTemplate::new(200).set_body_json(issuer.jwks()))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn discovery_finds_the_issuers_keys_and_checks_its_iss() {
    let issuer = TestIssuer::generate().unwrap();
    // Our issuer's tokens say iss "a2a-emulator": a discovery document naming it passes.
    let idp = oidc(&issuer, "a2a-emulator").await;
    let discovery = format!("{}/.well-known/openid-configuration", idp.uri());
    let emulator = Emulator::start(&["--auth", "jwt", "--jwt-discovery-url", discovery.as_str()]);
    let token = issuer.token(&TokenRequest::new("frank")).unwrap();
    let reply = post_bearer(&emulator, &token, &session_id("discovery"), message()).await;
    assert_eq!(reply.result()["status"]["state"], "completed", "{reply:?}");
    let metadata = front::get(&emulator, "/.well-known/oauth-protected-resource", &[]).await;
    assert_eq!(
        metadata.json()["authorization_servers"],
        json!(["a2a-emulator"])
    );

    let other = oidc(&issuer, "https://idp.example").await;
    let discovery = format!("{}/.well-known/openid-configuration", other.uri());
    let emulator = Emulator::start(&["--auth", "jwt", "--jwt-discovery-url", discovery.as_str()]);
    let reply = post_bearer(&emulator, &token, &session_id("discovery-iss"), message()).await;
    assert_unauthorized(
        &emulator,
        &reply,
        "Claim 'iss' value mismatch with configuration.",
    );
}
