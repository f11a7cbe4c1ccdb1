//! Helpers shared by the command-line tests: the binaries, deadlines, request
//! lines, golden files, and a scripted host that talks to a running
//! `mcp-replay` through pipes.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde_json::{Value, json};

pub use mcp_replay::process::shell_status;

/// The `mcp-replay` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-replay")
}

/// How long any single step may take. Generous: the machine may be loaded.
pub const STEP: Duration = Duration::from_secs(60);

/// An argv of strings.
pub fn argv(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| (*arg).to_owned()).collect()
}

/// A server written as a Python program (`python3 -c SCRIPT ARGS…`).
pub fn python(script: &str, args: &[&str]) -> Vec<String> {
    let mut argv = argv(&["python3", "-c", script]);
    argv.extend(args.iter().map(|arg| (*arg).to_owned()));
    argv
}

/// A server written as a shell script (`sh -c SCRIPT`).
pub fn sh(script: &str) -> Vec<String> {
    argv(&["sh", "-c", script])
}

/// Echoes every stdin line to stdout, byte for byte, flushing each; at end
/// of input writes `bye` (no newline) on stdout and `eof` on stderr, then
/// exits with the status given as its first argument (0 by default).
pub const ECHO: &str = r#"
import sys
code = int(sys.argv[1]) if len(sys.argv) > 1 else 0
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
sys.stdout.buffer.write(b"bye")
sys.stdout.buffer.flush()
sys.stderr.write("eof\n")
sys.exit(code)
"#;

/// A host: `mcp-replay` with piped stdio, in a process group of its own so
/// that a failing test still kills it, and its stdout read by a thread.
pub struct Host {
    waiter: Waiter,
    stdin: Option<ChildStdin>,
    stdout: Receiver<Vec<u8>>,
    stdout_closed: bool,
    pending: Vec<u8>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Disconnected once stderr has ended.
    stderr_done: Receiver<()>,
}

/// A child process waited for by a thread, so waits have deadlines; its
/// process group is killed if it is dropped while still running.
pub struct Waiter {
    pid: Pid,
    exit: Receiver<ExitStatus>,
    status: Option<ExitStatus>,
}

impl Waiter {
    /// Takes over `child`, which must lead a process group of its own.
    pub fn new(mut child: Child) -> Waiter {
        let pid = Pid::from_child(&child);
        let (exit_tx, exit) = mpsc::channel();
        thread::spawn(move || {
            if let Ok(status) = child.wait() {
                let _ = exit_tx.send(status);
            }
        });
        Waiter {
            pid,
            exit,
            status: None,
        }
    }

    /// Waits for the child to exit.
    pub fn wait(&mut self) -> ExitStatus {
        if self.status.is_none() {
            let status = self
                .exit
                .recv_timeout(STEP)
                .unwrap_or_else(|_| panic!("the process did not exit within {STEP:?}"));
            self.status = Some(status);
        }
        self.status.expect("set above")
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        if self.status.is_none() && self.exit.try_recv().is_err() {
            let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
            let _ = self.exit.recv_timeout(STEP);
        }
    }
}

impl Host {
    /// Starts `mcp-replay record <args> -- <server>` in `dir`, with extra
    /// environment variables.
    pub fn record(dir: &Path, args: &[&str], server: &[String], env: &[(&str, &str)]) -> Host {
        let mut cmd = Command::new(bin());
        cmd.arg("record").args(args).arg("--").args(server);
        cmd.current_dir(dir);
        for (name, value) in env {
            cmd.env(name, value);
        }
        Host::spawn(cmd)
    }

