//! The in-memory task store and the lifecycle rules.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::model::{
    Artifact, ListTasksParams, Message, Role, Task, TaskState, TaskStatus,
};
use a2a_lambda_server::agent::AgentEvent;
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::{
    self, Applied, InMemoryTaskStore, LifecycleError, StoreError, TaskStore,
};

fn task(id: &str, context: &str, state: TaskState, at: &str) -> Task {
    Task {
        id: id.to_owned(),
        context_id: context.to_owned(),
        status: TaskStatus {
            state,
            message: None,
            timestamp: Some(at.to_owned()),
        },
        artifacts: vec![Artifact::text("a", "x")],
        history: (0..3)
            .map(|n| Message::text(Role::User, format!("m{n}"), "hi"))
            .collect(),
        metadata: None,
    }
}

#[tokio::test]
async fn list_filters_sorts_newest_first_and_pages() {
    let store = InMemoryTaskStore::new();
    store
        .put(
            &task("t1", "c1", TaskState::Completed, "2026-01-01T00:00:01Z"),
            &Owner::anonymous(),
            None,
        )
        .await
        .unwrap();
    store
        .put(
            &task("t2", "c1", TaskState::Working, "2026-01-01T00:00:03Z"),
            &Owner::anonymous(),
            None,
        )
        .await
        .unwrap();
    store
        .put(
            &task("t3", "c2", TaskState::Completed, "2026-01-01T00:00:02Z"),
            &Owner::anonymous(),
            None,
        )
        .await
        .unwrap();

    let all = store
        .list(&ListTasksParams::default(), &Owner::anonymous())
        .await
        .unwrap();
    let ids: Vec<&str> = all.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t2", "t3", "t1"]);
    assert_eq!(
        (all.total_size, all.page_size, all.next_page_token.as_str()),
        (3, 50, "")
    );
    assert!(
        all.tasks.iter().all(|t| t.artifacts.is_empty()),
        "artifacts only when asked"
    );

    let c1 = store
        .list(
            &ListTasksParams {
                context_id: Some("c1".into()),
                ..Default::default()
            },
            &Owner::anonymous(),
        )
        .await
        .unwrap();
    assert_eq!(c1.total_size, 2);

    let done = store
        .list(
            &ListTasksParams {
                status: Some(TaskState::Completed),
                ..Default::default()
            },
            &Owner::anonymous(),
        )
        .await
        .unwrap();
    assert_eq!(
        done.tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["t3", "t1"]
    );

    let recent = store
        .list(
            &ListTasksParams {
                status_timestamp_after: Some("2026-01-01T00:00:02Z".into()),
                ..Default::default()
            },
            &Owner::anonymous(),
        )
        .await
        .unwrap();
    assert_eq!(recent.total_size, 2);

    let first = store
        .list(
            &ListTasksParams {
                page_size: Some(2),
                history_length: Some(1),
                include_artifacts: true,
                ..Default::default()
            },
            &Owner::anonymous(),
        )
        .await
        .unwrap();
    assert_eq!(first.tasks.len(), 2);
    assert_eq!(first.tasks[0].history.len(), 1);
    assert_eq!(
        first.tasks[0].history[0].message_id, "m2",
        "the last messages are kept"
    );
    assert_eq!(first.tasks[0].artifacts.len(), 1);
    assert!(!first.next_page_token.is_empty());
    let second = store
        .list(
            &ListTasksParams {
                page_size: Some(2),
                page_token: Some(first.next_page_token),
                ..Default::default()
            },
            &Owner::anonymous(),
        )
        .await
        .unwrap();
    assert_eq!(
        second
            .tasks
            .iter()
            .map(|t| t.id.as_str())
            .collect::<Vec<_>>(),
        ["t1"]
    );
    assert_eq!(second.next_page_token, "");

    let bad = store
        .list(
            &ListTasksParams {
                page_token: Some("nonsense".into()),
                ..Default::default()
            },
            &Owner::anonymous(),
        )
        .await;
    assert!(bad.is_err());
}

