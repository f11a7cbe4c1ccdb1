//! The capture guard, and the protection of the protocol channel: the one
//! room of the crate that redirects file descriptors (MCP-CORE r1 §4¶26).
//!
//! Everything a tool run says, its child processes included, goes to the
//! process's fd 2, so the only capture that sees a whole run is a
//! process-level redirect around the call (§4¶22). [`Capture::run`] points
//! fd 2 at an anonymous temp file for the length of one call, then puts fd 2
//! back and hands over what the file caught. A file, not a pipe: a pipe that
//! fills up blocks the writer, and a chatty child would deadlock the run.
//!
//! While a server serves stdio, the protocol gets private, close-on-exec
//! duplicates of fd 0 and fd 1, fd 0 is pointed at `/dev/null`, and fd 1 at
//! the capture file (or at stderr, for a server without capture)
//! ([`ProtectedStdio`]). A stray `println!` in a tool, or a child writing to
//! the stdout it inherited, then cannot corrupt the protocol channel, and
//! nothing can read the host's messages. Because fd 1 points at the capture
//! file for the whole session, a run's stray stdout is caught with its
//! stderr at no cost per run; stdout that another thread writes between
//! runs is caught by the next run, and what is left when serving ends goes
//! on to stderr.
//!
//! Invariants:
//! - Redirections never nest or overlap (§4¶24). One process-wide atomic
//!   state records whether a capture is live and whether stdio is protected;
//!   a second capture, or a second protection, is refused with an error
//!   instead of silently stacking.
//! - Every redirect is undone by `Drop` (§4¶25): a tool that panics unwinds
//!   through the guard, which puts fd 2 back before the panic goes on, so no
//!   panic can leave the process mute. What such a run wrote, the panic
//!   message included, is passed on to the real stderr.
//! - Nothing else in the crate touches file descriptors 0, 1 or 2. The
//!   saved copies are close-on-exec, so children never inherit them; the
//!   redirected fds 1 and 2 are inherited on purpose, which is how a child's
//!   output is caught.
//!
//! All of it goes through rustix's safe `dup2_std*` functions and std's
//! owned descriptors, so the room needs no `unsafe` at all.

use std::fs::File;
use std::io::{self, Seek, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU8, Ordering};

use super::TransportError;

/// What the process's standard descriptors are doing right now: a set of
/// the flags below, changed atomically, so that checking for a live capture
/// costs no lock on every run.
static STATE: AtomicU8 = AtomicU8::new(0);

/// A [`Capture`] run is in progress: fd 2 points at its file.
const CAPTURE_LIVE: u8 = 1;

/// fd 0 points at `/dev/null`, fd 1 away from the protocol channel.
const STDIO_PROTECTED: u8 = 2;

/// Captures everything the process writes to stderr during a call, child
/// processes included (MCP-CORE r1 §4).
///
/// One `Capture` keeps one anonymous temp file for its whole life, so a run
/// costs three system calls: two redirects and one seek to learn how much
/// was written, plus a read only when something was.
#[derive(Debug)]
pub struct Capture {
    file: File,
    /// fd 2 as it was when the capture was made, to put back after each run.
    stderr: OwnedFd,
}

impl Capture {
    /// A capture with its temp file.
    ///
    /// # Errors
    ///
    /// [`TransportError::CaptureFile`] when the temp file cannot be made,
    /// [`TransportError::Redirect`] when fd 2 cannot be duplicated.
    pub fn new() -> Result<Capture, TransportError> {
        let file = tempfile::tempfile().map_err(TransportError::CaptureFile)?;
        let stderr = io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map_err(TransportError::Redirect)?;
        Ok(Capture { file, stderr })
    }

    /// Runs `f` with fd 2 pointed at the capture file; returns what `f`
    /// returned and every byte written to fd 2 meanwhile (and, while a
    /// server serves stdio with this capture, to fd 1).
    ///
    /// If `f` panics, fd 2 is restored before the panic goes on, and what
    /// the run wrote is passed on to the real stderr.
    ///
    /// # Errors
    ///
    /// [`TransportError::CaptureBusy`] when another capture is live: captures
    /// never nest or overlap (MCP-CORE r1 §4¶24), and `f` is not run.
    /// [`TransportError::Redirect`] when fd 2 cannot be redirected or the
    /// capture file cannot be read back.
    pub fn run<T>(&mut self, f: impl FnOnce() -> T) -> Result<(T, Vec<u8>), TransportError> {
        let (value, live) = self.start(f)?;
        Ok((value, live.finish()?))
    }

    /// Runs `f` like [`run`](Self::run), but leaves fd 2 redirected until
    /// the returned [`Live`] capture is finished (or dropped), so the caller
    /// can do urgent work, such as answering the host, first.
    pub(crate) fn start<T>(
        &mut self,
        f: impl FnOnce() -> T,
    ) -> Result<(T, Live<'_>), TransportError> {
        let redirect = Redirect::begin(&self.file, &self.stderr)?;
        let value = f();
        Ok((value, Live { redirect }))
    }

    /// Passes on to stderr whatever the file caught outside any run (stray
    /// stdout while serving) and empties it.
    pub(crate) fn pass_on_leftovers(&mut self) {
        if let Ok(leftovers) = take(&self.file) {
            // A dead stderr has no one to tell.
            let _ = io::stderr().write_all(&leftovers);
        }
    }
}

/// A run that is over while its redirect is still in place.
///
/// Dropping it without [`finish`](Self::finish) puts fd 2 back and passes
/// what was caught on to the real stderr.
pub(crate) struct Live<'a> {
    redirect: Redirect<'a>,
}

