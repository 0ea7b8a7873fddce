//! What the `OTEL_*` variables ask for ([`Plan`]), decided from a lookup before anything is
//! built (so the rules are tested on a table, not on the process's environment), and the
//! propagators they name.

use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::propagation::text_map_propagator::TextMapPropagator;

use super::export::TelemetryError;

pub(super) fn variable(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// Reads a variable (the process's environment, or a test's table).
pub(super) type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

fn is_true(lookup: Lookup<'_>, name: &str) -> bool {
    lookup(name).is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// What the variables ask for, decided before anything is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    /// Spans exported, and how.
    pub(super) traces: Option<opentelemetry_otlp::Protocol>,
    /// Metrics exported, and how.
    pub(super) metrics: Option<opentelemetry_otlp::Protocol>,
    /// The propagators, in extraction order.
    pub(super) propagators: Vec<&'static str>,
}

/// The plan the variables make, `None` when they ask for no export.
pub(super) fn plan(lookup: Lookup<'_>) -> Result<Option<Plan>, TelemetryError> {
    if is_true(lookup, "OTEL_SDK_DISABLED") {
        return Ok(None);
    }
    let own_endpoint = !is_true(lookup, "DISABLE_ADOT_OBSERVABILITY");
    let traces = exported(
        lookup,
        "OTEL_TRACES_EXPORTER",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        own_endpoint,
    )?;
    let metrics = exported(
        lookup,
        "OTEL_METRICS_EXPORTER",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        own_endpoint,
    )?;
    if !traces && !metrics {
        return Ok(None);
    }
    Ok(Some(Plan {
        traces: traces
            .then(|| protocol(lookup, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
            .transpose()?,
        metrics: metrics
            .then(|| protocol(lookup, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"))
            .transpose()?,
        propagators: propagator_names(lookup)?,
    }))
}

/// Whether a signal is exported: its exporter variable (`otlp`, `none`), else whether an
/// endpoint is set for it. Without `default_endpoint`, `otlp` alone (which would export to
/// `localhost:4318`, AgentCore's ADOT collector) is not enough: an endpoint must be set.
fn exported(
    lookup: Lookup<'_>,
    exporter_variable: &'static str,
    endpoint_variable: &str,
    default_endpoint: bool,
) -> Result<bool, TelemetryError> {
    let endpoint =
        lookup("OTEL_EXPORTER_OTLP_ENDPOINT").is_some() || lookup(endpoint_variable).is_some();
    match lookup(exporter_variable).map(|value| value.trim().to_ascii_lowercase()) {
        Some(value) if value == "none" => Ok(false),
        Some(value) if value == "otlp" => Ok(default_endpoint || endpoint),
        Some(value) => Err(TelemetryError::Unsupported {
            variable: exporter_variable,
            value,
            why: "this build exports with `otlp` (or `none`)",
        }),
        None => Ok(endpoint),
    }
}

/// The protocol for a signal: its own variable, else the common one.
fn protocol(
    lookup: Lookup<'_>,
    signal_variable: &'static str,
) -> Result<opentelemetry_otlp::Protocol, TelemetryError> {
    let (name, value) = match lookup(signal_variable) {
        Some(value) => (signal_variable, value),
        None => match lookup("OTEL_EXPORTER_OTLP_PROTOCOL") {
            Some(value) => ("OTEL_EXPORTER_OTLP_PROTOCOL", value),
            None => return Ok(opentelemetry_otlp::Protocol::HttpBinary),
        },
    };
    match value.trim() {
        "http/protobuf" => Ok(opentelemetry_otlp::Protocol::HttpBinary),
        "http/json" => Ok(opentelemetry_otlp::Protocol::HttpJson),
        _ => Err(TelemetryError::Unsupported {
            variable: name,
            value,
            why: "this build exports OTLP over HTTP: `http/protobuf` or `http/json` (a \
                  collector's port 4318)",
        }),
    }
}

/// The propagators `OTEL_PROPAGATORS` names, in order (default `xray`, `tracecontext`,
/// `baggage`: extracted in that order, a later one overriding, so a `traceparent` wins over
/// an `X-Amzn-Trace-Id`).
fn propagator_names(lookup: Lookup<'_>) -> Result<Vec<&'static str>, TelemetryError> {
    let Some(text) = lookup("OTEL_PROPAGATORS") else {
        return Ok(vec!["xray", "tracecontext", "baggage"]);
    };
    let mut names = Vec::new();
    for name in text
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
    {
        match name {
            "tracecontext" => names.push("tracecontext"),
            "baggage" => names.push("baggage"),
            "xray" => names.push("xray"),
            "none" => names.clear(),
            _ => {
                return Err(TelemetryError::Unsupported {
                    variable: "OTEL_PROPAGATORS",
                    value: text.clone(),
                    why: "this build knows `tracecontext`, `baggage`, `xray` and `none`",
                });
            }
        }
    }
    Ok(names)
}

/// Where and how spans are sent in OTLP/HTTP's protobuf: the URL, the headers, gzip.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct TraceTarget {
    /// The URL spans are POSTed to.
    pub(super) url: reqwest::Url,
    /// The headers each export carries (`OTEL_EXPORTER_OTLP_HEADERS`, then the traces' own).
    pub(super) headers: Vec<(String, String)>,
    /// Whether the body is gzipped.
    pub(super) gzip: bool,
    /// How long one export may take (`OTEL_BSP_EXPORT_TIMEOUT`), beside the HTTP client's
    /// own bound (`OTEL_EXPORTER_OTLP_TIMEOUT`).
    pub(super) export_timeout: std::time::Duration,
}

/// The header values are credentials (an API key, a bearer token): only their names.
impl std::fmt::Debug for TraceTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceTarget")
            .field("url", &self.url.as_str())
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .field("gzip", &self.gzip)
            .field("export_timeout", &self.export_timeout)
            .finish()
    }
}

/// Where OTLP/HTTP sends when no endpoint is set (a collector on the same host: AgentCore's
/// ADOT collector listens there).
const DEFAULT_ENDPOINT: &str = "http://localhost:4318";

/// Where spans go, as OTLP's exporter specification reads the variables
/// (<https://opentelemetry.io/docs/specs/otel/protocol/exporter/>): the traces' own
/// endpoint as it is, else the common one with `/v1/traces` appended, else
/// `http://localhost:4318/v1/traces`; the common headers, then the traces' own (which win);
/// `gzip` or `none` compression; one export's time bound, `OTEL_BSP_EXPORT_TIMEOUT`
/// (milliseconds, default 30 000), as OpenTelemetry's SDK configuration defines it
/// (<https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/#batch-span-processor>).
pub(super) fn trace_target(lookup: Lookup<'_>) -> Result<TraceTarget, TelemetryError> {
    let (variable, url) = match lookup("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        Some(url) => ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url.trim().to_owned()),
        None => {
            let (variable, base) = match lookup("OTEL_EXPORTER_OTLP_ENDPOINT") {
                Some(base) => ("OTEL_EXPORTER_OTLP_ENDPOINT", base),
                None => ("OTEL_EXPORTER_OTLP_ENDPOINT", DEFAULT_ENDPOINT.to_owned()),
            };
            (
                variable,
                format!("{}/v1/traces", base.trim().trim_end_matches('/')),
            )
        }
    };
    let url = reqwest::Url::parse(&url)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or_else(|| TelemetryError::Unsupported {
            variable,
            value: url.clone(),
            why: "an http:// or https:// URL",
        })?;
    let mut headers: Vec<(String, String)> = Vec::new();
    for variable in [
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    ] {
        if let Some(text) = lookup(variable) {
            for (name, value) in header_pairs(variable, &text)? {
                headers.retain(|(known, _)| !known.eq_ignore_ascii_case(&name));
                headers.push((name, value));
            }
        }
    }
    let (variable, compression) = match lookup("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION") {
        Some(value) => ("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", value),
        None => (
            "OTEL_EXPORTER_OTLP_COMPRESSION",
            lookup("OTEL_EXPORTER_OTLP_COMPRESSION").unwrap_or_default(),
        ),
    };
    let gzip = match compression.trim() {
        "gzip" => true,
        "none" | "" => false,
        _ => {
            return Err(TelemetryError::Unsupported {
                variable,
                value: compression,
                why: "`gzip` or `none`",
            });
        }
    };
    Ok(TraceTarget {
        url,
        headers,
        gzip,
        export_timeout: milliseconds(lookup, "OTEL_BSP_EXPORT_TIMEOUT", 30_000)?,
    })
}

/// The duration a variable gives in milliseconds, `default` when it is unset.
pub(super) fn milliseconds(
    lookup: Lookup<'_>,
    variable: &'static str,
    default: u64,
) -> Result<std::time::Duration, TelemetryError> {
    let millis = match lookup(variable) {
        Some(text) => text
            .trim()
            .parse::<u64>()
            .map_err(|_| TelemetryError::Unsupported {
                variable,
                value: text.clone(),
                why: "a whole number of milliseconds",
            })?,
        None => default,
    };
    Ok(std::time::Duration::from_millis(millis))
}

/// `name=value` pairs separated by commas, values percent-encoded (the W3C baggage format
/// OTLP's headers variables use). The error names the variable, never the values.
fn header_pairs(
    variable: &'static str,
    text: &str,
) -> Result<Vec<(String, String)>, TelemetryError> {
    let refused = |why: &'static str| TelemetryError::Unsupported {
        variable,
        value: "(not shown: it may hold credentials)".to_owned(),
        why,
    };
    let mut pairs = Vec::new();
    for pair in text
        .split(',')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
    {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| refused("`name=value` pairs separated by commas"))?;
        let name = name.trim();
        let value = percent_encoding::percent_decode_str(value.trim())
            .decode_utf8()
            .map_err(|_| refused("values percent-encoded UTF-8"))?;
        if axum::http::HeaderName::from_bytes(name.as_bytes()).is_err()
            || axum::http::HeaderValue::from_str(&value).is_err()
        {
            return Err(refused("valid HTTP header names and values"));
        }
        pairs.push((name.to_owned(), value.into_owned()));
    }
    Ok(pairs)
}

pub(super) fn propagator(names: &[&'static str]) -> TextMapCompositePropagator {
    let propagators: Vec<Box<dyn TextMapPropagator + Send + Sync>> = names
        .iter()
        .map(|name| -> Box<dyn TextMapPropagator + Send + Sync> {
            match *name {
                "tracecontext" => {
                    Box::new(opentelemetry_sdk::propagation::TraceContextPropagator::new())
                }
                "baggage" => Box::new(opentelemetry_sdk::propagation::BaggagePropagator::new()),
                _ => Box::new(opentelemetry_aws::trace::XrayPropagator::default()),
            }
        })
        .collect();
    TextMapCompositePropagator::new(propagators)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_otlp::Protocol;

    fn plan_of(pairs: &[(&str, &str)]) -> Result<Option<Plan>, TelemetryError> {
        let table: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        plan(&move |name: &str| table.get(name).cloned())
    }

    const ENDPOINT: (&str, &str) = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318");

    fn target_of(pairs: &[(&str, &str)]) -> Result<TraceTarget, TelemetryError> {
        let table: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        trace_target(&move |name: &str| table.get(name).cloned())
    }

    #[test]
    fn spans_go_to_the_traces_endpoint_as_set_else_the_common_one_under_v1_traces() {
        let target = target_of(&[]).unwrap();
        assert_eq!(target.url.as_str(), "http://localhost:4318/v1/traces");
        assert_eq!((target.headers.len(), target.gzip), (0, false));
        assert_eq!(target.export_timeout, std::time::Duration::from_secs(30));
        let target = target_of(&[("OTEL_BSP_EXPORT_TIMEOUT", "1500")]).unwrap();
        assert_eq!(
            target.export_timeout,
            std::time::Duration::from_millis(1500)
        );
        assert!(matches!(
            target_of(&[("OTEL_BSP_EXPORT_TIMEOUT", "2s")]),
            Err(TelemetryError::Unsupported {
                variable: "OTEL_BSP_EXPORT_TIMEOUT",
                ..
            })
        ));
        let target = target_of(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")]);
        assert_eq!(
            target.unwrap().url.as_str(),
            "http://collector:4318/v1/traces"
        );
        let target = target_of(&[
            ENDPOINT,
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "https://otlp.example/custom/path",
            ),
        ]);
        assert_eq!(
            target.unwrap().url.as_str(),
            "https://otlp.example/custom/path"
        );
        let refused = target_of(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "collector:4318")]);
        assert!(matches!(
            refused,
            Err(TelemetryError::Unsupported {
                variable: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                ..
            })
        ));
    }

    #[test]
    fn headers_are_decoded_and_the_traces_own_win_and_compression_is_gzip_or_none() {
        let target = target_of(&[
            ENDPOINT,
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Basic%20c2VjcmV0, x-team = agents",
            ),
            (
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                "authorization=Bearer%20t",
            ),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
        ])
        .unwrap();
        assert_eq!(
            target.headers,
            [
                ("x-team".to_owned(), "agents".to_owned()),
                ("authorization".to_owned(), "Bearer t".to_owned()),
            ]
        );
        assert!(target.gzip);
        // The values never reach a log line or an error.
        assert!(!format!("{target:?}").contains("Bearer"));
        let refused = target_of(&[("OTEL_EXPORTER_OTLP_HEADERS", "api-key")]).unwrap_err();
        assert!(refused.to_string().contains("OTEL_EXPORTER_OTLP_HEADERS"));
        let refused = target_of(&[("OTEL_EXPORTER_OTLP_HEADERS", "bad name=secret")]).unwrap_err();
        assert!(!refused.to_string().contains("secret"));
        let refused = target_of(&[("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "zstd")]);
        assert!(matches!(
            refused,
            Err(TelemetryError::Unsupported {
                variable: "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
                ..
            })
        ));
    }

    #[test]
    fn off_unless_an_endpoint_or_the_otlp_exporter_is_named() {
        assert_eq!(plan_of(&[]).unwrap(), None);
        assert_eq!(plan_of(&[("OTEL_SERVICE_NAME", "agent")]).unwrap(), None);
        let plan = plan_of(&[ENDPOINT]).unwrap().unwrap();
        assert_eq!(plan.traces, Some(Protocol::HttpBinary));
        assert_eq!(plan.metrics, Some(Protocol::HttpBinary));
        assert_eq!(plan.propagators, ["xray", "tracecontext", "baggage"]);
        // `otlp` alone: AgentCore's collector on localhost:4318 (the exporter's default).
        let plan = plan_of(&[("OTEL_TRACES_EXPORTER", "otlp")])
            .unwrap()
            .unwrap();
        assert_eq!(plan.traces, Some(Protocol::HttpBinary));
        assert_eq!(plan.metrics, None);
    }

    #[test]
    fn each_signal_turns_off_alone_and_the_sdk_switch_turns_off_both() {
        let plan = plan_of(&[ENDPOINT, ("OTEL_METRICS_EXPORTER", "none")])
            .unwrap()
            .unwrap();
        assert_eq!(
            (plan.traces.is_some(), plan.metrics.is_some()),
            (true, false)
        );
        let plan = plan_of(&[(
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "http://m:4318/v1/metrics",
        )])
        .unwrap()
        .unwrap();
        assert_eq!(
            (plan.traces.is_some(), plan.metrics.is_some()),
            (false, true)
        );
        assert_eq!(
            plan_of(&[ENDPOINT, ("OTEL_SDK_DISABLED", "TRUE")]).unwrap(),
            None
        );
    }

    #[test]
    fn disabling_adot_keeps_only_an_endpoint_set_on_purpose() {
        let adot_default = [
            ("OTEL_TRACES_EXPORTER", "otlp"),
            ("DISABLE_ADOT_OBSERVABILITY", "true"),
        ];
        assert_eq!(plan_of(&adot_default).unwrap(), None);
        let own = plan_of(&[adot_default[0], adot_default[1], ENDPOINT])
            .unwrap()
            .unwrap();
        assert!(own.traces.is_some());
    }

    #[test]
    fn protocols_json_per_signal_and_grpc_refused_by_name() {
        let plan = plan_of(&[
            ENDPOINT,
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(plan.traces, Some(Protocol::HttpJson));
        assert_eq!(plan.metrics, Some(Protocol::HttpBinary));
        let refused = plan_of(&[ENDPOINT, ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\" is not supported: this build exports OTLP \
             over HTTP: `http/protobuf` or `http/json` (a collector's port 4318)"
        );
        let refused = plan_of(&[("OTEL_TRACES_EXPORTER", "zipkin")]).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("OTEL_TRACES_EXPORTER=\"zipkin\"")
        );
    }

    #[test]
    fn propagators_in_the_order_given_none_clears_unknown_refused() {
        let plan = plan_of(&[ENDPOINT, ("OTEL_PROPAGATORS", "tracecontext, baggage")])
            .unwrap()
            .unwrap();
        assert_eq!(plan.propagators, ["tracecontext", "baggage"]);
        let plan = plan_of(&[ENDPOINT, ("OTEL_PROPAGATORS", "none")])
            .unwrap()
            .unwrap();
        assert!(plan.propagators.is_empty());
        let refused = plan_of(&[ENDPOINT, ("OTEL_PROPAGATORS", "b3")]).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("`tracecontext`, `baggage`, `xray` and `none`")
        );
    }

    #[test]
    fn a_traceparent_wins_over_an_x_ray_header_by_default() {
        let propagator = propagator(&["xray", "tracecontext", "baggage"]);
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
                .parse()
                .unwrap(),
        );
        headers.insert(
            "x-amzn-trace-id",
            "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
                .parse()
                .unwrap(),
        );
        struct Reading<'a>(&'a axum::http::HeaderMap);
        impl opentelemetry::propagation::Extractor for Reading<'_> {
            fn get(&self, key: &str) -> Option<&str> {
                self.0.get(key).and_then(|value| value.to_str().ok())
            }
            fn keys(&self) -> Vec<&str> {
                self.0.keys().map(|name| name.as_str()).collect()
            }
        }
        use opentelemetry::trace::TraceContextExt as _;
        let context = propagator.extract(&Reading(&headers));
        let parent = context.span().span_context().clone();
        assert_eq!(
            parent.trace_id().to_string(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        headers.remove("traceparent");
        let context = propagator.extract(&Reading(&headers));
        assert_eq!(
            context.span().span_context().trace_id().to_string(),
            "5759e988bd862e3fe1be46a994272793",
            "the X-Ray header alone continues its trace"
        );
    }
}
