//! The agent card: golden documents per version, security projections, validation, and
//! proof that internal settings never reach a card.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::card::{
    AgentCard, CardError, CardV0_3, CardV1_0, HybridCard, Provider, SecurityMechanism, Skill,
    validate_url,
};
use serde_json::{Value, json};

const URL: &str = "https://bedrock-agentcore.us-east-1.amazonaws.com/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fecho-abcdefghij/invocations/";

fn full_card(security: SecurityMechanism) -> AgentCard {
    let mut skill = Skill::new(
        "echo",
        "Echo",
        "Repeats the text it is sent.",
        ["echo", "test"],
    );
    skill.examples = vec!["hello".to_owned()];
    let mut card = AgentCard::new(
        "Echo Agent",
        "Echoes every message back as an artifact.",
        "1.2.0",
    )
    .with_skill(skill);
    card.provider = Some(Provider {
        organization: "a2a-lambda".to_owned(),
        url: "https://example.com".to_owned(),
    });
    card.documentation_url = Some("https://example.com/docs".to_owned());
    card.capabilities.streaming = true;
    card.security = security;
    card
}

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).expect("fixture is JSON")
}

#[test]
fn v0_3_card_matches_golden_and_round_trips() {
    let expected = fixture(include_str!("fixtures/card/v0_3_jwt.json"));
    let document = full_card(SecurityMechanism::Jwt).render_v0_3(URL);
    assert_eq!(serde_json::to_value(&document).unwrap(), expected);
    let parsed: CardV0_3 = serde_json::from_value(expected).unwrap();
    assert_eq!(parsed, document);
}

#[test]
fn v1_0_card_matches_golden_and_round_trips() {
    let expected = fixture(include_str!("fixtures/card/v1_0_api_key.json"));
    let document = full_card(SecurityMechanism::ApiKey).render_v1_0(URL);
    assert_eq!(serde_json::to_value(&document).unwrap(), expected);
    let parsed: CardV1_0 = serde_json::from_value(expected).unwrap();
    assert_eq!(parsed, document);
}

#[test]
fn hybrid_card_matches_golden_and_round_trips() {
    let expected = fixture(include_str!("fixtures/card/hybrid_jwt.json"));
    let document = full_card(SecurityMechanism::Jwt).render_hybrid(URL);
    assert_eq!(serde_json::to_value(&document).unwrap(), expected);
    let parsed: HybridCard = serde_json::from_value(expected).unwrap();
    assert_eq!(parsed, document);
}

#[test]
fn hybrid_card_reads_as_a_v0_3_card_and_as_a_v1_0_card() {
    let hybrid =
        serde_json::to_value(full_card(SecurityMechanism::None).render_hybrid(URL)).unwrap();
    let as_v0_3: CardV0_3 = serde_json::from_value(hybrid.clone()).expect("v0.3 reader");
    assert_eq!(as_v0_3.url, URL);
    assert_eq!(as_v0_3.protocol_version, "0.3.0");
    assert!(as_v0_3.capabilities.streaming);
    let as_v1_0: CardV1_0 = serde_json::from_value(hybrid).expect("v1.0 reader");
    assert_eq!(as_v1_0.supported_interfaces[0].protocol_version, "1.0");
    assert_eq!(as_v1_0.supported_interfaces[1].protocol_version, "0.3");
}

#[test]
fn the_agentcore_example_card_reads_as_v0_3() {
    let card: CardV0_3 =
        serde_json::from_str(include_str!("fixtures/card/agentcore_example.json")).unwrap();
    assert_eq!(
        card.url,
        "https://bedrock-agentcore.region.amazonaws.com/runtimes/agent-arn/invocations/"
    );
    assert_eq!(card.preferred_transport, "JSONRPC");
    assert!(card.capabilities.streaming);
}

