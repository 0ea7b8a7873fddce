#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The A2A v1.0 conformance suite's MUST requirements that apply to any binding, over the
//! gRPC binding of the real container host (the `conformance` agent; the same cases over
//! JSON-RPC: `conformance_v1_0.rs`, whose TCK requirement ids these mirror:
//! a2aproject/a2a-tck, `tck/requirements/`). Refusals are checked as the gRPC binding
//! reports them: the status code of the specification's §5.4 table and the
//! `google.rpc.ErrorInfo` reason (§10.6).

use a2a_lambda_core::grpc::v1;
use a2a_lambda_core::grpc::v1::a2a_service_client::A2aServiceClient;
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::serve::{Container, ContainerConfig, Running};
use futures_util::StreamExt as _;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt as _;

type Client = A2aServiceClient<Channel>;

async fn container() -> (Running, Client) {
    let config = ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" | "A2A_GRPC_PORT" => "0",
                "A2A_BINDINGS" => "grpc",
                _ => return None,
            }
            .to_owned(),
        )
    })
    .unwrap();
    let running = Container::with_config(BuiltIn::Conformance.agent(), config)
        .bind()
        .await
        .unwrap();
    let channel = Channel::from_shared(format!("http://{}", running.grpc_address().unwrap()))
        .unwrap()
        .connect()
        .await
        .unwrap();
    (running, A2aServiceClient::new(channel))
}

