//! The kit's instructions: protocol buffer messages of package `itk` (the kit's
//! `protos/instruction.proto`), declared here with prost's derive (same field numbers and
//! types, so the same bytes), and how they travel in an A2A message: one part of raw
//! bytes, media type `application/x-protobuf`, file name `instruction.bin`.

use a2a_lambda_server::model::{Message, Part, PartContent, Role};
use base64::Engine as _;
use prost::Message as _;

/// The media type of the part an instruction travels in.
pub const MEDIA_TYPE: &str = "application/x-protobuf";
/// The file name of that part.
pub const FILENAME: &str = "instruction.bin";
/// What a held task's status message ends with once its instruction is done: the kit's
/// resubscribing callers read up to it.
pub const FINISHED: &str = "task-finished";

/// What an agent is told to do: one step.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Instruction {
    /// The step.
    #[prost(oneof = "Step", tags = "1, 2, 3")]
    pub step: Option<Step>,
}

/// The three kinds of step.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Step {
    /// Call another agent with an instruction of its own; its answer is this step's.
    #[prost(message, tag = "1")]
    CallAgent(CallAgent),
    /// Answer with a text.
    #[prost(message, tag = "2")]
    ReturnResponse(ReturnResponse),
    /// Run steps in order; their answers are concatenated.
    #[prost(message, tag = "3")]
    Steps(SeriesOfSteps),
}

/// Calls the agent whose card is under `agent_card_uri`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CallAgent {
    /// The binding to call it over: `jsonrpc`, `http_json` or `grpc` (as the kit writes
    /// them; `HTTP+JSON`, `REST` and the card names are read too).
    #[prost(string, tag = "1")]
    pub transport: String,
    /// The agent's base URL; its card is at `.well-known/agent-card.json` under it.
    #[prost(string, tag = "2")]
    pub agent_card_uri: String,
    /// What the called agent is to do.
    #[prost(message, optional, boxed, tag = "3")]
    pub instruction: Option<Box<Instruction>>,
    /// Send with `SendStreamingMessage` instead of `SendMessage`.
    #[prost(bool, tag = "4")]
    pub streaming: bool,
    /// How to call: plain send, with a push notification config, or send, drop the
    /// stream and resubscribe.
    #[prost(oneof = "Behavior", tags = "5, 6, 7")]
    pub behavior: Option<Behavior>,
}

/// How a [`CallAgent`] calls.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Behavior {
    /// Send the message; read the answer.
    #[prost(message, tag = "5")]
    SendMessage(SendMessageBehavior),
    /// Send it with a push notification config for `{url}/notifications`.
    #[prost(message, tag = "6")]
    PushNotification(PushNotificationBehavior),
    /// Stream the send, drop the stream at the first event, resubscribe to the task, read
    /// up to [`FINISHED`], then cancel the task.
    #[prost(message, tag = "7")]
    Resubscribe(ResubscribeBehavior),
}

/// [`Behavior::SendMessage`] (no fields).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct SendMessageBehavior {}

/// [`Behavior::PushNotification`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct PushNotificationBehavior {
    /// The notification server's base URL (`http://` assumed without a scheme).
    #[prost(string, tag = "1")]
    pub url: String,
}

/// [`Behavior::Resubscribe`] (no fields).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct ResubscribeBehavior {}

/// Answers `response`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReturnResponse {
    /// The text.
    #[prost(string, tag = "1")]
    pub response: String,
    /// Keep the task `working` once the instruction is done (for a caller to resubscribe
    /// to) instead of completing it.
    #[prost(bool, tag = "2")]
    pub hold_task: bool,
}

/// Steps run in order.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SeriesOfSteps {
    /// The steps.
    #[prost(message, repeated, tag = "1")]
    pub instructions: Vec<Instruction>,
    /// How the answers are combined (the kit only concatenates).
    #[prost(int32, tag = "2")]
    pub response_generator: i32,
}

impl Instruction {
    /// The first instruction `message` carries: a part of media type [`MEDIA_TYPE`] or
    /// file name [`FILENAME`] with the instruction's bytes (or their base64 as text), else
    /// a text part that is an instruction in base64.
    pub fn find(message: &Message) -> Option<Self> {
        message.parts.iter().find_map(|part| {
            let marked = part.media_type.as_deref() == Some(MEDIA_TYPE)
                || part.filename.as_deref() == Some(FILENAME);
            match &part.content {
                PartContent::Bytes(bytes) if marked => Self::decode(bytes.as_slice()).ok(),
                PartContent::Text(text) => base64::engine::general_purpose::STANDARD
                    .decode(text.trim())
                    .ok()
                    .and_then(|bytes| Self::decode(bytes.as_slice()).ok()),
                _ => None,
            }
        })
    }

