//! Media types a message may carry: those the agent's card accepts.

use a2a_lambda_core::card::AgentCard;
use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::Message;

/// -32005 when a part declares a media type the agent does not accept.
///
/// Accepted are the card's `defaultInputModes` and every skill's `inputModes`. A mode
/// matches case-insensitively and ignoring parameters; `*/*` matches everything, `image/*`
/// every image type, and a bare `text` (as AgentCore's example card writes it) every
/// `text/…` type. Parts that declare no media type are accepted.
pub(crate) fn check(card: &AgentCard, message: &Message) -> Result<(), Error> {
    let modes: Vec<&str> = card
        .default_input_modes
        .iter()
        .chain(
            card.skills
                .iter()
                .flat_map(|skill| skill.input_modes.iter()),
        )
        .map(String::as_str)
        .collect();
    for (index, part) in message.parts.iter().enumerate() {
        let Some(media_type) = &part.media_type else {
            continue;
        };
        if !modes.iter().any(|mode| accepts(mode, media_type)) {
            return Err(Error::new(
                Refusal::ContentTypeNotSupported,
                format!(
                    "params.message.parts[{index}]: media type {media_type:?} is not accepted \
                     by this agent (it accepts {})",
                    modes.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn accepts(mode: &str, media_type: &str) -> bool {
    let mode = essence(mode);
    let media_type = essence(media_type);
    let (kind, _) = media_type
        .split_once('/')
        .unwrap_or((media_type.as_str(), ""));
    match mode.split_once('/') {
        _ if mode == "*" || mode == "*/*" => true,
        Some((mode_kind, "*")) => mode_kind == kind,
        Some(_) => mode == media_type,
        None => mode == kind,
    }
}

#[cfg(test)]
mod tests {
    use super::accepts;

    #[test]
    fn modes_match_as_documented() {
        assert!(accepts("text/plain", "text/plain"));
        assert!(accepts("text/plain", "Text/Plain; charset=utf-8"));
        assert!(!accepts("text/plain", "text/markdown"));
        assert!(accepts("text", "text/markdown"));
        assert!(accepts("image/*", "image/png"));
        assert!(!accepts("image/*", "application/pdf"));
        assert!(accepts("*/*", "application/x-anything"));
        assert!(!accepts("text/plain", "application/x-unsupported-tck-type"));
    }
}
