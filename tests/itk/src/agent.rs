//! [`ItkAgent`]: runs the instruction a message carries and answers with the texts its
//! steps produced, one a line, in the task's final status message (where the kit's runner
//! and agents read an answer).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use a2a_lambda_server::card::{AgentCard, Skill};
use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext, SinkClosed, StatusNote};

use crate::call::{CallError, call_agent};
use crate::instruction::{FINISHED, Instruction, Step};

/// How long a held task stays `working` after its instruction is done, and how often it
/// says so meanwhile: the kit's own agents hold for five ticks of two seconds, then
/// complete; a caller that resubscribed cancels it before.
const HOLD_TICK: Duration = Duration::from_secs(2);
const HOLD_TICKS: u32 = 5;

/// The kit's instruction agent.
pub struct ItkAgent;

impl Agent for ItkAgent {
    fn card(&self) -> AgentCard {
        let mut card = AgentCard::new(
            "ITK a2a-lambda agent",
            "Runs the A2A interop kit's instructions (a2aproject/a2a-itk) on a2a-lambda.",
            env!("CARGO_PKG_VERSION"),
        )
        .with_skill(Skill::new(
            "itk-instructions",
            "ITK instructions",
            "Answers, calls other agents and combines their answers as a protobuf \
             instruction says.",
            ["itk"],
        ))
        .with_streaming(true);
        card.default_input_modes = vec![
            "text/plain".to_owned(),
            crate::instruction::MEDIA_TYPE.to_owned(),
        ];
        card
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        match serve(&context, &events).await {
            // The task was canceled or ended: nothing more to say.
            Err(SinkClosed) | Ok(()) => Ok(()),
        }
    }
}

async fn serve(context: &RequestContext, events: &EventSink) -> Result<(), SinkClosed> {
    let Some(instruction) = Instruction::find(&context.message) else {
        return events
            .fail(StatusNote::text("No valid instruction found in request"))
            .await;
    };
    events.working().await?;
    let answer = match run(&instruction).await {
        Ok(texts) => texts.join("\n"),
        Err(error) => {
            tracing::warn!(task = %context.task_id, %error, "instruction failed");
            return events.fail(StatusNote::text(error.to_string())).await;
        }
    };
    if !instruction.holds() {
        return events.complete_with(StatusNote::text(answer)).await;
    }
    // Held: the answer is said at once, ending in the marker a resubscribed caller reads
    // up to, and again at every tick, so whenever the caller comes back the task's status
    // carries it.
    let held = format!("{answer}\n{FINISHED}");
    events.working_with(StatusNote::text(held.clone())).await?;
    for _ in 0..HOLD_TICKS {
        tokio::select! {
            () = context.cancellation.cancelled() => return Ok(()),
            () = tokio::time::sleep(HOLD_TICK) => {}
        }
        events.working_with(StatusNote::text(held.clone())).await?;
    }
    events.complete_with(StatusNote::text(held)).await
}

/// The texts an instruction's steps produce, in order.
fn run(
    instruction: &Instruction,
) -> Pin<Box<dyn Future<Output = Result<Vec<String>, CallError>> + Send + '_>> {
    Box::pin(async move {
        match &instruction.step {
            Some(Step::ReturnResponse(answer)) => Ok(vec![answer.response.clone()]),
            Some(Step::CallAgent(call)) => call_agent(call).await,
            Some(Step::Steps(steps)) => {
                let mut texts = Vec::new();
                for step in &steps.instructions {
                    texts.extend(run(step).await?);
                }
                Ok(texts)
            }
            None => Err(CallError("an instruction without a step".to_owned())),
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use a2a_lambda_server::model::{Message, Role, TaskState};
    use a2a_lambda_server::{AgentEvent, testing};

    use super::*;
    use crate::instruction::{CallAgent, ReturnResponse, SeriesOfSteps};

    fn answer(text: &str, hold_task: bool) -> Instruction {
        Instruction {
            step: Some(Step::ReturnResponse(ReturnResponse {
                response: text.to_owned(),
                hold_task,
            })),
        }
    }

    /// Each status the agent set, with its message's text.
    async fn statuses(message: Message) -> Vec<(TaskState, Option<String>)> {
        let run = testing::run(&ItkAgent, RequestContext::new(message)).await;
        assert!(run.outcome.is_ok(), "{:?}", run.outcome);
        run.events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::Status { state, message, .. } => {
                    Some((*state, message.as_ref().map(Message::joined_text)))
                }
                _ => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn answers_the_steps_texts_one_a_line() {
        let message = Instruction {
            step: Some(Step::Steps(SeriesOfSteps {
                instructions: vec![answer("[a -> b (jsonrpc)]", false), answer("end", false)],
                response_generator: 1,
            })),
        }
        .to_message();
        assert_eq!(
            statuses(message).await,
            [
                (TaskState::Working, None),
                (
                    TaskState::Completed,
                    Some("[a -> b (jsonrpc)]\nend".to_owned())
                ),
            ]
        );
    }

    #[tokio::test]
    async fn a_message_without_an_instruction_fails_the_task_saying_so() {
        let message = Message::text(Role::User, "m-1", "hello");
        assert_eq!(
            statuses(message).await,
            [(
                TaskState::Failed,
                Some("No valid instruction found in request".to_owned())
            )]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_held_task_says_its_answer_at_once_and_each_tick_then_completes() {
        let held = Some("end\ntask-finished".to_owned());
        let mut expected = vec![(TaskState::Working, None)];
        expected.extend(vec![(TaskState::Working, held.clone()); 6]);
        expected.push((TaskState::Completed, held));
        assert_eq!(statuses(answer("end", true).to_message()).await, expected);
    }

    #[tokio::test(start_paused = true)]
    async fn a_held_task_stops_when_canceled() {
        let canceled = testing::cancel(
            &ItkAgent,
            RequestContext::new(answer("end", true).to_message()),
            Duration::from_secs(3),
            Duration::from_millis(10),
        )
        .await;
        assert!(canceled.stopped_within(Duration::from_millis(10)));
    }

    #[tokio::test]
    async fn a_call_over_an_unknown_transport_fails_the_task_naming_it() {
        let call = Instruction {
            step: Some(Step::CallAgent(CallAgent {
                transport: "carrier-pigeon".to_owned(),
                agent_card_uri: "http://127.0.0.1:9".to_owned(),
                ..CallAgent::default()
            })),
        };
        assert_eq!(
            statuses(call.to_message()).await,
            [
                (TaskState::Working, None),
                (
                    TaskState::Failed,
                    Some(
                        "unknown transport \"carrier-pigeon\" (jsonrpc, http_json or grpc)"
                            .to_owned()
                    )
                ),
            ]
        );
    }
}
