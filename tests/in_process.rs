//! The in-process testing API, used as a server author uses it: a server
//! built on the library, a transcript on disk, one call.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_replay::laws::LawId;
use mcp_replay::testing::{self, Replay};
use mcp_replay::{Server, Tool, ToolDescriptor, ToolOutput, ToolSet};
use serde_json::{Value, json};

/// The notes example, whose sessions with the official SDK clients are
/// recorded beside it.
#[path = "../examples/notes.rs"]
#[allow(dead_code)]
mod notes;

/// `echo {text}`: answers with its text.
struct Echo;

impl Tool for Echo {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "echo",
            "Answers with its text.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        )
    }

    fn run(&self, args: &Value) -> ToolOutput {
        ToolOutput::ok(args["text"].as_str().unwrap_or_default())
    }
}

fn server(version: &str) -> Server {
    Server::new("echo-server", version, ToolSet::new().with(Echo)).without_capture()
}

/// Holds `actual` to `tests/golden/NAME` (which docs quote), or writes it
/// there with `MCP_REPLAY_BLESS=1`.
fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var("MCP_REPLAY_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        expected,
        actual,
        "{} differs from the output; accept it with `MCP_REPLAY_BLESS=1 cargo test`",
        path.display()
    );
}

/// A transcript header with `ignore` rules besides the one every test
/// here shares: the capabilities are not what these tests are about.
fn header(ignore: &[&str]) -> String {
    let mut rules = vec!["/result/capabilities"];
    rules.extend(ignore);
    json!({
        "format": "mcp-replay-transcript",
        "version": 1,
        "tool": "t",
        "created": "c",
        "command": ["echo-server"],
        "ignore": rules,
    })
    .to_string()
}

/// A transcript file of `header` and `(dir, message)` events.
fn transcript(dir: &Path, header: &str, events: &[(&str, Value)]) -> PathBuf {
    let mut text = format!("{header}\n");
    for (direction, message) in events {
        text.push_str(&json!({"t": 0, "dir": direction, "msg": message}).to_string());
        text.push('\n');
    }
    let path = dir.join("session.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// Replays `path` against the echo server without blessing: it passes,
/// with no finding at all.
fn assert_clean(path: &Path) {
    let verdict = Replay::new(path)
        .bless(false)
        .run(&server("1.0.0"))
        .unwrap();
    assert!(
        verdict.passed() && verdict.findings().is_empty(),
        "{verdict}"
    );
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn initialize() -> Value {
    request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    )
}

fn init_result(version: &str) -> Value {
    result(
        json!(1),
        json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo-server", "version": version}}),
    )
}

fn call_echo(id: Value, text: &str) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": text}}),
    )
}

fn echoed(id: Value, text: &str) -> Value {
    result(
        id,
        json!({"content": [{"type": "text", "text": text}], "isError": false}),
    )
}

/// A legacy session: initialize, initialized, a call whose answer says
/// `answer`.
fn session(answer: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("c2s", initialize()),
        ("s2c", init_result("1.0.0")),
        (
            "c2s",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
        ("c2s", call_echo(json!("a"), "hi")),
        ("s2c", echoed(json!("a"), answer)),
    ]
}

#[test]
fn a_session_answered_as_recorded_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), &header(&[]), &session("hi"));
    assert_clean(&path);
    testing::assert_replays(&server("1.0.0"), &path);
}

#[test]
fn a_changed_answer_fails_with_the_diff_and_the_way_to_bless_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), &header(&[]), &session("hello"));
    let verdict = Replay::new(&path)
        .bless(false)
        .run(&server("1.0.0"))
        .unwrap();
    assert!(!verdict.passed());
    assert_eq!(verdict.findings().len(), 1, "{verdict}");
    assert_eq!(verdict.findings()[0].law, LawId::TranscriptMatch);
    let text = verdict.to_string();
    assert!(text.contains("FAILED (1 finding)"), "{text}");
    assert!(text.contains("session.jsonl:6"), "{text}");
    assert!(text.contains(r#"-        "text": "hello","#), "{text}");
    assert!(text.contains(r#"+        "text": "hi","#), "{text}");
    assert!(
        text.contains("hint: accept the new responses with `MCP_REPLAY_BLESS=1 cargo test`"),
        "{text}"
    );
    // docs/server-library.md shows these words, for a transcript at
    // transcripts/session.jsonl.
    let shown = text.replace(&format!("{}/", dir.path().display()), "transcripts/");
    assert_golden("in-process-failure.txt", &shown);
    // The assert-style helper panics with the same words.
    let panic = std::panic::catch_unwind(|| verdict.assert_passed()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert_eq!(*message, text);
}

#[test]
fn a_blessing_rewrites_the_server_side_and_the_next_replay_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), &header(&[]), &session("stale"));
    let verdict = Replay::new(&path)
        .bless(true)
        .run(&server("1.0.0"))
        .unwrap();
    assert!(verdict.passed(), "{verdict}");
    assert_eq!(verdict.blessed(), 1);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("stale") && text.contains(r#""text":"hi""#),
        "{text}"
    );
    assert_clean(&path);
}

#[test]
fn the_transcripts_ignore_rules_apply() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), &header(&[]), &session("hi"));
    // Another version of the server answers initialize differently.
    let verdict = Replay::new(&path)
        .bless(false)
        .run(&server("2.0.0"))
        .unwrap();
    assert!(!verdict.passed(), "{verdict}");
    let header = header(&["/result/serverInfo/version"]);
    let path = transcript(dir.path(), &header, &session("hi"));
    let verdict = Replay::new(&path)
        .bless(false)
        .run(&server("2.0.0"))
        .unwrap();
    assert!(verdict.passed(), "{verdict}");
}

