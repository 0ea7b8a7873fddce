//! Finding an agent's card and choosing the interface to talk to.
//!
//! The card lives at `.well-known/agent-card.json` *relative to* the base URL, which is
//! read as a directory: `…/runtimes/{arn}/invocations/` and `…/invocations` both give
//! `…/invocations/.well-known/agent-card.json`. An ARN written into the URL unescaped is
//! escaped (AgentCore wants `arn%3Aaws%3A…%2Fname`). The base's query (`?qualifier=…`)
//! is kept.
//!
//! Cards of v0.3 (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`),
//! v1.0 (`supportedInterfaces[]` with `protocolBinding` and `protocolVersion`) and hybrids
//! of both are read.
//!
//! **Which interface.** As the official SDK clients choose (a2a-sdk `ClientFactory`,
//! @a2a-js/sdk `ClientFactory`): the card's interfaces are walked in the card's order —
//! the server's preference (A2A specification v1.0 §8.2, `supportedInterfaces`: "the
//! first entry … is the preferred interface") — and the first whose binding this client
//! speaks (JSON-RPC in 1.0 or 0.3, HTTP+JSON in 1.0) fixes the binding; within it, the 1.0
//! interface is preferred, then 0.3. A binding or version asked for narrows the walk.

use a2a_lambda_core::ProtocolVersion;
use a2a_lambda_core::card::Binding;
use serde::Deserialize;
use serde_json::Value;
use url::Url;

use crate::error::Error;

/// Where the card is, relative to the base (the server's path without its leading `/`).
pub fn card_path() -> &'static str {
    a2a_lambda_core::card::CARD_PATH.trim_start_matches('/')
}

/// An agent card as this client fetched it: what the client needs of it, with the card's
/// JSON kept whole (the card an agent is configured with is `a2a_lambda_core::card::AgentCard`).
#[derive(Debug, Clone, PartialEq)]
pub struct FetchedCard {
    /// Where it was read from.
    pub url: Url,
    /// The card as served.
    pub json: Value,
    /// Its `name`.
    pub name: String,
    /// Every interface the card declares, in the card's order.
    pub interfaces: Vec<Interface>,
    /// `capabilities.streaming`.
    pub streaming: bool,
    /// `capabilities.pushNotifications`.
    pub push_notifications: bool,
}

/// One interface a card declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// The endpoint.
    pub url: Url,
    /// The protocol binding (`JSONRPC`, `GRPC`, `HTTP+JSON`).
    pub binding: String,
    /// The protocol version as written (`0.3.0`, `1.0`).
    pub protocol_version: String,
}

impl Interface {
    /// The version this client speaks for it, if any.
    pub fn version(&self) -> Option<ProtocolVersion> {
        version_of(&self.protocol_version)
    }

    /// True for the JSON-RPC binding.
    pub fn is_jsonrpc(&self) -> bool {
        self.binding.eq_ignore_ascii_case("JSONRPC")
    }

    /// The binding, when it is one this client speaks (`JSONRPC`, `HTTP+JSON`; the names
    /// are compared without case).
    pub fn binding_kind(&self) -> Option<Binding> {
        SPOKEN
            .iter()
            .copied()
            .find(|known| self.binding.eq_ignore_ascii_case(known.card_name()))
    }

    /// True when this client can speak to it: JSON-RPC in 0.3 or 1.0, HTTP+JSON in 1.0
    /// (the binding's v0.3 form is not spoken).
    fn spoken(&self, binding: Binding, version: ProtocolVersion) -> bool {
        self.binding_kind() == Some(binding)
            && self.version() == Some(version)
            && versions_of(binding).contains(&version)
    }
}

/// The bindings this client speaks: gRPC too with the `grpc` feature.
#[cfg(feature = "grpc")]
const SPOKEN: &[Binding] = &[Binding::JsonRpc, Binding::HttpJson, Binding::Grpc];
#[cfg(not(feature = "grpc"))]
const SPOKEN: &[Binding] = &[Binding::JsonRpc, Binding::HttpJson];