fn big(id: &str, state: TaskState, bytes: usize) -> Task {
    let mut made = task(id, "c", state, "2026-01-01T00:00:00Z");
    made.history = vec![Message::text(Role::User, "m", "x".repeat(bytes))];
    made
}

#[tokio::test]
async fn a_store_over_its_bytes_forgets_the_oldest_finished_tasks_never_open_ones() {
    const MIB: usize = 1024 * 1024;
    let store = InMemoryTaskStore::with_limits(1_000, 10 * MIB);
    let owner = Owner::anonymous();
    store
        .put(&big("open", TaskState::Working, 4 * MIB), &owner, None)
        .await
        .unwrap();
    for n in 0..20 {
        store
            .put(
                &big(&format!("done-{n}"), TaskState::Completed, 2 * MIB),
                &owner,
                None,
            )
            .await
            .unwrap();
        assert!(store.bytes() <= 10 * MIB, "{n}: {}", store.bytes());
    }
    assert!(
        store.get("open").await.unwrap().is_some(),
        "open tasks are kept"
    );
    // 4 MiB open + two finished of 2 MiB fit in 10 MiB; a third would not.
    assert_eq!(store.len(), 3);
    for gone in 0..18 {
        assert!(
            store.get(&format!("done-{gone}")).await.unwrap().is_none(),
            "{gone}"
        );
    }
    assert!(store.get("done-19").await.unwrap().is_some());
    // A task that grows past the bound pushes older finished ones out, never itself.
    let grown = big("done-19", TaskState::Completed, 9 * MIB);
    store.put(&grown, &owner, Some(1)).await.unwrap();
    assert!(store.get("done-18").await.unwrap().is_none());
    assert!(
        store.get("done-19").await.unwrap().is_some(),
        "the task written last stays"
    );
    assert!(store.get("open").await.unwrap().is_some());
    assert!(
        store.bytes() > 10 * MIB,
        "over the bound only by what cannot go"
    );
    // Once the open task finishes, the next write can make room.
    let finished = big("open", TaskState::Completed, 4 * MIB);
    store.put(&finished, &owner, Some(1)).await.unwrap();
    assert!(store.get("done-19").await.unwrap().is_none());
    assert_eq!(store.len(), 1);
    assert!(store.bytes() <= 10 * MIB, "{}", store.bytes());
}

#[tokio::test]
async fn a_full_store_forgets_the_oldest_finished_tasks_only() {
    let store = InMemoryTaskStore::with_capacity(2);
    store
        .put(
            &task(
                "open",
                "c",
                TaskState::InputRequired,
                "2026-01-01T00:00:00Z",
            ),
            &Owner::anonymous(),
            None,
        )
        .await
        .unwrap();
    store
        .put(
            &task("done-1", "c", TaskState::Completed, "2026-01-01T00:00:01Z"),
            &Owner::anonymous(),
            None,
        )
        .await
        .unwrap();
    store
        .put(
            &task("done-2", "c", TaskState::Completed, "2026-01-01T00:00:02Z"),
            &Owner::anonymous(),
            None,
        )
        .await
        .unwrap();
    assert!(
        store.get("open").await.unwrap().is_some(),
        "open tasks are kept"
    );
    assert!(
        store.get("done-1").await.unwrap().is_none(),
        "the oldest finished task goes"
    );
    assert!(store.get("done-2").await.unwrap().is_some());
    // Saving an existing task again does not count twice.
    let again = task("done-2", "c", TaskState::Completed, "2026-01-01T00:00:03Z");
    assert_eq!(
        store
            .put(&again, &Owner::anonymous(), Some(1))
            .await
            .unwrap(),
        2
    );
    assert!(store.get("open").await.unwrap().is_some());
}

