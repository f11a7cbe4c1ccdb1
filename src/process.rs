//! Child server processes: each in a process group of its own, its stdout
//! read line by line with deadlines, its stderr drained, and always reaped.
//!
//! Every wait here is bounded by a deadline and driven by events (a line
//! arriving, the process exiting), never by a fixed sleep. A process that is
//! dropped is killed with its whole group and reaped, so nothing outlives its
//! owner; [`kill_all`] does the same for every live process when the owner
//! itself is told to stop, and [`stop_on_signals`] does it on SIGINT or
//! SIGTERM, after which every wait ends at once and [`stop_signal`] says
//! which signal came. An owner that calls [`adopt_orphans`] also reaches
//! the descendants that left their server's group: they are killed once no
//! server of the owner runs.

use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};
use std::ffi::OsString;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags};
use rustix::process::{Pid, Signal};

mod orphans;

pub use self::orphans::{adopt_orphans, kill_orphans};

/// How to start a server: a program, its arguments, and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ServerCommand {
    /// The argv: the program, then its arguments. Never empty.
    pub argv: Vec<String>,
    /// The working directory; the caller's when `None`.
    pub cwd: Option<PathBuf>,
}

impl ServerCommand {
    /// A command from an argv.
    ///
    /// # Panics
    ///
    /// When `argv` is empty.
    pub fn new(argv: Vec<String>) -> ServerCommand {
        assert!(!argv.is_empty(), "a server command needs a program");
        ServerCommand { argv, cwd: None }
    }

    /// The same command run in `cwd`.
    pub fn in_dir(mut self, cwd: impl Into<PathBuf>) -> ServerCommand {
        self.cwd = Some(cwd.into());
        self
    }

    /// The command as a shell would show it, for messages.
    pub fn display(&self) -> String {
        self.argv
            .iter()
            .map(|arg| shell_quote(arg))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The program to execute: `argv[0]` as given when it names a path or is
    /// found on `PATH`; otherwise, as a fallback, a file of that name beside
    /// the running executable (so the servers that ship with mcp-replay are
    /// found when it runs from a build directory).
    pub fn resolve_program(&self) -> OsString {
        let program = &self.argv[0];
        if program.contains('/') || find_on_path(program).is_some() {
            return program.into();
        }
        std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join(program)))
            .filter(|candidate| candidate.is_file())
            .map_or_else(|| program.into(), PathBuf::into_os_string)
    }
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// Quotes `arg` for display in a POSIX shell, when it needs quoting.
pub fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// Why a server could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start server `{command}`")]
#[non_exhaustive]
pub struct SpawnError {
    /// The command, as a shell would show it.
    pub command: String,
    /// What the OS said, or that the working directory does not exist.
    #[source]
    pub source: io::Error,
}

impl SpawnError {
    /// The working directory the server was to run in, when the start
    /// failed because it does not exist (rather than the program).
    pub(crate) fn missing_dir(&self) -> Option<&Path> {
        self.source
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<MissingDir>())
            .map(|missing| missing.0.as_path())
    }
}

/// The cause of a [`SpawnError`] whose working directory does not exist:
/// the OS reports it as a missing file, which reads as a missing program.
#[derive(Debug, thiserror::Error)]
#[error("the working directory `{}` does not exist", .0.display())]
struct MissingDir(PathBuf);

use crate::jsonrpc::CUT_KEEP;
pub use crate::jsonrpc::MAX_LINE;

/// One line the server wrote on stdout, or the end of its stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// A line, without its newline.
    Line {
        /// The bytes of the line (its first KiB when `cut`).
        bytes: Vec<u8>,
        /// `false` when the line ended the stream without a newline, or was
        /// cut before its end came.
        eol: bool,
        /// The line was longer than [`MAX_LINE`]: only its start is kept,
        /// and the rest of it, up to its newline, is dropped.
        cut: bool,
        /// When the wait that read it began: a line read by a wait that
        /// began before a deadline counts as having come before it.
        at: Instant,
    },
    /// stdout closed (or could not be read any more).
    Closed {
        /// When it closed.
        at: Instant,
    },
}

/// The outcome of waiting for output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recv {
    /// Output arrived.
    Output(Output),
    /// The deadline passed first.
    Timeout,
}

/// How many bytes of stderr are kept (the tail) for messages.
const STDERR_TAIL: usize = 64 * 1024;

/// What the server wrote on stderr: a byte count and the last bytes.
#[derive(Debug, Default)]
pub struct StderrTail {
    /// Total bytes written.
    pub total: u64,
    /// The last bytes written (at most 64 KiB).
    pub tail: VecDeque<u8>,
}

