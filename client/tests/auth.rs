#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Credentials on the wire: SigV4 for `bedrock-agentcore` (the `Authorization` header's
//! shape, `X-Amz-Date`, the session token, a signature that verifies over the request as
//! received, a fresh signature for every attempt), a bearer token and an API key.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_lambda_client::sigv4::SigV4;
use a2a_lambda_client::{Auth, Client, Error};
use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use common::{echo_error, echo_result, fast_retry, header, task_v10};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const SESSION: &str = "a2a-session-returned-by-the-server-0001";

fn credentials() -> Credentials {
    Credentials::new(
        "AKIDEXAMPLE",
        SECRET,
        Some("session-token".into()),
        None,
        "test",
    )
}

fn sigv4() -> Auth {
    Auth::SigV4(SigV4::new(credentials(), "us-west-2"))
}

/// The parts of an `Authorization` header, checked against
/// `^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\d{8}/us-west-2/bedrock-agentcore/aws4_request,
/// SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`.
struct Authorization {
    date: String,
    signed_headers: Vec<String>,
    signature: String,
}

fn parse_authorization(value: &str) -> Authorization {
    let rest = value
        .strip_prefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
        .unwrap_or_else(|| panic!("algorithm and key id: {value}"));
    let (date, rest) = rest.split_at(8);
    assert!(date.bytes().all(|b| b.is_ascii_digit()), "{value}");
    let rest = rest
        .strip_prefix("/us-west-2/bedrock-agentcore/aws4_request, SignedHeaders=")
        .unwrap_or_else(|| panic!("scope: {value}"));
    let (signed, signature) = rest
        .split_once(", Signature=")
        .unwrap_or_else(|| panic!("signature: {value}"));
    assert!(
        !signed.is_empty()
            && signed
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b';' || b == b'-'),
        "{value}"
    );
    assert!(
        signature.len() == 64
            && signature
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{value}"
    );
    Authorization {
        date: date.to_owned(),
        signed_headers: signed.split(';').map(str::to_owned).collect(),
        signature: signature.to_owned(),
    }
}

/// `YYYYMMDDTHHMMSSZ` as a time.
fn parse_amz_date(value: &str) -> SystemTime {
    assert_eq!(value.len(), 16, "{value}");
    assert_eq!((&value[8..9], &value[15..]), ("T", "Z"), "{value}");
    let digits = |range: std::ops::Range<usize>| -> i64 {
        let text = &value[range];
        assert!(text.bytes().all(|b| b.is_ascii_digit()), "{value}");
        text.parse().unwrap()
    };
    let (year, month, day) = (digits(0..4), digits(4..6), digits(6..8));
    let (hour, minute, second) = (digits(9..11), digits(11..13), digits(13..15));
    assert!(
        (1..=12).contains(&month) && (1..=31).contains(&day),
        "{value}"
    );
    assert!(hour < 24 && minute < 60 && second < 61, "{value}");
    // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    UNIX_EPOCH + Duration::from_secs(u64::try_from(seconds).unwrap())
}

/// Checks a received request's SigV4 headers and recomputes its signature from the request
/// as it arrived (the signed headers, the body, the time in `X-Amz-Date`).
fn assert_signed(request: &Request) -> Authorization {
    let authorization = parse_authorization(header(request, "authorization").unwrap());
    let amz_date = header(request, "x-amz-date").expect("x-amz-date");
    let time = parse_amz_date(amz_date);
    assert_eq!(&amz_date[..8], authorization.date, "scope date");
    let age = SystemTime::now().duration_since(time).unwrap_or_default();
    assert!(age < Duration::from_secs(300), "signed {age:?} ago");
    assert_eq!(
        header(request, "x-amz-security-token"),
        Some("session-token")
    );
    for needed in [
        "host",
        "x-amz-date",
        "x-amz-security-token",
        "x-amzn-bedrock-agentcore-runtime-session-id",
    ] {
        assert!(
            authorization.signed_headers.iter().any(|h| h == needed),
            "{needed} is signed: {:?}",
            authorization.signed_headers
        );
    }

    let headers: Vec<(&str, &str)> = authorization
        .signed_headers
        .iter()
        .map(|name| {
            let value = header(request, name).unwrap_or_else(|| panic!("{name} was sent"));
            (name.as_str(), value)
        })
        .collect();
    let identity = credentials().into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region("us-west-2")
        .name("bedrock-agentcore")
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .unwrap()
        .into();
    let signable = SignableRequest::new(
        request.method.as_str(),
        request.url.as_str(),
        headers.into_iter(),
        SignableBody::Bytes(&request.body),
    )
    .unwrap();
    let (_, expected) = sign(signable, &params).unwrap().into_parts();
    assert_eq!(
        authorization.signature, expected,
        "the signature verifies over the request as received"
    );
    authorization
}

