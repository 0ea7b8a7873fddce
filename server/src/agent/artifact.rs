//! [`ArtifactWriter`]: an artifact streamed chunk by chunk.

use a2a_lambda_core::model::{Artifact, Metadata, Part};
use serde_json::Value;

use super::sink::{AgentEvent, EventSink, SinkClosed};

/// Streams one artifact chunk by chunk ([`EventSink::artifact_writer`]).
///
/// Each chunk goes out when the next one is written, and the last at
/// [`finish`](Self::finish): so the writer knows which chunk is the last (`lastChunk`)
/// without the agent having to, and every chunk after the first says it extends the
/// artifact (`append`). A writer dropped without `finish` still sends the chunk it holds
/// as the last one when the sink has room (an agent returning early with `?`).
///
/// ```
/// # async fn run(events: a2a_lambda_server::EventSink) -> Result<(), a2a_lambda_server::AgentError> {
/// let mut answer = events.artifact_writer("answer").with_name("Answer");
/// for word in ["Hello", ", ", "world"] {
///     answer.write(word).await?;
/// }
/// answer.finish().await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ArtifactWriter {
    sink: EventSink,
    artifact_id: String,
    name: Option<String>,
    description: Option<String>,
    metadata: Option<Metadata>,
    /// The chunk written last, not sent yet.
    held: Option<Vec<Part>>,
    /// Some chunk went out already: the next ones extend it.
    sent: bool,
}

impl ArtifactWriter {
    pub(super) fn new(sink: EventSink, artifact_id: String) -> Self {
        Self {
            sink,
            artifact_id,
            name: None,
            description: None,
            metadata: None,
            held: None,
            sent: false,
        }
    }

    /// The artifact's human-readable name (sent with its first chunk).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The artifact's description (sent with its first chunk).
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets `key` to `value` in the artifact's metadata (sent with its first chunk).
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.metadata
            .get_or_insert_with(Metadata::new)
            .insert(key.into(), value);
        self
    }

    /// Writes a chunk of text. An empty text is skipped.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub async fn write(&mut self, text: impl Into<String>) -> Result<(), SinkClosed> {
        let text = text.into();
        if text.is_empty() {
            return Ok(());
        }
        self.write_parts(vec![Part::text(text)]).await
    }

    /// Writes a chunk of any parts (a data part, a file). No parts: nothing is written.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub async fn write_parts(
        &mut self,
        parts: impl IntoIterator<Item = Part>,
    ) -> Result<(), SinkClosed> {
        let parts: Vec<Part> = parts.into_iter().collect();
        if parts.is_empty() {
            return Ok(());
        }
        if let Some(previous) = self.held.replace(parts) {
            let event = self.chunk(previous, false);
            self.sink.send(event).await?;
        }
        Ok(())
    }

    /// Sends the last chunk: the artifact is complete. Nothing is sent when nothing was
    /// written.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub async fn finish(mut self) -> Result<(), SinkClosed> {
        match self.held.take() {
            Some(parts) => {
                let event = self.chunk(parts, true);
                self.sink.send(event).await
            }
            None => Ok(()),
        }
    }

    /// The event of one chunk; the artifact's name, description and metadata go with the
    /// first.
    fn chunk(&mut self, parts: Vec<Part>, last_chunk: bool) -> AgentEvent {
        let mut artifact = Artifact::new(self.artifact_id.clone(), parts);
        let append = self.sent;
        if !append {
            artifact.name = self.name.take();
            artifact.description = self.description.take();
            artifact.metadata = self.metadata.take();
        }
        self.sent = true;
        AgentEvent::Artifact {
            artifact,
            append,
            last_chunk,
        }
    }
}

impl Drop for ArtifactWriter {
    fn drop(&mut self) {
        if let Some(parts) = self.held.take() {
            let event = self.chunk(parts, true);
            if !self.sink.try_send(event) {
                tracing::warn!(
                    artifact_id = self.artifact_id,
                    "an artifact writer dropped without finish() lost its last chunk (the sink was full or closed)"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(
        receiver: &mut super::super::EventReceiver,
    ) -> Vec<(String, bool, bool, Option<String>)> {
        let mut out = Vec::new();
        while let Some(event) = receiver.try_recv() {
            if let AgentEvent::Artifact {
                artifact,
                append,
                last_chunk,
            } = event
            {
                let text = artifact
                    .parts
                    .iter()
                    .map(|part| match &part.content {
                        a2a_lambda_core::model::PartContent::Text(text) => text.clone(),
                        _ => String::from("<part>"),
                    })
                    .collect();
                out.push((text, append, last_chunk, artifact.name));
            }
        }
        out
    }

    #[tokio::test]
    async fn chunks_say_append_and_last_themselves() {
        let (sink, mut receiver) = EventSink::channel("t", "c");
        let mut writer = sink.artifact_writer("answer").with_name("Answer");
        writer.write("Hello").await.unwrap();
        writer.write("").await.unwrap();
        writer.write(", world").await.unwrap();
        writer.write("!").await.unwrap();
        writer.finish().await.unwrap();
        assert_eq!(
            chunks(&mut receiver),
            [
                ("Hello".to_owned(), false, false, Some("Answer".to_owned())),
                (", world".to_owned(), true, false, None),
                ("!".to_owned(), true, true, None),
            ]
        );
    }

    #[tokio::test]
    async fn one_chunk_is_whole_and_nothing_written_sends_nothing() {
        let (sink, mut receiver) = EventSink::channel("t", "c");
        let mut writer = sink.artifact_writer("a");
        writer.write("all").await.unwrap();
        writer.finish().await.unwrap();
        sink.artifact_writer("b").finish().await.unwrap();
        assert_eq!(
            chunks(&mut receiver),
            [("all".to_owned(), false, true, None)]
        );
    }

    #[tokio::test]
    async fn a_dropped_writer_sends_what_it_holds_as_last() {
        let (sink, mut receiver) = EventSink::channel("t", "c");
        {
            let mut writer = sink.artifact_writer("a");
            writer.write("one").await.unwrap();
            writer.write("two").await.unwrap();
        }
        assert_eq!(
            chunks(&mut receiver),
            [
                ("one".to_owned(), false, false, None),
                ("two".to_owned(), true, true, None)
            ]
        );
    }
}
