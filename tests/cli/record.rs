//! `mcp-replay record`: a host of our own drives the recorder in front of a
//! fixture server, and the tests compare what both sides saw with what the
//! transcript says.
//
// See: #3

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use assert_cmd::cargo::cargo_bin_cmd;
use mcp_replay::transcript::{Direction, EventKind, Exit, Payload, Transcript};
use rustix::process::Signal;

use crate::util::{ECHO, Host, STEP, argv, assert_gone, python, sh, shell_status};

/// Runs `mcp-replay record -o <dir>/t.jsonl <args> -- <server>` with `input`
/// on stdin and returns (status, stdout, stderr, transcript path).
fn record_with_input(
    dir: &Path,
    args: &[&str],
    server: &[String],
    input: &[u8],
) -> (i32, Vec<u8>, String, PathBuf) {
    let path = dir.join("t.jsonl");
    let output = cargo_bin_cmd!("mcp-replay")
        .arg("record")
        .arg("-o")
        .arg(&path)
        .args(args)
        .arg("--")
        .args(server)
        .current_dir(dir)
        .write_stdin(input.to_vec())
        .timeout(STEP)
        .output()
        .unwrap();
    (
        shell_status(output.status),
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
        path,
    )
}

/// The payload bytes of one stream of a transcript.
fn stream(transcript: &Transcript, dir: Direction) -> Vec<Vec<u8>> {
    transcript
        .lines(dir)
        .map(|(_, payload)| payload.as_bytes().to_vec())
        .collect()
}

/// An input with every kind of line a host or server can produce: JSON,
/// a banner, CRLF, bytes that are not UTF-8, an empty line, and a last line
/// without a newline.
const AWKWARD_INPUT: &[u8] =
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nServer ready\ncrlf\r\n\xff\xfe\x00raw\n\n{ \"spaced\" : true }\nno newline";

#[test]
fn forwarding_is_byte_exact() {
    let dir = tempfile::tempdir().unwrap();
    let server = python(ECHO, &["5"]);
    let direct = Command::new(&server[0])
        .args(&server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(AWKWARD_INPUT)?;
            child.wait_with_output()
        })
        .unwrap();

    let (status, stdout, stderr, path) = record_with_input(dir.path(), &[], &server, AWKWARD_INPUT);

    assert_eq!(stdout, direct.stdout, "stdout differs from a direct run");
    assert_eq!(status, shell_status(direct.status));
    assert_eq!(status, 5);
    assert_eq!(stderr.as_bytes(), direct.stderr, "stderr is passed through");

    let transcript = Transcript::read(&path).unwrap();
    assert!(transcript.warnings.is_empty());
    let lines: Vec<&[u8]> = AWKWARD_INPUT.split(|&b| b == b'\n').collect();
    assert_eq!(stream(&transcript, Direction::ClientToServer), lines);
    let mut echoed = lines.clone();
    *echoed.last_mut().unwrap() = b"no newlinebye";
    assert_eq!(stream(&transcript, Direction::ServerToClient), echoed);
    assert_eq!(
        stream(&transcript, Direction::Stderr),
        vec![b"eof".to_vec()]
    );
    let last_c2s = transcript
        .lines(Direction::ClientToServer)
        .last()
        .unwrap()
        .0;
    assert!(matches!(last_c2s.kind, EventKind::Line { eol: false, .. }));
    assert_eq!(transcript.exit(), Some(Exit::Code(5)));
}

#[test]
fn non_utf8_bytes_are_kept_losslessly() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, _, path) =
        record_with_input(dir.path(), &[], &python(ECHO, &[]), b"\xc3\x28\xff ok\n");
    assert_eq!(status, 0);
    assert_eq!(stdout, b"\xc3\x28\xff ok\nbye");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""dir":"c2s","bytes":"wyj/IG9r""#), "{text}");
    let transcript = Transcript::read(&path).unwrap();
    let (_, payload) = transcript.lines(Direction::ServerToClient).next().unwrap();
    assert_eq!(payload, &Payload::Bytes(b"\xc3\x28\xff ok".to_vec()));
}

#[test]
fn sixteen_megabyte_lines_pass_whole() {
    let dir = tempfile::tempdir().unwrap();
    let data = "x".repeat(16 << 20);
    let line =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"echo","params":{{"data":"{data}"}}}}"#);
    let mut input = line.clone().into_bytes();
    input.push(b'\n');
    let (status, stdout, _, path) = record_with_input(dir.path(), &[], &python(ECHO, &[]), &input);
    assert_eq!(status, 0);
    assert_eq!(stdout.len(), input.len() + 3);
    assert!(
        stdout == [&input[..], b"bye"].concat(),
        "the line changed on its way"
    );
    let transcript = Transcript::read(&path).unwrap();
    for dir in [Direction::ClientToServer, Direction::ServerToClient] {
        let (_, payload) = transcript.lines(dir).next().unwrap();
        assert!(matches!(payload, Payload::Json(_)));
        assert!(payload.as_bytes() == line.as_bytes());
    }
}

#[test]
fn exit_code_passes_through() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, _, path) = record_with_input(dir.path(), &[], &sh("exit 7"), b"");
    assert_eq!(status, 7);
    assert!(stdout.is_empty());
    assert_eq!(Transcript::read(&path).unwrap().exit(), Some(Exit::Code(7)));
}