#[tokio::test]
async fn writes_are_conditional_on_the_version_read() {
    let store = InMemoryTaskStore::new();
    let first = task("t", "c", TaskState::Working, "2026-01-01T00:00:00Z");
    assert_eq!(
        store.put(&first, &Owner::anonymous(), None).await.unwrap(),
        1
    );
    assert!(
        matches!(store.put(&first, &Owner::anonymous(), None).await, Err(StoreError::Conflict(id)) if id == "t"),
        "creating an existing task is a conflict"
    );
    let read = store.get("t").await.unwrap().unwrap();
    assert_eq!(read.version, 1);
    // Two writers read version 1; the first write wins, the second must read again.
    let canceled = task("t", "c", TaskState::Canceled, "2026-01-01T00:00:01Z");
    let completed = task("t", "c", TaskState::Completed, "2026-01-01T00:00:02Z");
    assert_eq!(
        store
            .put(&canceled, &Owner::anonymous(), Some(1))
            .await
            .unwrap(),
        2
    );
    assert!(matches!(
        store.put(&completed, &Owner::anonymous(), Some(1)).await,
        Err(StoreError::Conflict(_))
    ));
    let now = store.get("t").await.unwrap().unwrap();
    assert_eq!(
        (now.task.status.state, now.version),
        (TaskState::Canceled, 2)
    );
}

#[test]
fn apply_follows_the_lifecycle_rules() {
    let mut current = task("t", "c", TaskState::Working, "2026-01-01T00:00:00Z");
    current.artifacts.clear();
    let applied = tasks::apply(
        &mut current,
        AgentEvent::Artifact {
            artifact: Artifact::text("out", "one "),
            append: false,
            last_chunk: false,
        },
    )
    .unwrap();
    assert!(matches!(applied, Applied::Artifact(ref update) if !update.append));
    tasks::apply(
        &mut current,
        AgentEvent::Artifact {
            artifact: Artifact::text("out", "two"),
            append: true,
            last_chunk: true,
        },
    )
    .unwrap();
    assert_eq!(current.artifacts.len(), 1);
    assert_eq!(
        current.artifacts[0].parts.len(),
        2,
        "append extends the artifact"
    );

    assert_eq!(
        tasks::apply(
            &mut current,
            AgentEvent::Artifact {
                artifact: Artifact::text("ghost", "x"),
                append: true,
                last_chunk: true
            },
        ),
        Err(LifecycleError::UnknownArtifact("ghost".into()))
    );

    let message = Message::text(Role::Agent, "a1", "done");
    let applied = tasks::apply(
        &mut current,
        AgentEvent::status(TaskState::Completed, Some(message)),
    )
    .unwrap();
    match applied {
        Applied::Status(update) => {
            assert!(update.is_final);
            assert_eq!(update.status.state, TaskState::Completed);
            assert!(update.status.timestamp.is_some());
        }
        Applied::Artifact(_) => panic!("expected a status update"),
    }
    assert_eq!(current.history.last().unwrap().message_id, "a1");

    assert_eq!(
        tasks::apply(&mut current, AgentEvent::status(TaskState::Working, None)),
        Err(LifecycleError::AfterTerminal(TaskState::Completed)),
        "nothing changes a terminal task"
    );
    assert_eq!(current.status.state, TaskState::Completed);
}

#[test]
fn apply_quietly_changes_the_task_as_apply_does() {
    let events = || {
        vec![
            AgentEvent::status(
                TaskState::Working,
                Some(Message::text(Role::Agent, "a1", "on it")),
            ),
            AgentEvent::Artifact {
                artifact: Artifact::text("out", "one "),
                append: false,
                last_chunk: false,
            },
            AgentEvent::Artifact {
                artifact: Artifact::text("out", "two"),
                append: true,
                last_chunk: true,
            },
            AgentEvent::Artifact {
                artifact: Artifact::text("ghost", "x"),
                append: true,
                last_chunk: true,
            },
            AgentEvent::status(TaskState::Completed, None),
            AgentEvent::Message(Message::text(Role::Agent, "a2", "late")),
        ]
    };
    let mut loud = task("t", "c", TaskState::Submitted, "2026-01-01T00:00:00Z");
    loud.artifacts.clear();
    let mut quiet = loud.clone();
    for (first, second) in events().into_iter().zip(events()) {
        let loud_outcome = tasks::apply(&mut loud, first).map(|_| ());
        assert_eq!(tasks::apply_quietly(&mut quiet, second), loud_outcome);
    }
    // Timestamps are taken at each change: compare everything else.
    quiet.status.timestamp.clone_from(&loud.status.timestamp);
    assert_eq!(quiet, loud);
    assert_eq!(quiet.status.state, TaskState::Completed);
    assert_eq!(quiet.artifacts[0].parts.len(), 2);
    assert_eq!(quiet.history.last().unwrap().message_id, "a1");
}

