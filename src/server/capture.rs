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
//! - Nothing a run wrote is lost. The capture file is opened for appending
//!   and never truncated, so writers that share it (a child that outlives
//!   its run, another thread's stray stdout) append while a run reads; the
//!   space of what was read is given back by punching holes. A run's bytes
//!   are handed over, appended to its report (at most [`REPORT_LIMIT`]) or
//!   passed on to the real stderr a piece at a time, never held in memory
//!   all at once on the loop's behalf.
//! - Nothing else in the crate touches file descriptors 0, 1 or 2. The
//!   saved copies are close-on-exec, so children never inherit them; the
//!   redirected fds 1 and 2 are inherited on purpose, which is how a child's
//!   output is caught.
//!
//! All of it goes through rustix's safe `dup2_std*` functions and std's
//! owned descriptors, so the room needs no `unsafe` at all.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU8, Ordering};

use rustix::fs::{FallocateFlags, OFlags};

use super::ServeError;

/// What the process's standard descriptors are doing right now: a set of
/// the flags below, changed atomically, so that checking for a live capture
/// costs no lock on every run.
static STATE: AtomicU8 = AtomicU8::new(0);

/// A [`Capture`] run is in progress: fd 2 points at its file.
const CAPTURE_LIVE: u8 = 1;

/// fd 0 points at `/dev/null`, fd 1 away from the protocol channel.
const STDIO_PROTECTED: u8 = 2;

/// How much of the capture file may be read and handed over before its
/// space is given back: a chatty session holds at most about this much of
/// the temp directory, and a quiet one costs no system call for it.
const RELEASE_STEP: u64 = 1 << 20;

/// The most of one run's capture that a report takes, so that a run that
/// writes gigabytes cannot make the server hold them in memory; the start
/// of a longer capture goes to stderr instead, and the report says so.
pub(crate) const REPORT_LIMIT: usize = 1 << 20;

/// The piece in which captured bytes are passed on to stderr.
const CHUNK: usize = 64 * 1024;

/// Captures everything the process writes to stderr during a call, child
/// processes included (MCP-CORE r1 §4).
///
/// One `Capture` keeps one anonymous temp file for its whole life, so a run
/// costs three system calls: two redirects and one seek to learn how much
/// was written, plus a read only when something was. The file is opened for
/// appending and never truncated: a child that outlives its run and goes on
/// writing, or another thread writing to stdout while a server serves,
/// appends to it while a run reads, and nothing is lost; the space of what
/// has been read is given back by punching a hole, which keeps the size.
///
/// Dropping a `Capture` passes on to stderr whatever its file caught that no
/// run has handed over.
#[derive(Debug)]
pub struct Capture {
    file: File,
    /// fd 2 as it was when the capture was made, to put back after each run.
    stderr: OwnedFd,
    /// The offset up to which the file's bytes have been handed over.
    consumed: u64,
    /// The offset up to which the file's space has been given back.
    released: u64,
}

impl Capture {
    /// A capture with its temp file.
    ///
    /// # Errors
    ///
    /// [`ServeError::CaptureFile`] when the temp file cannot be made,
    /// [`ServeError::Redirect`] when fd 2 cannot be duplicated.
    pub fn new() -> Result<Capture, ServeError> {
        let file = tempfile::tempfile().map_err(ServeError::CaptureFile)?;
        // Every writer shares this open file, and appending puts each write
        // after the last, whoever made it and whatever the offset says.
        rustix::fs::fcntl_getfl(&file)
            .and_then(|flags| rustix::fs::fcntl_setfl(&file, flags | OFlags::APPEND))
            .map_err(|err| ServeError::CaptureFile(err.into()))?;
        let stderr = io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map_err(ServeError::Redirect)?;
        Ok(Capture {
            file,
            stderr,
            consumed: 0,
            released: 0,
        })
    }

    /// Runs `f` with fd 2 pointed at the capture file; returns what `f`
    /// returned and every byte written to fd 2 meanwhile (and, while a
    /// server serves stdio with this capture, to fd 1).
    ///
    /// The bytes come back in one buffer, however many the run wrote. If `f`
    /// panics, fd 2 is restored before the panic goes on, and what the run
    /// wrote is passed on to the real stderr.
    ///
    /// # Errors
    ///
    /// [`ServeError::CaptureBusy`] when another capture is live: captures
    /// never nest or overlap (MCP-CORE r1 §4¶24), and `f` is not run.
    /// [`ServeError::Redirect`] when fd 2 cannot be redirected or the
    /// capture file cannot be read back.
    pub fn run<T>(&mut self, f: impl FnOnce() -> T) -> Result<(T, Vec<u8>), ServeError> {
        let (value, live) = self.start(f)?;
        Ok((value, live.finish()?))
    }