#[test]
fn death_by_signal_ends_the_recorder_by_the_same_signal() {
    use std::os::unix::process::ExitStatusExt;
    for (signal, name) in [
        (9, "KILL"),
        (15, "TERM"),
        (2, "INT"),
        (3, "QUIT"),
        (6, "ABRT"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        // Core files are allowed for the recorder, so that one it left
        // behind would show; the server makes none of its own.
        let output = assert_cmd::Command::new("sh")
            .args(["-c", "ulimit -c unlimited 2>/dev/null; exec \"$0\" \"$@\""])
            .arg(crate::util::bin())
            .arg("record")
            .arg("-o")
            .arg(&path)
            .args(["--", "sh", "-c", &format!("ulimit -c 0; kill -{name} $$")])
            .current_dir(dir.path())
            .timeout(STEP)
            .output()
            .unwrap();
        // A host sees what it would see without the recorder: a child that
        // was killed by the signal, which a shell reports as 128 + N.
        assert_eq!(
            output.status.signal(),
            Some(signal),
            "server killed by SIG{name}"
        );
        assert_eq!(shell_status(output.status), 128 + signal);
        assert!(!output.status.core_dumped(), "SIG{name} left a core dump");
        assert!(output.stdout.is_empty());
        assert_eq!(
            Transcript::read(&path).unwrap().exit(),
            Some(Exit::Signal(signal))
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "a core file was left"
        );
    }
}

/// Says `ready` once its handlers are in place; on a signal writes
/// `signal N` and exits 0, so the recorder's status shows the server's own
/// ending.
const SIGNALLED: &str = r#"
import signal, sys
def on_signal(number, frame):
    sys.stdout.write("signal %d\n" % number)
    sys.stdout.flush()
    sys.exit(0)
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
    signal.signal(s, on_signal)
print("ready", flush=True)
for line in sys.stdin:
    pass
sys.exit(3)
"#;

#[test]
fn terminating_signals_are_forwarded() {
    for (signal, number) in [
        (Signal::TERM, 15),
        (Signal::INT, 2),
        (Signal::HUP, 1),
        (Signal::QUIT, 3),
        (Signal::USR1, 10),
        (Signal::USR2, 12),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut host = Host::record(dir.path(), &["-o", "t.jsonl"], &python(SIGNALLED, &[]), &[]);
        assert_eq!(host.line(), b"ready\n");
        host.signal(signal);
        assert_eq!(host.line(), format!("signal {number}\n").into_bytes());
        // The recorder kept going until the server ended, and took its status.
        assert_eq!(shell_status(host.wait()), 0, "{}", host.stderr());
        let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
        assert_eq!(
            stream(&transcript, Direction::ServerToClient),
            vec![b"ready".to_vec(), format!("signal {number}").into_bytes()]
        );
        assert_eq!(transcript.exit(), Some(Exit::Code(0)));
        // The signal is an event, before what the server did about it.
        // See: #27
        assert_eq!(
            endings(&transcript),
            ["s2c", &format!("signal {number}"), "s2c", "exit"]
        );
    }
}

/// The events of a transcript that say how the session went, in order:
/// `c2s`/`s2c` for lines, `eof`, `signal N`, `exit`.
fn endings(transcript: &Transcript) -> Vec<String> {
    transcript
        .events
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::Line { dir, .. } if *dir != Direction::Stderr => {
                Some(dir.as_str().to_owned())
            }
            EventKind::EndOfInput => Some("eof".to_owned()),
            EventKind::Signal(signal) => Some(format!("signal {signal}")),
            EventKind::Exit(_) => Some("exit".to_owned()),
            _ => None,
        })
        .collect()
}

/// The host's end of input is recorded when it happens, with the line it
/// left open before it; then the server's exit.
// See: #27
#[test]
fn the_hosts_end_of_input_is_recorded_before_the_exit() {
    let dir = tempfile::tempdir().unwrap();
    let (status, _, _, path) = record_with_input(dir.path(), &[], &python(ECHO, &[]), b"one\ntwo");
    assert_eq!(status, 0);
    let transcript = Transcript::read(&path).unwrap();
    // The server's lines interleave as the pipes carried them; the host's
    // come first, then its end of input, and the exit last.
    let host: Vec<String> = endings(&transcript)
        .into_iter()
        .filter(|kind| kind != "s2c")
        .collect();
    assert_eq!(host, ["c2s", "c2s", "eof", "exit"]);
    let at = |kind: &EventKind| {
        transcript
            .events
            .iter()
            .find(|event| &event.kind == kind)
            .unwrap()
            .t
    };
    assert!(at(&EventKind::EndOfInput) <= at(&EventKind::Exit(Exit::Code(0))));
}

/// A host that kills the recorder with SIGKILL, without closing its
/// input, leaves a transcript with neither `eof` nor `exit`: what the
/// recording lacks says how the session ended.
// See: #27
#[test]
fn a_recorder_killed_by_sigkill_records_no_end_of_input() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::record(dir.path(), &["-o", "t.jsonl"], &python(SIGNALLED, &[]), &[]);
    assert_eq!(host.line(), b"ready\n");
    host.signal(Signal::KILL);
    host.wait();
    let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
    assert!(transcript.records_host_ending());
    assert_eq!(endings(&transcript), ["s2c"]);
}

/// Says which of SIGHUP, SIGINT and SIGTERM it started with ignored, then
/// echoes its input.
const DISPOSITIONS: &str = r#"
import signal, sys
names = ("HUP", "INT", "TERM")
print(" ".join("%s:%s" % (n, "ign" if signal.getsignal(getattr(signal, "SIG" + n)) == signal.SIG_IGN else "dfl") for n in names), flush=True)
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
"#;