/// The versions this client speaks a binding in, preferred first.
fn versions_of(binding: Binding) -> &'static [ProtocolVersion] {
    match binding {
        Binding::HttpJson | Binding::Grpc => &[ProtocolVersion::V1_0],
        _ => &[ProtocolVersion::V1_0, ProtocolVersion::V0_3],
    }
}

/// The chosen interface: where requests go, which binding and version to speak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Where JSON-RPC requests are posted; the base the HTTP+JSON routes are under.
    pub url: Url,
    /// The version spoken.
    pub version: ProtocolVersion,
    /// The binding spoken.
    pub binding: Binding,
}

/// The card's URL for a base URL (or the card URL itself, if given one).
///
/// # Errors
/// [`Error::Config`] for a URL that is not absolute http(s).
pub fn card_url(base: &str) -> Result<Url, Error> {
    let base = parse_base(base)?;
    if base.path().ends_with(a2a_lambda_core::card::CARD_PATH) {
        return Ok(base);
    }
    let mut directory = base.clone();
    if !directory.path().ends_with('/') {
        let path = format!("{}/", directory.path());
        directory.set_path(&path);
    }
    let mut url = directory
        .join(card_path())
        .map_err(|error| Error::Config(format!("{base}: {error}")))?;
    url.set_query(base.query());
    Ok(url)
}

