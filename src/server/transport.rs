//! The `Transport` seam: how the serve loop reads and writes lines.
//!
//! Production uses the stdio transport over the protocol's private copies of
//! stdin and stdout; tests use
//! [`ReplayTransport`](crate::transcript::ReplayTransport), a scripted double
//! driven by a transcript, so the whole loop is tested with no host and no
//! child process (MCP-CORE r1 §2¶13).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};

/// Why a [`Transport`] failed: the channel itself, nothing else. A custom
/// transport returns one of these; the loop ends on it, since a dead
/// channel can carry no answer (MCP-CORE r1 §1¶11).
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
}

/// Why [`Server::serve`](super::Server::serve) or
/// [`Server::serve_stdio`](super::Server::serve_stdio) stopped with an
/// error (MCP-CORE r1 §1¶11): the channel died, or the protection of stdio
/// or the capture guard could not be set up. Each variant names the
/// mechanism that failed and where the fix is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The channel to the host died.
    #[error(transparent)]
    Transport(#[from] TransportError),
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

impl ServeError {
    /// Whether the host hung up: its end of the channel died, which ends a
    /// session cleanly for a server (MCP-CORE r1 §1¶10), as opposed to
    /// serving that never began.
    pub fn is_hang_up(&self) -> bool {
        matches!(self, ServeError::Transport(_))
    }
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

/// The longest host line the stdio transport takes in whole, newline
/// excluded: 64 MiB, as `mcp-replay check` reads server lines. No request
/// comes near it; a longer line (a stream that never ends its line) is
/// delivered as its first KiB, which is no JSON the loop can read, so it is
/// answered with a parse error and the loop goes on, while the rest of the
/// line is read and dropped: memory stays bounded whatever the host sends.
pub use crate::jsonrpc::MAX_LINE;

use crate::jsonrpc::CUT_KEEP;

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
    /// See [`MAX_LINE`]; smaller in tests.
    max_line: usize,
}

impl<'a> StdioTransport<'a> {
    /// A transport over the protocol's `stdin` and `stdout`.
    pub fn new(stdin: &'a File, stdout: &'a File) -> StdioTransport<'a> {
        StdioTransport {
            reader: BufReader::with_capacity(BUFFER, stdin),
            writer: BufWriter::with_capacity(BUFFER, stdout),
            max_line: MAX_LINE,
        }
    }

    /// Reads up to and including the next newline into `line`, keeping at
    /// most `max_line` bytes of it: a longer line is cut to its first
    /// [`CUT_KEEP`] bytes and the rest dropped. Returns how many bytes were
    /// read (0 at end of input).
    fn read_bounded(&mut self, line: &mut Vec<u8>) -> std::io::Result<usize> {
        let mut read = 0;
        let mut cut = false;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if buf.is_empty() {
                return Ok(read);
            }
            let (take, done) = match memchr::memchr(b'\n', buf) {
                Some(at) => (at + 1, true),
                None => (buf.len(), false),
            };
            if !cut {
                line.extend_from_slice(&buf[..take]);
                if line.len() > self.max_line {
                    line.truncate(CUT_KEEP.min(self.max_line));
                    cut = true;
                }
            }
            self.reader.consume(take);
            read += take;
            if done {
                return Ok(read);
            }
        }
    }
}

impl Transport for StdioTransport<'_> {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        line.clear();
        // The read may block: every answer written so far must be out before
        // the server waits for the host.
        self.flush_if_idle()?;
        let n = self.read_bounded(line).map_err(TransportError::Read)?;
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

    /// A line longer than the limit costs no more memory than the limit:
    /// its start is kept (no JSON, so the loop answers a parse error) and
    /// the next line comes whole. See: #13
    #[test]
    fn a_line_longer_than_the_limit_is_cut_and_the_next_comes_whole() {
        let mut input = vec![b'{'; 5000];
        input.extend_from_slice(b"\nnext\n");
        let stdin = file_with(&input);
        let stdout = tempfile::tempfile().unwrap();
        let mut transport = StdioTransport::new(&stdin, &stdout);
        transport.max_line = 2000;
        let mut line = Vec::new();
        assert!(transport.read_line(&mut line).unwrap());
        assert_eq!(line, vec![b'{'; CUT_KEEP]);
        assert!(line.capacity() <= 2 * 2000 + BUFFER, "{}", line.capacity());
        assert!(transport.read_line(&mut line).unwrap());
        assert_eq!(line, b"next");
        assert!(!transport.read_line(&mut line).unwrap());
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
