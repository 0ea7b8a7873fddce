//! Inbound auth with the real binary: a token from `a2a-emulator token` passes the JWT auth
//! of an emulator sharing its state directory. (The front's auth in-process:
//! `emulator/tests/front_auth.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::TempDir;
use a2a_test_support::harness::front::post_bearer;
use a2a_test_support::harness::front::{self, ARN, invocations, rpc, send_params, session_id};
use a2a_test_support::harness::{Emulator, json};

fn message() -> Vec<u8> {
    rpc(
        &json!("r-1"),
        "message/send",
        send_params("m-auth", "hello"),
    )
}

#[tokio::test]
async fn the_binarys_token_passes_its_jwt_auth() {
    let dir = TempDir::new("binary");
    let state = dir.0.to_string_lossy().into_owned();
    let binary = a2a_test_support::harness::binary("a2a-lambda-emulator", "a2a-emulator");
    let output = std::process::Command::new(&binary)
        .args([
            "token",
            "--sub",
            "erin",
            "--scope",
            "a2a/invoke",
            "--state-dir",
            state.as_str(),
        ])
        .env_remove("A2A_EMULATOR_STATE_DIR")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let token = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    assert_eq!(token.split('.').count(), 3, "{token}");
    let emulator = Emulator::builder()
        .args([
            "--auth",
            "jwt",
            "--jwt-allowed-scopes",
            "a2a/invoke",
            "--state-dir",
            state.as_str(),
        ])
        .process()
        .start();
    let reply = post_bearer(&emulator, &token, &session_id("binary"), message()).await;
    assert_eq!(reply.result()["status"]["state"], "completed", "{reply:?}");
    let unsigned = front::post(&emulator, &invocations(ARN), &[], message()).await;
    assert_eq!(unsigned.status, 401, "{unsigned:?}");
}
