//! The agent's configuration, from the environment, checked once at startup: a missing
//! model id or an out-of-range temperature stops the process with a message naming the
//! variable, rather than failing every request.

use std::time::Duration;

/// The variables read, with what each holds.
pub const VARIABLES: &[(&str, &str)] = &[
    (
        "BEDROCK_MODEL_ID",
        "required: the model id, inference profile id or ARN to converse with",
    ),
    (
        "BEDROCK_REGION",
        "the AWS Region of Bedrock (default: AWS_REGION, which Lambda and AgentCore set)",
    ),
    ("BEDROCK_SYSTEM_PROMPT", "the system prompt (default: none)"),
    (
        "BEDROCK_MAX_TOKENS",
        "most tokens of one answer, 1 or more (default 1024)",
    ),
    (
        "BEDROCK_TEMPERATURE",
        "sampling temperature, 0 to 1 (default: the model's)",
    ),
    (
        "BEDROCK_ENDPOINT_URL",
        "another endpoint for Bedrock Runtime (a VPC endpoint; default: the Region's)",
    ),
    (
        "BEDROCK_IDLE_TIMEOUT_SECONDS",
        "how long the answer may stall before the task fails (default 60)",
    ),
    ("CHAT_NAME", "the card's name (default \"Bedrock chat\")"),
    ("CHAT_DESCRIPTION", "the card's description"),
    (
        "CHAT_SKILLS",
        "the card's skills, a JSON array of {id, name, description, tags, examples}",
    ),
];

/// Bedrock's limits on the inference parameters: `temperature` from 0 to 1
/// (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_InferenceConfiguration.html>),
/// `maxTokens` at least 1.
const TEMPERATURE_RANGE: std::ops::RangeInclusive<f32> = 0.0..=1.0;

/// A variable that cannot be used. Values are quoted except the system prompt's, which
/// is never echoed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required variable is unset or empty.
    #[error("{name} is required: {expected}")]
    Missing {
        /// The variable.
        name: &'static str,
        /// What it must hold.
        expected: &'static str,
    },
    /// A variable holds something unusable.
    #[error("{name}={value:?} is not valid: expected {expected}")]
    Invalid {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it must hold.
        expected: &'static str,
    },
}

/// How the model is called.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// The model id, inference profile id or ARN (`modelId` of ConverseStream).
    pub model_id: String,
    /// The AWS Region.
    pub region: String,
    /// The system prompt, if any.
    pub system_prompt: Option<String>,
    /// Most tokens of one answer.
    pub max_tokens: i32,
    /// Sampling temperature, if set.
    pub temperature: Option<f32>,
    /// Another endpoint than the Region's.
    pub endpoint_url: Option<String>,
}

/// One skill of the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillSettings {
    /// Unique id.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords (at least one).
    pub tags: Vec<String>,
    /// Example prompts.
    pub examples: Vec<String>,
}

/// What the card says about the agent: nothing of the model or its prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardSettings {
    /// The agent's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its skills.
    pub skills: Vec<SkillSettings>,
}

impl Default for CardSettings {
    fn default() -> Self {
        Self {
            name: "Bedrock chat".to_owned(),
            description: "Chats with you: answers as it writes and remembers the conversation."
                .to_owned(),
            skills: vec![SkillSettings {
                id: "chat".to_owned(),
                name: "Chat".to_owned(),
                description: "Answers your messages, keeping the earlier turns in mind.".to_owned(),
                tags: vec!["chat".to_owned()],
                examples: Vec::new(),
            }],
        }
    }
}

/// Everything the agent is configured with.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatConfig {
    /// How the model is called.
    pub model: ModelSettings,
    /// What the card says.
    pub card: CardSettings,
    /// How long the answer may stall (no event from the model) before the task fails.
    pub idle_timeout: Duration,
}

