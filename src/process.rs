//! Child server processes: each in a process group of its own, its stdout
//! read line by line with deadlines, its stderr drained, and always reaped.
//!
//! Every wait here is bounded by a deadline and driven by events (a line
//! arriving, the process exiting), never by a fixed sleep. A process that is
//! dropped is killed with its whole group and reaped, so nothing outlives its
//! owner; [`kill_all`] does the same for every live process when the owner
//! itself is told to stop.

use std::collections::{BTreeSet, VecDeque};
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

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
pub struct SpawnError {
    /// The command, as a shell would show it.
    pub command: String,
    /// What the OS said.
    #[source]
    pub source: io::Error,
}

/// One line the server wrote on stdout, or the end of its stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// A line, without its newline.
    Line {
        /// The bytes of the line.
        bytes: Vec<u8>,
        /// `false` when the line ended the stream without a newline.
        eol: bool,
        /// When it arrived.
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
/// Dropping it kills its process group and reaps it.
#[derive(Debug)]
pub struct ServerProcess {
    pid: Pid,
    command: String,
    stdin: Option<Sender<Vec<u8>>>,
    stdout: Receiver<Output>,
    stdout_closed: bool,
    exit: Receiver<ExitStatus>,
    status: Option<ExitStatus>,
    stderr: Arc<Mutex<StderrTail>>,
    stderr_done: Receiver<()>,
    spawned_at: Instant,
    writer: Option<thread::JoinHandle<()>>,
}

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
        ServerProcess::spawn_command(cmd, command.display())
    }

    /// Starts a prepared [`Command`] the same way (stdio piped, own process
    /// group), naming it `display` in messages.
    ///
    /// # Errors
    ///
    /// [`SpawnError`] when the program cannot be executed.
    pub fn spawn_command(mut cmd: Command, display: String) -> Result<ServerProcess, SpawnError> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        // Register before spawning, under the lock, so `kill_all` cannot miss
        // a process that is being born.
        let mut live = live();
        let mut child = cmd.spawn().map_err(|source| SpawnError {
            command: display.clone(),
            source,
        })?;
        let spawned_at = Instant::now();
        let pid = Pid::from_child(&child);
        live.insert(pid.as_raw_nonzero().get());
        drop(live);

        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");

        let (stdin_tx, stdin_rx) = mpsc::channel::<Vec<u8>>();
        let writer = thread::spawn(move || write_stdin(stdin, &stdin_rx));

        let (out_tx, out_rx) = mpsc::channel();
        thread::spawn(move || read_stdout(stdout, &out_tx));

        let stderr = Arc::new(Mutex::new(StderrTail::default()));
        let stderr_sink = Arc::clone(&stderr);
        let (stderr_done_tx, stderr_done) = mpsc::channel();
        thread::spawn(move || {
            drain_stderr(stderr_pipe, &stderr_sink);
            let _ = stderr_done_tx.send(());
        });

        let (exit_tx, exit_rx) = mpsc::channel();
        thread::spawn(move || reap(child, &exit_tx));

        Ok(ServerProcess {
            pid,
            command: display,
            stdin: Some(stdin_tx),
            stdout: out_rx,
            stdout_closed: false,
            exit: exit_rx,
            status: None,
            stderr,
            stderr_done,
            spawned_at,
            writer: Some(writer),
        })
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

    /// Queues `line` and a newline for the server's stdin. Never blocks: a
    /// writer thread feeds the pipe, so a server that stops reading cannot
    /// stall the caller. Returns `false` when stdin is already closed.
    pub fn send(&mut self, line: &[u8]) -> bool {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        self.send_raw(bytes)
    }

    /// Queues bytes for the server's stdin exactly as given.
    pub fn send_raw(&mut self, bytes: Vec<u8>) -> bool {
        match &self.stdin {
            Some(tx) => tx.send(bytes).is_ok(),
            None => false,
        }
    }

    /// Closes the server's stdin once everything queued has been written.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits until `deadline` for the next stdout line (or the end of
    /// stdout). After the end, returns `Closed` again at once.
    pub fn recv(&mut self, deadline: Instant) -> Recv {
        if self.stdout_closed {
            return Recv::Output(Output::Closed { at: Instant::now() });
        }
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.stdout.recv_timeout(timeout) {
            Ok(output) => {
                if matches!(output, Output::Closed { .. }) {
                    self.stdout_closed = true;
                }
                Recv::Output(output)
            }
            Err(RecvTimeoutError::Timeout) => Recv::Timeout,
            Err(RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                Recv::Output(Output::Closed { at: Instant::now() })
            }
        }
    }

    /// The next stdout line if one has already arrived, without waiting.
    pub fn try_recv(&mut self) -> Option<Output> {
        if self.stdout_closed {
            return None;
        }
        let output = self.stdout.try_recv().ok()?;
        if matches!(output, Output::Closed { .. }) {
            self.stdout_closed = true;
        }
        Some(output)
    }

    /// Waits until `deadline` for the process to exit; `None` if it is still
    /// running then.
    pub fn wait(&mut self, deadline: Instant) -> Option<ExitStatus> {
        if self.status.is_none() {
            let timeout = deadline.saturating_duration_since(Instant::now());
            if let Ok(status) = self.exit.recv_timeout(timeout) {
                self.reaped(status);
            }
        }
        self.status
    }

    /// The exit status, if the process has exited, without waiting.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none()
            && let Ok(status) = self.exit.try_recv()
        {
            self.reaped(status);
        }
        self.status
    }

    fn reaped(&mut self, status: ExitStatus) {
        self.status = Some(status);
        live().remove(&self.pid());
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
        self.close_stdin();
        self.wait(Instant::now() + Duration::from_secs(5));
    }

    /// What the server has written on stderr so far.
    pub fn stderr(&self) -> MutexGuard<'_, StderrTail> {
        self.stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits until `deadline` for stderr to close (every process holding it
    /// has exited); returns whether it did.
    pub fn wait_stderr_closed(&mut self, deadline: Instant) -> bool {
        let timeout = deadline.saturating_duration_since(Instant::now());
        !matches!(
            self.stderr_done.recv_timeout(timeout),
            Err(RecvTimeoutError::Timeout)
        )
    }

    /// The last `max` bytes of stderr, as lossy text.
    pub fn stderr_text(&self, max: usize) -> String {
        let tail = self.stderr();
        let skip = tail.tail.len().saturating_sub(max);
        let bytes: Vec<u8> = tail.tail.iter().skip(skip).copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // The group may hold grandchildren even after the leader exited.
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
        self.close_stdin();
        if self.status.is_none() {
            self.wait(Instant::now() + Duration::from_secs(5));
        }
        live().remove(&self.pid());
        if let Some(writer) = self.writer.take() {
            // The pipe's reader is dead, so the writer ends at once.
            let _ = writer.join();
        }
    }
}