    /// Runs `f` like [`run`](Self::run), but leaves fd 2 redirected until
    /// the returned [`EndedRun`] is finished (or dropped), so the caller
    /// can do urgent work, such as answering the host, first.
    pub(crate) fn start<T>(
        &mut self,
        f: impl FnOnce() -> T,
    ) -> Result<(T, EndedRun<'_>), ServeError> {
        let redirect = Redirect::begin(self)?;
        let value = f();
        Ok((value, EndedRun { redirect }))
    }

    /// The bytes the file caught since it was last read, which count as read
    /// from now on.
    fn caught(&mut self) -> io::Result<Range<u64>> {
        let end = (&self.file).seek(SeekFrom::End(0))?;
        // A file shorter than what was read has been truncated: a child
        // reopened its stderr with `>/dev/stderr`, which truncates a file
        // as it would any file a process's stderr points at. What the file
        // holds now came after that.
        let start = if end < self.consumed {
            self.released = 0;
            0
        } else {
            self.consumed
        };
        self.consumed = end;
        Ok(start..end)
    }

    /// Reads `range` of the file; a file that was truncated meanwhile gives
    /// what it still holds.
    fn read(&self, range: Range<u64>) -> io::Result<Vec<u8>> {
        let len = usize::try_from(range.end - range.start).map_err(io::Error::other)?;
        let mut buf = vec![0; len];
        let filled = self.read_at(&mut buf, range.start)?;
        buf.truncate(filled);
        Ok(buf)
    }

    /// Fills `buf` from `offset` up to the end of the file; the number of
    /// bytes read.
    fn read_at(&self, buf: &mut [u8], mut offset: u64) -> io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.file.read_at(&mut buf[filled..], offset) {
                Ok(0) => break,
                Ok(n) => {
                    filled += n;
                    offset += n as u64;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
        Ok(filled)
    }

    /// Passes `range` of the file on to the real stderr, a piece at a time,
    /// so that passing on a run that wrote gigabytes holds one piece in
    /// memory.
    fn pass_on(&self, range: Range<u64>) -> io::Result<()> {
        let mut buf = Vec::new();
        let mut offset = range.start;
        while offset < range.end {
            let piece = usize::try_from(range.end - offset).map_or(CHUNK, |left| left.min(CHUNK));
            buf.resize(piece, 0);
            let n = self.read_at(&mut buf, offset)?;
            if n == 0 {
                break;
            }
            // A dead stderr has no one to tell.
            let _ = io::stderr().write_all(&buf[..n]);
            offset += n as u64;
        }
        Ok(())
    }

    /// Gives back the space of what has been handed over, once there is
    /// enough of it.
    fn release(&mut self) {
        let len = self.consumed.saturating_sub(self.released);
        if len < RELEASE_STEP {
            return;
        }
        // A hole keeps the file's size, so whatever another writer appends
        // meanwhile stays where it lands; truncating the file would lose
        // what it wrote between the read and the truncation. A filesystem
        // without holes keeps the bytes: the file grows, nothing is lost.
        let flags = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
        let _ = rustix::fs::fallocate(&self.file, flags, self.released, len);
        self.released = self.consumed;
    }

    /// Passes on to stderr whatever the file caught that no run has handed
    /// over, such as stray stdout while serving.
    fn pass_on_leftovers(&mut self) {
        if let Ok(range) = self.caught() {
            let _ = self.pass_on(range);
            self.release();
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        self.pass_on_leftovers();
    }
}

/// A run that is over while its redirect is still in place.
///
/// Dropping it without finishing it puts fd 2 back and passes what was
/// caught on to the real stderr.
pub(crate) struct EndedRun<'a> {
    redirect: Redirect<'a>,
}

impl EndedRun<'_> {
    /// Puts fd 2 back and hands over everything the run wrote.
    pub fn finish(mut self) -> Result<Vec<u8>, ServeError> {
        self.redirect.end()?;
        let capture = &mut *self.redirect.capture;
        let range = capture.caught().map_err(ServeError::Redirect)?;
        let caught = capture.read(range).map_err(ServeError::Redirect)?;
        capture.release();
        Ok(caught)
    }

    /// Puts fd 2 back and passes what the run wrote on to the real stderr.
    ///
    /// # Errors
    ///
    /// [`ServeError::Redirect`] only when fd 2 cannot be put back; a
    /// capture that cannot be read is reported on stderr instead.
    pub fn pass_on(mut self) -> Result<(), ServeError> {
        self.redirect.end()?;
        let capture = &mut *self.redirect.capture;
        if let Err(err) = capture.caught().and_then(|range| capture.pass_on(range)) {
            let _ = writeln!(io::stderr(), "cannot read the capture of a tool run: {err}");
        }
        capture.release();
        Ok(())
    }