#[test]
fn signals_the_host_ignores_stay_ignored() {
    // A host that starts its server with signals ignored (`nohup`, a
    // background job of a script) gets a server that ignores them, and a
    // recorder that does too.
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "trap '' HUP INT; exec \"$0\" \"$@\""])
        .arg(crate::util::bin())
        .args(["record", "-o", "t.jsonl", "--"])
        .args(python(DISPOSITIONS, &[]))
        .current_dir(dir.path());
    let mut host = Host::spawn(cmd);
    assert_eq!(host.line(), b"HUP:ign INT:ign TERM:dfl\n");
    host.signal(Signal::INT);
    host.signal(Signal::HUP);
    host.send(b"still here\n");
    assert_eq!(host.line(), b"still here\n");
    host.close_stdin();
    assert_eq!(shell_status(host.wait()), 0, "{}", host.stderr());
}

/// Writes its pid, then numbered JSON lines as fast as it can until its
/// stdout breaks.
const FLOOD: &str = r#"
import os, sys
out = sys.stdout.buffer
out.write(b"%d\n" % os.getpid())
out.flush()
n = 0
try:
    while True:
        out.write(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d}}\n' % n)
        n += 1
        if n % 64 == 0:
            out.flush()
except BrokenPipeError:
    pass
"#;

#[test]
fn sigkill_of_the_recorder_loses_at_most_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::record(dir.path(), &["-o", "t.jsonl"], &python(FLOOD, &[]), &[]);
    let server_pid: i32 = String::from_utf8(host.line())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    for _ in 0..2000 {
        host.line();
    }
    host.signal(Signal::KILL);
    assert_eq!(shell_status(host.wait()), 137);
    let mut received = host.rest();
    // Everything the host received, counted from the start.
    let mut all = format!("{server_pid}\n").into_bytes();
    for n in 0..2000 {
        all.extend_from_slice(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"n\":{n}}}}}\n"
            )
            .as_bytes(),
        );
    }
    all.append(&mut received);
    let host_lines: Vec<&[u8]> = all
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();

    let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
    assert!(transcript.warnings.len() <= 1, "{:?}", transcript.warnings);
    let recorded = stream(&transcript, Direction::ServerToClient);
    // Every line the host got was recorded before it was forwarded: the
    // host's lines are a prefix of the recorded ones (the last forwarded
    // line may arrive cut short, as the kill can fall inside its write).
    let complete = host_lines.len() - usize::from(!all.ends_with(b"\n"));
    assert!(
        recorded.len() >= complete,
        "recorded {} lines, the host got {complete}",
        recorded.len()
    );
    for (index, line) in host_lines[..complete].iter().enumerate() {
        assert_eq!(recorded[index], *line, "line {index}");
    }
    // With the recorder gone the server's stdout breaks and it ends.
    assert_gone(server_pid);
}

#[test]
fn secrets_are_redacted_in_both_directions_but_forwarded_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "tok-0123456789";
    let input = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"auth\":\"Bearer {secret}\",\"key\":\"sk-abcdefgh\",\"path\":\"C:\\\\{secret}\"}}}}\nplain {secret} sk-zyxwvuts\n"
    );
    let script = format!("{ECHO}\n");
    let server = python(
        &script.replace(
            "sys.stdout.buffer.write(line)",
            "sys.stdout.buffer.write(line); sys.stderr.buffer.write(line)",
        ),
        &[],
    );
    let path = dir.path().join("t.jsonl");
    let output = cargo_bin_cmd!("mcp-replay")
        .args(["record", "--redact", "sk-[a-z]{8}", "-o"])
        .arg(&path)
        .arg("--")
        .args(&server)
        .env("MY_SERVICE_TOKEN", secret)
        .env("KEYBOARD_LAYOUT", "dvorak-programmer")
        .write_stdin(input.clone())
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, format!("{input}bye").into_bytes());

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(secret), "{text}");
    assert!(!text.contains("sk-abcdefgh") && !text.contains("sk-zyxwvuts"));
    let transcript = Transcript::read(&path).unwrap();
    assert_eq!(transcript.header.redact.env, ["MY_SERVICE_TOKEN"]);
    assert_eq!(transcript.header.redact.patterns, ["sk-[a-z]{8}"]);
    assert!(
        transcript
            .header
            .env
            .iter()
            .any(|n| n == "MY_SERVICE_TOKEN")
    );
    for dir in [
        Direction::ClientToServer,
        Direction::ServerToClient,
        Direction::Stderr,
    ] {
        let lines: Vec<_> = transcript.lines(dir).map(|(_, p)| p.clone()).collect();
        let Payload::Json(raw) = &lines[0] else {
            panic!(
                "{dir:?}: a redacted JSON line must stay JSON: {:?}",
                lines[0]
            );
        };
        let msg: serde_json::Value = serde_json::from_str(raw.get()).unwrap();
        assert_eq!(msg["params"]["auth"], "Bearer [REDACTED:MY_SERVICE_TOKEN]");
        assert_eq!(msg["params"]["key"], "[REDACTED:pattern-1]");
        assert_eq!(msg["params"]["path"], "C:\\[REDACTED:MY_SERVICE_TOKEN]");
        assert_eq!(
            lines[1].as_bytes(),
            b"plain [REDACTED:MY_SERVICE_TOKEN] [REDACTED:pattern-1]"
        );
    }
}

