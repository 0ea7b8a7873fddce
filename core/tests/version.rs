//! Version negotiation and method resolution.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::version::{
    METHODS, negotiate, parse_version, resolve_method, version_from_query,
};
use a2a_lambda_core::{ErrorProfile, Operation, ProtocolVersion, Refusal};

fn refused_message(error: &a2a_lambda_core::Error) -> (i64, String) {
    let (status, object) = error.to_wire(ErrorProfile::Spec);
    assert_eq!(status, 200);
    (object.code, object.message)
}

#[test]
fn missing_or_empty_version_means_0_3() {
    assert_eq!(negotiate(None, None).unwrap(), ProtocolVersion::V0_3);
    assert_eq!(negotiate(Some(""), None).unwrap(), ProtocolVersion::V0_3);
    assert_eq!(
        negotiate(Some("  "), Some("")).unwrap(),
        ProtocolVersion::V0_3
    );
    assert_eq!(
        negotiate(None, Some("A2A-Version=")).unwrap(),
        ProtocolVersion::V0_3
    );
}

#[test]
fn header_then_query() {
    assert_eq!(negotiate(Some("1.0"), None).unwrap(), ProtocolVersion::V1_0);
    assert_eq!(
        negotiate(None, Some("x=1&A2A-Version=1.0")).unwrap(),
        ProtocolVersion::V1_0
    );
    assert_eq!(
        negotiate(Some("0.3"), Some("A2A-Version=1.0")).unwrap(),
        ProtocolVersion::V0_3
    );
    assert_eq!(
        negotiate(Some(""), Some("a2a-version=1.0")).unwrap(),
        ProtocolVersion::V1_0
    );
    assert_eq!(
        version_from_query("A2A-Version=1%2E0").as_deref(),
        Some("1.0")
    );
    assert_eq!(version_from_query("other=1"), None);
}

#[test]
fn patch_is_ignored() {
    assert_eq!(parse_version("1.0.1").unwrap(), ProtocolVersion::V1_0);
    assert_eq!(parse_version("0.3.0").unwrap(), ProtocolVersion::V0_3);
    assert_eq!(parse_version("1.0.0").unwrap(), ProtocolVersion::V1_0);
}

#[test]
fn unsupported_versions_are_32009() {
    for value in ["2.0", "0.2", "1.1", "1", "v1.0", "1.0.x", "1.0.0.0", "abc"] {
        let error = negotiate(Some(value), None).expect_err(value);
        assert_eq!(error.refusal(), Refusal::VersionNotSupported);
        assert_eq!(
            refused_message(&error),
            (
                -32009,
                format!(
                    "Protocol version is not supported: A2A-Version {value:?} is not supported; \
                     supported versions: 0.3, 1.0"
                )
            )
        );
    }
}

#[test]
fn v0_3_names_are_always_v0_3() {
    for requested in ProtocolVersion::ALL {
        assert_eq!(
            resolve_method("message/send", requested).unwrap(),
            (ProtocolVersion::V0_3, Operation::Send)
        );
        assert_eq!(
            resolve_method("tasks/resubscribe", requested).unwrap(),
            (ProtocolVersion::V0_3, Operation::Subscribe)
        );
    }
}

#[test]
fn v1_0_names_need_the_1_0_header() {
    assert_eq!(
        resolve_method("SendMessage", ProtocolVersion::V1_0).unwrap(),
        (ProtocolVersion::V1_0, Operation::Send)
    );
    let error = resolve_method("SendMessage", ProtocolVersion::V0_3).expect_err("needs 1.0");
    assert_eq!(
        refused_message(&error),
        (
            -32009,
            "Protocol version is not supported: SendMessage is an A2A 1.0 method; send the header \
             `A2A-Version: 1.0` (this request speaks 0.3)"
                .to_owned()
        )
    );
}

#[test]
fn unknown_methods_are_32601() {
    for method in ["tasks/list", "message/sendd", "", "sendMessage"] {
        let error = resolve_method(method, ProtocolVersion::V1_0).expect_err(method);
        assert_eq!(
            refused_message(&error),
            (
                -32601,
                format!("Method not found: no method named {method:?}")
            )
        );
    }
}

#[test]
fn every_operation_has_a_name_in_each_version_except_list() {
    for version in ProtocolVersion::ALL {
        let operations: Vec<Operation> = METHODS
            .iter()
            .filter(|(_, v, _)| *v == version)
            .map(|(_, _, operation)| *operation)
            .collect();
        let expected = if version == ProtocolVersion::V1_0 {
            11
        } else {
            10
        };
        assert_eq!(operations.len(), expected, "{version}");
        assert_eq!(
            operations.contains(&Operation::ListTasks),
            version == ProtocolVersion::V1_0
        );
    }
}