    /// Starts a prepared command as a host would.
    pub fn spawn(mut cmd: Command) -> Host {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = cmd.spawn().expect("mcp-replay starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let (out_tx, out_rx) = mpsc::channel();
        thread::spawn(move || read_chunks(stdout, &out_tx));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        let (stderr_tx, stderr_done) = mpsc::channel::<()>();
        thread::spawn(move || {
            // Dropped at the end of stderr: `wait` waits for it.
            let _done = stderr_tx;
            let mut buf = [0u8; 8192];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Host {
            waiter: Waiter::new(child),
            stdin,
            stdout: out_rx,
            stdout_closed: false,
            pending: Vec::new(),
            stderr,
            stderr_done,
        }
    }

    /// Writes bytes to the recorder's stdin.
    pub fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin
            .write_all(bytes)
            .expect("the recorder reads its stdin");
        stdin.flush().unwrap();
    }

    /// The recorder's stdin, to write from another thread.
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin is open")
    }

    /// Closes the recorder's stdin.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Sends a signal to the recorder.
    pub fn signal(&self, signal: Signal) {
        rustix::process::kill_process(self.waiter.pid, signal).expect("the recorder is alive");
    }

    /// The next stdout line, with its newline.
    pub fn line(&mut self) -> Vec<u8> {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                return self.pending.drain(..=end).collect();
            }
            assert!(
                self.fill(deadline),
                "stdout ended before a full line; got {:?}; stderr: {}",
                String::from_utf8_lossy(&self.pending),
                self.stderr()
            );
        }
    }

    /// Waits until stdout has brought `needle`, newline or not, and returns
    /// what came up to its end; panics if it has not come by `deadline`.
    pub fn until(&mut self, needle: &[u8], deadline: Instant) -> Vec<u8> {
        loop {
            if let Some(at) = self
                .pending
                .windows(needle.len())
                .position(|window| window == needle)
            {
                return self.pending.drain(..at + needle.len()).collect();
            }
            let timeout = deadline.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(timeout) {
                Ok(chunk) => self.pending.extend_from_slice(&chunk),
                Err(_) => panic!(
                    "stdout did not bring {:?} in time; got {:?}; stderr: {}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(&self.pending),
                    self.stderr()
                ),
            }
        }
    }

    /// Everything still to come on stdout, up to its end.
    pub fn rest(&mut self) -> Vec<u8> {
        let deadline = Instant::now() + STEP;
        while self.fill(deadline) {}
        std::mem::take(&mut self.pending)
    }

    /// Reads one more chunk; `false` at the end of stdout.
    fn fill(&mut self, deadline: Instant) -> bool {
        if self.stdout_closed {
            return false;
        }
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.stdout.recv_timeout(timeout) {
            Ok(chunk) => {
                self.pending.extend_from_slice(&chunk);
                true
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                false
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!("no stdout within {STEP:?}; stderr: {}", self.stderr())
            }
        }
    }

    /// Waits for the recorder to exit.
    pub fn wait(&mut self) -> ExitStatus {
        if self.waiter.status.is_none()
            && let Ok(status) = self.waiter.exit.recv_timeout(STEP)
        {
            self.waiter.status = Some(status);
        }
        let status = self
            .waiter
            .status
            .unwrap_or_else(|| panic!("mcp-replay did not exit; stderr: {}", self.stderr()));
        // What it wrote last may still be in the pipe: stderr is whole once
        // it ends (a descendant that keeps it open costs the deadline).
        let _ = self.stderr_done.recv_timeout(STEP);
        status
    }

    /// Everything the process wrote on stderr, once its stderr has closed
    /// (within a step): what a test reads of a process that has exited,
    /// whose last lines the reading thread may not have taken yet.
    pub fn stderr_to_end(&self) -> String {
        let _ = self.stderr_done.recv_timeout(STEP);
        self.stderr()
    }

    /// What the recorder wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }
}

fn read_chunks(mut stdout: ChildStdout, tx: &mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match stdout.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if tx.send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
        }
    }
}

/// Waits until process `pid` is gone (or a zombie nobody reaps yet).
pub fn assert_gone(pid: i32) {
    let deadline = Instant::now() + STEP;
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(") ")
            .next()
            .and_then(|rest| rest.chars().next());
        if matches!(state, None | Some('Z' | 'X')) {
            return;
        }
        assert!(Instant::now() < deadline, "process {pid} is still running");
        thread::yield_now();
    }
}