#[test]
fn history_length_keeps_the_last_messages() {
    let full = task("t", "c", TaskState::Completed, "2026-01-01T00:00:00Z");
    assert_eq!(tasks::view(&full, None, true).history.len(), 3);
    assert_eq!(tasks::view(&full, Some(0), true).history.len(), 0);
    let one = tasks::view(&full, Some(1), true);
    assert_eq!(one.history[0].message_id, "m2");
    assert_eq!(tasks::view(&full, Some(10), true).history.len(), 3);
}

#[test]
fn timestamps_are_rfc3339_with_milliseconds() {
    let now = tasks::now_rfc3339();
    assert_eq!(now.len(), "2026-01-02T03:04:05.678Z".len(), "{now}");
    assert!(now.ends_with('Z'));
}

#[test]
fn timestamps_match_the_calendar_from_1970_to_9999() {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    let last = 253_402_300_799; // 9999-12-31T23:59:59Z
    // Leap days (2000 is leap, 2100 is not), year and month ends, then a stride across
    // every era of the range.
    let chosen = [
        0,
        951_782_400,
        951_868_799,
        4_107_542_399,
        4_107_542_400,
        last,
    ];
    let stride = (0..=last)
        .step_by(7_777_777)
        .map(|seconds| seconds + seconds % 86_400);
    for seconds in chosen
        .into_iter()
        .chain(stride.filter(|seconds| *seconds <= last))
    {
        let millis = u32::try_from(seconds % 1000).unwrap();
        let at = time::OffsetDateTime::from_unix_timestamp(i64::try_from(seconds).unwrap())
            .unwrap()
            + time::Duration::milliseconds(i64::from(millis));
        assert_eq!(
            tasks::rfc3339_millis(seconds, millis),
            at.format(&format).unwrap(),
            "{seconds} s"
        );
    }
    assert_eq!(tasks::rfc3339_millis(0, 7), "1970-01-01T00:00:00.007Z");
    assert_eq!(tasks::rfc3339_millis(last + 1, 0), "", "past year 9999");
}

#[test]
fn streams_end_by_one_rule_for_both_kinds() {
    use a2a_lambda_core::model::{StreamEvent, StreamKind, TaskStatusUpdateEvent};

    let update = |state: TaskState, is_final: bool| {
        StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state,
                message: None,
                timestamp: None,
            },
            is_final,
            metadata: None,
        })
    };
    let snapshot = |state| StreamEvent::Task(task("t", "c", state, "2026-01-01T00:00:00Z"));
    let cases = [
        // (event, ends a send stream, ends a subscription)
        (update(TaskState::Working, false), false, false),
        (update(TaskState::InputRequired, false), true, false),
        (update(TaskState::AuthRequired, false), true, false),
        (update(TaskState::Working, true), true, false),
        (update(TaskState::Completed, false), true, true),
        (update(TaskState::Canceled, true), true, true),
        // A reopened task's first snapshot still says input-required: it ends nothing.
        (snapshot(TaskState::InputRequired), false, false),
        (snapshot(TaskState::Failed), true, true),
        (
            StreamEvent::Message(Message::text(Role::Agent, "m", "hi")),
            true,
            true,
        ),
    ];
    for (event, send, subscription) in cases {
        assert_eq!(event.ends(StreamKind::Send), send, "send: {event:?}");
        assert_eq!(
            event.ends(StreamKind::Subscription),
            subscription,
            "subscription: {event:?}"
        );
    }
    assert_eq!(
        update(TaskState::Working, false).state(),
        Some(TaskState::Working)
    );
    assert_eq!(
        StreamEvent::Message(Message::text(Role::Agent, "m", "hi")).state(),
        None
    );
}