#[test]
fn ids_are_remapped_where_the_recording_reused_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut events = session("hi");
    // The recording reused the id "a" once its answer came.
    events.push(("c2s", call_echo(json!("a"), "again")));
    events.push(("s2c", echoed(json!("a"), "again")));
    events.push(("c2s", call_echo(json!(7), "seven")));
    events.push(("s2c", echoed(json!(7), "seven")));
    let path = transcript(dir.path(), &header(&[]), &events);
    assert_clean(&path);
}

#[test]
fn a_stateless_session_replays_too() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let dir = tempfile::tempdir().unwrap();
    let events = vec![
        (
            "c2s",
            request(json!(1), "server/discover", json!({"_meta": meta})),
        ),
        ("s2c", result(json!(1), json!({}))),
        (
            "c2s",
            request(
                json!(2),
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}),
            ),
        ),
        ("s2c", result(json!(2), json!({}))),
    ];
    let path = transcript(dir.path(), &header(&[]), &events);
    // The recorded answers are placeholders: the blessing writes the live
    // ones, which then replay green.
    let blessed = Replay::new(&path)
        .bless(true)
        .run(&server("1.0.0"))
        .unwrap();
    assert_eq!(blessed.blessed(), 2, "{blessed}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""resultType":"complete""#), "{text}");
    assert_clean(&path);
}

#[test]
fn an_unreadable_transcript_is_an_error_that_names_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.jsonl");
    std::fs::write(&path, format!("{}\n{{not json\n", header(&[]))).unwrap();
    let err = Replay::new(&path)
        .timeout(Duration::from_secs(1))
        .run(&server("1.0.0"))
        .unwrap_err();
    assert!(err.to_string().contains("broken.jsonl:2"), "{err}");
}

/// The sessions the official Python (both eras) and TypeScript SDK clients
/// had with the notes example's binary, recorded with `mcp-replay record`,
/// replay unchanged against the same server in-process.
#[test]
fn the_notes_examples_recorded_sdk_sessions_replay_in_process() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes/transcripts");
    for name in [
        "python-sdk.jsonl",
        "python-sdk-legacy.jsonl",
        "typescript-sdk.jsonl",
    ] {
        let verdict = Replay::new(dir.join(name))
            .bless(false)
            .run(&notes::server())
            .unwrap();
        assert!(
            verdict.passed() && verdict.findings().is_empty(),
            "{verdict}"
        );
    }
    testing::assert_replays(&notes::server(), dir.join("python-sdk.jsonl"));
}

/// `seen {text}`: says whether its text still holds a placeholder.
struct Seen;

impl Tool for Seen {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("seen", "Says what it got.", json!({"type": "object"}))
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let text = args["text"].as_str().unwrap_or_default();
        ToolOutput::ok(if text.contains("[REDACTED:") {
            "a placeholder"
        } else {
            "a value"
        })
    }
}

/// A placeholder in a client line is filled only from a variable the test
/// names (or `MCP_REPLAY_FILL_ENV` does), never because the transcript's
/// header lists it; one sent as it stands gets a note saying how to allow
/// it.
#[test]
fn only_the_variables_a_test_names_fill_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let mut head: Value = serde_json::from_str(&header(&[])).unwrap();
    // PATH stands in for a secret: it is set wherever tests run.
    head["redact"] = json!({"env": ["PATH"]});
    let mut events = session("hi");
    events.truncate(3);
    events.push((
        "c2s",
        request(
            json!("s"),
            "tools/call",
            json!({"name": "seen", "arguments": {"text": "[REDACTED:PATH]"}}),
        ),
    ));
    events.push(("s2c", echoed(json!("s"), "a value")));
    let path = transcript(dir.path(), &head.to_string(), &events);
    let server = Server::new("echo-server", "1.0.0", ToolSet::new().with(Seen)).without_capture();
    let filled = Replay::new(&path)
        .bless(false)
        .fill_env("PATH")
        .run(&server)
        .unwrap();
    assert!(filled.passed() && filled.notes().is_empty(), "{filled}");
    let named = std::env::var(mcp_replay::transcript::FILL_ENV).unwrap_or_default();
    if !mcp_replay::transcript::fill_names(&named).contains(&"PATH".to_owned()) {
        let unfilled = Replay::new(&path).bless(false).run(&server).unwrap();
        assert!(!unfilled.passed(), "{unfilled}");
        assert!(
            unfilled.notes().iter().any(|note| note
                .starts_with("`[REDACTED:PATH]` (line 5) was sent as it stands")
                && note.contains("`Replay::fill_env(\"PATH\")`")),
            "{unfilled}"
        );
    }
}
