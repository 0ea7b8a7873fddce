//! "Writing agents": one small agent for each thing an agent does: reply without a task,
//! report progress and finish with metadata, refuse, hold a conversation over several
//! turns, stop when canceled, and stream artifacts.

use std::time::Duration;

use a2a_lambda_server::card::{AgentCard, Skill};
use a2a_lambda_server::model::{Artifact, Part};
use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext, StatusNote};
use serde_json::json;

// ANCHOR: reply
/// Answers with a direct message: no task is created.
pub struct Shout;

impl Agent for Shout {
    fn card(&self) -> AgentCard {
        AgentCard::new("Shout", "Answers in capitals.", "1.0.0").with_skill(Skill::new(
            "shout",
            "Shout",
            "Upper-cases the input.",
            ["text"],
        ))
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = context.message.joined_text().to_uppercase();
        events.reply(text).await?; // the first and only event: a Message, no task
        Ok(())
    }
}
// ANCHOR_END: reply

// ANCHOR: task
/// Counts the words of a text: a task with a progress message, a whole artifact, and the
/// count in the task's metadata.
pub struct WordCount;

impl Agent for WordCount {
    fn card(&self) -> AgentCard {
        AgentCard::new("Word count", "Counts the words of a text.", "1.0.0").with_skill(Skill::new(
            "count",
            "Count words",
            "Counts words.",
            ["text"],
        ))
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = context.message.joined_text();
        if text.trim().is_empty() {
            // The client sees this message; the task ends `rejected`.
            events.reject("Send some text to count.").await?;
            return Ok(());
        }
        events.working_with("Counting…").await?;
        let words = text.split_whitespace().count();
        events
            .artifact(Artifact::text("count", format!("{words} words")))
            .await?;
        events
            .complete_with(StatusNote::text("Done").task_metadata("words", json!(words)))
            .await?;
        Ok(())
    }
}
// ANCHOR_END: task

// ANCHOR: fail
/// Divides two numbers: `fail` with a message the client sees, or an `Err` whose detail
/// only the log sees.
pub struct Divide;

impl Agent for Divide {
    fn card(&self) -> AgentCard {
        AgentCard::new("Divide", "Divides a by b, given as \"a b\".", "1.0.0").with_skill(
            Skill::new("divide", "Divide", "Divides two numbers.", ["math"]),
        )
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = context.message.joined_text();
        let numbers: Vec<f64> = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()?; // an Err: the task fails with a generic message
        let [a, b] = numbers[..] else {
            events.fail("Send two numbers, as \"a b\".").await?; // this message is shown
            return Ok(());
        };
        if b == 0.0 {
            events.fail("Cannot divide by zero.").await?;
            return Ok(());
        }
        events
            .artifact(Artifact::text("quotient", (a / b).to_string()))
            .await?;
        events.complete().await?;
        Ok(())
    }
}
// ANCHOR_END: fail

// ANCHOR: multi_turn
/// Takes an order over several turns: asks for a size until it gets one it knows, then
/// completes. Each answer is a new message on the same task.
pub struct Coffee;

impl Agent for Coffee {
    fn card(&self) -> AgentCard {
        AgentCard::new("Coffee", "Takes a coffee order.", "1.0.0").with_skill(Skill::new(
            "order",
            "Order",
            "Orders a coffee.",
            ["coffee"],
        ))
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        if context.previous.is_none() {
            // A new task: ask, and the task waits in input-required.
            events.ask("Which size: small or large?").await?;
            return Ok(());
        }
        // A follow-up on the same task: `previous` is the task as stored before it.
        let size = context.message.joined_text().trim().to_lowercase();
        match size.as_str() {
            "small" | "large" => {
                let order = format!("One {size} coffee.");
                events.artifact(Artifact::text("order", order)).await?;
                events.complete().await?;
            }
            _ => events.ask("Sorry: small or large?").await?, // asks again
        }
        Ok(())
    }
}
// ANCHOR_END: multi_turn

// ANCHOR: cancel
/// Counts slowly, one number every 100 ms, and stops as soon as the task is canceled.
pub struct SlowCount;

impl Agent for SlowCount {
    fn card(&self) -> AgentCard {
        AgentCard::new("Slow count", "Counts to ten, slowly.", "1.0.0")
            .with_skill(Skill::new("count", "Count", "Counts to ten.", ["count"]))
            .with_streaming(true)
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        let mut numbers = events.artifact_writer("numbers");
        for n in 1..=10 {
            tokio::select! {
                // Fired when a client cancels the task: stop at once.
                () = context.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
            numbers.write(format!("{n} ")).await?;
        }
        numbers.finish().await?;
        events.complete().await?;
        Ok(())
    }
}
// ANCHOR_END: cancel

// ANCHOR: streaming
/// Streams a report: a named text artifact written chunk by chunk, then a data artifact.
pub struct Report;

impl Agent for Report {
    fn card(&self) -> AgentCard {
        AgentCard::new("Report", "Writes a short report.", "1.0.0")
            .with_skill(Skill::new(
                "report",
                "Report",
                "Writes a report.",
                ["report"],
            ))
            .with_streaming(true)
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let topic = context.message.joined_text();
        let mut body = events
            .artifact_writer("report")
            .with_name("Report")
            .with_description(format!("A report on {topic}"));
        for line in ["Summary: ", "all is well", " with ", topic.trim(), "."] {
            body.write(line).await?; // each chunk goes out as the next one is written
        }
        body.finish().await?; // the last chunk, marked lastChunk
        let mut facts = events.artifact_writer("facts");
        facts
            .write_parts([Part::data(json!({"topic": topic.trim(), "words": 5}))])
            .await?;
        facts.finish().await?;
        events.complete().await?;
        Ok(())
    }
}
// ANCHOR_END: streaming
