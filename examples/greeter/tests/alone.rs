//! The greeter alone, without a host (`a2a_lambda_server::testing`): exactly what it sends, event
//! by event, in milliseconds.

use a2a_lambda_server::model::{PartContent, Task, TaskState, TaskStatus};
use a2a_lambda_server::{AgentEvent, RequestContext, testing};
use greeter::Greeter;

#[tokio::test]
async fn asks_for_the_name_then_greets_in_chunks() {
    let asked = testing::run(&Greeter, RequestContext::text("hi")).await;
    assert!(asked.outcome.is_ok());
    assert_eq!(asked.state(), Some(TaskState::InputRequired));
    let [
        AgentEvent::Status {
            message: Some(question),
            ..
        },
    ] = asked.events.as_slice()
    else {
        panic!("expected one question: {:?}", asked.events);
    };
    assert_eq!(question.joined_text(), "What is your name?");

    // The answer continues the task the question left waiting.
    let waiting = Task {
        id: "t-1".to_owned(),
        context_id: "c-1".to_owned(),
        status: TaskStatus::new(TaskState::InputRequired),
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    };
    let greeted = testing::run(&Greeter, RequestContext::text("Ada").continuing(waiting)).await;
    assert!(greeted.outcome.is_ok());
    assert_eq!(greeted.state(), Some(TaskState::Completed));
    // The artifact writer marks every chunk but the first `append`, and the last one
    // `lastChunk`.
    let chunks: Vec<(&str, &str, bool, bool)> = greeted
        .events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Artifact {
                artifact,
                append,
                last_chunk,
            } => match artifact.parts.as_slice() {
                [part] => match &part.content {
                    PartContent::Text(text) => Some((
                        artifact.artifact_id.as_str(),
                        text.as_str(),
                        *append,
                        *last_chunk,
                    )),
                    other => panic!("not a text part: {other:?}"),
                },
                parts => panic!("expected one part a chunk: {parts:?}"),
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        chunks,
        [
            ("greeting", "Hello,", false, false),
            ("greeting", " Ada!", true, false),
            ("greeting", " Nice", true, false),
            ("greeting", " to", true, false),
            ("greeting", " meet", true, false),
            ("greeting", " you.", true, true),
        ]
    );
    assert_eq!(
        greeted.artifact_text("greeting"),
        "Hello, Ada! Nice to meet you."
    );
}
