//! The scripted double of the [`Transport`] seam, driven by a transcript.

use std::collections::VecDeque;

use super::{Direction, Transcript};
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
    pub fn from_transcript(transcript: &Transcript) -> ReplayTransport {
        ReplayTransport::from_lines(
            transcript
                .lines(Direction::ClientToServer)
                .map(|(_, payload)| payload.as_bytes().to_vec()),
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
