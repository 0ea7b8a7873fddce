//! The two error tables and the mapping of refusals to them.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::error::{AGENTCORE_TABLE, SPEC_TABLE};
use a2a_lambda_core::{Error, ErrorCode, ErrorProfile, Refusal};
use serde_json::json;

const A2A_REFUSALS: [(Refusal, i64); 14] = [
    (Refusal::Parse, -32700),
    (Refusal::InvalidRequest, -32600),
    (Refusal::MethodNotFound, -32601),
    (Refusal::InvalidParams, -32602),
    (Refusal::Internal, -32603),
    (Refusal::TaskNotFound, -32001),
    (Refusal::TaskNotCancelable, -32002),
    (Refusal::PushNotSupported, -32003),
    (Refusal::UnsupportedOperation, -32004),
    (Refusal::ContentTypeNotSupported, -32005),
    (Refusal::InvalidAgentResponse, -32006),
    (Refusal::ExtendedCardNotConfigured, -32007),
    (Refusal::ExtensionSupportRequired, -32008),
    (Refusal::VersionNotSupported, -32009),
];

#[test]
fn spec_table_is_http_200_for_every_code() {
    assert!(SPEC_TABLE.iter().all(|row| row.http_status == 200));
    for (refusal, code) in A2A_REFUSALS {
        let row = ErrorProfile::Spec.row(refusal);
        assert_eq!(
            (row.code.code(), row.http_status.as_u16()),
            (code, 200),
            "{refusal:?}"
        );
    }
}

#[test]
fn agentcore_table_matches_aws() {
    let rows: Vec<(i64, &str, u16, &str)> = AGENTCORE_TABLE
        .iter()
        .map(|row| {
            (
                row.code.code(),
                row.name,
                row.http_status.as_u16(),
                row.message,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                -32051,
                "ResourceNotFoundException",
                404,
                "Resource not found - Requested resource does not exist"
            ),
            (
                -32052,
                "ValidationException",
                400,
                "Validation error - Invalid request data"
            ),
            (
                -32053,
                "ThrottlingException",
                429,
                "Rate limit exceeded - Too many requests"
            ),
            (
                -32054,
                "ConflictException",
                409,
                "Resource conflict - Resource already exists"
            ),
            (
                -32054,
                "RetryableConflictException",
                409,
                "Session operation in progress, please retry"
            ),
            (
                -32055,
                "RuntimeClientError",
                424,
                "Runtime client error - Please check your CloudWatch logs for more information"
            ),
            (
                -32603,
                "InternalServerException",
                500,
                "Internal error - An unexpected error occurred while processing the request"
            ),
        ]
    );
}

#[test]
fn platform_refusals_use_the_agentcore_row_in_both_profiles() {
    for profile in [ErrorProfile::Spec, ErrorProfile::AgentCore] {
        let cases = [
            (Refusal::UnknownRoute, 404, -32051),
            (Refusal::PlatformValidation, 400, -32052),
            (Refusal::Throttled, 429, -32053),
            (Refusal::Conflict, 409, -32054),
            (Refusal::SessionBusy, 409, -32054),
            (Refusal::RuntimeUnavailable, 424, -32055),
        ];
        for (refusal, status, code) in cases {
            let row = profile.row(refusal);
            assert_eq!(
                (row.http_status.as_u16(), row.code.code()),
                (status, code),
                "{refusal:?}"
            );
        }
    }
    assert_eq!(
        ErrorProfile::Spec.row(Refusal::SessionBusy).message,
        "Session operation in progress, please retry"
    );
}

#[test]
fn agentcore_profile_maps_every_a2a_refusal_to_a_non_2xx_row() {
    let expected = [
        (Refusal::Parse, 400, -32052),
        (Refusal::InvalidRequest, 400, -32052),
        (Refusal::MethodNotFound, 404, -32051),
        (Refusal::InvalidParams, 400, -32052),
        (Refusal::Internal, 500, -32603),
        (Refusal::TaskNotFound, 404, -32051),
        (Refusal::TaskNotCancelable, 409, -32054),
        (Refusal::PushNotSupported, 400, -32052),
        (Refusal::UnsupportedOperation, 400, -32052),
        (Refusal::ContentTypeNotSupported, 400, -32052),
        (Refusal::InvalidAgentResponse, 424, -32055),
        (Refusal::ExtendedCardNotConfigured, 400, -32052),
        (Refusal::ExtensionSupportRequired, 400, -32052),
        (Refusal::VersionNotSupported, 400, -32052),
    ];
    for (refusal, status, code) in expected {
        let row = ErrorProfile::AgentCore.row(refusal);
        assert_eq!(
            (row.http_status.as_u16(), row.code.code()),
            (status, code),
            "{refusal:?}"
        );
    }
    assert_eq!(
        ErrorProfile::AgentCore.row(Refusal::TaskNotCancelable).name,
        "ConflictException",
        "a task in the wrong state is not worth retrying"
    );
}

#[test]
fn codes_round_trip_and_unknown_codes_stay_open() {
    for (_, code) in A2A_REFUSALS {
        assert_eq!(ErrorCode::from_code(code).code(), code);
        assert!(!matches!(ErrorCode::from_code(code), ErrorCode::Other(_)));
    }
    for code in [-32051, -32052, -32053, -32054, -32055] {
        assert_eq!(ErrorCode::from_code(code).code(), code);
    }
    assert_eq!(ErrorCode::from_code(-32501), ErrorCode::Other(-32501));
    assert_eq!(ErrorCode::Other(-32501).code(), -32501);
    assert_eq!(
        ErrorCode::TaskNotFound.to_string(),
        "TaskNotFoundError (-32001)"
    );
}

#[test]
fn task_not_found_matches_the_spec_example_shape() {
    let error = Error::new(Refusal::TaskNotFound, "no task with id nonexistent-task-id")
        .with_metadata("taskId", "nonexistent-task-id");
    let (status, object) = error.to_wire(ErrorProfile::Spec);
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::to_value(object).unwrap(),
        json!({
            "code": -32001,
            "message": "Task not found: no task with id nonexistent-task-id",
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
                "metadata": {"detail": "no task with id nonexistent-task-id", "taskId": "nonexistent-task-id"}
            }]
        })
    );
}

#[test]
fn internal_errors_can_be_bare() {
    let (status, object) = Error::bare(Refusal::Internal).to_wire(ErrorProfile::Spec);
    assert_eq!(status, 200);
    assert_eq!(object.message, "Internal error");
    let (status, object) = Error::bare(Refusal::Internal).to_wire(ErrorProfile::AgentCore);
    assert_eq!(status, 500);
    assert_eq!(object.data, None);
}
