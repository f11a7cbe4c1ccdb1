//! The `Transport` seam: how the serve loop reads and writes lines.
//!
//! Production uses the locked stdio transport; tests use
//! [`ReplayTransport`](crate::transcript::ReplayTransport), a scripted double
//! driven by a transcript, so the whole loop is tested with no host and no
//! child process (MCP-CORE r1 §2¶13).

use std::io;

/// Why the transport failed (MCP-CORE r1 §1¶11).
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
}