/// Parses a base URL, escaping an AgentCore runtime ARN written into it unescaped.
///
/// # Errors
/// [`Error::Config`] for a URL that is not absolute http(s).
pub fn parse_base(base: &str) -> Result<Url, Error> {
    let escaped = escape_runtime_arn(base);
    let url = Url::parse(&escaped).map_err(|error| {
        Error::Config(format!(
            "{base:?} is not a URL ({error}); give the agent's base URL, e.g. http://127.0.0.1:9000/"
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::Config(format!(
            "{base:?}: only http and https URLs can be called"
        )));
    }
    Ok(url)
}

/// `…/runtimes/arn:aws:bedrock-agentcore:…:runtime/name/invocations…` → the ARN escaped
/// as one path segment. Anything else is returned as it is.
fn escape_runtime_arn(base: &str) -> String {
    let Some(start) = base.find("/runtimes/arn:") else {
        return base.to_owned();
    };
    let arn_start = start + "/runtimes/".len();
    // The ARN runs to `/invocations` as a whole segment (a runtime may be named
    // `invocationsBot`), else to the query, fragment or a trailing slash.
    let rest = &base[arn_start..];
    let stop = rest.find(['?', '#']).unwrap_or(rest.len());
    let path = &rest[..stop];
    let invocations = path
        .match_indices("/invocations")
        .map(|(at, _)| at)
        .find(|&at| {
            matches!(
                path[at + "/invocations".len()..].chars().next(),
                None | Some('/')
            )
        });
    let arn_end = arn_start + invocations.unwrap_or_else(|| path.trim_end_matches('/').len());
    let arn = &base[arn_start..arn_end];
    let escaped: String = arn
        .chars()
        .map(|c| match c {
            ':' => "%3A".to_owned(),
            '/' => "%2F".to_owned(),
            other => other.to_string(),
        })
        .collect();
    format!("{}{escaped}{}", &base[..arn_start], &base[arn_end..])
}

/// The members of either card version this client reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CardFields {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    protocol_version: Option<String>,
    #[serde(default)]
    preferred_transport: Option<String>,
    #[serde(default)]
    additional_interfaces: Vec<V03Interface>,
    #[serde(default)]
    supported_interfaces: Vec<V10Interface>,
    #[serde(default)]
    capabilities: Capabilities,
}

#[derive(Deserialize)]
struct V03Interface {
    url: String,
    transport: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct V10Interface {
    url: String,
    protocol_binding: String,
    #[serde(default)]
    protocol_version: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Capabilities {
    #[serde(default)]
    streaming: Option<bool>,
    #[serde(default)]
    push_notifications: Option<bool>,
}

impl FetchedCard {
    /// Reads a card served at `url`.
    ///
    /// # Errors
    /// [`Error::Card`] when the body is not a JSON object with at least one interface.
    pub fn parse(url: Url, body: &[u8]) -> Result<Self, Error> {
        let card_error = |detail: String| Error::Card {
            url: url.to_string(),
            detail,
        };
        let json: Value = serde_json::from_slice(body)
            .map_err(|error| card_error(format!("not JSON: {error}")))?;
        if !json.is_object() {
            return Err(card_error("not a JSON object".to_owned()));
        }
        let fields: CardFields = serde_json::from_value(json.clone())
            .map_err(|error| card_error(format!("unreadable: {error}")))?;
        let mut interfaces = Vec::new();
        for declared in &fields.supported_interfaces {
            interfaces.push(Interface {
                url: resolve(&url, &declared.url, &declared.protocol_binding)
                    .map_err(&card_error)?,
                binding: declared.protocol_binding.clone(),
                protocol_version: declared
                    .protocol_version
                    .clone()
                    .unwrap_or_else(|| "1.0".to_owned()),
            });
        }
        let card_version = fields
            .protocol_version
            .clone()
            .unwrap_or_else(|| "0.3.0".to_owned());
        if let Some(main) = &fields.url {
            let binding = fields
                .preferred_transport
                .clone()
                .unwrap_or_else(|| "JSONRPC".to_owned());
            interfaces.push(Interface {
                url: resolve(&url, main, &binding).map_err(&card_error)?,
                binding,
                protocol_version: card_version.clone(),
            });
        }
        for declared in &fields.additional_interfaces {
            interfaces.push(Interface {
                url: resolve(&url, &declared.url, &declared.transport).map_err(&card_error)?,
                binding: declared.transport.clone(),
                protocol_version: card_version.clone(),
            });
        }
        // Hybrid cards often declare one interface twice (in supportedInterfaces and as the
        // v0.3 url): keep the first.
        let mut unique: Vec<Interface> = Vec::with_capacity(interfaces.len());
        for interface in interfaces {
            let seen = unique.iter().any(|kept| {
                kept.url == interface.url
                    && kept.binding.eq_ignore_ascii_case(&interface.binding)
                    && kept.version() == interface.version()
                    && kept.version().is_some()
            });
            if !seen {
                unique.push(interface);
            }
        }
        let interfaces = unique;
        if interfaces.is_empty() {
            return Err(card_error(
                "declares no interface (neither supportedInterfaces nor url)".to_owned(),
            ));
        }
        Ok(Self {
            name: fields.name.unwrap_or_default(),
            streaming: fields.capabilities.streaming.unwrap_or(false),
            push_notifications: fields.capabilities.push_notifications.unwrap_or(false),
            interfaces,
            url,
            json,
        })
    }

    /// The interface to use (see the module's doc): in `wanted` and `binding` if given;
    /// else the binding of the first interface spoken, in 1.0 if declared, else 0.3 —
    /// JSON-RPC or HTTP+JSON, gRPC (feature `grpc`) only when the card offers neither.
    ///
    /// # Errors
    /// [`Error::Card`] naming what the card offers when nothing fits.
    pub fn select(
        &self,
        wanted: Option<ProtocolVersion>,
        binding: Option<Binding>,
    ) -> Result<Endpoint, Error> {
        let Some(binding) = binding else {
            let chosen = self.select_among(wanted, &[Binding::JsonRpc, Binding::HttpJson]);
            // gRPC (on a port of its own, which a balancer for HTTP may not pass) only
            // when the card offers nothing else this client speaks.
            #[cfg(feature = "grpc")]
            if chosen.is_err()
                && let Ok(endpoint) = self.select_among(wanted, &[Binding::Grpc])
            {
                return Ok(endpoint);
            }
            return chosen;
        };
        self.select_among(wanted, &[binding])
    }

    fn select_among(
        &self,
        wanted: Option<ProtocolVersion>,
        bindings: &[Binding],
    ) -> Result<Endpoint, Error> {
        let versions = |binding: Binding| -> Vec<ProtocolVersion> {
            match wanted {
                Some(version) => vec![version],
                None => versions_of(binding).to_vec(),
            }
        };
        // The first interface spoken, in the card's order, fixes the binding.
        let first = self.interfaces.iter().find_map(|interface| {
            bindings.iter().copied().find(|binding| {
                versions(*binding)
                    .iter()
                    .any(|version| interface.spoken(*binding, *version))
            })
        });
        if let Some(binding) = first {
            for version in versions(binding) {
                let found = self
                    .interfaces
                    .iter()
                    .find(|interface| interface.spoken(binding, version));
                if let Some(interface) = found {
                    return Ok(Endpoint {
                        url: interface.url.clone(),
                        version,
                        binding,
                    });
                }
            }
        }
        let offered: Vec<String> = self
            .interfaces
            .iter()
            .map(|interface| format!("{} {}", interface.binding, interface.protocol_version))
            .collect();
        let wanted: Vec<String> = bindings
            .iter()
            .map(|binding| {
                let versions: Vec<&str> = versions(*binding)
                    .iter()
                    .map(|version| version.as_str())
                    .collect();
                format!("{} in {}", binding_label(*binding), versions.join(" or "))
            })
            .collect();
        Err(Error::Card {
            url: self.url.to_string(),
            detail: format!(
                "offers no {} (it offers: {})",
                wanted.join(", nor "),
                offered.join(", ")
            ),
        })
    }
}

/// How a binding is named to people (`JSON-RPC`, `HTTP+JSON`).
pub fn binding_label(binding: Binding) -> &'static str {
    match binding {
        Binding::HttpJson => a2a_lambda_core::rest::BINDING_NAME,
        Binding::Grpc => "gRPC",
        _ => "JSON-RPC",
    }
}

/// An interface's URL, relative ones resolved against the card's. A gRPC interface
/// written as a bare `host:port` (gRPC's target form, which the official Python,
/// JavaScript and Go SDKs put in their cards instead of the absolute URL `a2a.proto`'s
/// `AgentInterface.url` asks for) is that host and port over plaintext, as those SDKs'
/// insecure channels read it: resolved against the card, it would name the card's own
/// HTTP server.
fn resolve(card: &Url, declared: &str, binding: &str) -> Result<Url, String> {
    if binding.eq_ignore_ascii_case(Binding::Grpc.card_name())
        && !declared.contains("://")
        && let Ok(target) = Url::parse(&format!("http://{declared}"))
        && target.port().is_some()
        && target.path() == "/"
    {
        return Ok(target);
    }
    card.join(declared)
        .map_err(|error| format!("interface URL {declared:?}: {error}"))
}

/// `0.3`, `0.3.0`, `0.3.x` → 0.3; `1.0`, `1.0.0`, `1.x` → 1.0; anything else → none.
fn version_of(written: &str) -> Option<ProtocolVersion> {
    let mut parts = written.trim().trim_start_matches('v').split('.');
    match (parts.next(), parts.next()) {
        (Some("0"), Some("3")) => Some(ProtocolVersion::V0_3),
        (Some("1"), _) => Some(ProtocolVersion::V1_0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn card_url_treats_the_base_as_a_directory() {
        for (base, card) in [
            (
                "http://127.0.0.1:9000",
                "http://127.0.0.1:9000/.well-known/agent-card.json",
            ),
            (
                "http://127.0.0.1:9000/",
                "http://127.0.0.1:9000/.well-known/agent-card.json",
            ),
            (
                "https://h/a2a/v1",
                "https://h/a2a/v1/.well-known/agent-card.json",
            ),
            (
                "https://h/a2a/v1/",
                "https://h/a2a/v1/.well-known/agent-card.json",
            ),
            (
                "https://h/x/.well-known/agent-card.json",
                "https://h/x/.well-known/agent-card.json",
            ),
            (
                "https://bedrock-agentcore.us-west-2.amazonaws.com/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fagent-Ab12/invocations/?qualifier=DEFAULT",
                "https://bedrock-agentcore.us-west-2.amazonaws.com/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fagent-Ab12/invocations/.well-known/agent-card.json?qualifier=DEFAULT",
            ),
        ] {
            assert_eq!(card_url(base).unwrap().as_str(), card, "{base}");
        }
    }

    #[test]
    fn an_unescaped_arn_is_escaped() {
        let base = "https://bedrock-agentcore.us-east-1.amazonaws.com/runtimes/arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/my_agent-x1Y2/invocations";
        assert_eq!(
            card_url(base).unwrap().as_str(),
            "https://bedrock-agentcore.us-east-1.amazonaws.com/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fmy_agent-x1Y2/invocations/.well-known/agent-card.json"
        );
    }

    #[test]
    fn the_arn_ends_at_the_invocations_segment_not_a_name_that_starts_with_it() {
        let base = "https://h/runtimes/arn:aws:bedrock-agentcore:us-east-1:1:runtime/invocationsBot-Ab12/invocations?qualifier=DEFAULT";
        assert_eq!(
            card_url(base).unwrap().as_str(),
            "https://h/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A1%3Aruntime%2FinvocationsBot-Ab12/invocations/.well-known/agent-card.json?qualifier=DEFAULT"
        );
        let bare = "https://h/runtimes/arn:aws:bedrock-agentcore:us-east-1:1:runtime/a-B1/";
        assert_eq!(
            card_url(bare).unwrap().as_str(),
            "https://h/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A1%3Aruntime%2Fa-B1/.well-known/agent-card.json"
        );
    }

    #[test]
    fn bad_bases_are_config_errors() {
        for base in ["", "127.0.0.1:9000", "ftp://h/", "not a url"] {
            assert!(matches!(card_url(base), Err(Error::Config(_))), "{base}");
        }
    }

    fn card(json: Value) -> FetchedCard {
        FetchedCard::parse(
            url("http://h/.well-known/agent-card.json"),
            json.to_string().as_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn a_hybrid_card_gives_1_0_unless_asked_for_0_3() {
        let hybrid = card(json!({
            "name": "echo",
            "url": "http://h/v03/",
            "protocolVersion": "0.3.0",
            "preferredTransport": "JSONRPC",
            "supportedInterfaces": [
                {"url": "http://h/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "http://h/v10/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://h/v03/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
            ],
            "capabilities": {"streaming": true}
        }));
        assert!(hybrid.streaming);
        assert_eq!(hybrid.interfaces.len(), 3, "{:?}", hybrid.interfaces);
        assert!(!hybrid.push_notifications);
        let chosen = hybrid.select(None, None).unwrap();
        assert_eq!(
            (chosen.url.as_str(), chosen.version),
            ("http://h/v10/", ProtocolVersion::V1_0)
        );
        let old = hybrid.select(Some(ProtocolVersion::V0_3), None).unwrap();
        assert_eq!(
            (old.url.as_str(), old.version),
            ("http://h/v03/", ProtocolVersion::V0_3)
        );
    }

    #[test]
    fn a_0_3_card_gives_0_3_and_refuses_1_0_by_name() {
        let v03 = card(json!({
            "name": "old", "url": "http://h/", "protocolVersion": "0.3.0",
            "additionalInterfaces": [{"url": "http://h/rest", "transport": "HTTP+JSON"}]
        }));
        assert_eq!(
            v03.select(None, None).unwrap().version,
            ProtocolVersion::V0_3
        );
        let refused = v03
            .select(Some(ProtocolVersion::V1_0), None)
            .unwrap_err()
            .to_string();
        assert!(
            refused
                .contains("offers no JSON-RPC in 1.0, nor HTTP+JSON in 1.0 (it offers: JSONRPC 0.3.0, HTTP+JSON 0.3.0)"),
            "{refused}"
        );
    }

    #[test]
    fn relative_interface_urls_resolve_against_the_card() {
        let relative = card(json!({
            "supportedInterfaces": [{"url": "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0.0"}]
        }));
        assert_eq!(
            relative.select(None, None).unwrap().url.as_str(),
            "http://h/rpc"
        );
    }

    #[test]
    fn a_grpc_interface_written_as_host_and_port_is_that_host_and_port() {
        // As the official Python and JavaScript SDKs' servers write it, in both versions'
        // members of a hybrid card.
        let official = card(json!({
            "url": "127.0.0.1:50051",
            "preferredTransport": "GRPC",
            "protocolVersion": "0.3",
            "additionalInterfaces": [{"url": "127.0.0.1:50051", "transport": "GRPC"}],
            "supportedInterfaces": [
                {"url": "127.0.0.1:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "/jsonrpc/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ]
        }));
        let grpc: Vec<(&str, &str)> = official
            .interfaces
            .iter()
            .filter(|interface| interface.binding == "GRPC")
            .map(|interface| (interface.url.as_str(), interface.protocol_version.as_str()))
            .collect();
        assert_eq!(
            grpc,
            [
                ("http://127.0.0.1:50051/", "1.0"),
                ("http://127.0.0.1:50051/", "0.3")
            ]
        );
        // Other bindings' relative URLs, and a gRPC one with a path, resolve against the card.
        assert_eq!(
            official
                .select(None, Some(Binding::JsonRpc))
                .unwrap()
                .url
                .as_str(),
            "http://h/jsonrpc/"
        );
        let pathed = card(json!({
            "supportedInterfaces": [{"url": "grpc/a2a", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]
        }));
        assert_eq!(
            pathed.interfaces[0].url.as_str(),
            "http://h/.well-known/grpc/a2a"
        );
    }

    #[test]
    fn unusable_cards_say_why() {
        let at = url("http://h/.well-known/agent-card.json");
        for (body, why) in [
            ("<html>", "not JSON"),
            ("[1]", "not a JSON object"),
            ("{\"name\":\"x\"}", "declares no interface"),
            ("{\"url\":5}", "unreadable"),
        ] {
            let error = FetchedCard::parse(at.clone(), body.as_bytes())
                .unwrap_err()
                .to_string();
            assert!(error.contains(why), "{body}: {error}");
        }
        let old = card(json!({"url": "http://h/", "protocolVersion": "0.2.5"}));
        let error = old.select(None, None).unwrap_err().to_string();
        assert!(error.contains("JSONRPC 0.2.5"), "{error}");
    }

    #[test]
    fn the_card_order_picks_the_binding_and_1_0_is_preferred_within_it() {
        let rest_first = card(json!({
            "supportedInterfaces": [
                {"url": "http://h/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "http://h/jsonrpc03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
                {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                {"url": "http://h/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ]
        }));
        let chosen = |version, binding| {
            let endpoint = rest_first.select(version, binding).unwrap();
            (endpoint.url.to_string(), endpoint.version, endpoint.binding)
        };
        assert_eq!(
            chosen(None, None),
            (
                "http://h/jsonrpc".to_owned(),
                ProtocolVersion::V1_0,
                Binding::JsonRpc
            )
        );
        assert_eq!(
            chosen(None, Some(Binding::HttpJson)),
            (
                "http://h/rest".to_owned(),
                ProtocolVersion::V1_0,
                Binding::HttpJson
            )
        );
        assert_eq!(
            chosen(Some(ProtocolVersion::V0_3), None),
            (
                "http://h/jsonrpc03".to_owned(),
                ProtocolVersion::V0_3,
                Binding::JsonRpc
            )
        );
        let rest_only = card(json!({
            "supportedInterfaces": [
                {"url": "http://h/a2a", "protocolBinding": "http+json", "protocolVersion": "1.0"},
                {"url": "http://h/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ]
        }));
        assert_eq!(
            rest_only.select(None, None).unwrap().binding,
            Binding::HttpJson
        );
        let refused = rest_only
            .select(Some(ProtocolVersion::V0_3), Some(Binding::HttpJson))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("offers no HTTP+JSON in 0.3 (it offers: http+json 1.0, JSONRPC 1.0)"),
            "{refused}"
        );
    }
}
