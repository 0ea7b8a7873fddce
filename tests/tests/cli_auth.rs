#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a` CLI against an emulator with inbound auth: a 401 names the runtime's
//! OAuth metadata and says a token is needed, a 403 AccessDenied says SigV4 credentials, and
//! a token from the emulator's issuer passes with `--bearer`.

use a2a_lambda_emulator::{TestIssuer, TokenRequest};
use a2a_test_support::harness::Emulator;
use a2a_test_support::harness::cli::a2a;
use a2a_test_support::harness::front::{encode, invocations};

const ARN: &str = "arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/cli_auth-Ab12Cd34Ef";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_401_names_the_oauth_metadata_and_a_token_passes() {
    let issuer = TestIssuer::generate().unwrap();
    let dir = std::env::temp_dir().join(format!("a2a-cli-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("key.pem");
    std::fs::write(&key, issuer.private_pem()).unwrap();
    let key = key.to_string_lossy().into_owned();
    let emulator = Emulator::start(&["--auth", "jwt", "--jwt-signing-key", key.as_str()]);
    let url = emulator.url(&invocations(ARN));

    let refused = a2a(&["send", &url, "hello"]);
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    let stderr = text(&refused.stderr);
    let metadata = format!(
        "{}/runtimes/{}/invocations/.well-known/oauth-protected-resource?qualifier=DEFAULT",
        emulator.base_url(),
        encode(ARN)
    );
    assert!(stderr.contains("error: unauthorized by "), "{stderr}");
    assert!(stderr.contains("Missing Authentication Token"), "{stderr}");
    assert!(
        stderr.contains(&format!("(OAuth metadata: {metadata})")),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: a bearer token is needed"),
        "{stderr}"
    );

    let token = issuer.token(&TokenRequest::new("cli-user")).unwrap();
    let passed = a2a(&["send", &url, "hello with a token", "--bearer", &token]);
    assert_eq!(passed.status.code(), Some(0), "{passed:?}");
    assert!(
        text(&passed.stdout).contains("hello with a token"),
        "{passed:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_403_access_denied_says_sigv4_credentials() {
    let emulator = Emulator::start(&["--auth", "sigv4", "--sigv4-credentials", "AKIDCLI:secret"]);
    let url = emulator.url(&invocations(ARN));
    let refused = a2a(&["send", &url, "hello"]);
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("error: access denied by ")
            && stderr.contains(": Missing Authentication Token"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: check the SigV4 credentials"),
        "{stderr}"
    );
}
