//! The capture guard on its own (MCP-CORE r1 §4): fd 2 is process-global,
//! so these tests live in a binary of their own and take turns through one
//! lock. Tests that must watch the real stderr run this binary again as a
//! child process and read the child's stderr.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError, mpsc};
use std::thread;

use mcp_replay::ServeError;
use mcp_replay::transcript::ReplayTransport;
use mcp_replay::{Capture, Server, Tool, ToolDescriptor, ToolOutput, ToolSet};
use serde_json::{Value, json};

/// Set when this binary runs as the child of one of its own tests.
const CHILD: &str = "MCP_REPLAY_CAPTURE_TEST_CHILD";

static FD2: Mutex<()> = Mutex::new(());

/// Takes the turn on fd 2.
fn fd2_turn() -> MutexGuard<'static, ()> {
    FD2.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What fd 2 points at: device and inode.
fn fd2_identity() -> (u64, u64) {
    identity(io::stderr().as_fd())
}

/// What a descriptor points at: device and inode.
fn identity(fd: std::os::fd::BorrowedFd<'_>) -> (u64, u64) {
    let metadata = File::from(fd.try_clone_to_owned().unwrap())
        .metadata()
        .unwrap();
    (metadata.dev(), metadata.ino())
}

/// Writes straight to fd 2. (`eprintln!` would go to the test harness's
/// own capture instead.)
fn say(bytes: &[u8]) {
    io::stderr().write_all(bytes).unwrap();
}

/// The descriptor of a test tool that takes any object.
fn descriptor(name: &str, description: &str) -> ToolDescriptor {
    ToolDescriptor::new(name, description, json!({"type": "object"}))
}

fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.args(["-c", script]).stdin(Stdio::null());
    command
}

/// Runs the test `name` of this binary in a child process, in its child
/// role, and returns its output.
fn in_child(name: &str) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// MCP-CORE r1 §4¶21, §4¶22 and §4¶23: the capture is a process-level redirect, so
/// it catches a child process's stderr along with the process's own, which
/// no in-process writer could.
#[test]
fn a_child_writing_to_stderr_is_captured() {
    let _turn = fd2_turn();
    let mut capture = Capture::new().unwrap();
    let (status, captured) = capture
        .run(|| {
            say(b"parent before\n");
            let status = sh("echo 'child line' >&2").status();
            say(b"parent after\n");
            status
        })
        .unwrap();
    assert!(status.unwrap().success());
    assert_eq!(
        String::from_utf8(captured).unwrap(),
        "parent before\nchild line\nparent after\n"
    );
    // The next run starts empty.
    let ((), captured) = capture.run(|| ()).unwrap();
    assert!(captured.is_empty());
}

/// MCP-CORE r1 §4¶22: the capture is a file, not a pipe, so a child that
/// writes far more than a pipe holds runs to its end.
#[test]
fn a_chatty_child_cannot_deadlock_the_capture() {
    let _turn = fd2_turn();
    let mut capture = Capture::new().unwrap();
    let (status, captured) = capture
        .run(|| sh("head -c 4194304 /dev/zero >&2").status())
        .unwrap();
    assert!(status.unwrap().success());
    assert_eq!(captured.len(), 4 * 1024 * 1024);
    assert!(captured.iter().all(|&b| b == 0));
}

/// MCP-CORE r1 §4¶25: a run that panics unwinds through the guard, which
/// puts fd 2 back; the process is not left mute and the next capture holds
/// only its own bytes.
#[test]
fn a_panicking_run_leaves_stderr_restored() {
    let _turn = fd2_turn();
    let before = fd2_identity();
    let mut capture = Capture::new().unwrap();
    let unwound = panic::catch_unwind(AssertUnwindSafe(|| {
        capture.run(|| {
            assert_ne!(fd2_identity(), before, "fd 2 is redirected inside the run");
            panic!("the tool broke");
        })
    }));
    assert!(unwound.is_err());
    assert_eq!(fd2_identity(), before);
    let ((), captured) = capture.run(|| say(b"next run\n")).unwrap();
    assert_eq!(captured, b"next run\n");
}