/// Answers every request with whether its first argument is `$MY_TOKEN`.
const CHECKS_ITS_ARGUMENT: &str = r#"
import json, os, sys
ok = sys.argv[1] == os.environ.get("MY_TOKEN")
for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"ok": ok}}), flush=True)
"#;

#[test]
fn secrets_in_the_server_command_are_redacted_and_restored_on_replay() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "tok-0123456789";
    let mut server = python(CHECKS_ITS_ARGUMENT, &[secret]);
    server.push("postgresql://me:pw@db/x".to_owned());
    let output = cargo_bin_cmd!("mcp-replay")
        .args([
            "record",
            "--redact",
            "postgresql://\\S+",
            "-o",
            "t.jsonl",
            "--",
        ])
        .args(&server)
        .current_dir(dir.path())
        .env("MY_TOKEN", secret)
        .write_stdin("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        output.stdout,
        b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"ok\": true}}\n"
    );
    let text = std::fs::read_to_string(dir.path().join("t.jsonl")).unwrap();
    assert!(!text.contains(secret) && !text.contains("me:pw"), "{text}");
    let header = Transcript::read(dir.path().join("t.jsonl")).unwrap().header;
    assert_eq!(
        header.command[3..],
        ["[REDACTED:MY_TOKEN]", "[REDACTED:pattern-1]"]
    );

    // The replay starts the server with the value back in its place, once
    // the run names the variable: the transcript's list fills nothing. (The
    // host here is a bare ping, which the host laws fail: waived.)
    let replay = |fill: &[&str]| {
        cargo_bin_cmd!("mcp-replay")
            .args(["check", "--no-probes", "--waive", "host-first-message"])
            .args(fill)
            .arg("t.jsonl")
            .current_dir(dir.path())
            .env("MY_TOKEN", secret)
            .env_remove("MCP_REPLAY_FILL_ENV")
            .timeout(STEP)
            .output()
            .unwrap()
    };
    let output = replay(&["--fill-env", "MY_TOKEN"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let output = replay(&[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("`[REDACTED:MY_TOKEN]` in the recorded command (line 1) was passed to the server as it stands"),
        "{stdout}"
    );
}

#[test]
fn a_value_too_short_to_redact_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let output = cargo_bin_cmd!("mcp-replay")
        .args([
            "record",
            "--redact-env",
            "PIN",
            "--redact-env",
            "LONG_ONE",
            "-o",
            "t.jsonl",
            "--",
        ])
        .args(python(ECHO, &[]))
        .current_dir(dir.path())
        .env("PIN", "4711")
        .env("LONG_ONE", "long-enough")
        .write_stdin("pin 4711 long-enough\n")
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "mcp-replay: note: PIN is not redacted: its value is shorter than 6 bytes\neof\n"
    );
    let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
    assert_eq!(transcript.header.redact.env, ["LONG_ONE"]);
    assert_eq!(
        stream(&transcript, Direction::ClientToServer),
        [b"pin 4711 [REDACTED:LONG_ONE]"]
    );
}

/// Writes 200 numbered lines of 100 bytes, then exits 0.
const CHATTY: &str = r#"
import sys
for n in range(200):
    sys.stdout.write("%03d %s\n" % (n, "x" * 95))
sys.stdout.flush()
"#;

/// What a recording whose transcript stopped taking writes must show: the
/// session whole on the host's side, the transcript's start readable, and
/// an exit that says it is incomplete (74, the server having exited 0).
fn assert_incomplete_but_the_session_whole(output: &std::process::Output, transcript: &Path) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(74), "{stderr}");
    let expected: String = (0..200)
        .map(|n| format!("{n:03} {}\n", "x".repeat(95)))
        .collect();
    assert!(
        output.stdout == expected.as_bytes(),
        "the session was cut short"
    );
    assert!(
        stderr.contains("mcp-replay: error: the transcript `")
            && stderr.contains("` is incomplete: writing it failed ("),
        "{stderr}"
    );
    let transcript = Transcript::read(transcript).unwrap();
    let recorded = stream(&transcript, Direction::ServerToClient);
    assert!(
        !recorded.is_empty() && recorded.len() < 200,
        "{}",
        recorded.len()
    );
    assert_eq!(transcript.exit(), None);
}

#[test]
fn a_transcript_that_stops_taking_writes_never_stops_the_session() {
    // A file size limit makes writes past it fail (as a quota does), and
    // would send SIGXFSZ to a recorder that let it.
    let dir = tempfile::tempdir().unwrap();
    let output = assert_cmd::Command::new("sh")
        .args(["-c", "ulimit -f 8 && exec \"$0\" \"$@\""])
        .arg(crate::util::bin())
        .args(["record", "-o", "t.jsonl", "--"])
        .args(python(CHATTY, &[]))
        .current_dir(dir.path())
        .timeout(STEP)
        .output()
        .unwrap();
    assert_incomplete_but_the_session_whole(&output, &dir.path().join("t.jsonl"));
}