    /// A user message carrying this instruction, as the kit's agents send one.
    pub fn to_message(&self) -> Message {
        let mut message = Message::text(
            Role::User,
            a2a_lambda_server::model::new_id(),
            String::new(),
        );
        message.parts = vec![Part {
            media_type: Some(MEDIA_TYPE.to_owned()),
            filename: Some(FILENAME.to_owned()),
            ..Part::from_content(PartContent::Bytes(self.encode_to_vec()))
        }];
        message
    }

    /// Whether any answer in it asks to hold the task.
    pub fn holds(&self) -> bool {
        match &self.step {
            Some(Step::ReturnResponse(answer)) => answer.hold_task,
            Some(Step::Steps(steps)) => steps.instructions.iter().any(Self::holds),
            Some(Step::CallAgent(_)) | None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn answer(text: &str, hold_task: bool) -> Instruction {
        Instruction {
            step: Some(Step::ReturnResponse(ReturnResponse {
                response: text.to_owned(),
                hold_task,
            })),
        }
    }

    /// The bytes the kit's Python runner writes (`instruction_pb2`, protobuf 6) for
    /// `steps { instructions { return_response { response: "[a -> b (grpc)]" } }
    /// instructions { call_agent { transport: "grpc" agent_card_uri: "http://h:1"
    /// instruction { return_response { response: "end" hold_task: true } } streaming: true
    /// resubscribe {} } } response_generator: RESPONSE_GENERATOR_CONCAT }`.
    const FROM_THE_KIT: &[u8] = b"\x1a<\x0a\x13\x12\x11\x0a\x0f[a -> b (grpc)]\x0a#\x0a!\x0a\x04grpc\x12\x0ahttp://h:1\x1a\x09\x12\x07\x0a\x03end\x10\x01 \x01:\x00\x10\x01";

    #[test]
    fn reads_the_kits_bytes_field_by_field() {
        let read = Instruction::decode(FROM_THE_KIT).unwrap();
        let Some(Step::Steps(steps)) = &read.step else {
            panic!("{read:?}")
        };
        assert_eq!(steps.response_generator, 1);
        assert_eq!(steps.instructions[0], answer("[a -> b (grpc)]", false));
        let Some(Step::CallAgent(call)) = &steps.instructions[1].step else {
            panic!("{read:?}")
        };
        assert_eq!(call.transport, "grpc");
        assert_eq!(call.agent_card_uri, "http://h:1");
        assert!(call.streaming);
        assert_eq!(
            call.behavior,
            Some(Behavior::Resubscribe(ResubscribeBehavior {}))
        );
        assert_eq!(call.instruction.as_deref(), Some(&answer("end", true)));
        // The hold is the called agent's: this one answers at once.
        assert!(!read.holds());
        assert!(call.instruction.as_deref().unwrap().holds());
        // And written back to the same bytes.
        assert_eq!(read.encode_to_vec(), FROM_THE_KIT);
    }

    #[test]
    fn travels_as_a_raw_part_and_is_found_there() {
        let message = answer("hi", false).to_message();
        assert_eq!(message.role, Role::User);
        assert_eq!(message.parts.len(), 1);
        assert_eq!(message.parts[0].media_type.as_deref(), Some(MEDIA_TYPE));
        assert_eq!(message.parts[0].filename.as_deref(), Some(FILENAME));
        assert_eq!(Instruction::find(&message), Some(answer("hi", false)));
    }

    #[test]
    fn base64_text_is_read_and_anything_else_is_not_an_instruction() {
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(answer("x", true).encode_to_vec());
        let text = Message::text(Role::User, "m", encoded);
        assert_eq!(Instruction::find(&text), Some(answer("x", true)));
        assert_eq!(
            Instruction::find(&Message::text(Role::User, "m", "hello")),
            None
        );
        let mut garbage = answer("x", false).to_message();
        garbage.parts[0].content = PartContent::Bytes(vec![0xff, 0xff, 0xff]);
        assert_eq!(Instruction::find(&garbage), None);
    }

    #[test]
    fn a_hold_anywhere_in_the_steps_holds_but_not_inside_a_call() {
        let steps = |instructions| Instruction {
            step: Some(Step::Steps(SeriesOfSteps {
                instructions,
                response_generator: 1,
            })),
        };
        assert!(!steps(vec![answer("a", false), answer("b", false)]).holds());
        assert!(steps(vec![answer("a", false), answer("b", true)]).holds());
        let call = Instruction {
            step: Some(Step::CallAgent(CallAgent {
                instruction: Some(Box::new(answer("held there", true))),
                ..CallAgent::default()
            })),
        };
        assert!(!call.holds());
    }
}
