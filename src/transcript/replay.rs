//! The scripted double of the [`Transport`] seam, driven by a transcript.

use std::collections::VecDeque;

use super::{Direction, Redaction, Redactor, Transcript};
use crate::server::{Transport, TransportError};

/// A [`Transport`] that feeds a server the client side of a transcript and
/// keeps everything the server writes.
///
/// Reads return the transcript's client→server lines in order, then end of
/// input; writes are collected, to be compared with the transcript's
/// server→client lines.
#[derive(Debug, Clone, Default)]
pub struct ReplayTransport {
    inbound: VecDeque<Vec<u8>>,
    written: Vec<Vec<u8>>,
}

impl ReplayTransport {
    /// A transport that will read the client side of `transcript`.
    ///
    /// Placeholders of redacted environment variables get the variables'
    /// current values back, where they are set, so that a redacted
    /// transcript replays.
    pub fn from_transcript(transcript: &Transcript) -> ReplayTransport {
        let restorer = Redactor::new(
            &Redaction {
                env: transcript.header.redact.env.clone(),
                patterns: Vec::new(),
            },
            |name| std::env::var(name).ok(),
        )
        .unwrap_or_default();
        ReplayTransport::from_lines(
            transcript
                .lines(Direction::ClientToServer)
                .map(|(_, payload)| restorer.restore(payload.as_bytes()).into_owned()),
        )
    }

    /// A transport that will read `lines`, in order.
    pub fn from_lines<L: Into<Vec<u8>>>(lines: impl IntoIterator<Item = L>) -> ReplayTransport {
        ReplayTransport {
            inbound: lines.into_iter().map(Into::into).collect(),
            written: Vec::new(),
        }
    }

    /// The lines the server wrote so far, in order.
    pub fn written(&self) -> &[Vec<u8>] {
        &self.written
    }

    /// The transcript's server→client lines, for comparing with
    /// [`written`](Self::written).
    pub fn expected(transcript: &Transcript) -> Vec<Vec<u8>> {
        transcript
            .lines(Direction::ServerToClient)
            .map(|(_, payload)| payload.as_bytes().to_vec())
            .collect()
    }
}

impl Transport for ReplayTransport {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        line.clear();
        match self.inbound.pop_front() {
            Some(next) => {
                line.extend_from_slice(&next);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError> {
        self.written.push(line.to_vec());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacted_client_lines_get_the_current_values_back() {
        // PATH stands in for a secret: it is set wherever tests run.
        let path_value = std::env::var("PATH").unwrap();
        let text = concat!(
            r#"{"format":"mcp-replay-transcript","version":1,"tool":"mcp-replay 0.1.0","created":"2026-11-29T00:00:00Z","command":["server"],"redact":{"env":["PATH"]}}"#,
            "\n",
            r#"{"t":0.1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"[REDACTED:PATH]"}}}"#,
            "\n",
        );
        let transcript = Transcript::from_reader(text.as_bytes(), "t.jsonl").unwrap();
        let mut transport = ReplayTransport::from_transcript(&transcript);
        let mut line = Vec::new();
        assert!(transport.read_line(&mut line).unwrap());
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["params"]["p"], path_value.as_str());
        assert!(!transport.read_line(&mut line).unwrap());
    }
}