/// The fixture server binary: the example `fixture-server`, which `cargo
/// test` builds beside the other examples of this test binary's profile
/// (`target/<profile>/examples/`, where this binary is in `deps/`).
///
/// Cargo builds no example for a run of one test target
/// (`cargo test --test cli NAME`), so an example that is missing, or older
/// than a file it was built from, stops the test with the command that
/// builds it rather than test a server the sources no longer describe.
pub fn fixture_server() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| example("fixture-server"))
}

/// The fixture host binary: the example `fixture-host`, found and held to
/// its sources as [`fixture_server`] is.
pub fn fixture_host() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| example("fixture-host"))
}

/// The path of the example `name`, built no earlier than its sources.
fn example(name: &str) -> String {
    let exe = std::env::current_exe().expect("the test binary has a path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary is in target/<profile>/deps/");
    let path = profile_dir.join(format!("examples/{name}"));
    let build = format!(
        "`cargo build --example {name}` (with the profile and target of this test run) builds it; `cargo test` builds it with the other examples"
    );
    let built = std::fs::metadata(&path)
        .and_then(|meta| meta.modified())
        .unwrap_or_else(|err| panic!("{}: {err}: {build}", path.display()));
    // The dep-info file cargo writes beside the example lists every
    // file it was built from, as `target: dep dep...`.
    let deps = std::fs::read_to_string(path.with_extension("d")).unwrap_or_default();
    for dep in deps
        .lines()
        .filter_map(|line| line.split_once(": "))
        .flat_map(|(_, deps)| dep_paths(deps))
    {
        let changed = std::fs::metadata(&dep).and_then(|meta| meta.modified());
        if let Ok(changed) = changed {
            assert!(
                changed <= built,
                "{} is older than {dep}, which it was built from: {build}",
                path.display()
            );
        }
    }
    path.to_str()
        .expect("the target directory's path is UTF-8")
        .to_owned()
}

/// The paths of a dep-info line's right-hand side: separated by spaces,
/// with a space inside a path escaped as `\ `.
fn dep_paths(deps: &str) -> Vec<String> {
    let mut paths = vec![String::new()];
    let mut chars = deps.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => paths.last_mut().expect("never empty").extend(chars.next()),
            ' ' => paths.push(String::new()),
            c => paths.last_mut().expect("never empty").push(c),
        }
    }
    paths.retain(|path| !path.is_empty());
    paths
}

/// `PATH` with the fixture server's directory first, for a command that
/// names it by its bare name, `fixture-server`, as a transcript recorded
/// on another machine would.
pub fn path_with_fixture_server() -> std::ffi::OsString {
    let dir = Path::new(fixture_server())
        .parent()
        .expect("the fixture server is in a directory");
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).expect("the target directory's path holds no `:`")
}

/// The fixture server with `args`, fed `stdin` and killed if it outlives a
/// generous deadline.
pub fn fixture_cmd(args: &[&str]) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(fixture_server());
    cmd.args(args).timeout(Duration::from_secs(60));
    cmd
}

/// A deadline generous enough for a loaded machine.
pub fn soon() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

/// A request line.
pub fn request(id: Value, method: &str, params: Value) -> String {
    let mut line = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if !params.is_null() {
        line["params"] = params;
    }
    line.to_string()
}

/// A notification line.
pub fn notification(method: &str) -> String {
    json!({"jsonrpc": "2.0", "method": method}).to_string()
}

/// The `initialize` request a probe or host sends first.
pub fn initialize(id: i64) -> String {
    request(
        json!(id),
        "initialize",
        json!({
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        }),
    )
}

/// `--waive ID` for every host law: for the replays of hand-written
/// transcripts whose host is a bare script (a lone `ping`, a null id), in
/// tests about something else; the host laws have tests of their own
/// (`host.rs`).
pub fn waive_host_laws() -> Vec<String> {
    mcp_replay::laws::CATALOG
        .iter()
        .filter(|law| law.side() == mcp_replay::laws::Side::Host)
        .flat_map(|law| ["--waive".to_owned(), law.id.as_str().to_owned()])
        .collect()
}

