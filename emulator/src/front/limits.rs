//! Throttling and fault injection: the platform refusals a client must survive.

use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// AgentCore's per-endpoint invocation rate, as a token bucket: `rate` invocations a
/// second, bursts up to `rate`.
#[derive(Debug)]
pub struct RateLimiter {
    rate: f64,
    bucket: Mutex<(f64, Instant)>,
}

impl RateLimiter {
    /// A limiter of `rate` invocations a second; `None` for 0 (no limit).
    pub fn new(rate: u32) -> Option<Self> {
        (rate > 0).then(|| Self {
            rate: f64::from(rate),
            bucket: Mutex::new((f64::from(rate), Instant::now())),
        })
    }

    /// Takes one token; false when the bucket is empty (throttle).
    pub fn try_acquire(&self) -> bool {
        let mut bucket = self
            .bucket
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        let (tokens, last) = *bucket;
        let refilled = (tokens + now.duration_since(last).as_secs_f64() * self.rate).min(self.rate);
        if refilled >= 1.0 {
            *bucket = (refilled - 1.0, now);
            true
        } else {
            *bucket = (refilled, now);
            false
        }
    }
}

/// Probabilities of injected faults per invocation, and an added latency.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FaultSpec {
    /// 429 / -32053 ThrottlingException.
    pub throttle: f64,
    /// 409 / -32054 "Session operation in progress, please retry" (retryable).
    pub conflict: f64,
    /// 424 / -32055 RuntimeClientError.
    pub runtime_error: f64,
    /// 500 / -32603 internal error.
    pub internal: f64,
    /// An SSE answer cut short after 1 to 3 events, as a dropped
    /// connection.
    pub stream_cut: f64,
    /// The session's container vanishes: the session ends (streams cut, tasks gone) and
    /// the invocation gets 424 / -32055.
    pub session_lost: f64,
    /// Added before every invocation.
    pub latency: Duration,
    /// 403 AccessDeniedException, exactly what an unsigned request to a SigV4 runtime gets.
    pub access_denied: f64,
}

/// A fault specification that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--fault {0}; expected a comma-separated list of throttle=P, conflict=P, runtime-error=P, internal=P, access-denied=P, stream-cut=P, session-lost=P (P from 0 to 1) and latency=200ms"
)]
pub struct BadFaultSpec(String);

impl FromStr for FaultSpec {
    type Err = BadFaultSpec;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut spec = Self::default();
        for item in text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| BadFaultSpec(format!("{item:?} has no value")))?;
            let probability = || {
                value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|p| (0.0..=1.0).contains(p))
                    .ok_or_else(|| BadFaultSpec(format!("{name}={value} is not a probability")))
            };
            match name.trim() {
                "throttle" => spec.throttle = probability()?,
                "conflict" => spec.conflict = probability()?,
                "runtime-error" => spec.runtime_error = probability()?,
                "internal" => spec.internal = probability()?,
                "access-denied" => spec.access_denied = probability()?,
                "stream-cut" => spec.stream_cut = probability()?,
                "session-lost" => spec.session_lost = probability()?,
                "latency" => {
                    spec.latency = parse_duration(value.trim()).ok_or_else(|| {
                        BadFaultSpec(format!(
                            "latency={value} is not a duration like 200ms or 1s"
                        ))
                    })?
                }
                other => return Err(BadFaultSpec(format!("unknown fault {other:?}"))),
            }
        }
        Ok(spec)
    }
}

fn parse_duration(text: &str) -> Option<Duration> {
    if let Some(ms) = text.strip_suffix("ms") {
        return ms.trim().parse::<u64>().ok().map(Duration::from_millis);
    }
    text.strip_suffix('s')
        .and_then(|seconds| seconds.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .map(Duration::from_secs_f64)
}

/// The fault chosen for one invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Throttle it.
    Throttle,
    /// Answer the retryable session conflict.
    Conflict,
    /// Answer as if the container failed.
    RuntimeError,
    /// Answer an internal error.
    Internal,
    /// Answer AWS's 403 AccessDenied.
    AccessDenied,
    /// End the session as if its container died, and answer as AgentCore does then.
    SessionLost,
}

/// The most events a cut stream delivers before it is cut (`stream-cut`): early, so that
/// even a short stream (the echo agent sends four events) is cut before its end.
pub const STREAM_CUT_MAX_EVENTS: usize = 3;

/// Draws faults from a seeded generator, so a run is reproducible with `--seed`.
#[derive(Debug)]
pub struct FaultInjector {
    spec: FaultSpec,
    state: Mutex<u64>,
}

impl FaultInjector {
    /// An injector for `spec`, seeded.
    pub fn new(spec: FaultSpec, seed: u64) -> Self {
        Self {
            spec,
            state: Mutex::new(seed),
        }
    }

