//! The scripted double of the [`Transport`] seam, driven by a transcript.

use std::collections::VecDeque;

use super::{Direction, Transcript, fill_names_from_env, filler, with_fill_names};
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
    /// The placeholders of the variables [`FILL_ENV`](super::FILL_ENV)
    /// names get the variables' current values back, where they are set,
    /// so that a redacted transcript replays; the names the transcript
    /// lists fill nothing ([`ReplayTransport::filling`] names more).
    pub fn from_transcript(transcript: &Transcript) -> ReplayTransport {
        ReplayTransport::filling(transcript, &[])
    }

    /// A transport that will read the client side of `transcript`, the
    /// placeholders of the variables `names` and of those
    /// [`FILL_ENV`](super::FILL_ENV) names filled with their current
    /// values, and every other placeholder left as it stands.
    pub fn filling(transcript: &Transcript, names: &[&str]) -> ReplayTransport {
        let names = with_fill_names(
            names.iter().map(|name| (*name).to_owned()).collect(),
            fill_names_from_env(),
        );
        let restorer = filler(&names, |name| std::env::var(name).ok());
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

    /// The placeholders of the variables named for the run are filled; the
    /// names the header lists fill nothing.
    #[test]
    fn only_the_variables_named_for_the_run_fill_client_lines() {
        // PATH stands in for a secret: it is set wherever tests run.
        let path_value = std::env::var("PATH").unwrap();
        let text = concat!(
            r#"{"format":"mcp-replay-transcript","version":1,"tool":"mcp-replay 0.1.0","created":"2026-11-29T00:00:00Z","command":["server"],"redact":{"env":["PATH"]}}"#,
            "\n",
            r#"{"t":0.1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"[REDACTED:PATH]"}}}"#,
            "\n",
        );
        let transcript = Transcript::from_reader(text.as_bytes(), "t.jsonl").unwrap();
        let first = |mut transport: ReplayTransport| {
            let mut line = Vec::new();
            assert!(transport.read_line(&mut line).unwrap());
            let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
            assert!(!transport.read_line(&mut line).unwrap());
            value["params"]["p"].as_str().unwrap().to_owned()
        };
        assert_eq!(
            first(ReplayTransport::filling(&transcript, &["PATH"])),
            path_value
        );
        if !fill_names_from_env().iter().any(|name| name == "PATH") {
            assert_eq!(
                first(ReplayTransport::from_transcript(&transcript)),
                "[REDACTED:PATH]"
            );
        }
    }
}