/// A running server process.
///
/// Its pipes are read and written on the caller's thread, with `poll`, by
/// whichever method is called ([`recv`](Self::recv), [`wait`](Self::wait),
/// [`send`](Self::send), …): every call first takes in what the server has
/// written and writes what is queued for it, so stderr is drained and the
/// server never blocks on a full pipe while its owner waits on it. No helper
/// thread stands between a line and its reader.
///
/// Dropping it kills its process group and reaps it.
#[derive(Debug)]
pub struct ServerProcess {
    pid: Pid,
    command: String,
    child: Child,
    /// Readable once the process has exited (Linux); without it, waits
    /// check the process in short slices.
    pidfd: Option<OwnedFd>,
    status: Option<ExitStatus>,
    stdin: Option<ChildStdin>,
    /// Bytes queued for stdin and not yet written.
    pending: VecDeque<u8>,
    /// Close stdin once `pending` is written.
    closing: bool,
    stdout: Option<ChildStdout>,
    /// The start of a line not yet ended by a newline.
    partial: Vec<u8>,
    /// The line being read passed [`MAX_LINE`]: drop it up to its newline.
    dropping: bool,
    /// Lines read but not yet returned, and their bytes in all.
    lines: VecDeque<Output>,
    queued: usize,
    /// When the current read of the pipes began, to stamp the lines it
    /// finds.
    read_at: Instant,
    stdout_closed: bool,
    stderr_pipe: Option<ChildStderr>,
    stderr: Mutex<StderrTail>,
    /// The buffer pipes are read into, kept between reads.
    buf: Vec<u8>,
    spawned_at: Instant,
    /// The stop scope the server was started in, if any.
    scope: Option<Arc<StopScope>>,
}

/// The size of one read from a pipe.
const CHUNK: usize = 64 * 1024;

/// How many reads of one pipe one wait makes at most, so that a server
/// that writes faster than it is read cannot keep a wait from seeing its
/// deadline.
const READS_PER_WAKE: usize = 16;

/// Stdout is not read while this many bytes of lines wait to be taken: a
/// server that floods stdout is held back by the pipe, as a host that reads
/// no faster would hold it, instead of filling the checker's memory.
const MAX_QUEUED: usize = 4 * 1024 * 1024;

impl ServerProcess {
    /// Starts `command` in a process group of its own, with piped stdin,
    /// stdout and stderr.
    ///
    /// # Errors
    ///
    /// [`SpawnError`] when the program cannot be executed.
    pub fn spawn(command: &ServerCommand) -> Result<ServerProcess, SpawnError> {
        let mut cmd = Command::new(command.resolve_program());
        cmd.args(&command.argv[1..]);
        if let Some(cwd) = &command.cwd {
            cmd.current_dir(cwd);
        }
        ServerProcess::spawn_command(cmd, command.display()).map_err(|mut err| {
            if let Some(cwd) = &command.cwd
                && err.source.kind() == io::ErrorKind::NotFound
                && !cwd.is_dir()
            {
                err.source = io::Error::new(io::ErrorKind::NotFound, MissingDir(cwd.clone()));
            }
            err
        })
    }

    /// Starts a prepared [`Command`] the same way (stdio piped, own process
    /// group), naming it `display` in messages.
    ///
    /// # Errors
    ///
    /// [`SpawnError`] when the program cannot be executed.
    pub fn spawn_command(mut cmd: Command, display: String) -> Result<ServerProcess, SpawnError> {
        arm_stop_signals();
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let spawn_error = |source| SpawnError {
            command: display.clone(),
            source,
        };
        // Spawn under the lock, so `kill_all` cannot miss a process that is
        // being born, nor let one be born after it (while the owner exits).
        let scope = current_scope();
        let mut live = live();
        if live.stopped {
            return Err(spawn_error(io::Error::other(
                "every server is being stopped: no new one starts",
            )));
        }
        // The scope's lock too, so that its stop cannot miss a server being
        // born, nor let one be born after it.
        let mut scoped = scope.as_ref().map(|scope| scope.groups());
        if scoped.as_ref().is_some_and(|groups| groups.is_none()) {
            return Err(spawn_error(io::Error::other(
                "the servers of this run are being stopped: no new one starts",
            )));
        }
        let mut child = cmd.spawn().map_err(spawn_error)?;
        let spawned_at = Instant::now();
        let pid = Pid::from_child(&child);
        live.groups.insert(pid.as_raw_nonzero().get());
        if let Some(groups) = scoped.as_mut().and_then(|groups| groups.as_mut()) {
            groups.insert(pid.as_raw_nonzero().get());
        }
        drop(scoped);
        drop(live);

        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        // Only this side's ends of the pipes turn non-blocking; the server's
        // ends are other file descriptions and stay as they were.
        let nonblocking = rustix::io::ioctl_fionbio(&stdin, true)
            .and_then(|()| rustix::io::ioctl_fionbio(&stdout, true))
            .and_then(|()| rustix::io::ioctl_fionbio(&stderr, true));
        let mut server = ServerProcess {
            pid,
            command: display.clone(),
            pidfd: pidfd(pid),
            child,
            status: None,
            stdin: Some(stdin),
            pending: VecDeque::new(),
            closing: false,
            stdout: Some(stdout),
            partial: Vec::new(),
            dropping: false,
            lines: VecDeque::new(),
            queued: 0,
            read_at: spawned_at,
            stdout_closed: false,
            stderr_pipe: Some(stderr),
            stderr: Mutex::new(StderrTail::default()),
            buf: Vec::new(),
            spawned_at,
            scope,
        };
        if let Err(err) = nonblocking {
            // Dropping the server kills and reaps it.
            drop(server.stdin.take());
            return Err(spawn_error(err.into()));
        }
        Ok(server)
    }

    /// Whether the owner, or the scope the server was started in, was told
    /// to stop: a wait for a line then ends at once.
    fn stopped(&self) -> bool {
        STOPPED_BY.load(Ordering::Relaxed) != 0
            || self.scope.as_ref().is_some_and(|scope| scope.is_stopped())
    }

    /// The process id (also its process group id).
    pub fn pid(&self) -> i32 {
        self.pid.as_raw_nonzero().get()
    }

