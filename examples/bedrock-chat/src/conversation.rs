//! The conversation the model is sent: the context's earlier tasks, then the task's own
//! history, then the new message, as Converse turns.
//!
//! Converse takes the conversation as `messages`, each with a `user` or `assistant` role
//! (<https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html>).
//! One that opens with an assistant message is refused by models such as Amazon Nova with a
//! `ValidationException`, "A conversation must start with a user message" (reported in
//! <https://github.com/deepgram/deepgram-python-sdk/issues/760>), and chat models expect the
//! roles to alternate. So adjacent messages of one side are joined, and what comes before
//! the first user turn is dropped.

use a2a_lambda_server::model::{Message, Role, Task};

use crate::model::{Speaker, Turn};

/// How many of the context's earlier tasks are replayed (the newest ones).
pub const MAX_EARLIER_TASKS: u32 = 10;

/// How much text is replayed in all, in bytes: past it the oldest turns are dropped, so
/// a long conversation costs a bounded prompt instead of failing as too long.
pub const MAX_REPLAYED_BYTES: usize = 100_000;

/// The turns for the model: `earlier` (the context's earlier tasks, oldest first), then
/// the task's own history (`previous`, when the message continues a task), then `message`.
/// Bounded by [`MAX_REPLAYED_BYTES`] (the new message is always kept).
pub fn turns(earlier: &[Task], previous: Option<&Task>, message: &Message) -> Vec<Turn> {
    let history = earlier
        .iter()
        .chain(previous)
        .flat_map(|task| task.history.iter());
    let mut turns: Vec<Turn> = Vec::new();
    for past in history.chain(std::iter::once(message)) {
        push(&mut turns, past);
    }
    trim(&mut turns);
    turns
}

/// Adds a message as a turn, joined to the last turn when that is the same side's.
fn push(turns: &mut Vec<Turn>, message: &Message) {
    let text = message.joined_text();
    if text.trim().is_empty() {
        return;
    }
    let speaker = match message.role {
        Role::User => Speaker::User,
        Role::Agent => Speaker::Assistant,
    };
    match turns.last_mut() {
        Some(last) if last.speaker == speaker => {
            last.text.push_str("\n\n");
            last.text.push_str(&text);
        }
        // A conversation opens with the user's turn.
        None if speaker == Speaker::Assistant => {}
        _ => turns.push(Turn::new(speaker, text)),
    }
}

/// Drops the oldest exchanges (a user turn and its answer) until the text fits, keeping
/// the first turn the user's.
fn trim(turns: &mut Vec<Turn>) {
    let mut total: usize = turns.iter().map(|turn| turn.text.len()).sum();
    let mut start = 0;
    while total > MAX_REPLAYED_BYTES && start + 1 < turns.len() {
        total -= turns[start].text.len();
        start += 1;
        // Keep the conversation opening on a user turn.
        while start + 1 < turns.len() && turns[start].speaker == Speaker::Assistant {
            total -= turns[start].text.len();
            start += 1;
        }
    }
    turns.drain(..start);
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_lambda_server::model::{TaskState, TaskStatus};

    fn message(role: Role, text: &str) -> Message {
        Message::text(role, "m", text)
    }

    fn task(history: Vec<Message>) -> Task {
        Task {
            id: "t".to_owned(),
            context_id: "c".to_owned(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: None,
            },
            artifacts: Vec::new(),
            history,
            metadata: None,
        }
    }

    #[test]
    fn earlier_tasks_then_the_new_message_alternate_from_the_user() {
        let earlier = [
            task(vec![
                message(Role::Agent, "Welcome"),
                message(Role::User, "Hi"),
            ]),
            task(vec![
                message(Role::Agent, "Hello!"),
                message(Role::User, "Name a colour"),
                message(Role::User, "and a fruit"),
                message(Role::Agent, "Red, apple."),
            ]),
        ];
        let turns = turns(&earlier, None, &message(Role::User, "Another?"));
        assert_eq!(
            turns,
            [
                Turn::new(Speaker::User, "Hi"),
                Turn::new(Speaker::Assistant, "Hello!"),
                Turn::new(Speaker::User, "Name a colour\n\nand a fruit"),
                Turn::new(Speaker::Assistant, "Red, apple."),
                Turn::new(Speaker::User, "Another?"),
            ]
        );
    }

    #[test]
    fn a_long_conversation_drops_its_oldest_exchanges() {
        let long = "x".repeat(MAX_REPLAYED_BYTES / 2);
        let earlier = [
            task(vec![
                message(Role::User, &long),
                message(Role::Agent, &long),
            ]),
            task(vec![
                message(Role::User, "short"),
                message(Role::Agent, "ok"),
            ]),
        ];
        let turns = turns(&earlier, None, &message(Role::User, "last"));
        assert_eq!(
            turns,
            [
                Turn::new(Speaker::User, "short"),
                Turn::new(Speaker::Assistant, "ok"),
                Turn::new(Speaker::User, "last"),
            ]
        );
    }
}
