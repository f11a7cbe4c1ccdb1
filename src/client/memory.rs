//! A server in the checker's own process, as a [`Channel`]: the two ends
//! of an in-memory pipe, one the checker's client holds, the other a
//! [`Transport`] the server's loop serves.
//!
//! The server's loop runs on a thread of its own (the caller's, in
//! [`crate::testing`]); the ends pass whole lines, so that nothing is
//! copied twice, and the server's end is bounded: a server that writes
//! faster than the client reads waits, as it would on a full pipe.

use std::io;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TrySendError};
use std::time::Instant;

use super::channel::{Channel, Incoming};
use crate::server::{Transport, TransportError};

/// How many lines the server may have written that the client has not read
/// yet, before its next write waits.
const QUEUED_LINES: usize = 1024;

use crate::jsonrpc::{CUT_KEEP, MAX_LINE};

/// The client's end.
pub(crate) struct MemoryChannel {
    /// Bytes for the server; `None` once its input is closed.
    input: Option<Sender<Vec<u8>>>,
    /// Lines from the server; `None` once stopped.
    output: Option<Receiver<Vec<u8>>>,
    /// Says how the server's loop ended, once it has.
    ended: Receiver<i32>,
    status: Option<i32>,
    closed: bool,
    started: Instant,
}

/// The server's end: the [`Transport`] its loop serves.
pub(crate) struct MemoryTransport {
    input: Receiver<Vec<u8>>,
    /// What was received; the lines before `read` have been read.
    buffer: Vec<u8>,
    read: usize,
    output: SyncSender<Vec<u8>>,
}

/// Tells the client how the server's loop ended, when dropped (so a
/// panicking loop is an end too).
pub(crate) struct EndSignal {
    ended: SyncSender<i32>,
    status: i32,
}

impl EndSignal {
    /// The loop ended with `status` (0 for a clean end of input).
    pub fn set(&mut self, status: i32) {
        self.status = status;
    }
}

impl Drop for EndSignal {
    fn drop(&mut self) {
        let status = if std::thread::panicking() {
            101
        } else {
            self.status
        };
        let _ = self.ended.try_send(status);
    }
}

/// A connected pair: the client's end, the server's, and the signal the
/// server's side gives when its loop ends.
pub(crate) fn pair() -> (MemoryChannel, MemoryTransport, EndSignal) {
    let (input_tx, input_rx) = mpsc::channel();
    let (output_tx, output_rx) = mpsc::sync_channel(QUEUED_LINES);
    let (ended_tx, ended_rx) = mpsc::sync_channel(1);
    (
        MemoryChannel {
            input: Some(input_tx),
            output: Some(output_rx),
            ended: ended_rx,
            status: None,
            closed: false,
            started: Instant::now(),
        },
        MemoryTransport {
            input: input_rx,
            buffer: Vec::new(),
            read: 0,
            output: output_tx,
        },
        EndSignal {
            ended: ended_tx,
            status: 1,
        },
    )
}

impl Channel for MemoryChannel {
    fn send(&mut self, bytes: Vec<u8>) {
        if let Some(input) = &self.input {
            let _ = input.send(bytes);
        }
    }

    fn recv(&mut self, deadline: Instant) -> Incoming {
        if self.closed {
            return Incoming::Closed;
        }
        let Some(output) = &self.output else {
            self.closed = true;
            return Incoming::Closed;
        };
        let wait = deadline.saturating_duration_since(Instant::now());
        match output.recv_timeout(wait) {
            Ok(mut bytes) => {
                let cut = bytes.len() > MAX_LINE;
                if cut {
                    bytes.truncate(CUT_KEEP);
                }
                Incoming::Line {
                    bytes,
                    eol: !cut,
                    cut,
                }
            }
            Err(RecvTimeoutError::Timeout) => Incoming::Timeout,
            Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Incoming::Closed
            }
        }
    }

    fn close_input(&mut self) {
        self.input = None;
    }

    fn exit_status(&mut self, deadline: Instant) -> Option<i32> {
        if self.status.is_none() {
            let wait = deadline.saturating_duration_since(Instant::now());
            self.status = self.ended.recv_timeout(wait).ok();
        }
        self.status
    }

    /// A thread cannot be killed: the server's loop is cut off instead, and
    /// ends at its next read or write (a tool that never returns keeps its
    /// thread).
    fn kill(&mut self) {
        self.input = None;
        self.output = None;
    }

    fn stderr_tail(&self, _max: usize) -> String {
        String::new()
    }

    fn started_at(&self) -> Instant {
        self.started
    }
}

impl Transport for MemoryTransport {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        line.clear();
        loop {
            let unread = &self.buffer[self.read..];
            if let Some(end) = memchr::memchr(b'\n', unread) {
                line.extend_from_slice(&unread[..end]);
                self.read += end + 1;
                return Ok(true);
            }
            // What was read is dropped before more comes, so the buffer
            // holds at most one line and one chunk.
            self.buffer.drain(..self.read);
            self.read = 0;
            match self.input.recv() {
                Ok(bytes) => self.buffer.extend_from_slice(&bytes),
                // The client closed its end: what is left is the last line.
                Err(_) if self.buffer.is_empty() => return Ok(false),
                Err(_) => {
                    line.append(&mut self.buffer);
                    return Ok(true);
                }
            }
        }
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError> {
        let gone = || {
            TransportError::Write(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the client's end of the in-process channel is closed",
            ))
        };
        match self.output.try_send(line.to_vec()) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(line)) => self.output.send(line).map_err(|_| gone()),
            Err(TrySendError::Disconnected(_)) => Err(gone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn lines_split_across_sends_arrive_whole_and_the_last_may_lack_its_newline() {
        let (mut channel, mut transport, _ended) = pair();
        channel.send(b"one\ntw".to_vec());
        channel.send(b"o\nthree".to_vec());
        channel.close_input();
        let mut line = Vec::new();
        let mut lines = Vec::new();
        while transport.read_line(&mut line).unwrap() {
            lines.push(String::from_utf8(line.clone()).unwrap());
        }
        assert_eq!(lines, ["one", "two", "three"]);
    }

    #[test]
    fn the_client_sees_each_line_then_the_end_then_how_the_loop_ended() {
        let (mut channel, mut transport, mut ended) = pair();
        transport.write_line(b"{}").unwrap();
        assert!(matches!(
            channel.recv(soon()),
            Incoming::Line { bytes, eol: true, cut: false } if bytes == b"{}"
        ));
        assert!(matches!(channel.recv(Instant::now()), Incoming::Timeout));
        ended.set(0);
        drop(transport);
        drop(ended);
        assert!(matches!(channel.recv(soon()), Incoming::Closed));
        assert_eq!(channel.exit_status(soon()), Some(0));
    }

    #[test]
    fn a_killed_channel_ends_the_loop_at_its_next_read_or_write() {
        let (mut channel, mut transport, _ended) = pair();
        channel.kill();
        assert!(!transport.read_line(&mut Vec::new()).unwrap());
        assert!(matches!(
            transport.write_line(b"{}"),
            Err(TransportError::Write(_))
        ));
    }
}