/// A full disk exactly: the transcript's directory is a 16 KiB tmpfs, whose
/// writes fail with ENOSPC once it is full, mounted in a user and mount
/// namespace of the recorder's own. The recorder exits 74 and says the
/// transcript is incomplete; the host's session is whole. (Where the
/// machine allows no user namespace, the file size limit above stands in.)
#[test]
fn a_full_disk_makes_the_transcript_incomplete_and_the_exit_say_so() {
    let usable = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !usable {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    // The mount ends with the namespace: the transcript is copied out.
    let script = r#"mount -t tmpfs -o size=16k tmpfs "$1" || exit 99
"$2" record -o "$1/t.jsonl" -- "$3" -c "$4"
status=$?
df -k "$1" >&2
cp "$1/t.jsonl" "$5"
exit $status"#;
    let output = assert_cmd::Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(&full)
        .arg(crate::util::bin())
        .args(["python3", CHATTY])
        .arg(dir.path().join("t.jsonl"))
        .timeout(STEP)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert_incomplete_but_the_session_whole(&output, &dir.path().join("t.jsonl"));
}

#[test]
fn existing_transcript_is_refused_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, "keep").unwrap();
    let (status, stdout, stderr, _) = record_with_input(dir.path(), &[], &sh("touch started"), b"");
    assert_eq!(status, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("transcript") && stderr.contains("already exists"),
        "{stderr}"
    );
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep");
    assert!(
        !dir.path().join("started").exists(),
        "the server was started"
    );

    let (status, _, _, _) = record_with_input(dir.path(), &["--force"], &sh("touch started"), b"");
    assert_eq!(status, 0);
    assert!(dir.path().join("started").exists());
    assert_eq!(Transcript::read(&path).unwrap().exit(), Some(Exit::Code(0)));
    // The replaced file was removed, not left aside.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// `-o` naming a FIFO with `--force` is refused at once, before the
/// server starts, where the open used to wait for a reader; a symbolic
/// link that leads nowhere is replaced at once, where the recorder used to
/// spin on it past SIGTERM.
// See: #25
#[test]
fn force_neither_waits_on_a_fifo_nor_spins_on_a_dangling_link() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("t.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (status, stdout, stderr, _) =
        record_with_input(dir.path(), &["--force"], &sh("touch started"), b"");
    assert_eq!(status, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("cannot write transcript") && stderr.contains("(a FIFO)"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("started").exists(),
        "the server was started"
    );
    std::fs::remove_file(&fifo).unwrap();
    std::os::unix::fs::symlink(dir.path().join("gone/t.jsonl"), &fifo).unwrap();
    let (status, _, stderr, path) =
        record_with_input(dir.path(), &["--force"], &sh("touch started"), b"");
    assert_eq!(status, 0, "{stderr}");
    assert!(dir.path().join("started").exists());
    assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
    assert_eq!(Transcript::read(&path).unwrap().exit(), Some(Exit::Code(0)));
}

#[test]
fn force_never_replaces_a_transcript_still_being_recorded() {
    // Two sessions of one host configuration at once.
    let dir = tempfile::tempdir().unwrap();
    let args = ["-o", "t.jsonl", "--force"];
    let mut first = Host::record(dir.path(), &args, &python(ECHO, &[]), &[]);
    first.send(b"first\n");
    assert_eq!(first.line(), b"first\n");
    let mut second = Host::record(dir.path(), &args, &python(ECHO, &[]), &[]);
    second.send(b"second\n");
    assert_eq!(second.line(), b"second\n");
    for host in [&mut first, &mut second] {
        host.close_stdin();
        assert_eq!(shell_status(host.wait()), 0, "{}", host.stderr());
    }
    assert!(
        second.stderr().contains("recording to ") && second.stderr().contains("t-2.jsonl"),
        "{}",
        second.stderr()
    );
    for (name, line) in [("t.jsonl", "first"), ("t-2.jsonl", "second")] {
        let transcript = Transcript::read(dir.path().join(name)).unwrap();
        assert_eq!(
            stream(&transcript, Direction::ClientToServer),
            [line.as_bytes()]
        );
        assert_eq!(transcript.exit(), Some(Exit::Code(0)));
    }
}

/// However many `--force` recordings of one name run at once, each gets a
/// name of one series, numbered from the name given (`t.jsonl`,
/// `t-2.jsonl`, `t-3.jsonl`, …, never `t-2-2.jsonl`), says which, and
/// records its own session whole.
#[test]
fn concurrent_force_recorders_of_one_name_take_the_names_of_one_series() {
    const N: usize = 5;
    let dir = tempfile::tempdir().unwrap();
    let args = ["-o", "t.jsonl", "--force"];
    let mut hosts: Vec<Host> = (0..N)
        .map(|_| Host::record(dir.path(), &args, &python(ECHO, &[]), &[]))
        .collect();
    // All of them are recording before any ends.
    for (n, host) in hosts.iter_mut().enumerate() {
        host.send(format!("session {n}\n").as_bytes());
        assert_eq!(host.line(), format!("session {n}\n").as_bytes());
    }
    let mut names = Vec::new();
    for (n, host) in hosts.iter_mut().enumerate() {
        host.close_stdin();
        assert_eq!(shell_status(host.wait()), 0, "{}", host.stderr());
        let stderr = host.stderr();
        let name = match stderr.split("recording to ").nth(1) {
            Some(rest) => rest.lines().next().unwrap_or_default().to_owned(),
            None => "t.jsonl".to_owned(),
        };
        let transcript = Transcript::read(dir.path().join(&name)).unwrap();
        assert_eq!(
            stream(&transcript, Direction::ClientToServer),
            [format!("session {n}").as_bytes()],
            "{name}"
        );
        assert_eq!(transcript.exit(), Some(Exit::Code(0)), "{name}");
        names.push(name);
    }
    names.sort();
    let mut expected: Vec<String> = (2..=N).map(|n| format!("t-{n}.jsonl")).collect();
    expected.push("t.jsonl".to_owned());
    expected.sort();
    assert_eq!(names, expected);
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, expected, "nothing else is left behind");
}

