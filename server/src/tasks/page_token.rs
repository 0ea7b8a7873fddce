//! The `ListTasks` page token of an offset-paged store: URL-safe base64 (no padding) of
//! `offset:N`, where `N` is the index of the first task of the next page. Opaque to
//! clients; the in-memory store and the DynamoDB store both use it.

use std::ops::Range;

use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, Task};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, StoreError};

/// Where a `ListTasks` page starts and how long it is, read from its params before the
/// store looks anything up (a bad token is refused first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    /// Index of the page's first task among all matching tasks.
    pub offset: usize,
    /// Tasks a page holds: the params' size (default [`DEFAULT_PAGE_SIZE`]) within
    /// 1..=[`MAX_PAGE_SIZE`].
    pub page_size: u32,
}

impl Paging {
    /// The paging `params` ask for.
    ///
    /// # Errors
    /// [`StoreError::BadPageToken`] for a token [`encode`] did not make.
    pub fn of(params: &ListTasksParams) -> Result<Self, StoreError> {
        let offset = match params.page_token.as_deref() {
            None | Some("") => 0,
            Some(token) => decode(token)?,
        };
        let page_size = params
            .page_size
            .unwrap_or(DEFAULT_PAGE_SIZE)
            .clamp(1, MAX_PAGE_SIZE);
        Ok(Self { offset, page_size })
    }

    /// The indexes of this page among `total` matching tasks (empty past the end).
    pub fn range(self, total: usize) -> Range<usize> {
        let end = self
            .offset
            .saturating_add(self.page_size as usize)
            .min(total);
        self.offset.min(total)..end
    }

    /// The answer: the page's `tasks` out of `total`, with the next page's token when
    /// more follow.
    pub fn result(self, tasks: Vec<Task>, total: usize) -> ListTasksResult {
        let end = self.range(total).end;
        ListTasksResult {
            tasks,
            next_page_token: if end < total {
                encode(end)
            } else {
                String::new()
            },
            page_size: self.page_size,
            total_size: u32::try_from(total).unwrap_or(u32::MAX),
        }
    }
}

/// The token for the page that starts at `offset`.
///
/// ```
/// use a2a_lambda_server::tasks::page_token;
///
/// assert_eq!(page_token::decode(&page_token::encode(42)).ok(), Some(42));
/// ```
pub fn encode(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("offset:{offset}"))
}

/// The offset `token` stands for; [`StoreError::BadPageToken`] (carrying the token)
/// for one [`encode`] did not make.
pub fn decode(token: &str) -> Result<usize, StoreError> {
    URL_SAFE_NO_PAD
        .decode(token)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.strip_prefix("offset:")?.parse().ok())
        .ok_or_else(|| StoreError::BadPageToken(token.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for offset in [0, 1, 42, 100, usize::MAX] {
            assert_eq!(decode(&encode(offset)).ok(), Some(offset), "{offset}");
        }
    }

    #[test]
    fn strangers_are_refused_with_the_token() {
        // "b2Zmc2V0Og" is base64 of "offset:" with no number.
        for token in ["nope", "b2Zmc2V0Og", "!!!", "offset:3"] {
            assert!(
                matches!(decode(token), Err(StoreError::BadPageToken(ref t)) if t == token),
                "{token}"
            );
        }
    }
}