    /// The command, as a shell would show it.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// When the process was started.
    pub fn spawned_at(&self) -> Instant {
        self.spawned_at
    }

    /// Queues `line` and a newline for the server's stdin, and writes as
    /// much as the pipe takes now. Never blocks: the rest is written while
    /// the caller waits on the server. Returns `false` when stdin is already
    /// closed.
    pub fn send(&mut self, line: &[u8]) -> bool {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        self.send_raw(bytes)
    }

    /// Queues bytes for the server's stdin exactly as given (see
    /// [`send`](Self::send)).
    pub fn send_raw(&mut self, bytes: Vec<u8>) -> bool {
        if self.stdin.is_none() || self.closing {
            return false;
        }
        self.pending.extend(bytes);
        self.flush_stdin();
        true
    }

    /// Closes the server's stdin once everything queued has been written.
    pub fn close_stdin(&mut self) {
        self.closing = true;
        self.flush_stdin();
    }

    /// Waits until `deadline` for the next stdout line (or the end of
    /// stdout). After the end, returns `Closed` again at once.
    ///
    /// A line counts as come before the deadline when a wait that began
    /// before the deadline read it, or when it was in the pipe at the first
    /// look after the deadline; lines read later are left for the next
    /// call, so that a server writing without pause cannot keep a wait
    /// past its deadline.
    ///
    /// Once the owner is told to stop ([`stop_on_signals`]), a wait for a
    /// line that has not arrived ends at once, as a timeout.
    pub fn recv(&mut self, deadline: Instant) -> Recv {
        loop {
            match self.lines.front() {
                Some(Output::Line { at, .. }) if *at > deadline => return Recv::Timeout,
                Some(_) => return Recv::Output(self.pop_line()),
                None if self.stdout_closed => {
                    return Recv::Output(Output::Closed { at: Instant::now() });
                }
                None if self.stopped() => return Recv::Timeout,
                None => {}
            }
            let now = Instant::now();
            if now >= deadline {
                if self.read_at >= deadline {
                    return Recv::Timeout;
                }
                // One last look, so that a line already in the pipe counts
                // as come before the deadline (a wait that starts late, as
                // the watch of a settle window may, still sees it).
                self.pump_stamped(Duration::ZERO, deadline);
                continue;
            }
            self.pump(deadline - now);
        }
    }

    /// The next stdout line if one has already arrived, without waiting.
    pub fn try_recv(&mut self) -> Option<Output> {
        if self.lines.is_empty() {
            self.pump(Duration::ZERO);
        }
        match self.lines.front() {
            Some(_) => Some(self.pop_line()),
            None if self.stdout_closed => Some(Output::Closed { at: Instant::now() }),
            None => None,
        }
    }

    fn pop_line(&mut self) -> Output {
        let output = self.lines.pop_front().expect("a line is queued");
        if let Output::Line { bytes, .. } = &output {
            self.queued -= bytes.len();
        }
        output
    }

    /// Waits until `deadline` for the process to exit; `None` if it is still
    /// running then. Its output is read meanwhile (stdout until 4 MiB of
    /// lines wait to be taken), so a server cannot stall on a full pipe
    /// unless it floods stdout.
    pub fn wait(&mut self, deadline: Instant) -> Option<ExitStatus> {
        while self.try_wait().is_none() {
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            self.pump(deadline - now);
        }
        self.status
    }

