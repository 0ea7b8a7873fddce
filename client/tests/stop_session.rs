#![allow(clippy::expect_used, clippy::unwrap_used)]
//! `Client::stop_session` on the wire: StopRuntimeSession beside the invocation URL (its
//! query kept), the session header, credentials (bearer; SigV4 signing the escaped path),
//! a `clientToken` of the API's shape, and AWS's 404 read as "no such session".

mod common;

use a2a_lambda_client::sigv4::SigV4;
use a2a_lambda_client::{Auth, Client, Error};
use aws_credential_types::Credentials;
use common::header;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ENCODED: &str =
    "arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fagent-Ab12Cd34Ef";
const SESSION: &str = "a2a-stop-session-test-0123456789-abcdef";

fn client(server: &MockServer, auth: Auth) -> Client {
    let url = format!(
        "{}/runtimes/{ENCODED}/invocations/?qualifier=DEFAULT",
        server.uri()
    );
    Client::builder(url)
        .session_id(SESSION)
        .auth(auth)
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_stop_carries_the_session_credentials_and_a_client_token() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/runtimes/{ENCODED}/stopruntimesession")))
        .respond_with(ResponseTemplate::new(200).insert_header("content-type", "application/json"))
        .expect(2)
        .mount(&server)
        .await;
    client(&server, Auth::Bearer("token-1".into()))
        .stop_session()
        .await
        .unwrap();
    let signer = SigV4::new(
        Credentials::new("AKIDEXAMPLE", "secret", None, None, "test"),
        "us-west-2",
    );
    client(&server, Auth::SigV4(signer))
        .stop_session()
        .await
        .unwrap();

    let requests = server.received_requests().await.unwrap();
    let (bearer, signed) = (&requests[0], &requests[1]);
    assert_eq!(bearer.url.query(), Some("qualifier=DEFAULT"));
    assert_eq!(header(bearer, "authorization"), Some("Bearer token-1"));
    assert!(
        header(signed, "authorization")
            .unwrap()
            .starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"),
        "{signed:?}"
    );
    let mut tokens = Vec::new();
    for request in [bearer, signed] {
        assert_eq!(
            header(request, "x-amzn-bedrock-agentcore-runtime-session-id"),
            Some(SESSION)
        );
        assert_eq!(header(request, "content-type"), Some("application/json"));
        let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        let token = body["clientToken"].as_str().unwrap().to_owned();
        assert!((33..=256).contains(&token.len()), "{token}");
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "{token}"
        );
        tokens.push(token);
    }
    assert_ne!(tokens[0], tokens[1], "a token per stop");
}

#[tokio::test]
async fn awss_not_found_is_no_such_session() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(404)
                .insert_header("content-type", "application/json")
                .insert_header("x-amzn-errortype", "ResourceNotFoundException")
                .set_body_string(format!(r#"{{"message":"Session {SESSION} not found"}}"#)),
        )
        .mount(&server)
        .await;
    let error = client(&server, Auth::None)
        .stop_session()
        .await
        .unwrap_err();
    let Error::SessionNotFound { session, url, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(session, SESSION);
    assert!(
        url.ends_with("/stopruntimesession?qualifier=DEFAULT"),
        "{url}"
    );
    assert_eq!(error.http_status(), Some(404));
    assert!(error.hint().is_some());
}

#[tokio::test]
async fn a_url_that_is_not_an_invocation_url_has_no_session_to_stop() {
    let client = Client::builder("http://127.0.0.1:9/agent/")
        .build()
        .unwrap();
    let error = client.stop_session().await.unwrap_err();
    assert!(matches!(error, Error::Unsupported { .. }), "{error:?}");
}

#[tokio::test]
async fn awss_throttling_is_retried_with_the_same_token() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("content-type", "application/json")
                .insert_header("x-amzn-errortype", "ThrottlingException")
                .set_body_string(r#"{"message":"Rate exceeded"}"#),
        )
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let url = format!("{}/runtimes/{ENCODED}/invocations/", server.uri());
    let client = Client::builder(url)
        .session_id(SESSION)
        .retry(common::fast_retry())
        .build()
        .unwrap();
    client.stop_session().await.unwrap();
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3);
    let token = |n: usize| {
        let body: serde_json::Value = serde_json::from_slice(&requests[n].body).unwrap();
        body["clientToken"].as_str().unwrap().to_owned()
    };
    assert!(
        token(0) == token(1) && token(1) == token(2),
        "one token for the retries"
    );
}
