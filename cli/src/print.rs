//! What the commands print: text for people (the agent's words on stdout, task states on
//! stderr) or, with `--json`, the protocol's own JSON on stdout.

use std::io::Write;

use a2a_lambda_client::model::{self, PartContent, StreamEvent, Task, TaskState};
use a2a_lambda_client::{Binding, FetchedCard, ProtocolVersion, protocol};

/// A state as a person reads it (`input-required`).
pub fn state(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired => "input-required",
        TaskState::Completed => "completed",
        TaskState::Canceled => "canceled",
        TaskState::Failed => "failed",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth-required",
        TaskState::Unknown => "unknown",
    }
}

/// One part as text: text (and text files) as it is, data as JSON, other files by name
/// or URL.
fn part_text(part: &model::Part) -> String {
    match &part.content {
        PartContent::Text(text) => text.clone(),
        PartContent::Data(data) => data.to_string(),
        PartContent::Url(url) => format!("[file {url}]"),
        PartContent::Bytes(bytes)
            if part
                .media_type
                .as_deref()
                .is_some_and(|t| t.starts_with("text/"))
                && std::str::from_utf8(bytes).is_ok() =>
        {
            String::from_utf8_lossy(bytes).into_owned()
        }
        PartContent::Bytes(bytes) => format!(
            "[file {} ({} bytes{})]",
            part.filename.as_deref().unwrap_or("unnamed"),
            bytes.len(),
            part.media_type
                .as_deref()
                .map(|t| format!(", {t}"))
                .unwrap_or_default()
        ),
    }
}

fn parts_text(parts: &[model::Part]) -> String {
    parts.iter().map(part_text).collect::<Vec<_>>().join("\n")
}

/// The card, for people.
pub fn card(card: &FetchedCard, chosen: Option<(Binding, ProtocolVersion, &str)>) {
    let description = card
        .json
        .get("description")
        .and_then(|d| d.as_str())
        .unwrap_or("");
    println!(
        "{}{}",
        card.name,
        if description.is_empty() {
            String::new()
        } else {
            format!(": {description}")
        }
    );
    println!("card:      {}", card.url);
    for interface in &card.interfaces {
        println!(
            "interface: {} {} {}",
            interface.binding, interface.protocol_version, interface.url
        );
    }
    if let Some((binding, version, url)) = chosen {
        println!(
            "using:     {} {} at {url}",
            a2a_lambda_client::card::binding_label(binding),
            version.as_str()
        );
    }
    println!(
        "streaming: {}, push notifications: {}",
        card.streaming, card.push_notifications
    );
    if let Some(skills) = card.json.get("skills").and_then(|s| s.as_array()) {
        for skill in skills {
            let name = skill.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            let about = skill
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("");
            println!("skill:     {name}: {about}");
        }
    }
}

/// A task, for people: its artifacts' and status message's text on stdout, its state on
/// stderr.
pub fn task(task: &Task) {
    for artifact in &task.artifacts {
        println!("{}", parts_text(&artifact.parts));
    }
    if let Some(message) = &task.status.message {
        println!("{}", parts_text(&message.parts));
    }
    status_line(task);
}

/// `task ID (context ID): STATE` on stderr.
pub fn status_line(task: &Task) {
    eprintln!(
        "task {} (context {}): {}",
        task.id,
        task.context_id,
        state(task.status.state)
    );
}

/// A direct reply.
pub fn message(message: &model::Message) {
    println!("{}", parts_text(&message.parts));
}

/// Prints stream events as they arrive.
pub struct StreamPrinter {
    json: bool,
    version: ProtocolVersion,
    /// Text printed without a newline yet.
    open_line: bool,
    /// The last state seen.
    pub last_state: Option<TaskState>,
}

impl StreamPrinter {
    pub fn new(json: bool, version: ProtocolVersion) -> Self {
        Self {
            json,
            version,
            open_line: false,
            last_state: None,
        }
    }

    pub fn event(&mut self, event: &StreamEvent) {
        if self.json {
            println!("{}", protocol::stream_event_json(self.version, event));
            self.track(event);
            return;
        }
        let mut out = std::io::stdout().lock();
        match event {
            StreamEvent::Task(task) => {
                for artifact in &task.artifacts {
                    let _ = writeln!(out, "{}", parts_text(&artifact.parts));
                }
                self.note(&format!(
                    "task {} (context {}): {}",
                    task.id,
                    task.context_id,
                    state(task.status.state)
                ));
            }
            StreamEvent::Message(message) => {
                self.close_line();
                let _ = writeln!(out, "{}", parts_text(&message.parts));
            }
            StreamEvent::ArtifactUpdate(update) => {
                let text = parts_text(&update.artifact.parts);
                let _ = write!(out, "{text}");
                self.open_line = !text.ends_with('\n');
                if update.last_chunk {
                    self.close_line();
                }
            }
            StreamEvent::StatusUpdate(update) => {
                let text = update
                    .status
                    .message
                    .as_ref()
                    .map(|message| format!(": {}", parts_text(&message.parts)))
                    .unwrap_or_default();
                self.note(&format!("[{}]{text}", state(update.status.state)));
            }
        }
        let _ = out.flush();
        self.track(event);
    }

    fn track(&mut self, event: &StreamEvent) {
        if let Some(state) = event.state() {
            self.last_state = Some(state);
        }
    }

    fn note(&mut self, text: &str) {
        self.close_line();
        eprintln!("{text}");
    }

    /// Ends a line of streamed text.
    pub fn close_line(&mut self) {
        if self.open_line {
            println!();
            self.open_line = false;
        }
    }
}