    /// The exit status, if the process has exited, without waiting.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none()
            && let Ok(Some(status)) = self.child.try_wait()
        {
            self.status = Some(status);
            // The descriptor stays readable forever after: stop polling it.
            self.pidfd = None;
            // The group stays in `live` until the drop kills it: children
            // of the server may outlive it, holding its pipes.
        }
        self.status
    }

    /// Sends `signal` to the server process itself (not its group), as a
    /// host would. A no-op once the process has been reaped.
    pub fn signal(&mut self, signal: Signal) {
        if self.try_wait().is_none() {
            let _ = rustix::process::kill_process(self.pid, signal);
        }
    }

    /// Kills the whole process group and waits (up to five seconds) for the
    /// server to be reaped.
    pub fn kill(&mut self) {
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
        self.pending.clear();
        self.close_stdin();
        self.wait(Instant::now() + Duration::from_secs(5));
    }

    /// What the server has written on stderr so far (as far as it has been
    /// read: every method that waits or sends reads it).
    pub fn stderr(&self) -> MutexGuard<'_, StderrTail> {
        self.stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits until `deadline` for stderr to close (every process holding it
    /// has exited); returns whether it did.
    pub fn wait_stderr_closed(&mut self, deadline: Instant) -> bool {
        while self.stderr_pipe.is_some() {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            self.pump(deadline - now);
        }
        true
    }

    /// The last `max` bytes of stderr, as lossy text.
    pub fn stderr_text(&self, max: usize) -> String {
        let tail = self.stderr();
        let skip = tail.tail.len().saturating_sub(max);
        let bytes: Vec<u8> = tail.tail.iter().skip(skip).copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Waits up to `timeout` for something to happen on the pipes or to the
    /// process, then takes in what stdout and stderr hold, writes what stdin
    /// takes, and reaps the process if it has exited.
    fn pump(&mut self, timeout: Duration) {
        self.pump_stamped(timeout, Instant::now());
    }

    /// [`pump`](Self::pump), stamping the lines it reads with `read_at`.
    fn pump_stamped(&mut self, timeout: Duration, read_at: Instant) {
        self.read_at = read_at;
        let mut timeout = timeout;
        if self.pidfd.is_none() && self.status.is_none() {
            // Without a process descriptor, an exit is only seen by asking;
            // ask often enough that a wait ends soon after it.
            timeout = timeout.min(Duration::from_millis(10));
        }
        let timespec = rustix::event::Timespec {
            tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        // Which of stdout, stderr, stdin and the process are ready.
        let mut ready = [false; 4];
        {
            let mut fds = Vec::with_capacity(4);
            let mut which = Vec::with_capacity(4);
            if let Some(stdout) = self.stdout.as_ref().filter(|_| self.queued < MAX_QUEUED) {
                fds.push(PollFd::new(stdout, PollFlags::IN));
                which.push(0);
            }
            if let Some(stderr) = &self.stderr_pipe {
                fds.push(PollFd::new(stderr, PollFlags::IN));
                which.push(1);
            }
            if let Some(stdin) = self.stdin.as_ref().filter(|_| !self.pending.is_empty()) {
                fds.push(PollFd::new(stdin, PollFlags::OUT));
                which.push(2);
            }
            if let Some(pidfd) = &self.pidfd {
                fds.push(PollFd::new(pidfd, PollFlags::IN));
                which.push(3);
            }
            // Once a stop has been seen, the sockets stay readable: watching
            // them still would make every later wait spin.
            let stops = match STOP_PIPES.get() {
                Some(pipes) if STOPPED_BY.load(Ordering::Relaxed) == 0 => pipes.as_slice(),
                _ => &[][..],
            };
            for (_, pipe) in stops {
                fds.push(PollFd::new(pipe, PollFlags::IN));
            }
            // An error (EINTR) only means: look again.
            if rustix::event::poll(&mut fds, Some(&timespec)).is_ok() {
                for (fd, index) in fds.iter().zip(which) {
                    ready[index] = !fd.revents().is_empty();
                }
                let stop = fds[fds.len() - stops.len()..]
                    .iter()
                    .zip(stops)
                    .find(|(fd, _)| !fd.revents().is_empty());
                if let Some((_, (signal, _))) = stop {
                    stop_all(*signal);
                }
            }
        }
        if ready[0] || ready[1] {
            // Reads go to the buffer's spare capacity: nothing is zeroed,
            // and only the pages a read fills are ever touched.
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            buf.reserve_exact(CHUNK);
            if ready[0] {
                self.read_stdout(&mut buf);
            }
            if ready[1] {
                self.read_stderr(&mut buf);
            }
            self.buf = buf;
        }
        if ready[2] {
            self.flush_stdin();
        }
        if ready[3] || (self.pidfd.is_none() && self.status.is_none()) {
            self.try_wait();
        }
    }

    /// Reads what stdout holds now, up to [`READS_PER_WAKE`] reads. A short
    /// read means the pipe is empty: the next poll says when there is more.
    fn read_stdout(&mut self, buf: &mut Vec<u8>) {
        for _ in 0..READS_PER_WAKE {
            let Some(stdout) = &self.stdout else {
                return;
            };
            match read_some(stdout, buf) {
                Drained::Bytes(n) => {
                    self.take_stdout(&buf[..n]);
                    if n < buf.capacity() || self.queued >= MAX_QUEUED {
                        return;
                    }
                }
                Drained::Empty => return,
                Drained::End => {
                    self.stdout = None;
                    self.end_stdout();
                }
            }
        }
    }

    /// Reads what stderr holds now into the tail, up to [`READS_PER_WAKE`]
    /// reads.
    fn read_stderr(&mut self, buf: &mut Vec<u8>) {
        for _ in 0..READS_PER_WAKE {
            let Some(stderr) = &self.stderr_pipe else {
                return;
            };
            match read_some(stderr, buf) {
                Drained::Bytes(n) => {
                    let mut tail = self
                        .stderr
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    tail.total += n as u64;
                    tail.tail.extend(&buf[..n]);
                    let excess = tail.tail.len().saturating_sub(STDERR_TAIL);
                    tail.tail.drain(..excess);
                    if n < buf.capacity() {
                        return;
                    }
                }
                Drained::Empty => return,
                Drained::End => self.stderr_pipe = None,
            }
        }
    }

    /// Splits what stdout gave into lines.
    fn take_stdout(&mut self, mut bytes: &[u8]) {
        // A plain search: the SIMD search of `memchr` first probes the CPU's
        // features, which costs more in a short-lived checker (and in a VM,
        // where each probe traps) than it saves on protocol lines.
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            let (piece, rest) = match end {
                Some(end) => (&bytes[..end], &bytes[end + 1..]),
                None => (bytes, &[][..]),
            };
            if !self.dropping {
                let room = MAX_LINE - self.partial.len();
                if piece.len() <= room {
                    self.partial.extend_from_slice(piece);
                } else {
                    // Runaway output: deliver its start now, drop the rest.
                    let wanted = CUT_KEEP.saturating_sub(self.partial.len());
                    self.partial
                        .extend_from_slice(&piece[..wanted.min(piece.len())]);
                    self.partial.truncate(CUT_KEEP);
                    self.partial.shrink_to_fit();
                    self.push_line(false, true);
                    self.dropping = true;
                }
            }
            if end.is_some() {
                if self.dropping {
                    self.dropping = false;
                } else {
                    self.push_line(true, false);
                }
            }
            bytes = rest;
        }
    }

    /// Queues the line in `partial`.
    fn push_line(&mut self, eol: bool, cut: bool) {
        let bytes = std::mem::take(&mut self.partial);
        self.queued += bytes.len();
        self.lines.push_back(Output::Line {
            bytes,
            eol,
            cut,
            at: self.read_at,
        });
    }

    fn end_stdout(&mut self) {
        if !self.partial.is_empty() && !self.dropping {
            self.push_line(false, false);
        }
        self.stdout_closed = true;
    }

    /// Writes as much of the queued bytes as stdin takes now; closes stdin
    /// when asked to and nothing is left.
    fn flush_stdin(&mut self) {
        while let Some(stdin) = &mut self.stdin {
            if self.pending.is_empty() {
                if self.closing {
                    self.stdin = None;
                }
                return;
            }
            let (front, _) = self.pending.as_slices();
            match stdin.write(front) {
                Ok(n) => {
                    self.pending.drain(..n);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return,
                // The server closed its end: nothing more can be written.
                Err(_) => {
                    self.pending.clear();
                    self.stdin = None;
                }
            }
        }
    }
}

/// What one read of a non-blocking pipe gave.
enum Drained {
    /// This many bytes, now at the start of the buffer.
    Bytes(usize),
    /// Nothing yet.
    Empty,
    /// The end of the stream (or a pipe that cannot be read any more).
    End,
}

/// Reads what `pipe` holds into `buf`, which is cleared first and filled up
/// to its capacity.
fn read_some(pipe: impl AsFd, buf: &mut Vec<u8>) -> Drained {
    loop {
        buf.clear();
        match rustix::io::read(&pipe, rustix::buffer::spare_capacity(buf)) {
            Ok(0) => return Drained::End,
            Ok(n) => return Drained::Bytes(n),
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => return Drained::Empty,
            Err(_) => return Drained::End,
        }
    }
}

/// A descriptor that becomes readable when `pid` exits, where the system
/// offers one.
#[cfg(target_os = "linux")]
fn pidfd(pid: Pid) -> Option<OwnedFd> {
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
}

#[cfg(not(target_os = "linux"))]
fn pidfd(_pid: Pid) -> Option<OwnedFd> {
    None
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // The group may hold grandchildren even after the leader exited.
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
        self.stdin = None;
        self.pending.clear();
        if self.status.is_none() {
            self.wait(Instant::now() + Duration::from_secs(5));
        }
        if let Some(scope) = &self.scope
            && let Some(groups) = scope.groups().as_mut()
        {
            groups.remove(&self.pid());
        }
        let mut live = live();
        live.groups.remove(&self.pid());
        // Once no server runs, every child left is a descendant that
        // escaped its group, re-parented here; the lock keeps a new server
        // from starting meanwhile.
        if live.groups.is_empty() {
            kill_orphans();
        }
    }
}

/// The process groups started here whose owners have not dropped them yet
/// (the leader may be reaped while the rest of its group still runs).
fn live() -> MutexGuard<'static, LiveGroups> {
    static LIVE: Mutex<LiveGroups> = Mutex::new(LiveGroups {
        groups: BTreeSet::new(),
        stopped: false,
    });
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The process groups to kill when the owner stops.
struct LiveGroups {
    /// The groups started here whose owners have not dropped them yet.
    groups: BTreeSet<i32>,
    /// [`kill_all`] ran: no new server may start, since the owner is on its
    /// way out and would leave it behind.
    stopped: bool,
}

/// The signals [`stop_on_signals`] asked for.
static STOP_SIGNALS: OnceLock<Vec<i32>> = OnceLock::new();

/// The first stop signal that arrived, or 0.
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

/// Each armed signal, with the read end of the socket its handler writes a
/// byte to.
static STOP_PIPES: OnceLock<Vec<(i32, UnixStream)>> = OnceLock::new();

/// Makes `signals` (e.g. SIGINT and SIGTERM) stop every server, once a
/// server has been started: when one arrives, every live server group is
/// killed, no new server starts, every wait for a line ends at once, and
/// [`stop_signal`] names the signal. For a command-line owner, whose Ctrl-C
/// must never leave servers behind, and which still reports what finished
/// before it exits.
///
/// The handlers only write a byte to a socket, which every wait on a server
/// watches; before the first server starts, the signals keep their default
/// action. No thread is started for it.
pub fn stop_on_signals(signals: &[i32]) {
    let _ = STOP_SIGNALS.set(signals.to_vec());
}

/// The signal that stopped every server ([`stop_on_signals`]), if one has
/// arrived: a signal that came while no wait was watching is noticed (and
/// the servers killed) here.
pub fn stop_signal() -> Option<i32> {
    let signal = STOPPED_BY.load(Ordering::Relaxed);
    if signal != 0 {
        return Some(signal);
    }
    let pipes = STOP_PIPES.get()?;
    let mut fds: Vec<PollFd<'_>> = pipes
        .iter()
        .map(|(_, pipe)| PollFd::new(pipe, PollFlags::IN))
        .collect();
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    if rustix::event::poll(&mut fds, Some(&zero)).is_ok()
        && let Some((_, (signal, _))) = fds
            .iter()
            .zip(pipes)
            .find(|(fd, _)| !fd.revents().is_empty())
    {
        stop_all(*signal);
    }
    match STOPPED_BY.load(Ordering::Relaxed) {
        0 => None,
        signal => Some(signal),
    }
}

/// Notes that `signal` stops the owner (the first such signal wins) and
/// kills every live server.
fn stop_all(signal: i32) {
    let _ = STOPPED_BY.compare_exchange(0, signal, Ordering::Relaxed, Ordering::Relaxed);
    kill_all();
}

/// Installs the handlers [`stop_on_signals`] asked for, once.
fn arm_stop_signals() {
    STOP_PIPES.get_or_init(|| {
        let Some(signals) = STOP_SIGNALS.get() else {
            return Vec::new();
        };
        signals
            .iter()
            .filter_map(|&signal| {
                let (read, write) = UnixStream::pair().ok()?;
                read.set_nonblocking(true).ok()?;
                signal_hook::low_level::pipe::register(signal, write).ok()?;
                Some((signal, read))
            })
            .collect()
    });
}

/// Kills the process group of every server started here and not dropped
/// yet. For an owner on its way out.
///
/// From then on no new server starts ([`ServerProcess::spawn`] fails): a
/// thread that starts one while the owner exits would leave it behind.
pub fn kill_all() {
    let mut live = live();
    live.stopped = true;
    for pid in &live.groups {
        if let Some(pid) = Pid::from_raw(*pid) {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
        }
    }
    // The servers themselves are their owners' to reap: each owner's wait
    // sees its server die and collects it.
    orphans::kill_orphans_sparing(&live.groups);
}

/// The servers of one run among several in a process (a tool call of
/// `serve`), to stop without stopping the others.
///
/// A server started on a thread inside [`StopScope::enter`] belongs to the
/// scope; [`StopScope::stop`] kills the process group of each of them, and
/// from then on every wait of theirs for a line ends at once and no new
/// server starts in the scope. Each server is still reaped by its owner.
#[derive(Debug)]
pub struct StopScope {
    stopped: AtomicBool,
    /// The process groups of the scope's live servers; `None` once stopped.
    groups: Mutex<Option<BTreeSet<i32>>>,
}

thread_local! {
    /// The scope servers started on this thread belong to.
    static SCOPE: RefCell<Option<Arc<StopScope>>> = const { RefCell::new(None) };
}

/// The scope the current thread starts servers in, if any: a thread that
/// starts servers on behalf of a scope enters it too.
pub fn current_scope() -> Option<Arc<StopScope>> {
    SCOPE.with(|scope| scope.borrow().clone())
}

impl StopScope {
    /// A scope with no server yet.
    pub fn new() -> Arc<StopScope> {
        Arc::new(StopScope {
            stopped: AtomicBool::new(false),
            groups: Mutex::new(Some(BTreeSet::new())),
        })
    }

    /// Runs `f` on this thread with `scope` as the scope of the servers it
    /// starts; `None` runs it in no scope.
    pub fn enter<T>(scope: Option<Arc<StopScope>>, f: impl FnOnce() -> T) -> T {
        let before = SCOPE.with(|current| current.replace(scope));
        /// Puts the thread's scope back, even when `f` panics.
        struct Restore(Option<Option<Arc<StopScope>>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let before = self.0.take().flatten();
                SCOPE.with(|current| *current.borrow_mut() = before);
            }
        }
        let _restore = Restore(Some(before));
        f()
    }

    /// Kills the process group of every live server of the scope; no new
    /// one starts in it.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        let mut groups = self
            .groups
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for pid in groups.take().unwrap_or_default() {
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            }
        }
    }

    /// Whether [`stop`](Self::stop) ran.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// The live groups, or `None` once stopped.
    fn groups(&self) -> MutexGuard<'_, Option<BTreeSet<i32>>> {
        self.groups
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A status as a shell reports it: the exit code, or 128 + the signal.
pub fn shell_status(status: ExitStatus) -> i32 {
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(-1)
}