    /// The latency to add to each invocation.
    pub fn latency(&self) -> Duration {
        self.spec.latency
    }

    /// The fault for the next invocation, if any (checked in the order of [`Fault`]).
    pub fn draw(&self) -> Option<Fault> {
        let roll = self.next_unit();
        let mut edge = 0.0;
        for (probability, fault) in [
            (self.spec.throttle, Fault::Throttle),
            (self.spec.conflict, Fault::Conflict),
            (self.spec.runtime_error, Fault::RuntimeError),
            (self.spec.internal, Fault::Internal),
            (self.spec.access_denied, Fault::AccessDenied),
            (self.spec.session_lost, Fault::SessionLost),
        ] {
            edge += probability;
            if roll < edge {
                return Some(fault);
            }
        }
        None
    }

    /// Whether the SSE stream an invocation answers with is cut, and after how many events:
    /// with probability `stream-cut`, after N events, N drawn uniformly from 1 to
    /// [`STREAM_CUT_MAX_EVENTS`]. Draws nothing when `stream-cut` is 0.
    pub fn stream_cut(&self) -> Option<usize> {
        if self.spec.stream_cut <= 0.0 || self.next_unit() >= self.spec.stream_cut {
            return None;
        }
        // The unit is below 1, so the product is below the maximum.
        let drawn = (self.next_unit() * STREAM_CUT_MAX_EVENTS as f64) as usize;
        Some(1 + drawn.min(STREAM_CUT_MAX_EVENTS - 1))
    }

    /// A uniform number in [0, 1) (splitmix64).
    fn next_unit(&self) -> f64 {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_refuse_clearly() {
        let spec: FaultSpec =
            "throttle=0.1,conflict=0.05,runtime-error=0.01,internal=0.01,latency=200ms"
                .parse()
                .unwrap();
        assert_eq!(spec.throttle, 0.1);
        assert_eq!(spec.latency, Duration::from_millis(200));
        assert_eq!(
            "latency=1.5s".parse::<FaultSpec>().unwrap().latency,
            Duration::from_millis(1500)
        );
        assert!(
            "throttle=2"
                .parse::<FaultSpec>()
                .unwrap_err()
                .to_string()
                .contains("throttle=2 is not a probability")
        );
        assert_eq!(
            "session-lost=0.25"
                .parse::<FaultSpec>()
                .unwrap()
                .session_lost,
            0.25
        );
        assert!(
            "boom=0.1"
                .parse::<FaultSpec>()
                .unwrap_err()
                .to_string()
                .contains("unknown fault \"boom\"")
        );
    }

    #[test]
    fn draws_are_deterministic_and_follow_the_probabilities() {
        let spec: FaultSpec = "throttle=0.2,conflict=0.1".parse().unwrap();
        let a = FaultInjector::new(spec, 42);
        let b = FaultInjector::new(spec, 42);
        let draws: Vec<_> = (0..10_000).map(|_| a.draw()).collect();
        assert_eq!(draws, (0..10_000).map(|_| b.draw()).collect::<Vec<_>>());
        let throttles = draws
            .iter()
            .filter(|d| **d == Some(Fault::Throttle))
            .count();
        let conflicts = draws
            .iter()
            .filter(|d| **d == Some(Fault::Conflict))
            .count();
        assert!((1_800..2_200).contains(&throttles), "{throttles}");
        assert!((850..1_150).contains(&conflicts), "{conflicts}");
    }

    #[test]
    fn stream_cuts_come_after_one_to_three_events() {
        let never = FaultInjector::new(FaultSpec::default(), 7);
        assert_eq!(never.stream_cut(), None);
        let spec: FaultSpec = "stream-cut=1".parse().unwrap();
        assert_eq!(spec.stream_cut, 1.0);
        let always = FaultInjector::new(spec, 7);
        let cuts: Vec<_> = (0..1_000).filter_map(|_| always.stream_cut()).collect();
        assert_eq!(cuts.len(), 1_000);
        for n in 1..=STREAM_CUT_MAX_EVENTS {
            assert!(
                cuts.iter().filter(|c| **c == n).count() > 250,
                "{n}: {cuts:?}"
            );
        }
        assert!(cuts.iter().all(|c| (1..=STREAM_CUT_MAX_EVENTS).contains(c)));
        assert!(
            "stream-cut=1.5"
                .parse::<FaultSpec>()
                .unwrap_err()
                .to_string()
                .contains("stream-cut=1.5 is not a probability")
        );
    }

    #[test]
    fn the_bucket_refuses_past_its_rate() {
        let limiter = RateLimiter::new(5).unwrap();
        let granted = (0..20).filter(|_| limiter.try_acquire()).count();
        assert_eq!(granted, 5);
        assert!(RateLimiter::new(0).is_none());
    }
}