/// MCP-CORE r1 §4¶25: what a panicking run said, the panic message
/// included, reaches the real stderr.
#[test]
fn what_a_panicking_run_said_reaches_stderr() {
    if is_child() {
        let mut capture = Capture::new().unwrap();
        let _ = panic::catch_unwind(AssertUnwindSafe(|| {
            capture.run(|| {
                say(b"said before the panic\n");
                panic!("the tool broke");
            })
        }));
        say(b"still audible\n");
        // The next run holds only its own bytes, none of the panicked run's.
        let ((), captured) = capture.run(|| say(b"next run\n")).unwrap();
        writeln!(
            io::stdout(),
            "NEXT {:?}",
            String::from_utf8_lossy(&captured)
        )
        .unwrap();
        return;
    }
    let output = in_child("what_a_panicking_run_said_reaches_stderr");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let said = stderr.find("said before the panic").expect(&stderr);
    let panic = stderr.find("the tool broke").expect(&stderr);
    let after = stderr.find("still audible").expect(&stderr);
    assert!(said < panic && panic < after, "{stderr}");
    assert_eq!(
        stderr.matches("said before the panic").count(),
        1,
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(r#"NEXT "next run\n""#), "{stdout}");
}

/// MCP-CORE r1 §4¶24: captures never nest: a second capture inside a live
/// one is refused with an error citing the paragraph, and its closure does
/// not run.
#[test]
fn a_nested_capture_is_refused() {
    let _turn = fd2_turn();
    let mut outer = Capture::new().unwrap();
    let mut inner = Capture::new().unwrap();
    let mut inner_ran = false;
    let (refusal, captured) = outer
        .run(|| {
            say(b"outer\n");
            inner.run(|| inner_ran = true)
        })
        .unwrap();
    let err = refusal.unwrap_err();
    assert!(matches!(err, ServeError::CaptureBusy), "{err:?}");
    assert!(err.to_string().contains("MCP-CORE r1 §4¶24"), "{err}");
    assert!(!inner_ran);
    assert_eq!(captured, b"outer\n");
    // Once the outer run is over, the other capture works.
    let ((), captured) = inner.run(|| say(b"inner\n")).unwrap();
    assert_eq!(captured, b"inner\n");
}

/// MCP-CORE r1 §4¶24: captures never run concurrently: while one thread's
/// capture is live, another thread's is refused.
#[test]
fn a_concurrent_capture_is_refused() {
    let _turn = fd2_turn();
    let (started_tx, started_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let holder = thread::spawn(move || {
        let mut capture = Capture::new().unwrap();
        capture
            .run(|| {
                started_tx.send(()).unwrap();
                done_rx.recv().unwrap();
            })
            .unwrap();
    });
    started_rx.recv().unwrap();
    let mut other = Capture::new().unwrap();
    let refused = other.run(|| ());
    done_tx.send(()).unwrap();
    holder.join().unwrap();
    assert!(
        matches!(refused, Err(ServeError::CaptureBusy)),
        "{refused:?}"
    );
    assert!(other.run(|| ()).is_ok());
}

/// A tool that speaks on stderr itself and through a child.
struct Chatty {
    keep: bool,
}

impl Tool for Chatty {
    fn descriptor(&self) -> ToolDescriptor {
        let name = if self.keep { "keeps" } else { "passes-on" };
        descriptor(name, "writes to stderr")
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        say(b"tool line\n");
        let status = sh("echo 'child line' >&2").status();
        let output = match status {
            Ok(status) if status.success() => ToolOutput::ok("ran"),
            _ => ToolOutput::error("the child failed"),
        };
        if self.keep {
            output.with_capture()
        } else {
            output
        }
    }
}

/// A tool that runs a function.
struct Func {
    name: &'static str,
    run: fn() -> ToolOutput,
}

impl Tool for Func {
    fn descriptor(&self) -> ToolDescriptor {
        descriptor(self.name, "runs a function")
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        (self.run)()
    }
}

/// A tool that panics.
const PANICS: Func = Func {
    name: "panics",
    run: || panic!("the tool broke"),
};

fn chatty_server() -> Server {
    let tools = ToolSet::new()
        .with(Chatty { keep: true })
        .with(Chatty { keep: false })
        .with(PANICS);
    Server::new("capture-test", "1", tools).with_capture()
}

fn call(id: u32, name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}})
        .to_string()
}