    /// Puts fd 2 back and appends what the run wrote to `report`: at most
    /// [`REPORT_LIMIT`] bytes, the end of it, with the start passed on to
    /// the real stderr and a line saying so.
    ///
    /// # Errors
    ///
    /// [`ServeError::Redirect`] only when fd 2 cannot be put back; a
    /// capture that cannot be read is reported in the report instead.
    pub fn append_to(mut self, report: &mut String) -> Result<(), ServeError> {
        self.redirect.end()?;
        let capture = &mut *self.redirect.capture;
        let caught = capture.caught().and_then(|range| {
            let len = range.end - range.start;
            let kept = u64::try_from(REPORT_LIMIT).unwrap_or(u64::MAX);
            if len <= kept {
                return capture.read(range).map(|caught| (0, caught));
            }
            let cut = range.end - kept;
            capture.pass_on(range.start..cut)?;
            capture
                .read(cut..range.end)
                .map(|caught| (cut - range.start, caught))
        });
        capture.release();
        match caught {
            Ok((0, caught)) => append_text(report, &caught),
            Ok((cut, caught)) => {
                // The report starts at a line, and at a whole character;
                // the piece of a line before it goes with the start.
                let from = caught
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(0, |at| at + 1);
                let _ = io::stderr().write_all(&caught[..from]);
                let shown = &caught[from..];
                let note = format!(
                    "[the first {} bytes of what the run wrote went to the server's stderr]\n",
                    cut + from as u64
                );
                append_text(report, note.as_bytes());
                report.push_str(&String::from_utf8_lossy(shown));
            }
            Err(err) => append_text(
                report,
                format!("[cannot read what the run wrote: {err}]").as_bytes(),
            ),
        }
        Ok(())
    }
}

/// Appends `text` to `report`, on a line of its own.
fn append_text(report: &mut String, text: &[u8]) {
    if text.is_empty() {
        return;
    }
    if !report.is_empty() && !report.ends_with('\n') {
        report.push('\n');
    }
    report.push_str(&String::from_utf8_lossy(text));
}

/// One live redirect of fd 2; `Drop` undoes it.
struct Redirect<'a> {
    capture: &'a mut Capture,
    /// Whether stdio is protected, so std's stdout buffer drains into the
    /// capture file at the end of the run.
    stdio_protected: bool,
    restored: bool,
}

impl<'a> Redirect<'a> {
    fn begin(capture: &'a mut Capture) -> Result<Redirect<'a>, ServeError> {
        let before = STATE.fetch_or(CAPTURE_LIVE, Ordering::AcqRel);
        if before & CAPTURE_LIVE != 0 {
            return Err(ServeError::CaptureBusy);
        }
        let stdio_protected = before & STDIO_PROTECTED != 0;
        // From here on, dropping `redirect` undoes whatever was done and
        // releases the flag, also when the redirect below fails.
        let redirect = Redirect {
            capture,
            stdio_protected,
            restored: false,
        };
        rustix::stdio::dup2_stderr(&redirect.capture.file)
            .map_err(|err| ServeError::Redirect(err.into()))?;
        Ok(redirect)
    }

    fn end(&mut self) -> Result<(), ServeError> {
        self.restore().map_err(ServeError::Redirect)
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
        let res = rustix::stdio::dup2_stderr(&self.capture.stderr);
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
        if self.restore().is_ok() {
            self.capture.pass_on_leftovers();
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
    ///
    /// A partial line that std still buffers for stdout goes to stderr: it
    /// was written before serving began, and ahead of the first answer it
    /// would corrupt the protocol channel.
    pub fn claim(capture: Option<&mut Capture>) -> Result<ProtectedStdio, ServeError> {
        if STATE
            .compare_exchange(0, STDIO_PROTECTED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(ServeError::StdioBusy);
        }
        let res = ProtectedStdio::redirect(capture);
        if res.is_err() {
            STATE.fetch_and(!STDIO_PROTECTED, Ordering::AcqRel);
        }
        res
    }

    fn redirect(capture: Option<&mut Capture>) -> Result<ProtectedStdio, ServeError> {
        let claim = |err: io::Error| ServeError::ClaimStdio(err);
        let stdin = File::from(io::stdin().as_fd().try_clone_to_owned().map_err(claim)?);
        let stdout = File::from(io::stdout().as_fd().try_clone_to_owned().map_err(claim)?);
        let null = File::open("/dev/null").map_err(claim)?;
        let redirected = match &capture {
            Some(capture) => rustix::stdio::dup2_stdout(&capture.file),
            None => rustix::stdio::dup2_stdout(io::stderr()),
        };
        redirected.map_err(|err| claim(err.into()))?;
        if let Err(err) = rustix::stdio::dup2_stdin(&null) {
            let _ = rustix::stdio::dup2_stdout(&stdout);
            return Err(claim(err.into()));
        }
        // Whatever std buffered for stdout goes where fd 1 points now, and
        // from there on to stderr.
        let _ = io::stdout().flush();
        if let Some(capture) = capture {
            capture.pass_on_leftovers();
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