fn text(message_id: &str, text: &str) -> v1::Message {
    v1::Message {
        message_id: message_id.to_owned(),
        role: v1::Role::User.into(),
        parts: vec![v1::Part {
            content: Some(v1::part::Content::Text(text.to_owned())),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn follow_up(message_id: &str, task: &v1::Task) -> v1::Message {
    v1::Message {
        task_id: task.id.clone(),
        ..text(message_id, "TCK follow-up")
    }
}

async fn send(
    grpc: &mut Client,
    message: v1::Message,
) -> Result<v1::SendMessageResponse, tonic::Status> {
    grpc.send_message(v1::SendMessageRequest {
        message: Some(message),
        ..Default::default()
    })
    .await
    .map(tonic::Response::into_inner)
}

/// A new task from a message with this id prefix (the suite's prerequisite task).
async fn new_task(grpc: &mut Client, prefix: &str) -> v1::Task {
    let answer = send(
        grpc,
        text(&format!("{prefix}-{}", uuid()), "TCK prerequisite"),
    )
    .await
    .unwrap();
    match answer.payload {
        Some(v1::send_message_response::Payload::Task(task)) => task,
        other => panic!("a task: {other:?}"),
    }
}

fn uuid() -> String {
    a2a_lambda_core::model::new_id()
}

fn state(task: &v1::Task) -> v1::TaskState {
    task.status
        .as_ref()
        .map_or(v1::TaskState::Unspecified, v1::TaskStatus::state)
}

async fn get(grpc: &mut Client, id: &str, history_length: Option<i32>) -> v1::Task {
    grpc.get_task(v1::GetTaskRequest {
        id: id.to_owned(),
        history_length,
        ..Default::default()
    })
    .await
    .unwrap()
    .into_inner()
}

/// The status code and `ErrorInfo` reason of a refusal.
fn refusal(status: &tonic::Status) -> (Code, String) {
    let reason = status
        .get_error_details()
        .error_info()
        .map(|info| info.reason.clone())
        .unwrap_or_default();
    (status.code(), reason)
}

/// TCK CORE-SEND-002 (MUST) — a message to a task in a terminal state (completed, rejected,
/// canceled) is UnsupportedOperationError.
#[tokio::test]
async fn send_message_to_a_terminal_task_is_unsupported() {
    let (running, mut grpc) = container().await;
    let completed = new_task(&mut grpc, "tck-complete-task").await;
    let rejected = new_task(&mut grpc, "tck-reject-task").await;
    assert_eq!(state(&rejected), v1::TaskState::Rejected);
    let open = new_task(&mut grpc, "tck-input-required").await;
    let canceled = grpc
        .cancel_task(v1::CancelTaskRequest {
            id: open.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&canceled), v1::TaskState::Canceled);
    for task in [completed, rejected, canceled] {
        let refused = send(
            &mut grpc,
            follow_up(&format!("tck-terminal-{}", uuid()), &task),
        )
        .await
        .unwrap_err();
        assert_eq!(
            refusal(&refused),
            (Code::FailedPrecondition, "UNSUPPORTED_OPERATION".to_owned()),
            "{refused:?}"
        );
    }
    running.shutdown().await.unwrap();
}

/// TCK CORE-SEND-003 (MUST) — a part of a media type the agent does not take is
/// ContentTypeNotSupportedError.
#[tokio::test]
async fn send_message_with_an_unsupported_media_type_is_refused() {
    let (running, mut grpc) = container().await;
    let message = v1::Message {
        parts: vec![v1::Part {
            content: Some(v1::part::Content::Raw(b"tck".to_vec())),
            media_type: "application/x-unsupported-tck-type".to_owned(),
            ..Default::default()
        }],
        ..text(&format!("tck-send-003-{}", uuid()), "")
    };
    let refused = send(&mut grpc, message).await.unwrap_err();
    assert_eq!(
        refusal(&refused),
        (
            Code::InvalidArgument,
            "CONTENT_TYPE_NOT_SUPPORTED".to_owned()
        ),
        "{refused:?}"
    );
    running.shutdown().await.unwrap();
}

/// TCK CORE-MULTI-001a, CORE-MULTI-003 (MUST) — without a contextId the task carries the one
/// the agent generated, and a follow-up to the task keeps it; every new task gets its own
/// id. CORE-EXECUTION-MODE-001 (MUST) — a blocking send that needs input returns the task
/// in TASK_STATE_INPUT_REQUIRED; a blocking follow-up that completes it returns it
/// terminal.
#[tokio::test]
async fn ids_are_generated_and_kept_and_a_follow_up_completes_the_task() {
    let (running, mut grpc) = container().await;
    let task = new_task(&mut grpc, "tck-input-required").await;
    let other = new_task(&mut grpc, "tck-input-required").await;
    assert_eq!(state(&task), v1::TaskState::InputRequired);
    assert!(
        !task.id.is_empty() && !task.context_id.is_empty(),
        "{task:?}"
    );
    assert_ne!(task.id, other.id);
    let answer = send(
        &mut grpc,
        follow_up(&format!("tck-complete-task-{}", uuid()), &task),
    )
    .await
    .unwrap();
    let Some(v1::send_message_response::Payload::Task(done)) = answer.payload else {
        panic!("a task")
    };
    assert_eq!(
        (done.id.as_str(), done.context_id.as_str()),
        (task.id.as_str(), task.context_id.as_str())
    );
    assert_eq!(state(&done), v1::TaskState::Completed);
    running.shutdown().await.unwrap();
}

/// TCK CORE-MULTI-004 (MUST) — a message naming a taskId that does not exist is
/// TaskNotFoundError; CORE-MULTI-006 (MUST) — one whose contextId differs from its task's
/// is refused, and the task is left as it was.
#[tokio::test]
async fn unknown_tasks_and_mismatched_contexts_are_refused() {
    let (running, mut grpc) = container().await;
    let missing = send(
        &mut grpc,
        v1::Message {
            task_id: format!("tck-nonexistent-{}", uuid()),
            ..text(
                &format!("tck-multi-004-{}", uuid()),
                "Message to invalid task",
            )
        },
    )
    .await
    .unwrap_err();
    assert_eq!(
        refusal(&missing),
        (Code::NotFound, "TASK_NOT_FOUND".to_owned())
    );

    let task = new_task(&mut grpc, "tck-input-required").await;
    let mismatched = v1::Message {
        context_id: format!("tck-wrong-context-{}", uuid()),
        ..follow_up(&format!("tck-mismatch-{}", uuid()), &task)
    };
    let refused = send(&mut grpc, mismatched).await.unwrap_err();
    assert_ne!(refused.code(), Code::Ok);
    assert_eq!(get(&mut grpc, &task.id, None).await.status, task.status);
    running.shutdown().await.unwrap();
}

/// TCK CORE-GET-001, CORE-HIST-002 (MUST) — GetTask returns the task's current state, never
/// more history than `historyLength` (0: none).
#[tokio::test]
async fn get_task_honours_history_length() {
    let (running, mut grpc) = container().await;
    let task = new_task(&mut grpc, "tck-input-required").await;
    send(
        &mut grpc,
        follow_up(&format!("tck-complete-task-{}", uuid()), &task),
    )
    .await
    .unwrap();
    let current = get(&mut grpc, &task.id, None).await;
    assert_eq!(state(&current), v1::TaskState::Completed);
    assert!(get(&mut grpc, &task.id, Some(1)).await.history.len() <= 1);
    assert_eq!(get(&mut grpc, &task.id, Some(0)).await.history.len(), 0);
    assert!(get(&mut grpc, &task.id, Some(10)).await.history.len() >= 2);
    running.shutdown().await.unwrap();
}

/// TCK CORE-LIST-001 (MUST) — ListTasks filtered by context returns only that context's
/// tasks; artifacts are left out unless asked for (CORE-LIST-005).
#[tokio::test]
async fn list_tasks_filters_by_context() {
    let (running, mut grpc) = container().await;
    let first = new_task(&mut grpc, "tck-artifact-text").await;
    new_task(&mut grpc, "tck-artifact-text").await;
    let listed = grpc
        .list_tasks(v1::ListTasksRequest {
            context_id: first.context_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let ids: Vec<&str> = listed.tasks.iter().map(|task| task.id.as_str()).collect();
    assert_eq!(ids, [first.id.as_str()]);
    assert!(listed.tasks[0].artifacts.is_empty(), "{listed:?}");
    let with = grpc
        .list_tasks(v1::ListTasksRequest {
            context_id: first.context_id.clone(),
            include_artifacts: Some(true),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(with.tasks[0].artifacts.len(), 1, "{with:?}");
    running.shutdown().await.unwrap();
}

/// TCK STREAM-SUB-001, STREAM-SUB-002 (MUST) — a subscription's first event is the task,
/// and it ends at the terminal state; STREAM-SUB-003 (MUST) — subscribing to a terminal
/// task is UnsupportedOperationError.
#[tokio::test]
async fn subscriptions_start_with_the_task_and_end_at_its_terminal_state() {
    let (running, mut grpc) = container().await;
    let task = new_task(&mut grpc, "tck-input-required").await;
    let mut events = grpc
        .subscribe_to_task(v1::SubscribeToTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let first = events.next().await.unwrap().unwrap();
    let Some(v1::stream_response::Payload::Task(current)) = first.payload else {
        panic!("the task first: {first:?}")
    };
    assert_eq!(current.id, task.id);
    send(
        &mut grpc,
        follow_up(&format!("tck-complete-task-{}", uuid()), &task),
    )
    .await
    .unwrap();
    let mut last = None;
    while let Some(event) = events.next().await {
        if let Some(v1::stream_response::Payload::StatusUpdate(update)) = event.unwrap().payload {
            last = update.status.map(|status| status.state());
        }
    }
    assert_eq!(last, Some(v1::TaskState::Completed));

    let refused = grpc
        .subscribe_to_task(v1::SubscribeToTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        refusal(&refused),
        (Code::FailedPrecondition, "UNSUPPORTED_OPERATION".to_owned())
    );
    running.shutdown().await.unwrap();
}