#[test]
fn security_schemes_per_mechanism_and_version() {
    let cases = [
        (
            SecurityMechanism::Jwt,
            json!({"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}),
            json!([{"bearer": []}]),
            json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}}),
            json!([{"schemes": {"bearer": {"list": []}}}]),
        ),
        (
            SecurityMechanism::ApiKey,
            json!({"apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}),
            json!([{"apiKey": []}]),
            json!({"apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}}}),
            json!([{"schemes": {"apiKey": {"list": []}}}]),
        ),
        (
            SecurityMechanism::Mtls,
            json!({"mtls": {"type": "mutualTLS"}}),
            json!([{"mtls": []}]),
            json!({"mtls": {"mtlsSecurityScheme": {}}}),
            json!([{"schemes": {"mtls": {"list": []}}}]),
        ),
    ];
    for (mechanism, schemes_v0_3, security_v0_3, schemes_v1_0, requirements_v1_0) in cases {
        let card = full_card(mechanism);
        let old = serde_json::to_value(card.render_v0_3(URL)).unwrap();
        assert_eq!(old["securitySchemes"], schemes_v0_3, "{mechanism}");
        assert_eq!(old["security"], security_v0_3, "{mechanism}");
        let new = serde_json::to_value(card.render_v1_0(URL)).unwrap();
        assert_eq!(new["securitySchemes"], schemes_v1_0, "{mechanism}");
        assert_eq!(
            new["securityRequirements"], requirements_v1_0,
            "{mechanism}"
        );
        assert!(new.get("security").is_none(), "v1.0 has no `security`");
    }
}

#[test]
fn sigv4_and_none_publish_no_scheme() {
    for mechanism in [SecurityMechanism::Sigv4, SecurityMechanism::None] {
        let card = full_card(mechanism);
        for document in [
            serde_json::to_value(card.render_v0_3(URL)).unwrap(),
            serde_json::to_value(card.render_v1_0(URL)).unwrap(),
            serde_json::to_value(card.render_hybrid(URL)).unwrap(),
        ] {
            for member in ["securitySchemes", "security", "securityRequirements"] {
                assert!(
                    document.get(member).is_none(),
                    "{mechanism}: {member} published"
                );
            }
        }
    }
}

#[test]
fn mechanism_names_parse() {
    for (name, mechanism) in [
        ("none", SecurityMechanism::None),
        ("jwt", SecurityMechanism::Jwt),
        ("api-key", SecurityMechanism::ApiKey),
        ("MTLS", SecurityMechanism::Mtls),
        ("sigv4", SecurityMechanism::Sigv4),
    ] {
        assert_eq!(name.parse::<SecurityMechanism>().unwrap(), mechanism);
    }
    assert_eq!(
        "oauth"
            .parse::<SecurityMechanism>()
            .unwrap_err()
            .to_string(),
        "unknown security mechanism \"oauth\"; expected one of none, jwt, api-key, mtls, sigv4"
    );
}

#[test]
fn internal_settings_never_reach_any_card() {
    let mut card = full_card(SecurityMechanism::Jwt);
    card.internal.instructions = Some("CANARY-INSTRUCTIONS-7f3a".to_owned());
    card.internal.model_id = Some("CANARY-MODEL-ID-91bc".to_owned());
    card.internal.metadata.insert(
        "CANARY-META-KEY-55d1".to_owned(),
        "CANARY-META-VALUE-0e2f".to_owned(),
    );
    card.internal.environment.insert(
        "CANARY_ENV_KEY_c4d8".to_owned(),
        "CANARY-ENV-VALUE-a9b0".to_owned(),
    );
    card.validate().unwrap();
    let documents = [
        serde_json::to_string(&card.render_v0_3(URL)).unwrap(),
        serde_json::to_string(&card.render_v1_0(URL)).unwrap(),
        serde_json::to_string(&card.render_hybrid(URL)).unwrap(),
    ];
    for document in documents {
        assert!(
            !document.contains("CANARY"),
            "internal setting leaked: {document}"
        );
        assert!(document.contains("Echo Agent"), "the card was rendered");
    }
}

/// A change that breaks a valid card.
type Breaker = Box<dyn Fn(&mut AgentCard)>;

#[test]
fn validation_refuses_missing_required_fields() {
    let good = full_card(SecurityMechanism::None);
    good.validate().unwrap();
    let cases: Vec<(Breaker, &str)> = vec![
        (
            Box::new(|c| c.name.clear()),
            "agent card: `name` is required and must not be empty",
        ),
        (
            Box::new(|c| c.description = "  ".into()),
            "agent card: `description` is required and must not be empty",
        ),
        (
            Box::new(|c| c.version.clear()),
            "agent card: `version` is required and must not be empty",
        ),
        (
            Box::new(|c| c.skills.clear()),
            "agent card: `skills` must list at least one entry",
        ),
        (
            Box::new(|c| c.default_input_modes.clear()),
            "agent card: `defaultInputModes` must list at least one entry",
        ),
        (
            Box::new(|c| c.default_output_modes = vec![String::new()]),
            "agent card: `defaultOutputModes` must list at least one entry",
        ),
        (
            Box::new(|c| c.skills[0].tags.clear()),
            "agent card: skills[0] (\"echo\"): `tags` must list at least one tag",
        ),
        (
            Box::new(|c| c.skills[0].name.clear()),
            "agent card: skills[0] (\"echo\"): `name` is required",
        ),
        (
            Box::new(|c| c.skills[0].id.clear()),
            "agent card: skills[0] (\"\"): `id` is required",
        ),
        (
            Box::new(|c| {
                let s = c.skills[0].clone();
                c.skills.push(s);
            }),
            "agent card: skill id \"echo\" is used more than once",
        ),
        (
            Box::new(|c| c.documentation_url = Some("docs".into())),
            "agent card: `documentationUrl` must be an absolute http:// or https:// URL, got \"docs\"",
        ),
        (
            Box::new(|c| c.provider.as_mut().unwrap().organization.clear()),
            "agent card: `provider.organization` is required and must not be empty",
        ),
    ];
    for (break_it, message) in cases {
        let mut card = good.clone();
        break_it(&mut card);
        assert_eq!(card.validate().unwrap_err().to_string(), message);
    }
}

#[test]
fn public_urls_must_be_absolute_http() {
    assert!(validate_url("url", "http://127.0.0.1:9000/").is_ok());
    assert!(validate_url("url", URL).is_ok());
    for bad in [
        "",
        "127.0.0.1:9000",
        "ftp://x/",
        "http://",
        "http:///path",
        "http://a b/",
    ] {
        assert_eq!(
            validate_url("url", bad),
            Err(CardError::Url {
                field: "url",
                value: bad.to_owned()
            }),
            "{bad}"
        );
    }
}
