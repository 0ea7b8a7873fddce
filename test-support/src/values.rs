//! Checks of generated values: UUIDs and RFC 3339 timestamps.

/// `8-4-4-4-12` lowercase hex digits.
pub fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|group| group.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|group| {
            group
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        })
}

/// `2026-01-02T03:04:05.678Z`: RFC 3339 in UTC with milliseconds.
pub fn is_rfc3339_millis(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit_at = |at: &[usize]| {
        at.iter()
            .all(|&i| bytes.get(i).is_some_and(u8::is_ascii_digit))
    };
    bytes.len() == 24
        && digit_at(&[0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22])
        && [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (23, b'Z'),
        ]
        .iter()
        .all(|&(at, byte)| bytes.get(at) == Some(&byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_and_timestamps() {
        assert!(is_uuid("90449a37-f4f1-4c9b-a452-91b139dc5bf2"));
        assert!(!is_uuid("90449A37-f4f1-4c9b-a452-91b139dc5bf2"));
        assert!(!is_uuid("mine"));
        assert!(is_rfc3339_millis("2026-01-02T03:04:05.678Z"));
        assert!(!is_rfc3339_millis("2026-01-02T03:04:05Z"));
        assert!(!is_rfc3339_millis("2026-01-02T03:04:05.678+0"));
    }
}
