//! Input nobody vouched for: what a transcript, a config or a baseline can
//! make `check` and `mock` run, read and send (docs/security.md), and the
//! lines the readers refuse; and the small holes of issue 17: a request
//! with a null id, a byte-order mark.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{Host, bin, initialize, request};

/// `mcp-replay check` run in `dir`, killed if it outlives a generous
/// deadline.
fn check(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    // The hosts of these transcripts are bare scripts (a lone ping, a null
    // id): the host laws are not what these tests are about.
    cmd.current_dir(dir)
        .arg("check")
        .args(crate::util::waive_host_laws())
        .env_remove("NO_COLOR")
        .env_remove("MCP_REPLAY_FILL_ENV")
        .timeout(Duration::from_secs(120));
    cmd
}

/// A transcript of `lines` (the header first) at `path`.
fn write_transcript(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// A transcript header recording `command`, with more members.
fn header(command: &[&str], more: Value) -> Value {
    let mut header = json!({"format": "mcp-replay-transcript", "version": 1,
        "tool": "mcp-replay 0.1.0", "created": "2026-12-01T00:00:00Z", "command": command});
    if let Value::Object(more) = more {
        header.as_object_mut().unwrap().extend(more);
    }
    header
}

fn c2s(message: Value) -> Value {
    json!({"t": 0.0, "dir": "c2s", "msg": message})
}

fn s2c(message: Value) -> Value {
    json!({"t": 0.0, "dir": "s2c", "msg": message})
}

fn answer(host: &mut Host) -> Value {
    serde_json::from_slice(&host.line()).expect("every stdout line is a JSON-RPC message")
}

/// The stdout of `cmd`, which must exit with `code`.
fn stdout_with_code(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// JSON-RPC 2.0 §4 makes only a missing id a notification and MCP allows
/// no null id: the demo server (the core library) and `mock` answer a
/// request with a null id -32600 with id null, so its client is not left
/// waiting, and go on serving.
#[test]
fn a_request_with_a_null_id_gets_an_invalid_request_error_from_the_library_and_the_mock() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("session.jsonl");
    write_transcript(
        &recorded,
        &[
            header(&["recorded-server"], json!({})),
            c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
        ],
    );
    let servers: [Vec<&str>; 2] = [
        vec!["demo-server"],
        vec!["mock", recorded.to_str().unwrap()],
    ];
    for args in servers {
        let mut cmd = Command::new(bin());
        cmd.args(&args);
        let mut host = Host::spawn(cmd);
        host.send(format!("{}\n", initialize(0)).as_bytes());
        assert_eq!(answer(&mut host)["id"], 0, "{args:?}");
        host.send(b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n");
        let refused = answer(&mut host);
        assert_eq!(refused["id"], Value::Null, "{args:?}: {refused}");
        assert_eq!(refused["error"]["code"], -32600, "{args:?}: {refused}");
        host.send(format!("{}\n", request(json!(2), "ping", Value::Null)).as_bytes());
        assert_eq!(answer(&mut host)["id"], 2, "{args:?}");
        host.close_stdin();
        assert_eq!(host.wait().code(), Some(0), "{args:?}");
    }
}

/// A replay that sends a line with a null id does not blame the server for
/// answering it: it is no notification, so `notification-unanswered` has
/// nothing to say. A recorded -32600 answer is compared as the answer to
/// that line; where the recording has none (a server that kept silent, as
/// the SDKs do), the answer is a change of the session's shape, which
/// `--bless` accepts, and no law is broken.
#[test]
fn answering_a_null_id_breaks_no_law_in_a_replay() {
    let dir = tempfile::tempdir().unwrap();
    let null_ping = c2s(json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
    let ping = c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    let pong = s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let refusal = s2c(
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
        "message": "invalid request: the id is null; a request's id is a string or an integer (MCP basic#requests), and a notification has no id (JSON-RPC 2.0 §4)"}}),
    );
    let demo = header(&["mcp-replay", "demo-server"], json!({}));
    write_transcript(
        &dir.path().join("answered.jsonl"),
        &[
            demo.clone(),
            null_ping.clone(),
            refusal,
            ping.clone(),
            pong.clone(),
        ],
    );
    write_transcript(
        &dir.path().join("silent.jsonl"),
        &[demo, null_ping, ping, pong],
    );
    let replay = |file: &str, code: i32| {
        stdout_with_code(
            check(dir.path()).args(["--no-probes", file, "--", bin(), "demo-server"]),
            code,
        )
    };
    let stdout = replay("answered.jsonl", 0);
    assert!(stdout.contains("PASS answered.jsonl"), "{stdout}");
    let stdout = replay("silent.jsonl", 1);
    assert!(!stdout.contains("notification-unanswered"), "{stdout}");
    assert!(
        stdout.contains("error[transcript-match] silent.jsonl:2: the malformed line 2 was answered, but the recording has no answer to it"),
        "{stdout}"
    );
}

