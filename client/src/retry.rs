//! When and how long to wait before trying again.
//!
//! Only AgentCore's two retryable refusals are retried: 429/-32053 (throttling) and
//! 409/-32054 "Session operation in progress, please retry". A plain ConflictException
//! (also -32054), every A2A error and every transport error are returned at once: the
//! request may have reached the agent, and sending it again could run it twice.

use std::time::Duration;

use crate::error::Error;

/// Exponential backoff with full jitter, bounded in attempts and in total time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 disables retries).
    pub max_attempts: u32,
    /// Upper bound of the first wait.
    pub initial_backoff: Duration,
    /// Upper bound of any one wait.
    pub max_backoff: Duration,
    /// No attempt starts after this much time since the first one.
    pub max_elapsed: Duration,
}

impl Default for RetryPolicy {
    /// 5 attempts, waits drawn from [0, 200 ms·2ⁿ] capped at 5 s, 30 s in all.
    fn default() -> Self {
        Self {
            max_attempts: 5,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
            max_elapsed: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries: every error is returned as it comes.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// This policy with `attempts` attempts in all.
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// This policy with another first-wait bound.
    pub fn with_initial_backoff(mut self, backoff: Duration) -> Self {
        self.initial_backoff = backoff;
        self
    }

    /// This policy with another single-wait cap.
    pub fn with_max_backoff(mut self, backoff: Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// This policy with another total-time budget.
    pub fn with_max_elapsed(mut self, elapsed: Duration) -> Self {
        self.max_elapsed = elapsed;
        self
    }

    /// The wait before attempt `attempt + 1` (attempts count from 1): a random duration in
    /// `[0, min(max_backoff, initial_backoff · 2^(attempt-1))]`, and at least what the
    /// server asked for in `Retry-After` (still capped at `max_backoff`).
    pub fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let exponent = attempt.saturating_sub(1).min(20);
        let ceiling = self
            .initial_backoff
            .saturating_mul(1 << exponent)
            .min(self.max_backoff);
        let jittered = ceiling.mul_f64(fastrand::f64());
        match retry_after {
            Some(asked) => jittered.max(asked.min(self.max_backoff)),
            None => jittered,
        }
    }
}

/// Whether `error` is one the policy retries.
pub fn is_retryable(error: &Error) -> bool {
    error.rpc().is_some_and(|rpc| rpc.is_retryable())
        && !matches!(error, Error::RetriesExhausted { .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy::default();
        for attempt in 1..=12 {
            let ceiling =
                Duration::from_millis(200 * (1 << (attempt - 1))).min(Duration::from_secs(5));
            for _ in 0..50 {
                assert!(policy.backoff(attempt, None) <= ceiling);
            }
        }
        let waits: Vec<Duration> = (0..200).map(|_| policy.backoff(1, None)).collect();
        assert!(
            waits.iter().any(|wait| *wait != waits[0]),
            "jitter varies the wait"
        );
    }

    #[test]
    fn retry_after_is_a_floor_under_the_cap() {
        let policy = RetryPolicy::default();
        assert!(policy.backoff(1, Some(Duration::from_secs(2))) >= Duration::from_secs(2));
        assert_eq!(
            policy.backoff(1, Some(Duration::from_secs(60))),
            Duration::from_secs(5)
        );
    }

    #[test]
    fn none_means_one_attempt() {
        assert_eq!(RetryPolicy::none().max_attempts, 1);
        assert_eq!(RetryPolicy::default().with_max_attempts(0).max_attempts, 1);
    }
}