/// Lines joined with newlines, each terminated.
pub fn script(lines: &[String]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// stdout parsed as one JSON value per line.
pub fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// The pids of live processes whose command line holds `marker`.
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let holds = cmdline
            .split(|b| *b == 0)
            .any(|arg| arg == marker.as_bytes());
        if holds {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

/// Waits (with a deadline) until no process carries `marker`: a process
/// killed with SIGKILL is gone an instant after the signal, not at once.
pub fn assert_no_process_with(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !processes_with(marker).is_empty() {
        assert!(
            Instant::now() < deadline,
            "left behind: {:?}",
            processes_with(marker)
        );
        std::thread::yield_now();
    }
}

/// Compares `actual` with the golden file `tests/golden/<name>`, after
/// redacting what changes from run to run: timings become `[ELAPSED]`,
/// temporary directories `[TMP]`, process ids `[PID]`.
///
/// With `MCP_REPLAY_BLESS=1` the golden file is rewritten instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let actual = redact(actual);
    match std::env::var("MCP_REPLAY_BLESS").as_deref() {
        Ok("1") => {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &actual).unwrap();
            return;
        }
        Ok("" | "0") | Err(_) => {}
        Ok(other) => panic!("MCP_REPLAY_BLESS={other:?}: set it to 1 to rewrite golden files"),
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .header(&path.display().to_string(), "actual")
            .to_string();
        panic!(
            "{} differs from the output:\n{diff}\nhint: accept the new output with `MCP_REPLAY_BLESS=1 cargo test`",
            path.display()
        );
    }
}

fn redact(text: &str) -> String {
    let tmp = regex::escape(&std::env::temp_dir().display().to_string());
    let rules = [
        (r"\d+\.\d{3}s\b".to_owned(), "[ELAPSED]"),
        (
            r#""elapsed_ms":\d+"#.to_owned(),
            r#""elapsed_ms":"[ELAPSED]""#,
        ),
        (r#"time="\d+\.\d{3}""#.to_owned(), r#"time="[ELAPSED]""#),
        (format!(r"{tmp}/\.tmp[A-Za-z0-9]+"), "[TMP]"),
        (r"\bpid \d+".to_owned(), "pid [PID]"),
    ];
    let mut text = text.to_owned();
    for (pattern, replacement) in rules {
        let regex = regex::Regex::new(&pattern).expect("a valid redaction");
        text = regex.replace_all(&text, replacement).into_owned();
    }
    text
}

/// REQ-C-032: a server that stays idle past the default timeout after
/// serving begins is not terminated by the framework. Starts `cmd` (a
/// protocol command), leaves it idle longer than any timeout the CLI has
/// (check's step deadline), then closes its stdin: it must still have been
/// there, and exit 0.
pub fn assert_idle_server_stays(mut cmd: Command) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let stdin = child.stdin.take();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let idle = mcp_replay::check::DEFAULT_TIMEOUT + Duration::from_secs(1);
    assert!(
        matches!(rx.recv_timeout(idle), Err(RecvTimeoutError::Timeout)),
        "the idle server {pid} exited"
    );
    drop(stdin);
    let status = rx
        .recv_timeout(STEP)
        .expect("it exits at end of input")
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// REQ-C-032: a protocol command does not accept --idempotency-key,
/// --dry-run, --output, or --confirm-destructive. `args` start the command
/// (`["serve"]`); each flag after them exits 2 with stdout empty, and
/// `flags` (the command's manifest entry's) declares none of them.
pub fn assert_refuses_single_result_flags(args: &[&std::ffi::OsStr], flags: &Value) {
    for (flag, name) in [
        ("--idempotency-key=k", "idempotency-key"),
        ("--dry-run", "dry-run"),
        ("--output=x", "output"),
        ("--confirm-destructive", "confirm-destructive"),
    ] {
        let out = Command::new(bin())
            .args(args)
            .arg(flag)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(out.stdout.is_empty(), "{flag}");
        assert!(flags.get(name).is_none(), "{name}");
    }
}
