//! The transcript format's JSON Schema (`docs/transcript.schema.json`)
//! against the transcripts the crate writes and the bundled ones.
//!
//! The validator is the small subset of JSON Schema the schema uses, so the
//! check needs no dependency; a keyword it does not know fails the test, so
//! the schema cannot quietly outgrow it.

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::{Map, Value};

use crate::util::{STEP, python};

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/transcript.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Validates `value` against `schema`; the errors name the JSON pointer.
fn validate(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Value::Object(schema) = schema else {
        panic!("a schema is an object at {at}");
    };
    for (keyword, arg) in schema {
        match keyword.as_str() {
            "$schema" | "$id" | "title" | "description" | "$defs" => {}
            "$ref" => {
                let name = arg.as_str().unwrap().strip_prefix("#/$defs/").unwrap();
                validate(root, &root["$defs"][name], value, at, errors);
            }
            "type" => {
                let ok = match arg.as_str().unwrap() {
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    "string" => value.is_string(),
                    "boolean" => value.is_boolean(),
                    "number" => value.is_number(),
                    "integer" => value.is_i64() || value.is_u64(),
                    other => panic!("unknown type {other}"),
                };
                if !ok {
                    errors.push(format!("{at}: expected {arg}, found {value}"));
                }
            }
            "const" if value != arg => errors.push(format!("{at}: expected {arg}, found {value}")),
            "enum" if !arg.as_array().unwrap().contains(value) => {
                errors.push(format!("{at}: {value} is not one of {arg}"));
            }
            "const" | "enum" => {}
            "required" => {
                for key in arg.as_array().unwrap() {
                    let key = key.as_str().unwrap();
                    if value.as_object().is_some_and(|o| !o.contains_key(key)) {
                        errors.push(format!("{at}: missing `{key}`"));
                    }
                }
            }
            "properties" => {
                if let Some(object) = value.as_object() {
                    for (key, sub) in arg.as_object().unwrap() {
                        if let Some(field) = object.get(key) {
                            validate(root, sub, field, &format!("{at}/{key}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(arg, &Value::Bool(false), "only `false` is supported");
                let known: Option<&Map<String, Value>> =
                    schema.get("properties").and_then(Value::as_object);
                if let Some(object) = value.as_object() {
                    for key in object.keys() {
                        if !known.is_some_and(|k| k.contains_key(key)) {
                            errors.push(format!("{at}: unexpected `{key}`"));
                        }
                    }
                }
            }
            "items" => {
                for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                    validate(root, arg, item, &format!("{at}/{index}"), errors);
                }
            }
            "minItems" => {
                if value
                    .as_array()
                    .is_some_and(|a| (a.len() as u64) < arg.as_u64().unwrap())
                {
                    errors.push(format!("{at}: fewer than {arg} items"));
                }
            }
            "minLength" => {
                if value
                    .as_str()
                    .is_some_and(|s| (s.chars().count() as u64) < arg.as_u64().unwrap())
                {
                    errors.push(format!("{at}: shorter than {arg}"));
                }
            }
            "minimum" => {
                if value.as_f64().is_some_and(|n| n < arg.as_f64().unwrap()) {
                    errors.push(format!("{at}: below {arg}"));
                }
            }
            "maximum" => {
                if value.as_f64().is_some_and(|n| n > arg.as_f64().unwrap()) {
                    errors.push(format!("{at}: above {arg}"));
                }
            }
            "pattern" => {
                let re = regex::Regex::new(arg.as_str().unwrap()).unwrap();
                if value.as_str().is_some_and(|s| !re.is_match(s)) {
                    errors.push(format!("{at}: {value} does not match {arg}"));
                }
            }
            "oneOf" => {
                let passing = arg
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|sub| {
                        let mut sub_errors = Vec::new();
                        validate(root, sub, value, at, &mut sub_errors);
                        sub_errors.is_empty()
                    })
                    .count();
                if passing != 1 {
                    errors.push(format!(
                        "{at}: {passing} alternatives of oneOf match, not 1"
                    ));
                }
            }
            other => panic!("the test's validator does not know `{other}`"),
        }
    }
}

/// The schema errors of every line of the transcript at `path`.
fn transcript_errors(path: &Path) -> Vec<String> {
    let root = schema();
    let text = std::fs::read_to_string(path).unwrap();
    let mut errors = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let value: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), index + 1));
        let def = if index == 0 { "header" } else { "event" };
        let mut line_errors = Vec::new();
        validate(&root, &root["$defs"][def], &value, "", &mut line_errors);
        errors.extend(
            line_errors
                .into_iter()
                .map(|e| format!("{}:{}: {e}", path.display(), index + 1)),
        );
    }
    errors
}