impl Live<'_> {
    /// Puts fd 2 back and hands over what the run wrote.
    pub fn finish(self) -> Result<Vec<u8>, TransportError> {
        let file = self.redirect.file;
        self.redirect.end()?;
        take(file).map_err(TransportError::Redirect)
    }
}

/// Reads what the capture file caught and empties it for the next run.
fn take(mut file: &File) -> io::Result<Vec<u8>> {
    // fd 2 shared the file's offset, so the offset is the number of bytes
    // written, and reading nothing when nothing was written is one seek.
    let len = file.stream_position()?;
    if len == 0 {
        return Ok(Vec::new());
    }
    let len = usize::try_from(len).map_err(io::Error::other)?;
    let mut captured = vec![0; len];
    file.read_exact_at(&mut captured, 0)?;
    file.set_len(0)?;
    file.rewind()?;
    Ok(captured)
}

/// One live redirect of fd 2; `Drop` undoes it.
struct Redirect<'a> {
    file: &'a File,
    stderr: &'a OwnedFd,
    /// Whether stdio is protected, so std's stdout buffer drains into the
    /// capture file at the end of the run.
    stdio_protected: bool,
    restored: bool,
}

impl<'a> Redirect<'a> {
    fn begin(file: &'a File, stderr: &'a OwnedFd) -> Result<Redirect<'a>, TransportError> {
        let before = STATE.fetch_or(CAPTURE_LIVE, Ordering::AcqRel);
        if before & CAPTURE_LIVE != 0 {
            return Err(TransportError::CaptureBusy);
        }
        let stdio_protected = before & STDIO_PROTECTED != 0;
        // From here on, dropping `redirect` undoes whatever was done and
        // releases the flag, also when the redirect below fails.
        let redirect = Redirect {
            file,
            stderr,
            stdio_protected,
            restored: false,
        };
        rustix::stdio::dup2_stderr(file).map_err(|err| TransportError::Redirect(err.into()))?;
        Ok(redirect)
    }

    fn end(mut self) -> Result<(), TransportError> {
        self.restore().map_err(TransportError::Redirect)
    }

    fn restore(&mut self) -> io::Result<()> {
        if self.restored {
            return Ok(());
        }
        self.restored = true;
        if self.stdio_protected {
            // A `print!` without a newline sits in std's buffer; it was
            // written during the run, so it goes into the capture.
            let _ = io::stdout().flush();
        }
        let res = rustix::stdio::dup2_stderr(self.stderr);
        // Only once fd 2 is back may another capture begin.
        STATE.fetch_and(!CAPTURE_LIVE, Ordering::AcqRel);
        res.map_err(io::Error::from)
    }
}

impl Drop for Redirect<'_> {
    fn drop(&mut self) {
        if self.restored {
            return;
        }
        // Only reached without `end` when the run panicked or `begin` failed
        // half-way; there is nowhere to report a failure to restore. What the
        // run said (the panic message among it, since the panic hook runs
        // before the unwinding) goes on to the real stderr instead of into
        // the next run's capture.
        if self.restore().is_ok()
            && let Ok(captured) = take(self.file)
        {
            let _ = io::stderr().write_all(&captured);
        }
    }
}

/// The protocol's private copies of stdin and stdout, with fd 0 pointed at
/// `/dev/null` and fd 1 away from the protocol channel for as long as this
/// lives.
///
/// `Drop` puts fd 0 and fd 1 back.
#[derive(Debug)]
pub(crate) struct ProtectedStdio {
    /// The host's messages.
    pub stdin: File,
    /// The protocol channel to the host.
    pub stdout: File,
}

impl ProtectedStdio {
    /// Takes stdin and stdout for the protocol; fd 1 then points at
    /// `capture`'s file, or at stderr without a capture.
    pub fn claim(capture: Option<&Capture>) -> Result<ProtectedStdio, TransportError> {
        if STATE
            .compare_exchange(0, STDIO_PROTECTED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(TransportError::StdioBusy);
        }
        let res = ProtectedStdio::redirect(capture);
        if res.is_err() {
            STATE.fetch_and(!STDIO_PROTECTED, Ordering::AcqRel);
        }
        res
    }

    fn redirect(capture: Option<&Capture>) -> Result<ProtectedStdio, TransportError> {
        // Whatever std buffered for stdout before serving goes where it was
        // headed, ahead of the protocol.
        io::stdout().flush().map_err(TransportError::Write)?;
        let claim = |err: io::Error| TransportError::ClaimStdio(err);
        let stdin = File::from(io::stdin().as_fd().try_clone_to_owned().map_err(claim)?);
        let stdout = File::from(io::stdout().as_fd().try_clone_to_owned().map_err(claim)?);
        let null = File::open("/dev/null").map_err(claim)?;
        let redirected = match capture {
            Some(capture) => rustix::stdio::dup2_stdout(&capture.file),
            None => rustix::stdio::dup2_stdout(io::stderr()),
        };
        redirected.map_err(|err| claim(err.into()))?;
        if let Err(err) = rustix::stdio::dup2_stdin(&null) {
            let _ = rustix::stdio::dup2_stdout(&stdout);
            return Err(claim(err.into()));
        }
        Ok(ProtectedStdio { stdin, stdout })
    }
}

impl Drop for ProtectedStdio {
    fn drop(&mut self) {
        // Stray stdout still in std's buffer goes where fd 1 points now.
        let _ = io::stdout().flush();
        // Restoring can only fail if the saved descriptors were closed under
        // us, and a destructor has nowhere to report that.
        let _ = rustix::stdio::dup2_stdout(&self.stdout);
        let _ = rustix::stdio::dup2_stdin(&self.stdin);
        STATE.fetch_and(!STDIO_PROTECTED, Ordering::AcqRel);
    }
}