impl ChatConfig {
    /// Reads the process environment ([`VARIABLES`]).
    ///
    /// # Errors
    /// [`ConfigError`] for the first variable that is missing or unusable.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `lookup`; empty values count as unset.
    ///
    /// ```
    /// use bedrock_chat::config::ChatConfig;
    ///
    /// let config = ChatConfig::from_lookup(|name| match name {
    ///     "BEDROCK_MODEL_ID" => Some("amazon.nova-micro-v1:0".to_owned()),
    ///     "AWS_REGION" => Some("us-east-1".to_owned()),
    ///     _ => None,
    /// })
    /// .unwrap();
    /// assert_eq!(config.model.max_tokens, 1024);
    /// let error = ChatConfig::from_lookup(|_| None).unwrap_err();
    /// assert!(error.to_string().starts_with("BEDROCK_MODEL_ID is required"));
    /// ```
    ///
    /// # Errors
    /// [`ConfigError`] for the first variable that is missing or unusable.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| {
            lookup(name)
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
        };
        let invalid =
            |name: &'static str, value: &str, expected: &'static str| ConfigError::Invalid {
                name,
                value: value.to_owned(),
                expected,
            };

        let model_id = get("BEDROCK_MODEL_ID").ok_or(ConfigError::Missing {
            name: "BEDROCK_MODEL_ID",
            expected: "a model id (amazon.nova-micro-v1:0), inference profile id or ARN",
        })?;
        if model_id.len() > 2048 || model_id.contains(char::is_whitespace) {
            return Err(invalid(
                "BEDROCK_MODEL_ID",
                &model_id,
                "a model id, inference profile id or ARN (no spaces, at most 2048 characters)",
            ));
        }
        let (region_name, region) = match get("BEDROCK_REGION") {
            Some(region) => ("BEDROCK_REGION", region),
            None => (
                "AWS_REGION",
                get("AWS_REGION").ok_or(ConfigError::Missing {
                    name: "BEDROCK_REGION",
                    expected: "an AWS Region such as us-east-1 (or set AWS_REGION)",
                })?,
            ),
        };
        let region_shape = region
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && region.contains('-');
        if !region_shape {
            return Err(invalid(
                region_name,
                &region,
                "an AWS Region such as us-east-1",
            ));
        }
        let max_tokens = match get("BEDROCK_MAX_TOKENS") {
            None => 1024,
            Some(value) => value
                .parse::<i32>()
                .ok()
                .filter(|tokens| *tokens >= 1)
                .ok_or_else(|| {
                    invalid("BEDROCK_MAX_TOKENS", &value, "a whole number, 1 or more")
                })?,
        };
        let temperature = match get("BEDROCK_TEMPERATURE") {
            None => None,
            Some(value) => Some(
                value
                    .parse::<f32>()
                    .ok()
                    .filter(|temperature| TEMPERATURE_RANGE.contains(temperature))
                    .ok_or_else(|| {
                        invalid("BEDROCK_TEMPERATURE", &value, "a number from 0 to 1")
                    })?,
            ),
        };
        let endpoint_url = get("BEDROCK_ENDPOINT_URL");
        if let Some(url) = &endpoint_url
            && !(url.starts_with("https://") || url.starts_with("http://"))
        {
            return Err(invalid(
                "BEDROCK_ENDPOINT_URL",
                url,
                "an http:// or https:// URL",
            ));
        }
        let idle_timeout = match get("BEDROCK_IDLE_TIMEOUT_SECONDS") {
            None => Duration::from_secs(60),
            Some(value) => value
                .parse::<u64>()
                .ok()
                .filter(|seconds| *seconds >= 1)
                .map(Duration::from_secs)
                .ok_or_else(|| {
                    invalid(
                        "BEDROCK_IDLE_TIMEOUT_SECONDS",
                        &value,
                        "whole seconds, 1 or more",
                    )
                })?,
        };

        let defaults = CardSettings::default();
        let skills = match get("CHAT_SKILLS") {
            None => defaults.skills,
            Some(value) => skills(&value)
                .filter(|skills| !skills.is_empty())
                .ok_or_else(|| {
                    invalid(
                        "CHAT_SKILLS",
                        &value,
                        "a non-empty JSON array of {\"id\", \"name\", \"description\", \
                         \"tags\": [...], \"examples\": [...]}",
                    )
                })?,
        };
        let card = CardSettings {
            name: get("CHAT_NAME").unwrap_or(defaults.name),
            description: get("CHAT_DESCRIPTION").unwrap_or(defaults.description),
            skills,
        };

        Ok(Self {
            model: ModelSettings {
                model_id,
                region,
                system_prompt: get("BEDROCK_SYSTEM_PROMPT"),
                max_tokens,
                temperature,
                endpoint_url,
            },
            card,
            idle_timeout,
        })
    }
}