/// The process groups started here and not yet reaped.
fn live() -> MutexGuard<'static, BTreeSet<i32>> {
    static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Kills the process group of every server started here that has not been
/// reaped yet. For signal handlers of the owner: call it, then exit.
pub fn kill_all() {
    for pid in live().iter() {
        if let Some(pid) = Pid::from_raw(*pid) {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
        }
    }
}

fn write_stdin(mut stdin: ChildStdin, rx: &Receiver<Vec<u8>>) {
    while let Ok(bytes) = rx.recv() {
        // Coalesce what is already queued into one write.
        let mut batch = bytes;
        while let Ok(more) = rx.try_recv() {
            batch.extend_from_slice(&more);
        }
        if stdin
            .write_all(&batch)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

fn read_stdout(stdout: impl Read, tx: &Sender<Output>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    loop {
        let mut bytes = Vec::new();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let eol = bytes.last() == Some(&b'\n');
                if eol {
                    bytes.pop();
                }
                let line = Output::Line {
                    bytes,
                    eol,
                    at: Instant::now(),
                };
                if tx.send(line).is_err() {
                    return;
                }
            }
        }
    }
    let _ = tx.send(Output::Closed { at: Instant::now() });
}

fn drain_stderr(mut stderr: impl Read, sink: &Mutex<StderrTail>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match stderr.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut tail = sink
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                tail.total += n as u64;
                tail.tail.extend(&buf[..n]);
                let excess = tail.tail.len().saturating_sub(STDERR_TAIL);
                tail.tail.drain(..excess);
            }
        }
    }
}

fn reap(mut child: Child, tx: &Sender<ExitStatus>) {
    if let Ok(status) = child.wait() {
        let _ = tx.send(status);
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
            thread::yield_now();
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
