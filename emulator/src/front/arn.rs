//! AgentCore runtime ARNs, as they appear (URL-encoded) in invocation paths.
//!
//! Format (from the `InvokeAgentRuntime` API reference):
//! `arn:aws[-partition]:bedrock-agentcore:{region}:{12-digit account}:runtime/{name}-{10 chars}`
//! where the name starts with a letter and has up to 48 letters, digits and underscores.
//! A path carries one percent-encoded as a segment ([`a2a_lambda_core::percent::encode_component`]).

/// True for a well-formed AgentCore runtime ARN.
pub fn is_runtime_arn(arn: &str) -> bool {
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    let [prefix, partition, service, region, account, resource] = parts.as_slice() else {
        return false;
    };
    let partition_ok = *partition == "aws"
        || partition
            .strip_prefix("aws-")
            .is_some_and(|rest| !rest.is_empty());
    let region_ok = !region.is_empty()
        && region
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-');
    let account_ok = account.len() == 12 && account.bytes().all(|byte| byte.is_ascii_digit());
    *prefix == "arn"
        && partition_ok
        && *service == "bedrock-agentcore"
        && region_ok
        && account_ok
        && resource.strip_prefix("runtime/").is_some_and(is_runtime_id)
}

/// `{name}-{10 alphanumerics}`, the name a letter then up to 47 letters, digits or `_`.
pub(super) fn is_runtime_id(id: &str) -> bool {
    let Some((name, suffix)) = id.rsplit_once('-') else {
        return false;
    };
    let name_ok = name.len() <= 48
        && name.starts_with(|first: char| first.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
    let suffix_ok = suffix.len() == 10 && suffix.bytes().all(|byte| byte.is_ascii_alphanumeric());
    name_ok && suffix_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_lambda_core::percent::{decode_component, encode_component};

    const ARN: &str =
        "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/my_agent-AbCdEf1234";

    #[test]
    fn well_formed_arns_are_accepted() {
        assert!(is_runtime_arn(ARN));
        assert!(is_runtime_arn(
            "arn:aws-us-gov:bedrock-agentcore:us-gov-west-1:123456789012:runtime/a-0123456789"
        ));
    }

    #[test]
    fn malformed_arns_are_refused() {
        for arn in [
            "",
            "arn:aws:bedrock:us-east-1:123456789012:runtime/my_agent-AbCdEf1234",
            "arn:aws:bedrock-agentcore:us-east-1:12345678901:runtime/my_agent-AbCdEf1234",
            "arn:aws:bedrock-agentcore:us-east-1:123456789012:agent/my_agent-AbCdEf1234",
            "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/my_agent-short",
            "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/1agent-AbCdEf1234",
            "arn:aws:bedrock-agentcore:US-EAST-1:123456789012:runtime/my_agent-AbCdEf1234",
        ] {
            assert!(!is_runtime_arn(arn), "{arn}");
        }
    }

    #[test]
    fn encoded_arns_round_trip() {
        let encoded = encode_component(ARN);
        assert_eq!(
            encoded,
            "arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fmy_agent-AbCdEf1234"
        );
        assert_eq!(decode_component(&encoded).as_deref(), Some(ARN));
    }
}