/// Whether `path` can be executed as a program.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> ServerCommand {
        ServerCommand::new(vec!["sh".into(), "-c".into(), script.into()])
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    #[test]
    fn lines_round_trip_and_eof_ends_the_process() {
        let mut server =
            ServerProcess::spawn(&sh("while read -r l; do echo \"got $l\"; done")).unwrap();
        server.send(b"one");
        match server.recv(soon()) {
            Recv::Output(Output::Line {
                bytes, eol: true, ..
            }) => assert_eq!(bytes, b"got one"),
            other => panic!("unexpected {other:?}"),
        }
        server.close_stdin();
        assert!(matches!(
            server.recv(soon()),
            Recv::Output(Output::Closed { .. })
        ));
        assert_eq!(server.wait(soon()).map(shell_status), Some(0));
    }

    #[test]
    fn a_silent_server_times_out() {
        let mut server = ServerProcess::spawn(&sh("exec sleep 30")).unwrap();
        let deadline = Instant::now() + Duration::from_millis(50);
        assert_eq!(server.recv(deadline), Recv::Timeout);
        assert_eq!(
            server.wait(Instant::now() + Duration::from_millis(10)),
            None
        );
        server.kill();
        assert_eq!(server.try_wait().map(shell_status), Some(128 + 9));
    }

    #[test]
    fn sigterm_reaches_the_server() {
        let mut server = ServerProcess::spawn(&sh("echo ready; exec sleep 30")).unwrap();
        assert!(matches!(
            server.recv(soon()),
            Recv::Output(Output::Line { .. })
        ));
        server.signal(Signal::TERM);
        assert_eq!(server.wait(soon()).map(shell_status), Some(143));
    }

    #[test]
    fn dropping_kills_the_whole_group() {
        let mut server = ServerProcess::spawn(&sh("sleep 30 & echo $!; wait")).unwrap();
        let grandchild = match server.recv(soon()) {
            Recv::Output(Output::Line { bytes, .. }) => {
                String::from_utf8(bytes).unwrap().parse::<i32>().unwrap()
            }
            other => panic!("unexpected {other:?}"),
        };
        drop(server);
        // The grandchild was killed: it is gone, or a zombie waiting for
        // init. Killing is asynchronous, so poll its state up to a deadline.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let stat =
                std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
            let state = stat
                .rsplit(") ")
                .next()
                .and_then(|rest| rest.chars().next());
            if matches!(state, None | Some('Z' | 'X')) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "grandchild {grandchild} outlived its group"
            );
            std::thread::yield_now();
        }
    }

    #[test]
    fn stderr_is_drained_and_its_tail_kept() {
        let mut server =
            ServerProcess::spawn(&sh("head -c 1048576 /dev/zero | tr '\\0' x >&2; echo done"))
                .unwrap();
        assert!(matches!(
            server.recv(soon()),
            Recv::Output(Output::Line { .. })
        ));
        server.wait(soon());
        assert!(server.wait_stderr_closed(soon()));
        assert_eq!(server.stderr().total, 1_048_576);
        assert_eq!(server.stderr().tail.len(), STDERR_TAIL);
    }

    #[test]
    fn more_than_a_pipe_holds_flows_both_ways_without_a_helper_thread() {
        // `cat` echoes while it reads, so both pipes fill: the owner must
        // keep writing and reading at once.
        let mut server = ServerProcess::spawn(&sh("exec cat")).unwrap();
        let line = vec![b'x'; 4 * 1024 * 1024];
        for _ in 0..3 {
            assert!(server.send(&line));
        }
        server.close_stdin();
        for _ in 0..3 {
            match server.recv(soon()) {
                Recv::Output(Output::Line {
                    bytes, eol: true, ..
                }) => {
                    assert_eq!(bytes.len(), line.len());
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(matches!(
            server.recv(soon()),
            Recv::Output(Output::Closed { .. })
        ));
        assert_eq!(server.wait(soon()).map(shell_status), Some(0));
        assert!(!server.send(b"late"), "stdin is closed");
    }

    #[test]
    fn a_last_line_without_newline_is_kept() {
        let mut server = ServerProcess::spawn(&sh("printf 'a\nb'")).unwrap();
        let mut lines = Vec::new();
        loop {
            match server.recv(soon()) {
                Recv::Output(Output::Line { bytes, eol, .. }) => lines.push((bytes, eol)),
                Recv::Output(Output::Closed { .. }) => break,
                Recv::Timeout => panic!("timed out"),
            }
        }
        assert_eq!(lines, vec![(b"a".to_vec(), true), (b"b".to_vec(), false)]);
    }

    #[test]
    fn a_server_that_never_stops_writing_cannot_hold_a_wait_past_its_deadline() {
        let line = "x".repeat(1000);
        let mut server = ServerProcess::spawn(&sh(&format!("exec yes {line}"))).unwrap();
        assert!(matches!(
            server.recv(soon()),
            Recv::Output(Output::Line { .. })
        ));
        // Lines keep coming faster than they are taken; the wait must still
        // end at its deadline, with what was read before it.
        let deadline = Instant::now();
        let give_up = Instant::now() + Duration::from_secs(30);
        while let Recv::Output(Output::Line { .. }) = server.recv(deadline) {
            // Taking a line costs more than writing one.
            std::hint::black_box((0..20_000u64).sum::<u64>());
            assert!(Instant::now() < give_up, "recv ignored its deadline");
        }
    }

    #[test]
    fn a_line_already_in_the_pipe_counts_for_a_deadline_that_has_passed() {
        let dir = tempfile::tempdir().unwrap();
        let written = dir.path().join("written");
        let script = format!("echo early; touch '{}'; exec sleep 30", written.display());
        let mut server = ServerProcess::spawn(&sh(&script)).unwrap();
        let give_up = soon();
        while !written.exists() {
            assert!(Instant::now() < give_up, "the server never wrote");
            std::thread::yield_now();
        }
        let deadline = Instant::now();
        match server.recv(deadline) {
            Recv::Output(Output::Line { bytes, .. }) => assert_eq!(bytes, b"early"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(server.recv(deadline), Recv::Timeout);
    }

    #[test]
    fn a_server_that_floods_stdout_is_held_back_while_nobody_reads() {
        let mut server = ServerProcess::spawn(&sh("exec yes")).unwrap();
        // Waiting for an exit that never comes reads stdout meanwhile, but
        // only until enough lines wait to be taken.
        assert_eq!(
            server.wait(Instant::now() + Duration::from_millis(300)),
            None
        );
        assert!(server.queued > 0);
        assert!(server.queued <= MAX_QUEUED + CHUNK, "{}", server.queued);
    }

    #[test]
    fn a_line_longer_than_the_limit_is_cut_and_the_rest_dropped() {
        let script = format!(
            "head -c {} /dev/zero | tr '\\0' x; printf '\\nnext\\n'",
            MAX_LINE + 3 * CHUNK + 5
        );
        let mut server = ServerProcess::spawn(&sh(&script)).unwrap();
        match server.recv(soon()) {
            Recv::Output(Output::Line {
                bytes,
                cut: true,
                eol: false,
                ..
            }) => assert_eq!(bytes, vec![b'x'; CUT_KEEP]),
            other => panic!("unexpected {other:?}"),
        }
        match server.recv(soon()) {
            Recv::Output(Output::Line {
                bytes,
                cut: false,
                eol: true,
                ..
            }) => assert_eq!(bytes, b"next"),
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            server.recv(soon()),
            Recv::Output(Output::Closed { .. })
        ));
    }

    #[test]
    fn a_flood_on_stderr_cannot_hold_a_wait_past_its_deadline() {
        // The wait runs on a thread of its own, so that a wait that never
        // ends fails the test instead of hanging it.
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut server =
                ServerProcess::spawn(&sh("for i in 1 2 3 4; do cat /dev/zero >&2 & done; wait"))
                    .unwrap();
            let outcome = server.recv(Instant::now() + Duration::from_millis(200));
            let _ = done.send((outcome, server.stderr().total > 0));
        });
        let (outcome, drained) = finished
            .recv_timeout(Duration::from_secs(60))
            .expect("the wait ends");
        assert_eq!(outcome, Recv::Timeout);
        assert!(drained);
    }

    #[test]
    fn no_server_starts_once_every_server_is_being_stopped() {
        // `kill_all` is process-wide, so it runs in a child process of its
        // own: this test binary, run again for this one test.
        const CHILD: &str = "MCP_REPLAY_TEST_KILL_ALL_CHILD";
        if std::env::var_os(CHILD).is_some() {
            let running = ServerProcess::spawn(&sh("exec sleep 30")).unwrap();
            kill_all();
            let refused = ServerProcess::spawn(&sh("exec sleep 30")).unwrap_err();
            assert_eq!(
                refused.source.to_string(),
                "every server is being stopped: no new one starts"
            );
            drop(running);
            return;
        }
        run_alone(
            "process::tests::no_server_starts_once_every_server_is_being_stopped",
            CHILD,
        );
    }

    #[test]
    fn stopping_every_server_leaves_each_to_its_owner_to_reap() {
        // `kill_all` and becoming a subreaper are process-wide, so this runs
        // in a child process of its own.
        const CHILD: &str = "MCP_REPLAY_TEST_KILL_ALL_REAP_CHILD";
        if std::env::var_os(CHILD).is_some() {
            assert!(adopt_orphans(), "Linux lets a process be a subreaper");
            let mut server = ServerProcess::spawn(&sh("exec sleep 300")).unwrap();
            kill_all();
            // The owner collects its own server's status at once: the stop
            // killed it and left it unreaped.
            let status = server.wait(Instant::now() + Duration::from_secs(30));
            assert_eq!(status.map(shell_status), Some(128 + 9));
            return;
        }
        run_alone(
            "process::tests::stopping_every_server_leaves_each_to_its_owner_to_reap",
            CHILD,
        );
    }

    #[test]
    fn a_grandchild_that_left_the_group_goes_with_the_last_server() {
        // Becoming a subreaper is process-wide, so this runs in a child
        // process of its own: this test binary, run again for this one test.
        const CHILD: &str = "MCP_REPLAY_TEST_ORPHANS_CHILD";
        if std::env::var_os(CHILD).is_some() {
            assert!(adopt_orphans(), "Linux lets a process be a subreaper");
            let mut server =
                ServerProcess::spawn(&sh("setsid sleep 300 & echo $!; exec sleep 300")).unwrap();
            let escaped = match server.recv(soon()) {
                Recv::Output(Output::Line { bytes, .. }) => {
                    String::from_utf8(bytes).unwrap().parse::<i32>().unwrap()
                }
                other => panic!("unexpected {other:?}"),
            };
            drop(server);
            // Killed and reaped before the drop returned: no process is left
            // under that id, not even a zombie.
            assert!(
                !Path::new(&format!("/proc/{escaped}")).exists(),
                "process {escaped} outlived its server"
            );
            return;
        }
        run_alone(
            "process::tests::a_grandchild_that_left_the_group_goes_with_the_last_server",
            CHILD,
        );
    }

    /// Runs the test `name` of this binary alone in a child process, with
    /// `var` set so that it does its process-wide part there, and asserts
    /// that it passed.
    fn run_alone(name: &str, var: &str) {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name])
            .env(var, "1")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}");
        assert!(stdout.contains("1 passed"), "{stdout}");
    }

    #[test]
    fn a_missing_working_directory_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir");
        let command =
            ServerCommand::new(vec!["sh".into(), "-c".into(), "true".into()]).in_dir(&missing);
        let err = ServerProcess::spawn(&command).unwrap_err();
        assert_eq!(err.missing_dir(), Some(missing.as_path()));
        assert_eq!(
            err.source.to_string(),
            format!(
                "the working directory `{}` does not exist",
                missing.display()
            )
        );
        let err = ServerProcess::spawn(&ServerCommand::new(vec!["/nonexistent/server".into()]))
            .unwrap_err();
        assert_eq!(err.missing_dir(), None);
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let err = ServerProcess::spawn(&ServerCommand::new(vec!["/nonexistent/server".into()]))
            .unwrap_err();
        assert_eq!(err.to_string(), "cannot start server `/nonexistent/server`");
    }

    #[test]
    fn quoting_for_display() {
        let cmd = ServerCommand::new(vec!["node".into(), "a b.js".into(), "it's".into()]);
        assert_eq!(cmd.display(), "node 'a b.js' 'it'\\''s'");
    }
}
