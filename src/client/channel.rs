//! The channel the checker's client speaks over: a server's stdin and
//! stdout, and the little the client needs to know about how the server
//! ends.
//!
//! A server process ([`ServerProcess`]) is one channel; a server run in the
//! checker's own process is another. Every wait on a channel has a
//! deadline, and sending never blocks.

use std::time::Instant;

#[cfg(feature = "cli")]
use crate::process::{Output, Recv, ServerProcess, shell_status};

/// What a wait on the server's stdout brought.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// One line, without its newline.
    Line {
        /// Its bytes (its start alone when `cut`).
        bytes: Vec<u8>,
        /// `false` when the line ended the output without a newline.
        eol: bool,
        /// The line was longer than the channel keeps: only its start is
        /// here.
        cut: bool,
    },
    /// The server's output ended; every later wait says so again at once.
    Closed,
    /// The deadline passed first.
    Timeout,
}

/// A server as the checker's client sees it.
pub(crate) trait Channel {
    /// Queues bytes for the server's input, exactly as given; never blocks.
    fn send(&mut self, bytes: Vec<u8>);

    /// Waits until `deadline` for the next line of the server's output.
    fn recv(&mut self, deadline: Instant) -> Incoming;

    /// Ends the server's input once everything queued is written.
    fn close_input(&mut self);

    /// Waits until `deadline` for the server to end; how it ended, in the
    /// shell's words (`Some(0)`, `Some(143)`), or `None` when it runs on.
    fn exit_status(&mut self, deadline: Instant) -> Option<i32>;

    /// Stops the server now.
    fn kill(&mut self);

    /// The last `max` bytes the server wrote on its diagnostics stream.
    fn stderr_tail(&self, max: usize) -> String;

    /// When the server was started.
    fn started_at(&self) -> Instant;
}

#[cfg(feature = "cli")]
impl Channel for ServerProcess {
    fn send(&mut self, bytes: Vec<u8>) {
        self.send_raw(bytes);
    }

    fn recv(&mut self, deadline: Instant) -> Incoming {
        match ServerProcess::recv(self, deadline) {
            Recv::Output(Output::Line {
                bytes, eol, cut, ..
            }) => Incoming::Line { bytes, eol, cut },
            Recv::Output(Output::Closed { .. }) => Incoming::Closed,
            Recv::Timeout => Incoming::Timeout,
        }
    }

    fn close_input(&mut self) {
        self.close_stdin();
    }

    fn exit_status(&mut self, deadline: Instant) -> Option<i32> {
        self.wait(deadline).map(shell_status)
    }

    fn kill(&mut self) {
        ServerProcess::kill(self);
    }

    fn stderr_tail(&self, max: usize) -> String {
        self.stderr_text(max)
    }

    fn started_at(&self) -> Instant {
        self.spawned_at()
    }
}