#[test]
fn an_unwritable_transcript_is_an_error_before_the_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let output = cargo_bin_cmd!("mcp-replay")
        .args(["record", "-o", "no/such/dir/t.jsonl", "--force", "--"])
        .args(sh("touch started"))
        .current_dir(dir.path())
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("mcp-replay: error: cannot write transcript `no/such/dir/t.jsonl`"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("started").exists(),
        "the server was started"
    );
}

#[test]
fn missing_server_is_an_error_and_leaves_no_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, stderr, path) = record_with_input(
        dir.path(),
        &[],
        &argv(&["no-such-server-anywhere", "--flag"]),
        b"{}\n",
    );
    assert_eq!(status, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr
            .starts_with("mcp-replay: error: cannot start server `no-such-server-anywhere --flag`"),
        "{stderr}"
    );
    assert!(stderr.contains("hint:"), "{stderr}");
    assert!(!path.exists());
    // Nor a draft under another name.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn default_output_is_a_timestamped_file_under_transcripts() {
    let dir = tempfile::tempdir().unwrap();
    let output = cargo_bin_cmd!("mcp-replay")
        .args(["record", "--", "true"])
        .current_dir(dir.path())
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
    let files: Vec<String> = std::fs::read_dir(dir.path().join("transcripts"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.len(), 1);
    let name = &files[0];
    let stamp = name
        .strip_prefix("true-")
        .and_then(|rest| rest.strip_suffix(".jsonl"))
        .unwrap_or_else(|| panic!("unexpected name {name}"));
    assert!(
        stamp.len() == 16
            && stamp.as_bytes()[8] == b'T'
            && stamp.ends_with('Z')
            && stamp[..8].bytes().all(|b| b.is_ascii_digit()),
        "{name}"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!("mcp-replay: recording to transcripts/{name}\n")
    );
    let transcript = Transcript::read(dir.path().join("transcripts").join(name)).unwrap();
    assert_eq!(transcript.header.command, ["true"]);
    assert_eq!(transcript.header.cwd.as_deref(), Some(".."));
}

#[test]
fn no_process_is_left_behind() {
    let dir = tempfile::tempdir().unwrap();
    // The server leaves a grandchild running in its process group.
    let server = sh("sleep 300 & echo $$ $!; while read -r l; do echo \"$l\"; done");
    let mut host = Host::record(dir.path(), &["-o", "t.jsonl"], &server, &[]);
    let pids = String::from_utf8(host.line()).unwrap();
    let pids: Vec<i32> = pids
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    host.send(b"hello\n");
    assert_eq!(host.line(), b"hello\n");
    host.close_stdin();
    assert_eq!(shell_status(host.wait()), 0);
    for pid in pids {
        assert_gone(pid);
    }
}

#[test]
fn a_host_that_goes_away_gets_the_server_stdin_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = python(ECHO, &["4"]);
    let mut cmd = Command::new(crate::util::bin());
    cmd.args(["record", "-o", "t.jsonl", "--"])
        .args(&server)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    use std::io::{BufRead, Write};
    stdin.write_all(b"first\n").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "first\n");
    // The host stops reading and sends nothing more, while its end of the
    // recorder's stdin stays open: no write of the recorder's fails, and
    // the server, which answers only once its stdin ends, says nothing
    // until the recorder has noticed that the host is gone.
    drop(stdout);
    let mut host = crate::util::Waiter::new(child);
    assert_eq!(shell_status(host.wait()), 4);
    drop(stdin);
    let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
    assert_eq!(
        stream(&transcript, Direction::ClientToServer),
        [&b"first"[..]]
    );
    assert_eq!(
        stream(&transcript, Direction::ServerToClient),
        [&b"first"[..], b"bye"]
    );
    assert_eq!(stream(&transcript, Direction::Stderr), [b"eof"]);
    assert_eq!(transcript.exit(), Some(Exit::Code(4)));
}

#[test]
fn a_host_that_sends_and_leaves_has_every_recorded_line_delivered() {
    // The host writes a line and closes both of its pipes at once: the
    // recorder sees its stdout go and its stdin end together, and must
    // neither record a line it did not forward nor drop one the host sent.
    let dir = tempfile::tempdir().unwrap();
    for round in 0..20 {
        let got = dir.path().join(format!("got-{round}"));
        let transcript = dir.path().join(format!("t-{round}.jsonl"));
        let mut child = Command::new(crate::util::bin())
            .args(["record", "-o"])
            .arg(&transcript)
            .args(["--", "sh", "-c", "exec cat > \"$0\""])
            .arg(&got)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        use std::io::Write;
        stdin.write_all(b"ping\n").unwrap();
        drop(stdout);
        drop(stdin);
        let mut host = crate::util::Waiter::new(child);
        assert_eq!(shell_status(host.wait()), 0, "round {round}");
        let recorded = stream(
            &Transcript::read(&transcript).unwrap(),
            Direction::ClientToServer,
        );
        assert_eq!(recorded, [b"ping".to_vec()], "round {round}");
        assert_eq!(std::fs::read(&got).unwrap(), b"ping\n", "round {round}");
    }
}