#[test]
fn recorded_transcripts_match_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\nbanner with API_TOKEN value tok-secret-99\n\xff\xfe\ntail";
    // Answers initialize, echoes everything else, says `eof` on stderr.
    let script = r#"
import sys
for line in sys.stdin.buffer:
    if b'"initialize"' in line:
        line = b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}\n'
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
sys.stderr.write("eof\n")
sys.exit(3)
"#;
    let server = python(script, &[]);
    let output = cargo_bin_cmd!("mcp-replay")
        .args([
            "record",
            "--redact",
            "tok-[a-z]+",
            "--ignore",
            "/result/**/version",
            "-o",
        ])
        .arg(&path)
        .arg("--")
        .args(&server)
        .env("API_TOKEN", "tok-secret-99")
        .current_dir(dir.path())
        .write_stdin(input)
        .timeout(STEP)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let text = std::fs::read_to_string(&path).unwrap();
    // The recording has every kind of event and header field.
    for needle in [
        "\"cwd\":",
        "\"env\":[",
        "\"redact\":{\"env\":[\"API_TOKEN\"],\"patterns\":[",
        "\"ignore\":[",
        "\"msg\":",
        "\"text\":",
        "\"bytes\":",
        "\"eol\":false",
        "\"dir\":\"stderr\"",
        "\"protocol\":\"2024-11-05\"",
        "\"eof\":\"c2s\"",
        "\"exit\":{\"code\":3}",
    ] {
        assert!(text.contains(needle), "no {needle} in {text}");
    }
    assert_eq!(transcript_errors(&path), Vec::<String>::new());
}

#[test]
fn bundled_transcripts_match_the_schema() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("the bundled transcripts") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "jsonl") {
            assert_eq!(transcript_errors(&path), Vec::<String>::new());
            checked += 1;
        }
    }
    assert!(checked >= 2, "found {checked} bundled transcripts");
}

#[test]
fn the_schema_rejects_what_the_format_forbids() {
    let root = schema();
    let check = |def: &str, line: &str| {
        let mut errors = Vec::new();
        let value: Value = serde_json::from_str(line).unwrap();
        validate(&root, &root["$defs"][def], &value, "", &mut errors);
        errors
    };
    let header = r#"{"format":"mcp-replay-transcript","version":1,"tool":"mcp-replay 0.1.0","created":"2026-11-29T00:00:00Z","command":["server"]}"#;
    assert!(check("header", header).is_empty());
    assert!(check("header", &header.replace("\"version\":1", "\"version\":2")).is_empty());
    for bad in [
        header.replace("\"version\":1", "\"version\":3"),
        header.replace("[\"server\"]", "\"server --stdio\""),
        header.replace("[\"server\"]", "[]"),
        header.replace("2026-11-29T00:00:00Z", "yesterday"),
        header.replace("\"format\"", "\"extra\":1,\"format\""),
    ] {
        assert!(!check("header", &bad).is_empty(), "accepted {bad}");
    }
    assert!(check("event", r#"{"t":0.1,"dir":"c2s","msg":{"a":1}}"#).is_empty());
    assert!(check("event", r#"{"t":0.1,"eof":"c2s"}"#).is_empty());
    assert!(check("event", r#"{"t":0.1,"signal":15}"#).is_empty());
    for bad in [
        r#"{"t":0.1,"dir":"up","msg":{}}"#,
        r#"{"t":0.1,"dir":"c2s","msg":{},"text":"x"}"#,
        r#"{"t":0.1,"dir":"c2s"}"#,
        r#"{"t":0.1,"dir":"c2s","bytes":"not base64!"}"#,
        r#"{"t":-1,"protocol":"2024-11-05"}"#,
        r#"{"t":0.1,"exit":{"code":0,"signal":9}}"#,
        r#"{"t":0.1,"eof":"s2c"}"#,
        r#"{"t":0.1,"signal":0}"#,
        r#"{"t":0.1,"signal":15,"eof":"c2s"}"#,
        r#"{"t":0.1}"#,
    ] {
        assert!(!check("event", bad).is_empty(), "accepted {bad}");
    }
}

/// The bundled transcripts replay as recorded from the crate's root, as
/// the README runs them: a change to what the demo server, `mock` or
/// `serve` answers fails here until they are blessed.
#[test]
fn the_bundled_transcripts_replay_from_the_crate_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The recorded commands name `mcp-replay`: this build's, first on PATH.
    let bin = cargo_bin_cmd!("mcp-replay").get_program().to_owned();
    let mut dirs = vec![Path::new(&bin).parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let output = cargo_bin_cmd!("mcp-replay")
        .current_dir(root)
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .args(["check", "transcripts/"])
        .timeout(STEP * 4)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("6 passed"), "{stdout}");
}