fn reports(transport: &ReplayTransport) -> Vec<(String, bool)> {
    transport
        .written()
        .iter()
        .map(|line| {
            let answer: Value = serde_json::from_slice(line).unwrap();
            let result = &answer["result"];
            (
                result["content"][0]["text"].as_str().unwrap().to_owned(),
                result["isError"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// A tool that answers what fd 2 points at while it runs.
const SEES_FD2: Func = Func {
    name: "fd2",
    run: || ToolOutput::ok(format!("{:?}", fd2_identity())),
};

/// MCP-CORE r1 §4¶24: a loop serving a transport of its own leaves fd 2
/// alone unless it is asked to capture, so a test that serves through the
/// replay double needs no opt-out; `serve_stdio` captures by default.
#[test]
fn serve_captures_only_when_asked() {
    let _turn = fd2_turn();
    let before = format!("{:?}", fd2_identity());
    let seen = |server: Server| {
        let mut transport = ReplayTransport::from_lines([call(1, "fd2")]);
        server.serve(&mut transport).unwrap();
        reports(&transport).remove(0).0
    };
    let tools = || ToolSet::new().with(SEES_FD2);
    assert_eq!(seen(Server::new("plain", "1", tools())), before);
    assert_ne!(
        seen(Server::new("captures", "1", tools()).with_capture()),
        before
    );
    assert_eq!(format!("{:?}", fd2_identity()), before);
}

/// MCP-CORE r1 §4¶22: the serve loop runs each tool inside the capture; a
/// tool that asks for it gets what it and its child said appended to its
/// report.
#[test]
fn the_loop_appends_the_capture_to_a_report_that_asks() {
    let _turn = fd2_turn();
    let before = fd2_identity();
    let mut transport = ReplayTransport::from_lines([call(1, "keeps")]);
    chatty_server().serve(&mut transport).unwrap();
    assert_eq!(
        reports(&transport),
        [("ran\ntool line\nchild line\n".to_owned(), false)]
    );
    assert_eq!(fd2_identity(), before);
}

/// MCP-CORE r1 §4¶22 and §4¶25: what a run said is not lost: unless the
/// report takes it, it goes on to the real stderr, once; a tool that panics
/// is a failed run, and the loop and stderr go on.
#[test]
fn the_loop_passes_a_capture_on_to_stderr() {
    if is_child() {
        let mut transport = ReplayTransport::from_lines([
            call(1, "passes-on"),
            call(2, "keeps"),
            call(3, "panics"),
            call(4, "passes-on"),
        ]);
        chatty_server().serve(&mut transport).unwrap();
        let mut stdout = io::stdout();
        for (report, is_error) in reports(&transport) {
            writeln!(stdout, "REPORT {is_error} {report:?}").unwrap();
        }
        return;
    }
    let output = in_child("the_loop_passes_a_capture_on_to_stderr");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let reports: Vec<&str> = stdout
        .lines()
        // The harness's `test … ... ` may share the first line.
        .filter_map(|line| line.split_once("REPORT ").map(|(_, report)| report))
        .collect();
    assert_eq!(
        reports,
        [
            r#"false "ran""#,
            r#"false "ran\ntool line\nchild line\n""#,
            r#"true "the tool `panics` panicked: the tool broke""#,
            r#"false "ran""#,
        ]
    );
    // Two runs passed their lines on; the one that kept them did not.
    assert_eq!(stderr.matches("tool line").count(), 2, "{stderr}");
    assert_eq!(stderr.matches("child line").count(), 2, "{stderr}");
    assert!(stderr.contains("panicked"), "{stderr}");
}

/// MCP-CORE r1 §4¶26: the capture room is the crate's one home of
/// descriptor redirection and of unsafe code; nothing else in `src/`
/// touches fds 0-2 or std handles.
#[test]
fn only_the_capture_room_touches_descriptors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let forbidden = [
        "dup2",
        "rustix::stdio",
        "from_raw_fd",
        "unsafe {",
        "unsafe fn",
        "unsafe impl",
        "unsafe extern",
        "allow(unsafe_code)",
        "SetStdHandle",
    ];
    let mut offenders = Vec::new();
    let mut files = 0;
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") || path.ends_with("server/capture.rs")
            {
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for word in forbidden {
                if text.contains(word) {
                    offenders.push(format!("{}: {word}", path.display()));
                }
            }
        }
    }
    assert!(
        files > 5,
        "scanned only {files} files under {}",
        root.display()
    );
    assert!(offenders.is_empty(), "{offenders:#?}");
    let capture = std::fs::read_to_string(root.join("server/capture.rs")).unwrap();
    assert!(capture.contains("rustix::stdio::dup2_stderr"));
}

/// A child that outlives its run keeps writing to the capture file it
/// inherited while later runs read it: every line it wrote is caught
/// exactly once, in order, however its writes and the runs interleave.
#[test]
fn a_child_that_outlives_its_run_loses_nothing() {
    let _turn = fd2_turn();
    let n = 20_000;
    let mut capture = Capture::new().unwrap();
    let script = format!("i=0; while [ $i -lt {n} ]; do echo \"line $i\" >&2; i=$((i+1)); done");
    let (child, mut caught) = capture.run(|| sh(&script).spawn().unwrap()).unwrap();
    let mut child = child;
    let mut runs = 1;
    // Empty runs, back to back, for as long as the child writes: each one
    // reads what the child wrote meanwhile.
    while child.try_wait().unwrap().is_none() {
        let ((), more) = capture.run(|| ()).unwrap();
        caught.extend_from_slice(&more);
        runs += 1;
    }
    let ((), more) = capture.run(|| ()).unwrap();
    caught.extend_from_slice(&more);
    let text = String::from_utf8(caught).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let expected: Vec<String> = (0..n).map(|i| format!("line {i}")).collect();
    assert_eq!(lines.len(), n, "after {runs} runs");
    assert!(
        lines.iter().zip(&expected).all(|(a, b)| a == b),
        "after {runs} runs"
    );
}

/// A tool that runs a shell script as a child process, after writing a
/// line of its own when asked, and keeps what the capture caught in its
/// report.
struct Script {
    name: &'static str,
    says: Option<&'static str>,
    script: String,
}

impl Tool for Script {
    fn descriptor(&self) -> ToolDescriptor {
        descriptor(self.name, "runs a script")
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        if let Some(line) = self.says {
            say(line.as_bytes());
        }
        match sh(&self.script).status() {
            Ok(status) if status.success() => ToolOutput::ok("ran").with_capture(),
            other => ToolOutput::error(format!("the script failed: {other:?}")),
        }
    }
}

/// A child that reopens its stderr by path (`>/dev/stderr`) truncates the
/// capture file, as it would any file stderr points at: what it writes is
/// still caught, and the loop goes on serving, whatever the file's length
/// says about earlier runs.
#[test]
fn a_child_that_reopens_stderr_is_caught_and_the_loop_goes_on() {
    let _turn = fd2_turn();
    let reopens = |name, says| Script {
        name,
        says,
        script: "echo reopened >/dev/stderr".to_owned(),
    };
    let tools = ToolSet::new()
        .with(reopens("reopens", None))
        .with(reopens("says-then-reopens", Some("said first\n")))
        .with(Chatty { keep: true });
    let server = Server::new("capture-test", "1", tools).with_capture();
    let mut transport = ReplayTransport::from_lines([
        call(1, "reopens"),
        call(2, "says-then-reopens"),
        call(3, "keeps"),
        call(4, "says-then-reopens"),
    ]);
    server.serve(&mut transport).unwrap();
    let reports = reports(&transport);
    assert_eq!(reports.len(), 4, "{reports:?}");
    assert_eq!(reports[0], ("ran\nreopened\n".to_owned(), false));
    assert_eq!(
        reports[2],
        ("ran\ntool line\nchild line\n".to_owned(), false)
    );
    // The child truncated away what its tool said before it; whatever the
    // file held afterwards is all a report can show.
    for (report, is_error) in [&reports[1], &reports[3]] {
        assert!(!is_error, "{report}");
        assert!(report.starts_with("ran"), "{report}");
        assert!(!report.contains("said first"), "{report}");
    }
}

/// A report takes at most the last mebibyte of what a run wrote, starting
/// at a line; the start goes on to the real stderr, and the report says how
/// much went there, so nothing is lost and the server does not hold a
/// flood in memory.
#[test]
fn a_flood_is_cut_from_the_report_and_passed_on() {
    let total = 3 << 20;
    if is_child() {
        let tools = ToolSet::new().with(Script {
            name: "floods",
            says: None,
            script: format!("yes 0123456789abcdef | head -c {total} >&2; echo the last line >&2"),
        });
        let mut transport = ReplayTransport::from_lines([call(1, "floods")]);
        Server::new("capture-test", "1", tools)
            .with_capture()
            .serve(&mut transport)
            .unwrap();
        let (report, is_error) = reports(&transport).remove(0);
        assert!(!is_error, "{report}");
        let mut stdout = io::stdout();
        writeln!(stdout, "LENGTH {}", report.len()).unwrap();
        for line in report.lines().take(2) {
            writeln!(stdout, "HEAD {line}").unwrap();
        }
        writeln!(stdout, "TAIL {:?}", &report[report.len() - 30..]).unwrap();
        return;
    }
    let output = in_child("a_flood_is_cut_from_the_report_and_passed_on");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let field = |prefix: &str| -> Vec<&str> {
        stdout
            .lines()
            .filter_map(|line| line.split_once(prefix).map(|(_, rest)| rest))
            .collect()
    };
    let length: usize = field("LENGTH ")[0].parse().unwrap();
    assert!(length <= (1 << 20) + 100, "a report of {length} bytes");
    let head = field("HEAD ");
    assert_eq!(head[0], "ran");
    let note = head[1];
    let passed_on: usize = note
        .strip_prefix("[the first ")
        .and_then(|rest| {
            rest.strip_suffix(" bytes of what the run wrote went to the server's stderr]")
        })
        .unwrap_or_else(|| panic!("no note: {note}"))
        .parse()
        .unwrap();
    // The cut falls on a line: the stderr part is whole lines of the flood,
    // and the report shows the rest of it.
    assert_eq!(passed_on % 17, 0, "{passed_on}");
    assert_eq!(output.stderr.len(), passed_on);
    assert!(
        output
            .stderr
            .starts_with(b"0123456789abcdef\n0123456789abcdef\n")
    );
    let shown = length - "ran\n".len() - note.len() - 1;
    assert_eq!(passed_on + shown, total + "the last line\n".len());
    // 3 MiB is not a whole number of lines: the last one is cut short.
    assert_eq!(field("TAIL ")[0], r#""f\n0123456789abcdthe last line\n""#);
}

/// Passing a capture on to stderr holds a small piece of it in memory at a
/// time: a run that leaves a quarter of a gibibyte in the capture file (a
/// sparse stretch, so it costs no disk) does not raise the server's peak
/// memory by as much.
#[test]
fn passing_a_huge_capture_on_holds_little_memory() {
    let sparse = Func {
        name: "sparse",
        run: || {
            let fd = io::stderr().as_fd().try_clone_to_owned().unwrap();
            let mut file = File::from(fd);
            let len = file.metadata().unwrap().len();
            file.set_len(len + (256 << 20)).unwrap();
            file.seek(SeekFrom::End(0)).unwrap();
            file.write_all(b"the end\n").unwrap();
            ToolOutput::ok("grew")
        },
    };

    if is_child() {
        let mut transport = ReplayTransport::from_lines([call(1, "sparse")]);
        Server::new("capture-test", "1", ToolSet::new().with(sparse))
            .with_capture()
            .serve(&mut transport)
            .unwrap();
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let peak = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .unwrap()
            .trim();
        writeln!(io::stdout(), "PEAK {peak}").unwrap();
        writeln!(io::stdout(), "REPORTS {:?}", reports(&transport)).unwrap();
        return;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "passing_a_huge_capture_on_holds_little_memory",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains(r#"REPORTS [("grew", false)]"#), "{stdout}");
    let peak_kib: u64 = stdout
        .lines()
        .find_map(|line| line.split_once("PEAK ").map(|(_, rest)| rest))
        .and_then(|peak| peak.trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(peak_kib < 64 * 1024, "peak RSS {peak_kib} KiB");
}

/// Runs the test `name` of this binary as a child process serving stdio,
/// with `input` on its stdin.
fn serving_child(name: &str, input: &str) -> Output {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// MCP-CORE r1 §4¶22: `serve_stdio` captures tool runs by default, with no
/// opt-in: the run's stderr, and its child's, reach the report that asks.
#[test]
fn serve_stdio_captures_by_default() {
    if is_child() {
        let tools = ToolSet::new().with(Chatty { keep: true });
        Server::new("capture-test", "1", tools)
            .serve_stdio()
            .unwrap();
        return;
    }
    let output = serving_child(
        "serve_stdio_captures_by_default",
        &format!("{}\n", call(1, "keeps")),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let answer = stdout
        .lines()
        .filter_map(|line| line.find('{').map(|at| &line[at..]))
        .find_map(|line| serde_json::from_str::<Value>(line).ok())
        .unwrap_or_else(|| panic!("no answer: {stdout}"));
    assert_eq!(
        answer["result"]["content"][0]["text"], "ran\ntool line\nchild line\n",
        "{stdout}"
    );
}

/// A partial line that a program left in std's stdout buffer before it
/// began to serve goes to stderr, never ahead of the first answer on the
/// protocol channel (law `quiet-before-serving`).
#[test]
fn a_partial_line_printed_before_serving_goes_to_stderr() {
    if is_child() {
        // The test harness has its own partial line out already; this one
        // stays in std's buffer, as a `print!` without a newline does.
        write!(io::stdout(), "BANNER").unwrap();
        chatty_server().serve_stdio().unwrap();
        return;
    }
    let output = serving_child(
        "a_partial_line_printed_before_serving_goes_to_stderr",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    assert!(
        stdout.lines().any(|line| line.ends_with(answer)),
        "{stdout}"
    );
    assert!(!stdout.contains("BANNER"), "{stdout}");
    assert!(stderr.contains("BANNER"), "{stderr}");
}

/// MCP-CORE r1 §4¶25: a tool that points fd 2 somewhere else itself (as a
/// library that silences stderr would) cannot leave the process mute: the
/// guard puts back the stderr it saved, and the next run is caught as
/// usual.
#[test]
fn a_tool_that_moves_fd_2_leaves_stderr_restored() {
    let silences = Func {
        name: "silences",
        run: || {
            let null = File::options().write(true).open("/dev/null").unwrap();
            rustix::stdio::dup2_stderr(&null).unwrap();
            say(b"into the void\n");
            ToolOutput::ok("silenced")
        },
    };
    let _turn = fd2_turn();
    let before = fd2_identity();
    let tools = ToolSet::new().with(silences).with(Chatty { keep: true });
    let mut transport = ReplayTransport::from_lines([call(1, "silences"), call(2, "keeps")]);
    Server::new("capture-test", "1", tools)
        .with_capture()
        .serve(&mut transport)
        .unwrap();
    assert_eq!(fd2_identity(), before);
    assert_eq!(
        reports(&transport),
        [
            ("silenced".to_owned(), false),
            ("ran\ntool line\nchild line\n".to_owned(), false)
        ]
    );
}

/// While a server serves stdio, fd 0 is `/dev/null` and fd 1 points away
/// from the protocol channel; when `serve_stdio` returns, both are back,
/// stdout reaches the host again, and stdio can be claimed anew.
#[test]
fn serving_stdio_puts_fds_0_and_1_back() {
    if is_child() {
        let stdin = identity(io::stdin().as_fd());
        let stdout = identity(io::stdout().as_fd());
        let null = identity(File::open("/dev/null").unwrap().as_fd());
        let watch = Func {
            name: "watch",
            run: || {
                let (stdin, stdout) = (
                    identity(io::stdin().as_fd()),
                    identity(io::stdout().as_fd()),
                );
                ToolOutput::ok(format!("{stdin:?} {stdout:?}"))
            },
        };
        Server::new("capture-test", "1", ToolSet::new().with(watch))
            .serve_stdio()
            .unwrap();
        assert_eq!(identity(io::stdin().as_fd()), stdin);
        assert_eq!(identity(io::stdout().as_fd()), stdout);
        // Stdin is at its end: a second session claims stdio and ends.
        chatty_server().serve_stdio().unwrap();
        writeln!(io::stdout(), "\nAFTER {stdout:?} {null:?}").unwrap();
        return;
    }
    let output = serving_child(
        "serving_stdio_puts_fds_0_and_1_back",
        &format!("{}\n", call(1, "watch")),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let answer: Value = stdout
        .lines()
        .find_map(|line| line.find("{\"jsonrpc\"").map(|at| &line[at..]))
        .map(|line| serde_json::from_str(line).unwrap())
        .unwrap_or_else(|| panic!("no answer: {stdout}"));
    let seen = answer["result"]["content"][0]["text"].as_str().unwrap();
    let after = stdout
        .lines()
        .find_map(|line| line.strip_prefix("AFTER "))
        .unwrap_or_else(|| panic!("nothing after serving: {stdout}"));
    // `after` is "<real stdout> <dev/null>"; during the run fd 0 was
    // /dev/null and fd 1 was not the real stdout.
    let (real_stdout, null) = after.split_at(after.find(") (").unwrap() + 1);
    let (seen_stdin, seen_stdout) = seen.split_at(seen.find(") (").unwrap() + 1);
    assert_eq!(seen_stdin, null.trim(), "{seen}");
    assert_ne!(seen_stdout.trim(), real_stdout, "{seen}");
}