/// Closes its stdin, says `closed`, and exits 0 on SIGTERM (or when its
/// stdout has no reader left).
const CLOSES_STDIN: &str = r#"
import os, select, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
os.close(0)
print("closed", flush=True)
poll = select.poll()
poll.register(1, 0)
poll.poll()
"#;

#[test]
fn a_host_never_blocks_writing_to_a_server_that_closed_its_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::record(
        dir.path(),
        &["-o", "t.jsonl"],
        &python(CLOSES_STDIN, &[]),
        &[],
    );
    assert_eq!(host.line(), b"closed\n");
    // Far more than the pipes between host, recorder and server hold.
    let mut stdin = host.take_stdin();
    let (done_tx, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Write;
        let line = format!("{}\n", "x".repeat(1023));
        for _ in 0..4096 {
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
        let _ = done_tx.send(());
    });
    done.recv_timeout(STEP)
        .expect("the host's writes were not taken");
    host.signal(Signal::TERM);
    assert_eq!(shell_status(host.wait()), 0, "{}", host.stderr());
    let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
    assert_eq!(transcript.exit(), Some(Exit::Code(0)));
}

#[test]
fn stderr_is_not_recorded_with_no_stderr_but_still_passed_through() {
    let dir = tempfile::tempdir().unwrap();
    let (status, _, stderr, path) =
        record_with_input(dir.path(), &["--no-stderr"], &python(ECHO, &[]), b"a\n");
    assert_eq!(status, 0);
    assert_eq!(stderr, "eof\n");
    let transcript = Transcript::read(&path).unwrap();
    assert!(stream(&transcript, Direction::Stderr).is_empty());
    assert_eq!(stream(&transcript, Direction::ServerToClient).len(), 2);
}

#[test]
fn the_header_names_the_command_cwd_and_environment_names_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let output = cargo_bin_cmd!("mcp-replay")
        .args([
            "record",
            "-o",
            "sub/t.jsonl",
            "--ignore",
            "/result/serverInfo/version",
            "--",
            "sh",
            "-c",
            "exit 0",
        ])
        .current_dir(dir.path())
        .env("SOME_SETTING", "visible-value-xyz")
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = std::fs::read_to_string(dir.path().join("sub/t.jsonl")).unwrap();
    assert!(
        !text.contains("visible-value-xyz"),
        "an env value was recorded"
    );
    let header = Transcript::read(dir.path().join("sub/t.jsonl"))
        .unwrap()
        .header;
    assert_eq!(header.command, ["sh", "-c", "exit 0"]);
    assert_eq!(header.cwd.as_deref(), Some(".."));
    assert!(header.env.iter().any(|name| name == "SOME_SETTING"));
    assert!(header.env.is_sorted());
    assert_eq!(header.ignore, ["/result/serverInfo/version"]);
    assert_eq!(header.version, 2);
    assert!(header.tool.starts_with("mcp-replay "));
    assert!(header.created.ends_with('Z') && header.created.len() == 20);
}

#[test]
fn the_negotiated_protocol_follows_the_initialize_answer() {
    let dir = tempfile::tempdir().unwrap();
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        "\n",
    );
    let (status, stdout, _, path) = record_with_input(
        dir.path(),
        &[],
        &argv(&["mcp-replay", "demo-server"]),
        input.as_bytes(),
    );
    assert_eq!(status, 0);
    assert_eq!(String::from_utf8(stdout).unwrap().lines().count(), 2);
    let transcript = Transcript::read(&path).unwrap();
    assert_eq!(transcript.protocol(), Some("2024-11-05"));
    let protocol_at = transcript
        .events
        .iter()
        .position(|event| matches!(event.kind, EventKind::Protocol(_)))
        .unwrap();
    let before = &transcript.events[protocol_at - 1];
    let EventKind::Line {
        dir: Direction::ServerToClient,
        payload,
        ..
    } = &before.kind
    else {
        panic!("the protocol event does not follow a server line: {before:?}");
    };
    assert_eq!(payload.to_json().unwrap()["id"], "init");
}

/// Reads its stdin until this many bytes have come, without newlines or
/// not, then reports on stderr the peak memory of its parent (the recorder)
/// as `peak <kB>` and exits.
const READ_THEN_REPORT_PEAK: &str = r#"
import os, sys
want = int(sys.argv[1])
got = 0
while got < want:
    chunk = sys.stdin.buffer.read1(1 << 20)
    if not chunk:
        break
    got += len(chunk)
with open(f"/proc/{os.getppid()}/status") as status:
    peak = next(l.split()[1] for l in status if l.startswith("VmHWM:"))
sys.stderr.write(f"got {got} peak {peak}\n")
"#;

/// The recorder's peak memory in KiB, as its server reported it on stderr.
fn reported_peak(stderr: &str) -> u64 {
    stderr
        .split_whitespace()
        .skip_while(|word| *word != "peak")
        .nth(1)
        .and_then(|kb| kb.parse().ok())
        .unwrap_or_else(|| panic!("no peak reported: {stderr}"))
}