#[tokio::test]
async fn sigv4_signs_the_request_for_bedrock_agentcore() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_COMPLETED")))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri()).auth(sigv4()).build().unwrap();

    client.get_task("t-1", None).await.unwrap();

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let authorization = assert_signed(&requests[0]);
    for signed in ["content-type", "accept", "a2a-version"] {
        assert!(
            authorization.signed_headers.iter().any(|h| h == signed),
            "{signed}: {:?}",
            authorization.signed_headers
        );
    }
}

#[tokio::test]
async fn sigv4_signs_every_attempt_afresh() {
    let server = MockServer::start().await;
    // The refusal hands out a new session id: the retry carries it, so its signature
    // can only verify if the retry was signed again.
    Mock::given(method("POST"))
        .respond_with(|request: &Request| {
            echo_error(409, -32054, "Session operation in progress, please retry")(request)
                .insert_header("x-amzn-bedrock-agentcore-runtime-session-id", SESSION)
        })
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_COMPLETED")))
        .with_priority(2)
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .auth(sigv4())
        .retry(fast_retry())
        .build()
        .unwrap();

    client.get_task("t-1", None).await.unwrap();

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let first = assert_signed(&requests[0]);
    let second = assert_signed(&requests[1]);
    assert_eq!(
        header(&requests[1], "x-amzn-bedrock-agentcore-runtime-session-id"),
        Some(SESSION)
    );
    assert_ne!(first.signature, second.signature);
    assert_eq!(requests[0].body, requests[1].body);
}

#[tokio::test]
async fn sigv4_signs_the_card_request_too() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "name": "signed",
            "supportedInterfaces": [{"url": format!("{}/rpc", server.uri()),
                "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
        })))
        .mount(&server)
        .await;

    let client = Client::builder(server.uri())
        .auth(sigv4())
        .connect()
        .await
        .unwrap();

    assert_eq!(client.card().unwrap().name, "signed");
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests[0].method.as_str(), "GET");
    assert_signed(&requests[0]);
}

#[tokio::test]
async fn a_bearer_token_goes_in_authorization() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_COMPLETED")))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .auth(Auth::Bearer("t".into()))
        .build()
        .unwrap();

    client.get_task("t-1", None).await.unwrap();

    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(header(request, "authorization"), Some("Bearer t"));
    assert_eq!(header(request, "x-amz-date"), None);
}

#[tokio::test]
async fn an_api_key_goes_in_x_api_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_COMPLETED")))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .auth(Auth::api_key("k"))
        .build()
        .unwrap();

    client.get_task("t-1", None).await.unwrap();

    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(header(request, "x-api-key"), Some("k"));
    assert_eq!(header(request, "authorization"), None);
}

#[tokio::test]
async fn no_auth_sends_no_credentials() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_COMPLETED")))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri()).build().unwrap();

    client.get_task("t-1", None).await.unwrap();

    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(header(request, "authorization"), None);
    assert_eq!(header(request, "x-api-key"), None);
}

#[test]
fn credentials_that_cannot_be_headers_are_refused_at_build() {
    for auth in [
        Auth::Bearer("line\nbreak".into()),
        Auth::api_key("k\r\n"),
        Auth::ApiKey {
            header: "not a header".into(),
            key: "k".into(),
        },
    ] {
        let error = Client::builder("http://127.0.0.1:9/")
            .auth(auth)
            .build()
            .unwrap_err();
        assert!(matches!(error, Error::Config(_)), "{error:?}");
    }
}

#[test]
fn credentials_are_not_printed() {
    let printed = format!(
        "{:?} {:?} {:?}",
        Auth::Bearer("secret-token".into()),
        Auth::api_key("secret-key"),
        sigv4()
    );
    assert!(!printed.contains("secret-"), "{printed}");
    assert!(!printed.contains(SECRET), "{printed}");
    assert!(printed.contains("us-west-2"), "{printed}");
}

#[tokio::test]
async fn sigv4_signs_an_escaped_arn_path_and_a_qualifier_as_sent() {
    let server = MockServer::start().await;
    let invocations = "/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fagent-Ab12/invocations";
    let interface = format!("{}{invocations}?qualifier=DEFAULT", server.uri());
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "name": "agentcore",
            "supportedInterfaces": [
                {"url": interface, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ]
        })))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_COMPLETED")))
        .mount(&server)
        .await;
    let base = format!(
        "{}/runtimes/arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/agent-Ab12/invocations?qualifier=DEFAULT",
        server.uri()
    );

    let client = Client::builder(base).auth(sigv4()).connect().await.unwrap();
    client.get_task("t-1", None).await.unwrap();

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(
            request.url.path().starts_with(invocations),
            "{}",
            request.url
        );
        assert_eq!(request.url.query(), Some("qualifier=DEFAULT"));
        assert_signed(request);
    }
}