/// The lines JSON allows and the checker cannot read as a message: a
/// number beyond an f64, nesting past 127 levels, a lone surrogate; each
/// with the words the checker names it by.
fn beyond_the_limits() -> Vec<(String, &'static str)> {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    vec![
        (
            "1e400".to_owned(),
            "a number beyond the range of a 64-bit float",
        ),
        (deep, "nested deeper than 127 levels"),
        (
            r#""\ud800""#.to_owned(),
            "a string holds a lone surrogate escape",
        ),
    ]
}

/// A recorded server answer that cannot be read as a message is an error
/// at its file:line, whether the recorder kept it as `text` (as it does)
/// or a hand-written transcript holds it as `msg`: a replay that left it
/// out would pass having compared nothing. `mock` refuses the recording
/// the same way instead of answering "the recording has no answer".
#[test]
fn a_recorded_answer_beyond_the_json_limits_is_an_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for (value, why) in beyond_the_limits() {
        let answer = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"x":{value}}}}}"#);
        // serde_json's `Value` cannot hold these lines: written as text.
        let as_text = json!({"t": 0.0, "dir": "s2c", "text": answer}).to_string();
        let as_msg = format!(r#"{{"t":0.0,"dir":"s2c","msg":{answer}}}"#);
        for (kind, event) in [("text", as_text), ("msg", as_msg)] {
            let path = dir.path().join("answer.jsonl");
            let lines = [
                header(&["mcp-replay", "demo-server"], json!({})),
                c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            ];
            let mut text: String = lines.iter().map(|line| format!("{line}\n")).collect();
            text.push_str(&event);
            text.push('\n');
            std::fs::write(&path, text).unwrap();
            let stdout =
                stdout_with_code(check(dir.path()).args(["--no-probes", "answer.jsonl"]), 2);
            assert!(
                stdout.contains(&format!(
                    "answer.jsonl:3: the recorded server line cannot be read as a message ({why}"
                )),
                "{kind} {why}: {stdout}"
            );
            let mock = Command::new(bin())
                .args(["mock", path.to_str().unwrap()])
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            assert_eq!(mock.status.code(), Some(2), "{kind} {why}");
            assert!(mock.stdout.is_empty(), "{kind} {why}");
            let stderr = String::from_utf8_lossy(&mock.stderr);
            assert!(
                stderr.contains(
                    "answer.jsonl:3: the recorded server line cannot be read as a message"
                ),
                "{kind} {why}: {stderr}"
            );
        }
    }
}

/// A recorded client request beyond the JSON limits is sent as the host
/// sent it, and read by its members as a server reads it (JSON-RPC sets no
/// such limits): its recorded answer is compared with the live one, and a
/// server that answers it is not blamed for answering a request never sent.
#[test]
fn a_client_request_beyond_the_json_limits_is_replayed_and_its_answer_compared() {
    let dir = tempfile::tempdir().unwrap();
    for (value, why) in beyond_the_limits() {
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"x":{value}}}}}"#
        );
        let lines = [
            header(&["mcp-replay", "demo-server"], json!({})),
            json!({"t": 0.0, "dir": "c2s", "text": request}),
        ];
        let path = dir.path().join("request.jsonl");
        write_transcript(&path, &lines);
        // The demo server's own answer, recorded.
        let mut cmd = Command::new(bin());
        cmd.arg("demo-server");
        let mut host = Host::spawn(cmd);
        host.send(format!("{request}\n").as_bytes());
        let live = host.line();
        host.close_stdin();
        host.wait();
        let recorded: Value = serde_json::from_slice(&live).unwrap();
        assert_eq!(recorded["id"], 2, "{why}: {recorded}");
        let mut all = lines.to_vec();
        all.push(s2c(recorded));
        write_transcript(&path, &all);
        let stdout = stdout_with_code(check(dir.path()).args(["--no-probes", "request.jsonl"]), 0);
        assert!(
            stdout.contains("PASS request.jsonl  1 exchange"),
            "{why}: {stdout}"
        );
        // The answer is compared: a changed one is a mismatch.
        let mut changed = all.clone();
        changed[2]["msg"]["result"]["content"][0]["text"] = json!("not what it says");
        write_transcript(&path, &changed);
        let stdout = stdout_with_code(check(dir.path()).args(["--no-probes", "request.jsonl"]), 1);
        assert!(
            stdout.contains("error[transcript-match] request.jsonl:3: `tools/call` id=2 (line 2): the response differs from the recording"),
            "{why}: {stdout}"
        );
    }
}