#[test]
fn a_stdin_flood_without_newlines_stays_bounded_and_the_session_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let flood = 512 << 20;
    let stderr_path = dir.path().join("stderr");
    let child = Command::new(crate::util::bin())
        .arg("record")
        .arg("-o")
        .arg(&path)
        .arg("--")
        .args(python(READ_THEN_REPORT_PEAK, &[&flood.to_string()]))
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .process_group(0)
        .spawn()
        .unwrap();
    let status = crate::util::Waiter::new(child).wait();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert_eq!(shell_status(status), 0, "{stderr}");
    assert!(stderr.contains(&format!("got {flood} ")), "{stderr}");
    // Half a gigabyte went through; the recorder held a bounded part of it.
    let peak = reported_peak(&stderr);
    assert!(peak < 64 * 1024, "the recorder grew to {peak} KiB");
    // The line never ended: it is recorded as its start, marked cut.
    let transcript = Transcript::read(&path).unwrap();
    let (event, payload) = transcript.lines(Direction::ClientToServer).next().unwrap();
    let EventKind::Line { eol, cut, .. } = event.kind else {
        unreachable!("a line");
    };
    assert!(!eol);
    let cut = cut.expect("the line is marked cut");
    assert!(payload.as_bytes().iter().all(|&b| b == 0));
    assert!(payload.as_bytes().len() as u64 + cut >= flood, "{cut}");
}

#[test]
fn a_partial_stdout_line_reaches_the_host_before_its_newline() {
    let dir = tempfile::tempdir().unwrap();
    // The server ends its line only once the host has answered its start.
    let server = sh("printf 'progress 1/2'; read -r answer; printf ' done %s\\n' \"$answer\"");
    let mut host = Host::record(dir.path(), &["-o", "t.jsonl"], &server, &[]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    assert_eq!(host.until(b"progress 1/2", deadline), b"progress 1/2");
    host.send(b"ok\n");
    assert_eq!(host.line(), b" done ok\n");
    host.close_stdin();
    assert_eq!(shell_status(host.wait()), 0);
    let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
    assert_eq!(
        stream(&transcript, Direction::ServerToClient),
        [b"progress 1/2 done ok".to_vec()]
    );
}

#[test]
fn a_partial_stderr_line_is_passed_through_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // A progress bar: carriage returns, no newline until the host answers.
    let server = sh("printf '10%%\\r20%%\\r' >&2; echo ready; read -r l; printf '100%%\\n' >&2");
    let mut host = Host::record(dir.path(), &["-o", "t.jsonl"], &server, &[]);
    assert_eq!(host.line(), b"ready\n");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !host.stderr().contains("20%\r") {
        assert!(
            std::time::Instant::now() < deadline,
            "the progress bar was held back: {:?}",
            host.stderr()
        );
        std::thread::yield_now();
    }
    host.send(b"go\n");
    host.close_stdin();
    assert_eq!(shell_status(host.wait()), 0);
    let transcript = Transcript::read(dir.path().join("t.jsonl")).unwrap();
    assert_eq!(
        stream(&transcript, Direction::Stderr),
        [b"10%\r20%\r100%".to_vec()]
    );
}

#[test]
fn a_line_past_the_limit_is_forwarded_whole_and_recorded_cut() {
    let dir = tempfile::tempdir().unwrap();
    let long = mcp_replay::process::MAX_LINE + (3 << 20) + 7;
    let server = sh(&format!(
        "head -c {long} /dev/zero | tr '\\0' x; printf '\\nafter\\n'"
    ));
    let path = dir.path().join("t.jsonl");
    let output = cargo_bin_cmd!("mcp-replay")
        .arg("record")
        .arg("-o")
        .arg(&path)
        .arg("--")
        .args(&server)
        .write_stdin(Vec::new())
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(shell_status(output.status), 0);
    assert_eq!(output.stdout.len(), long + "\nafter\n".len());
    assert!(output.stdout[..long].iter().all(|&b| b == b'x'));
    assert!(output.stdout.ends_with(b"\nafter\n"));
    let transcript = Transcript::read(&path).unwrap();
    let lines: Vec<(usize, bool, Option<u64>)> = transcript
        .lines(Direction::ServerToClient)
        .map(|(event, payload)| match event.kind {
            EventKind::Line { eol, cut, .. } => (payload.as_bytes().len(), eol, cut),
            _ => unreachable!("a line"),
        })
        .collect();
    let (kept, eol, cut) = lines[0];
    assert!(eol);
    assert!(kept > 0 && kept < 1 << 20, "{kept} bytes kept");
    assert_eq!(kept as u64 + cut.expect("marked cut"), long as u64);
    assert_eq!(lines[1], (5, true, None));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(&format!(",\"cut\":{}}}", long - kept)),
        "marker"
    );
}

#[test]
fn a_grandchild_that_left_the_process_group_is_gone_when_the_recorder_exits() {
    let dir = tempfile::tempdir().unwrap();
    // The grandchild starts a session of its own, out of the server's
    // process group, and holds the server's stdout and stderr open.
    let server = sh("setsid sleep 300 & echo $!; while read -r l; do echo \"$l\"; done");
    let mut host = Host::record(dir.path(), &["-o", "t.jsonl"], &server, &[]);
    let escaped: i32 = String::from_utf8(host.line())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    host.send(b"hello\n");
    assert_eq!(host.line(), b"hello\n");
    host.close_stdin();
    let closed = std::time::Instant::now();
    assert_eq!(shell_status(host.wait()), 0);
    // It was killed, not waited for: the recorder does not sit out the
    // five seconds of grace it gives streams held open by a process it
    // cannot reach.
    assert!(
        closed.elapsed() < std::time::Duration::from_secs(5),
        "the recorder waited {:?} for the escaped process",
        closed.elapsed()
    );
    assert_gone(escaped);
}
