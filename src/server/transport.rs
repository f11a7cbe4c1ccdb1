//! The `Transport` seam: how the serve loop reads and writes lines.
//!
//! Production uses the stdio transport over the protocol's private copies of
//! stdin and stdout; tests use
//! [`ReplayTransport`](crate::transcript::ReplayTransport), a scripted double
//! driven by a transcript, so the whole loop is tested with no host and no
//! child process (MCP-CORE r1 §2¶13).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};

/// Why the server layer failed (MCP-CORE r1 §1¶11): each variant names the
/// mechanism that failed and where the fix is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// Reading the inbound channel failed.
    #[error(
        "cannot read the inbound channel (MCP-CORE r1 §1¶06: stdin must stay readable while serving)"
    )]
    Read(#[source] io::Error),
    /// Writing the outbound channel failed.
    #[error(
        "cannot write the outbound channel (MCP-CORE r1 §1¶06: stdout must stay writable while serving)"
    )]
    Write(#[source] io::Error),
    /// stdin and stdout could not be set aside for the protocol.
    #[error(
        "cannot claim stdin and stdout for the protocol (MCP-CORE r1 §1¶06: stdout carries only protocol lines); the server needs fds 0, 1 and 2 open and /dev/null readable"
    )]
    ClaimStdio(#[source] io::Error),
    /// stdio is already claimed, or a capture is live, in this process.
    #[error(
        "stdio is already claimed by another serving loop or a live capture (MCP-CORE r1 §4¶24: redirects never nest); serve one server per process at a time"
    )]
    StdioBusy,
    /// The capture guard's temp file could not be made.
    #[error(
        "cannot create the capture file (MCP-CORE r1 §4¶22: a tool run's stderr goes to a temp file); make the temp directory (TMPDIR) writable"
    )]
    CaptureFile(#[source] io::Error),
    /// fd 1 or fd 2 could not be redirected, restored or read back.
    #[error(
        "cannot redirect the process's stderr around a tool run (MCP-CORE r1 §4¶22); check the process's descriptor limit and that fd 2 is open"
    )]
    Redirect(#[source] io::Error),
    /// A capture was asked for while another one is live.
    #[error(
        "a capture is already live (MCP-CORE r1 §4¶24: captures must not nest or run concurrently); run tools one at a time"
    )]
    CaptureBusy,
}

/// A line-oriented, bidirectional channel: the serve loop's only view of the
/// outside world.
pub trait Transport {
    /// Reads the next inbound line into `line` (cleared first), without its
    /// terminator. Returns `Ok(false)` at end of input.
    ///
    /// # Errors
    ///
    /// [`TransportError::Read`] when the channel is dead.
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError>;

    /// Writes one outbound line; the transport adds the terminator.
    ///
    /// # Errors
    ///
    /// [`TransportError::Write`] when the channel is dead.
    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError>;

    /// Called when the loop has written an answer and has work left that
    /// can wait: a transport that buffers writes sends them now, unless
    /// more input is already waiting (it will send them before it next
    /// blocks). The default does nothing.
    ///
    /// # Errors
    ///
    /// [`TransportError::Write`] when the channel is dead.
    fn flush_if_idle(&mut self) -> Result<(), TransportError> {
        Ok(())
    }

    /// Called before a tool runs: a transport that buffers writes sends
    /// them now, so no answer waits for a tool that takes long, or that
    /// ends the process. The default does nothing.
    ///
    /// # Errors
    ///
    /// [`TransportError::Write`] when the channel is dead.
    fn flush(&mut self) -> Result<(), TransportError> {
        Ok(())
    }
}

/// The size of the read and write buffers: big enough that a burst of
/// pipelined requests is read, and its answers written, in a few system
/// calls.
const BUFFER: usize = 64 * 1024;

/// The production transport: lines from the protocol's stdin, lines to its
/// stdout.
///
/// Writes are buffered and flushed when the next read would block (no
/// complete line is buffered), before a tool runs, and at end of input. A
/// host waiting for an answer therefore gets it at once, a host that
/// pipelines requests gets the answers that need no tool in batches, and no
/// answer waits for a tool run.
pub(crate) struct StdioTransport<'a> {
    reader: BufReader<&'a File>,
    writer: BufWriter<&'a File>,
}

impl<'a> StdioTransport<'a> {
    /// A transport over the protocol's `stdin` and `stdout`.
    pub fn new(stdin: &'a File, stdout: &'a File) -> StdioTransport<'a> {
        StdioTransport {
            reader: BufReader::with_capacity(BUFFER, stdin),
            writer: BufWriter::with_capacity(BUFFER, stdout),
        }
    }
}

impl Transport for StdioTransport<'_> {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        line.clear();
        // The read may block: every answer written so far must be out before
        // the server waits for the host.
        self.flush_if_idle()?;
        let n = self
            .reader
            .read_until(b'\n', line)
            .map_err(TransportError::Read)?;
        if n == 0 {
            return Ok(false);
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        Ok(true)
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError> {
        self.writer
            .write_all(line)
            .and_then(|()| self.writer.write_all(b"\n"))
            .map_err(TransportError::Write)
    }

    fn flush_if_idle(&mut self) -> Result<(), TransportError> {
        // A complete line already read ahead means the host is not waiting
        // yet; its answers go out together with the next ones.
        if self.reader.buffer().contains(&b'\n') {
            return Ok(());
        }
        self.flush()
    }

    fn flush(&mut self) -> Result<(), TransportError> {
        self.writer.flush().map_err(TransportError::Write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    fn file_with(bytes: &[u8]) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        file.rewind().unwrap();
        file
    }

    #[test]
    fn lines_come_without_terminators_and_a_last_partial_line_counts() {
        let stdin = file_with(b"one\ntwo\r\n\nlast");
        let stdout = tempfile::tempfile().unwrap();
        let mut transport = StdioTransport::new(&stdin, &stdout);
        let mut line = Vec::new();
        let mut lines = Vec::new();
        while transport.read_line(&mut line).unwrap() {
            lines.push(String::from_utf8(line.clone()).unwrap());
        }
        assert_eq!(lines, ["one", "two\r", "", "last"]);
    }

    #[test]
    fn answers_are_flushed_before_a_read_that_would_block_and_at_eof() {
        let stdin = file_with(b"a\nb\n");
        let stdout = tempfile::tempfile().unwrap();
        let mut transport = StdioTransport::new(&stdin, &stdout);
        let mut line = Vec::new();
        assert!(transport.read_line(&mut line).unwrap());
        transport.write_line(b"answer a").unwrap();
        // "b\n" is already buffered, so neither this nor the read flushes.
        transport.flush_if_idle().unwrap();
        assert!(transport.read_line(&mut line).unwrap());
        assert_eq!(stdout.metadata().unwrap().len(), 0);
        transport.write_line(b"answer b").unwrap();
        // Nothing more is buffered: the host may be waiting, so out it goes.
        transport.flush_if_idle().unwrap();
        assert_eq!(stdout.metadata().unwrap().len(), 18);
        // End of input: the read would block, so it flushes first.
        assert!(!transport.read_line(&mut line).unwrap());
        let mut written = String::new();
        (&stdout).rewind().unwrap();
        (&stdout).read_to_string(&mut written).unwrap();
        assert_eq!(written, "answer a\nanswer b\n");
    }
}