/// Every reader of `check` names a UTF-8 byte order mark where it finds
/// one, at file:line:column (the column in characters): a transcript's
/// header or event, the directory config, the baseline; `mock` too.
#[test]
fn a_byte_order_mark_is_named_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let bom = "\u{feff}";
    let head = header(&["mcp-replay", "demo-server"], json!({}));
    let ping = c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    let named = |stdout: &str, at: &str| {
        assert!(
            stdout.contains(&format!("{at}: expected "))
                && stdout.contains("found a UTF-8 byte order mark (U+FEFF)"),
            "{at}: {stdout}"
        );
    };
    // The transcript: at the start of the file, and inside an event.
    std::fs::write(
        dir.path().join("start.jsonl"),
        format!("{bom}{head}\n{ping}\n"),
    )
    .unwrap();
    let stdout = stdout_with_code(check(dir.path()).args(["--no-probes", "start.jsonl"]), 2);
    named(&stdout, "start.jsonl:1:1");
    let event = r#"{"t":0.0,"dir":"c2s","msg":"#;
    std::fs::write(
        dir.path().join("event.jsonl"),
        format!("{head}\n{event}{bom}{}}}\n", ping["msg"]),
    )
    .unwrap();
    let stdout = stdout_with_code(check(dir.path()).args(["--no-probes", "event.jsonl"]), 2);
    named(
        &stdout,
        &format!("event.jsonl:2:{}", event.chars().count() + 1),
    );
    let mock = Command::new(bin())
        .args(["mock", "start.jsonl"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(mock.status.code(), Some(2));
    named(&String::from_utf8_lossy(&mock.stderr), "start.jsonl:1:1");
    // The baseline.
    std::fs::write(dir.path().join("start.jsonl"), format!("{head}\n")).unwrap();
    std::fs::write(dir.path().join("baseline.json"), format!("{bom}{{}}")).unwrap();
    let output = check(dir.path())
        .args(["--no-probes", "--baseline", "baseline.json", "start.jsonl"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    named(
        &String::from_utf8_lossy(&output.stderr),
        "baseline.json:1:1",
    );
    // The directory config, on its second line.
    std::fs::write(
        dir.path().join("mcp-replay.json"),
        format!("{{\n  \"profile\": {bom}\"spec\"\n}}"),
    )
    .unwrap();
    let output = check(dir.path())
        .args(["--no-probes", "start.jsonl"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    named(
        &String::from_utf8_lossy(&output.stderr),
        "mcp-replay.json:2:14",
    );
}

/// A recorded command that notes in `marker` that it ran, then serves as
/// the demo server.
fn marking_command(marker: &Path) -> Vec<String> {
    vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!(
            "echo ran >> '{}'; exec '{}' demo-server",
            marker.display(),
            bin()
        ),
    ]
}

/// A transcript is a program: its header's `cwd`, resolved against the
/// transcript's directory with `..` and symbolic links followed, never
/// leads out of the directory `check` runs in unless `--allow-cwd` says
/// so. An escaping one is an error at the header's line naming the flag,
/// and its command never runs (neither replayed nor probed); a `cwd` that
/// stays inside (the bundled transcripts' `..` from `transcripts/`) runs,
/// and so does any transcript once its command is replaced after `--`.
#[test]
fn a_recorded_cwd_never_leads_out_of_the_checked_tree_unless_allowed() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("repo");
    std::fs::create_dir_all(tree.join("transcripts")).unwrap();
    std::os::unix::fs::symlink(outside.path(), tree.join("transcripts/elsewhere")).unwrap();
    let marker = dir.path().join("ran");
    let command = marking_command(&marker);
    let argv: Vec<&str> = command.iter().map(String::as_str).collect();
    let ping = c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    let pong = s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let transcript = |cwd: &str| {
        write_transcript(
            &tree.join("transcripts/t.jsonl"),
            &[
                header(&argv, json!({"cwd": cwd})),
                ping.clone(),
                pong.clone(),
            ],
        );
    };
    let outside_real = outside.path().canonicalize().unwrap();
    let parent_real = dir.path().canonicalize().unwrap();
    for (cwd, leads) in [
        ("/", std::path::PathBuf::from("/")),
        ("../..", parent_real.clone()),
        ("elsewhere", outside_real.clone()),
        // Lexically `.`; through the link, the directory above `outside`.
        ("elsewhere/..", outside_real.parent().unwrap().to_owned()),
        (outside_real.to_str().unwrap(), outside_real.clone()),
    ] {
        transcript(cwd);
        // The probes too would run the recorded command: they are on.
        let stdout = stdout_with_code(check(&tree).arg("transcripts/"), 2);
        assert!(
            stdout.contains(&format!(
                "transcripts/t.jsonl:1: the header's `cwd` ({}) leads to `{}`, outside the directory `check` runs in",
                json!(cwd),
                leads.display()
            )) && stdout.contains(&format!("pass `--allow-cwd {}`", leads.display())),
            "{cwd}: {stdout}"
        );
        assert!(!marker.exists(), "{cwd}: the recorded command ran");
    }
    // Allowed, it runs there.
    transcript("elsewhere");
    let stdout = stdout_with_code(
        check(&tree)
            .args(["--no-probes", "--allow-cwd"])
            .arg(outside.path())
            .arg("transcripts/"),
        0,
    );
    assert!(stdout.contains("PASS transcripts/t.jsonl"), "{stdout}");
    assert!(marker.exists());
    std::fs::remove_file(&marker).unwrap();
    // Inside the tree: `..` from `transcripts/` is the directory checked from.
    transcript("..");
    let stdout = stdout_with_code(check(&tree).args(["--no-probes", "transcripts/"]), 0);
    assert!(stdout.contains("PASS transcripts/t.jsonl"), "{stdout}");
    assert!(marker.exists());
    std::fs::remove_file(&marker).unwrap();
    // A server command after `--` replaces the recorded one and its cwd.
    transcript("/");
    let stdout = stdout_with_code(
        check(&tree).args(["--no-probes", "transcripts/", "--", bin(), "demo-server"]),
        0,
    );
    assert!(stdout.contains("PASS transcripts/t.jsonl"), "{stdout}");
    assert!(!marker.exists(), "the recorded command ran");
    // A directory to allow that does not exist is a usage error.
    let output = check(&tree)
        .args(["--allow-cwd", "no/such/dir", "transcripts/"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot read `no/such/dir`"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A transcript read from a pipe (`check <(cat t.jsonl)`, `check
/// /dev/stdin`) has no directory of its own: its relative `cwd` is taken
/// from the directory `check` runs in, not from `/proc/…/fd` or `/dev`,
/// and still leads nowhere outside it unless `--allow-cwd` says so.
// See: #25
#[test]
fn a_transcript_from_a_pipe_takes_its_cwd_where_check_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let marker = dir.path().join("ran-in");
    let command = [
        "sh".to_owned(),
        "-c".to_owned(),
        format!("pwd > '{}'; exec '{}' demo-server", marker.display(), bin()),
    ];
    let argv: Vec<&str> = command.iter().map(String::as_str).collect();
    let text = |cwd: &str| {
        [
            header(&argv, json!({"cwd": cwd})),
            c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
        ]
        .iter()
        .map(|line| format!("{line}\n"))
        .collect::<String>()
    };
    let stdout = stdout_with_code(
        check(dir.path())
            .args(["--no-probes", "/dev/stdin"])
            .write_stdin(text("sub")),
        0,
    );
    assert!(stdout.contains("PASS /dev/stdin"), "{stdout}");
    let ran_in = std::fs::read_to_string(&marker).unwrap();
    assert_eq!(
        Path::new(ran_in.trim()),
        dir.path().canonicalize().unwrap().join("sub")
    );
    std::fs::remove_file(&marker).unwrap();
    let stdout = stdout_with_code(
        check(dir.path())
            .args(["--no-probes", "/dev/stdin"])
            .write_stdin(text("..")),
        2,
    );
    assert!(
        stdout.contains("/dev/stdin:1: the header's `cwd` (\"..\") leads to"),
        "{stdout}"
    );
    assert!(!marker.exists(), "the recorded command ran outside");
}

/// `mock` runs nothing a transcript names: not its command, not in its
/// `cwd`, whatever the header holds; it serves the recorded answers alone.
#[test]
fn mock_runs_nothing_a_hostile_transcript_names() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let command = marking_command(&marker);
    let argv: Vec<&str> = command.iter().map(String::as_str).collect();
    let path = dir.path().join("hostile.jsonl");
    write_transcript(
        &path,
        &[
            header(
                &argv,
                json!({"cwd": "/", "env": ["HOME"], "redact": {"env": ["HOME"]}}),
            ),
            c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
        ],
    );
    let mut cmd = Command::new(bin());
    cmd.args(["mock", path.to_str().unwrap()]);
    let mut host = Host::spawn(cmd);
    host.send(format!("{}\n", request(json!(7), "ping", Value::Null)).as_bytes());
    assert_eq!(answer(&mut host)["id"], 7);
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
    assert!(!marker.exists(), "the mock ran the recorded command");
}

/// The names of the members of the JSON object `line`, in order, each as
/// often as it occurs (serde_json's `Value` would keep one of each).
fn member_names(line: &[u8]) -> Vec<String> {
    struct Names;
    impl<'de> serde::de::Visitor<'de> for Names {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Vec<String>, A::Error> {
            let mut names = Vec::new();
            while let Some((name, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                names.push(name);
            }
            Ok(names)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(line);
    serde::Deserializer::deserialize_map(&mut de, Names).expect("an object")
}

/// A recorded answer that names its id twice (`{"id":7,…,"id":1}`, which
/// serde_json reads as 1) goes out with one id, the caller's, so a client
/// that reads the last member does not read the recorded one; a recorded
/// notification that names its method twice goes out with one method.
// See: #25
#[test]
fn mock_answers_with_the_callers_id_whatever_the_recording_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twice.jsonl");
    let head = header(&["recorded-server"], json!({}));
    let lines = [
        head.to_string(),
        c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).to_string(),
        r#"{"t":0.0,"dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"},"method":"notifications/cancelled"}}"#.to_owned(),
        r#"{"t":0.0,"dir":"s2c","msg":{"jsonrpc":"2.0","id":7,"result":{},"id":1}}"#.to_owned(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(["mock", path.to_str().unwrap()]);
    let mut host = Host::spawn(cmd);
    host.send(format!("{}\n", request(json!(42), "ping", Value::Null)).as_bytes());
    let notification = host.line();
    assert_eq!(
        member_names(&notification),
        ["jsonrpc", "method", "params"],
        "{}",
        String::from_utf8_lossy(&notification)
    );
    let answer = host.line();
    assert_eq!(
        member_names(&answer),
        ["jsonrpc", "id", "result"],
        "{}",
        String::from_utf8_lossy(&answer)
    );
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(answer["id"], 42, "{answer}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// The value only the checker's environment holds, standing for a CI
/// secret.
const SECRET: &str = "s3cr3t-value-from-ci";

/// A transcript can no longer pull a variable into what is sent: a
/// placeholder `[REDACTED:NAME]` in a client line or in the recorded
/// command is filled only from a variable the person running `check` names
/// (`--fill-env`, `MCP_REPLAY_FILL_ENV`), never from the names the
/// header's `redact` lists; any other is sent as it stands, with a note
/// saying how to allow it, and the value never reaches the report.
#[test]
fn placeholders_are_filled_only_from_variables_named_for_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let received = dir.path().join("received");
    let argv = [
        "sh".to_owned(),
        "-c".to_owned(),
        format!(
            "echo \"argv: $0\" >> '{}'; tee -a '{}' | exec '{}' demo-server",
            received.display(),
            received.display(),
            bin()
        ),
        "[REDACTED:SECRETX_TOKEN]".to_owned(),
    ];
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let call = c2s(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "[REDACTED:SECRETX_TOKEN] [REDACTED:HOME]"}}}));
    write_transcript(
        &dir.path().join("t.jsonl"),
        &[
            header(&argv, json!({"redact": {"env": ["HOME", "SECRETX_TOKEN"]}})),
            c2s(initialize(1).parse::<Value>().unwrap()),
            c2s(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            call,
        ],
    );
    let run = |fill: &[&str], env_list: Option<&str>| {
        let _ = std::fs::remove_file(&received);
        let mut cmd = check(dir.path());
        cmd.env("SECRETX_TOKEN", SECRET).arg("--no-probes");
        for name in fill {
            cmd.args(["--fill-env", name]);
        }
        if let Some(list) = env_list {
            cmd.env("MCP_REPLAY_FILL_ENV", list);
        }
        let stdout = stdout_with_code(cmd.args(["--format", "json", "t.jsonl"]), 0);
        assert!(
            !stdout.contains(SECRET),
            "the value reached the report: {stdout}"
        );
        (std::fs::read_to_string(&received).unwrap(), stdout)
    };
    // Named by nobody: sent as it stands, with a note on how to allow it.
    let (got, report) = run(&[], None);
    assert!(!got.contains(SECRET), "{got}");
    assert!(got.contains("argv: [REDACTED:SECRETX_TOKEN]"), "{got}");
    assert!(
        got.contains(r#""text":"[REDACTED:SECRETX_TOKEN] [REDACTED:HOME]""#),
        "{got}"
    );
    let home = std::env::var("HOME").unwrap_or_default();
    assert!(
        home.len() < 6 || !got.contains(&format!("\"{home}")),
        "{got}"
    );
    for note in [
        "`[REDACTED:SECRETX_TOKEN]` (line 4) was sent as it stands: a placeholder is filled only from a variable named for the run, never from the names a transcript lists; `--fill-env SECRETX_TOKEN` (or `SECRETX_TOKEN` in `MCP_REPLAY_FILL_ENV` where `check` runs) fills it with the value of `SECRETX_TOKEN`",
        "`[REDACTED:HOME]` (line 4) was sent as it stands",
        "`[REDACTED:SECRETX_TOKEN]` in the recorded command (line 1) was passed to the server as it stands",
    ] {
        assert!(report.contains(note), "{note}: {report}");
    }
    // Named on the command line, or by the run's environment: filled, and
    // only that one.
    for (fill, list) in [
        (&["SECRETX_TOKEN"][..], None),
        (&[][..], Some("OTHER, SECRETX_TOKEN")),
    ] {
        let (got, report) = run(fill, list);
        assert!(got.contains(&format!("argv: {SECRET}")), "{got}");
        assert!(
            got.contains(&format!(r#""text":"{SECRET} [REDACTED:HOME]""#)),
            "{got}"
        );
        assert!(!report.contains("[REDACTED:SECRETX_TOKEN]` ("), "{report}");
        assert!(
            report.contains("`[REDACTED:HOME]` (line 4) was sent as it stands"),
            "{report}"
        );
    }
}

/// `mock` fills the placeholders of the recorded lines it sends only from
/// the variables named for its run, never from the transcript's list.
#[test]
fn mock_fills_placeholders_only_from_variables_named_for_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    write_transcript(
        &path,
        &[
            header(&["recorded"], json!({"redact": {"env": ["SECRETX_TOKEN"]}})),
            c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            s2c(
                json!({"jsonrpc": "2.0", "id": 1, "result": {"token": "[REDACTED:SECRETX_TOKEN]"}}),
            ),
        ],
    );
    for (args, env_list, expected) in [
        (vec![], None, "[REDACTED:SECRETX_TOKEN]"),
        (vec!["--fill-env", "SECRETX_TOKEN"], None, SECRET),
        (vec![], Some("SECRETX_TOKEN"), SECRET),
    ] {
        let mut cmd = Command::new(bin());
        cmd.arg("mock")
            .args(&args)
            .arg(&path)
            .env("SECRETX_TOKEN", SECRET);
        cmd.env_remove("MCP_REPLAY_FILL_ENV");
        if let Some(list) = env_list {
            cmd.env("MCP_REPLAY_FILL_ENV", list);
        }
        let mut host = Host::spawn(cmd);
        host.send(format!("{}\n", request(json!(9), "ping", Value::Null)).as_bytes());
        let answer = answer(&mut host);
        assert_eq!(answer["result"]["token"], expected, "{args:?} {env_list:?}");
        host.close_stdin();
        assert_eq!(host.wait().code(), Some(0));
    }
}

/// The answer to request `id`, past any notification before it.
fn answer_to(host: &mut Host, id: i64) -> Value {
    loop {
        let line = answer(host);
        if line.get("method").is_none() {
            assert_eq!(line["id"], id, "{line}");
            return line;
        }
    }
}

/// `serve`'s `check` tool is held to the same boundary, and an agent cannot
/// move it: a transcript's `cwd` stays inside serve's working directory, a
/// placeholder is filled only from what `MCP_REPLAY_FILL_ENV` names in
/// serve's own environment, and the tool takes no argument that would
/// allow more.
#[test]
fn serve_check_calls_cannot_move_the_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let received = dir.path().join("received");
    let argv = [
        "sh".to_owned(),
        "-c".to_owned(),
        format!(
            "tee -a '{}' | exec '{}' demo-server",
            received.display(),
            bin()
        ),
    ];
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let lines = |cwd: Option<&str>| {
        let mut head = header(&argv, json!({"redact": {"env": ["SECRETX_TOKEN"]}}));
        if let Some(cwd) = cwd {
            head["cwd"] = json!(cwd);
        }
        vec![
            head,
            c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
                "params": {"_meta": {"token": "[REDACTED:SECRETX_TOKEN]"}}})),
            s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
        ]
    };
    write_transcript(&dir.path().join("here.jsonl"), &lines(None));
    write_transcript(&dir.path().join("root.jsonl"), &lines(Some("/")));
    for fill in [None, Some("SECRETX_TOKEN")] {
        let _ = std::fs::remove_file(&received);
        let mut cmd = Command::new(bin());
        cmd.arg("serve")
            .current_dir(dir.path())
            .env("SECRETX_TOKEN", SECRET)
            .env_remove("MCP_REPLAY_FILL_ENV");
        if let Some(list) = fill {
            cmd.env("MCP_REPLAY_FILL_ENV", list);
        }
        let mut host = Host::spawn(cmd);
        host.send(format!("{}\n", initialize(0)).as_bytes());
        answer_to(&mut host, 0);
        let call = |host: &mut Host, id: i64, arguments: Value| {
            let line = request(
                json!(id),
                "tools/call",
                json!({"name": "check", "arguments": arguments}),
            );
            host.send(format!("{line}\n").as_bytes());
            answer_to(host, id)
        };
        let text = |answer: &Value| {
            answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        let answer = call(
            &mut host,
            1,
            // The host is a bare ping, which the host laws fail: waived.
            json!({"paths": ["here.jsonl"], "no_probes": true, "waive": ["host-first-message"]}),
        );
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        let got = std::fs::read_to_string(&received).unwrap();
        match fill {
            None => {
                assert!(
                    !got.contains(SECRET) && got.contains("[REDACTED:SECRETX_TOKEN]"),
                    "{got}"
                );
                assert!(
                    text(&answer)
                        .contains("`[REDACTED:SECRETX_TOKEN]` (line 2) was sent as it stands"),
                    "{answer}"
                );
            }
            Some(_) => assert!(got.contains(SECRET), "{got}"),
        }
        assert!(!text(&answer).contains(SECRET), "{answer}");
        let answer = call(
            &mut host,
            2,
            json!({"paths": ["root.jsonl"], "no_probes": true}),
        );
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert!(text(&answer).contains("root.jsonl:1: the header's `cwd` (\"/\") leads to `/`, outside the directory `check` runs in"), "{answer}");
        for (id, argument) in [(3, "allow_cwd"), (4, "fill_env")] {
            let answer = call(
                &mut host,
                id,
                json!({"paths": ["root.jsonl"], argument: ["/"]}),
            );
            assert_eq!(answer["result"]["isError"], true, "{argument}: {answer}");
            assert!(
                text(&answer).contains("invalid arguments"),
                "{argument}: {answer}"
            );
        }
        host.close_stdin();
        assert_eq!(host.wait().code(), Some(0));
    }
}

/// The `with:` keys of every use of the Action in `page`, with the line of
/// each.
fn action_inputs_used(page: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = page.lines().collect();
    let mut used = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if !line
            .trim_start()
            .trim_start_matches("- ")
            .starts_with("uses: OWNER/mcp-replay@")
        {
            continue;
        }
        let Some(with) = lines[at + 1..]
            .iter()
            .position(|next| next.trim() == "with:")
            .map(|offset| at + 1 + offset)
        else {
            continue;
        };
        let indent = |line: &str| line.len() - line.trim_start().len();
        let keys = indent(lines[with + 1]);
        for (offset, next) in lines[with + 1..].iter().enumerate() {
            if next.trim().is_empty() || indent(next) < keys {
                break;
            }
            if indent(next) == keys && !next.trim_start().starts_with('#') {
                let key = next.trim().split(':').next().unwrap().to_owned();
                used.push((with + 2 + offset, key));
            }
        }
    }
    used
}

/// docs/security.md as the tests run it: its sample error is what `check`
/// says of a transcript whose `cwd` is `/`, word for word; the flags it
/// names are flags of their commands; every use of the Action there and in
/// docs/ci.md gives only inputs `action.yml` declares.
#[test]
fn the_security_page_says_what_the_commands_do() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/security.md")).unwrap();
    let sample = page
        .lines()
        .find(|line| line.starts_with(" ERROR transcripts/t.jsonl:1: the header's `cwd`"))
        .expect("the page shows the error");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("transcripts")).unwrap();
    write_transcript(
        &dir.path().join("transcripts/t.jsonl"),
        &[header(&["my-server"], json!({"cwd": "/"}))],
    );
    let stdout = stdout_with_code(check(dir.path()).arg("--no-probes"), 2);
    let real = dir.path().canonicalize().unwrap();
    let shown = stdout.replace(real.to_str().unwrap(), "/home/me/project");
    assert!(
        shown.lines().any(|line| line == sample),
        "{sample}\n{shown}"
    );

    let manifest: Value =
        serde_json::from_slice(&Command::new(bin()).arg("manifest").output().unwrap().stdout)
            .unwrap();
    for (command, flag) in [
        ("check", "allow-cwd"),
        ("check", "fill-env"),
        ("mock", "fill-env"),
        ("record", "force"),
        ("check", "bless"),
        ("check", "cli-probes"),
    ] {
        assert!(page.contains(&format!("--{flag}")), "{flag}");
        let entry = &manifest["commands"][command]["flags"][flag];
        assert!(entry.is_object(), "`{command} --{flag}` is no flag");
    }
    for flag in ["allow-cwd", "fill-env"] {
        assert_eq!(
            manifest["commands"]["check"]["flags"][flag]["mcp"], false,
            "serve's check tool must not take `{flag}`"
        );
    }

    let action = std::fs::read_to_string(root.join("action.yml")).unwrap();
    let inputs = action
        .split("\ninputs:\n")
        .nth(1)
        .unwrap()
        .split("\noutputs:")
        .next()
        .unwrap();
    let declared: Vec<&str> = inputs
        .lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   ") && line.ends_with(':'))
        .map(|line| line.trim().trim_end_matches(':'))
        .collect();
    assert!(
        declared.contains(&"server") && declared.contains(&"fill-env"),
        "{declared:?}"
    );
    for name in ["docs/security.md", "docs/ci.md"] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        let used = action_inputs_used(&text);
        assert!(!used.is_empty(), "{name}");
        for (line, key) in used {
            assert!(
                declared.contains(&key.as_str()),
                "{name}:{line}: `{key}` is no input of action.yml"
            );
        }
        assert!(
            text.contains("security.md") || name.ends_with("security.md"),
            "{name}"
        );
    }
    for name in ["docs/serve.md", "docs/ci.md", "README.md"] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        assert!(
            text.contains("security.md"),
            "{name} points to docs/security.md"
        );
    }
}