/// The skills of `CHAT_SKILLS`: a JSON array of objects with `id`, `name`, `description`,
/// `tags` (strings) and optionally `examples` (strings), no other key. Read from the JSON
/// value rather than by a derived deserializer: a few kilobytes less in the Lambda binary.
fn skills(value: &str) -> Option<Vec<SkillSettings>> {
    let serde_json::Value::Array(items) = serde_json::from_str(value).ok()? else {
        return None;
    };
    items.iter().map(skill).collect()
}

fn skill(item: &serde_json::Value) -> Option<SkillSettings> {
    const KEYS: [&str; 5] = ["id", "name", "description", "tags", "examples"];
    let object = item.as_object()?;
    if object.keys().any(|key| !KEYS.contains(&key.as_str())) {
        return None;
    }
    let text = |key: &str| object.get(key)?.as_str().map(str::to_owned);
    let texts = |list: &serde_json::Value| -> Option<Vec<String>> {
        list.as_array()?
            .iter()
            .map(|entry| entry.as_str().map(str::to_owned))
            .collect()
    };
    Some(SkillSettings {
        id: text("id")?,
        name: text("name")?,
        description: text("description")?,
        tags: texts(object.get("tags")?)?,
        examples: match object.get("examples") {
            None => Vec::new(),
            Some(list) => texts(list)?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(variables: &[(&str, &str)]) -> Result<ChatConfig, String> {
        ChatConfig::from_lookup(|name| {
            variables
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
        .map_err(|error| error.to_string())
    }

    #[test]
    fn each_unusable_variable_is_named_with_what_it_must_hold() {
        let base = [("BEDROCK_MODEL_ID", "m.x"), ("AWS_REGION", "us-east-1")];
        let with = |extra: (&'static str, &'static str)| {
            let mut variables = base.to_vec();
            variables.insert(0, extra);
            read(&variables).unwrap_err()
        };
        assert_eq!(
            read(&[("BEDROCK_MODEL_ID", "m.x")]).unwrap_err(),
            "BEDROCK_REGION is required: an AWS Region such as us-east-1 (or set AWS_REGION)"
        );
        assert_eq!(
            with(("BEDROCK_TEMPERATURE", "1.5")),
            "BEDROCK_TEMPERATURE=\"1.5\" is not valid: expected a number from 0 to 1"
        );
        assert_eq!(
            with(("BEDROCK_MAX_TOKENS", "0")),
            "BEDROCK_MAX_TOKENS=\"0\" is not valid: expected a whole number, 1 or more"
        );
        assert_eq!(
            with(("BEDROCK_REGION", "US East")),
            "BEDROCK_REGION=\"US East\" is not valid: expected an AWS Region such as us-east-1"
        );
        assert!(with(("CHAT_SKILLS", "[]")).starts_with("CHAT_SKILLS=\"[]\" is not valid"));
        let unknown_key =
            r#"[{"id": "a", "name": "A", "description": "d", "tags": ["t"], "x": 1}]"#;
        assert!(with(("CHAT_SKILLS", unknown_key)).starts_with("CHAT_SKILLS="));
        assert!(with(("BEDROCK_ENDPOINT_URL", "localhost:1")).starts_with("BEDROCK_ENDPOINT_URL="));
    }

    #[test]
    fn settings_are_read_and_the_region_falls_back_to_aws_region() {
        let config = read(&[
            ("BEDROCK_MODEL_ID", " amazon.nova-micro-v1:0 "),
            ("AWS_REGION", "eu-west-3"),
            ("BEDROCK_SYSTEM_PROMPT", "Be brief."),
            ("BEDROCK_MAX_TOKENS", "300"),
            ("BEDROCK_TEMPERATURE", "0.25"),
            ("BEDROCK_IDLE_TIMEOUT_SECONDS", "5"),
        ])
        .unwrap();
        assert_eq!(
            config.model,
            ModelSettings {
                model_id: "amazon.nova-micro-v1:0".to_owned(),
                region: "eu-west-3".to_owned(),
                system_prompt: Some("Be brief.".to_owned()),
                max_tokens: 300,
                temperature: Some(0.25),
                endpoint_url: None,
            }
        );
        assert_eq!(config.idle_timeout, Duration::from_secs(5));
        assert_eq!(config.card, CardSettings::default());
    }
}
