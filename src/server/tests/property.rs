//! Properties of the loop over any sequence of lines.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

/// A line for the property test, with what the loop must do with it.
#[derive(Debug, Clone)]
enum Line {
    /// A request with a unique id: answered exactly once.
    Request(Vec<u8>, Value),
    /// A notification: never answered.
    Notification(Vec<u8>),
    /// A request whose id is null: answered once, with -32600 and id null.
    NullId(Vec<u8>),
    /// Anything that is no frame: answered once, with -32700.
    Garbage(Vec<u8>),
}

impl Line {
    /// The line as it goes to the loop.
    fn bytes(&self) -> &[u8] {
        match self {
            Line::Request(bytes, _)
            | Line::Notification(bytes)
            | Line::NullId(bytes)
            | Line::Garbage(bytes) => bytes,
        }
    }
}

fn request_line(id: Value, method: &str, params: Option<Value>) -> Vec<u8> {
    let mut object = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        object["params"] = params;
    }
    object.to_string().into_bytes()
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,20}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{0,6}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn arb_method() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("initialize".to_owned()),
        Just("ping".to_owned()),
        Just("tools/list".to_owned()),
        Just("tools/call".to_owned()),
        Just("notifications/cancelled".to_owned()),
        Just("resources/read".to_owned()),
        Just("prompts/get".to_owned()),
        Just("logging/setLevel".to_owned()),
        Just("notes/hook".to_owned()),
        Just("notes/panic".to_owned()),
        ".{0,12}",
    ]
}

/// Lines that are never a frame: they do not start with `{` (after a BOM
/// the loop strips), so they cannot be a JSON object.
fn arb_garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Arbitrary bytes, non-UTF-8 included.
        prop::collection::vec(any::<u8>(), 0..64),
        // Huge lines.
        (1usize..200_000).prop_map(|n| vec![b'x'; n]),
        // JSON that is no object.
        arb_json()
            .prop_filter("not an object", |v| !v.is_object())
            .prop_map(|v| v.to_string().into_bytes()),
    ]
    .prop_map(|mut bytes| {
        bytes.retain(|&b| b != b'\n');
        if bytes.first() == Some(&b'{')
            || bytes.starts_with(b"\xEF\xBB\xBF")
            || looks_like_object(&bytes)
        {
            bytes.insert(0, b'#');
        }
        bytes
    })
}

/// Whether `bytes` would parse as a JSON object (leading whitespace or a
/// trailing `\r` could hide the brace from the first-byte test).
fn looks_like_object(bytes: &[u8]) -> bool {
    matches!(serde_json::from_slice::<Value>(bytes), Ok(Value::Object(_)))
}

fn arb_line(index: usize) -> impl Strategy<Value = Line> {
    // Ids are made unique by embedding the line's index.
    let id = prop_oneof![
        Just(json!(index)),
        Just(json!(format!("id-{index}"))),
        Just(json!(-(index as i64) - 1)),
    ];
    prop_oneof![
        (id, arb_method(), proptest::option::of(arb_json())).prop_map(|(id, method, params)| {
            Line::Request(request_line(id.clone(), &method, params), id)
        }),
        (
            arb_method(),
            proptest::option::of(arb_json()),
            any::<bool>()
        )
            .prop_map(|(method, params, null_id)| {
                let mut object = json!({"jsonrpc": "2.0", "method": method});
                if let Some(params) = params {
                    object["params"] = params;
                }
                if null_id {
                    object["id"] = Value::Null;
                    return Line::NullId(object.to_string().into_bytes());
                }
                Line::Notification(object.to_string().into_bytes())
            }),
        (id_or_none(index), arb_json()).prop_map(|(id, extra)| {
            // An object without `method`, `result` or `error`: no frame.
            let mut object = json!({"jsonrpc": "2.0", "extra": extra});
            if let Some(id) = id {
                object["id"] = id;
            }
            Line::Garbage(object.to_string().into_bytes())
        }),
        arb_garbage().prop_map(Line::Garbage),
        Just(Line::Request(
            request_line(
                json!(format!("call-{index}")),
                "tools/call",
                Some(json!({"name": "echo", "arguments": {"text": "x"}}))
            ),
            json!(format!("call-{index}"))
        )),
    ]
}

fn id_or_none(index: usize) -> impl Strategy<Value = Option<Value>> {
    proptest::option::of(Just(json!(format!("bad-{index}"))))
}

fn arb_lines() -> impl Strategy<Value = Vec<Line>> {
    (0usize..40).prop_flat_map(|n| (0..n).map(arb_line).collect::<Vec<_>>())
}

/// A server with everything the library serves besides tools: resources,
/// prompts, logging, and hooks that notify, panic and look at
/// notifications.
fn open_server() -> Server {
    let tools = ToolSet::new().with(Echo).with(Panics).with_typed(
        ToolDescriptor::new("steps", "notifies", json!({"type": "object"})),
        |_: Value, cx: &mut Context<'_>| {
            cx.progress(1.0, None, None);
            cx.log(LogLevel::Emergency, None, "x");
            ToolOutput::ok("done")
        },
    );
    Server::new("open", "1", tools)
        .with_resources(
            ResourceSet::new().with(Resource::new("x://1", "one"), |uri| {
                Ok(vec![ResourceContents::text(uri, "1")])
            }),
        )
        .with_prompts(PromptSet::new().with(Prompt::new("p"), |_| Ok(GetPrompt::new(vec![]))))
        .with_logging()
        .with_list_changed()
        .with_method("notes/hook", |params, cx| {
            cx.progress(1.0, None, None);
            cx.list_changed(List::Tools);
            Ok(json!({ "params": params }))
        })
        .with_method("notes/panic", |_, _| panic!("the hook broke"))
        .with_notification("notes/hook", |_| {})
}

/// The lines a server wrote that answer something: its own notifications
/// (progress, logs, list changes) left out.
fn answers_only(written: &[Vec<u8>]) -> Vec<Value> {
    written
        .iter()
        .map(|line| serde_json::from_slice::<Value>(line).expect("every line is JSON"))
        .filter(|line| line.get("method").is_none())
        .collect()
}

/// Holds what `server` wrote for `lines` to MCP-CORE r1 §1¶08-10.
fn served_by_the_contract(server: &Server, lines: &[Line]) -> Result<(), TestCaseError> {
    let input: Vec<Vec<u8>> = lines.iter().map(|line| line.bytes().to_vec()).collect();
    let answers = answers_only(&serve_raw(server, input));
    let expected: Vec<&Line> = lines
        .iter()
        .filter(|line| !matches!(line, Line::Notification(_)))
        .collect();
    prop_assert_eq!(answers.len(), expected.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (answer, line) in answers.iter().zip(expected) {
        prop_assert_eq!(&answer["jsonrpc"], "2.0");
        match line {
            Line::Request(_, id) => {
                prop_assert_eq!(&answer["id"], id);
                prop_assert!(answer.get("result").is_some() != answer.get("error").is_some());
                *seen.entry(id.to_string()).or_default() += 1;
            }
            Line::Garbage(_) => prop_assert_eq!(error_code(answer), Some(-32700)),
            Line::NullId(_) => {
                prop_assert_eq!(&answer["id"], &Value::Null);
                prop_assert_eq!(error_code(answer), Some(-32600));
            }
            Line::Notification(_) => unreachable!("filtered out"),
        }
    }
    prop_assert!(seen.values().all(|&n| n == 1));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// MCP-CORE r1 §1¶08-10 as a property: whatever the lines, the loop never
    /// panics, answers every request exactly once and in order, answers no
    /// notification, and answers every other line with one -32700.
    #[test]
    fn any_sequence_of_lines_is_served_by_the_contract(lines in arb_lines()) {
        served_by_the_contract(&server(), &lines)?;
    }

    /// MCP-CORE r1 §1¶08-10 hold for a server with resources, prompts,
    /// logging and hooks too: whatever its hooks and tools notify, each
    /// request is answered once, in order, and no notification is.
    #[test]
    fn the_contract_holds_around_hooks_and_registries(lines in arb_lines()) {
        served_by_the_contract(&open_server(), &lines)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// MCP-CORE r1 §1¶08-10 hold in every era: after a first move that
    /// makes the process stateless, or that starts a 2025-11-25 session,
    /// every request is still answered exactly once with its id, no
    /// notification is answered, and every other line gets one -32700.
    #[test]
    fn the_contract_holds_in_both_eras(lines in arb_lines(), modern_first in any::<bool>()) {
        let first = if modern_first {
            r#"{"jsonrpc":"2.0","id":"first","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        } else {
            r#"{"jsonrpc":"2.0","id":"first","method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#
        };
        let mut input = vec![first.as_bytes().to_vec()];
        input.extend(lines.iter().map(|line| line.bytes().to_vec()));
        let answers: Vec<Value> = serve_raw(&server(), input)
            .iter()
            .map(|line| serde_json::from_slice(line).expect("every answer is JSON"))
            .collect();
        prop_assert!(answers[0].get("result").is_some(), "{}", answers[0]);
        let expected: Vec<&Line> = lines
            .iter()
            .filter(|line| !matches!(line, Line::Notification(_)))
            .collect();
        prop_assert_eq!(answers.len(), expected.len() + 1);
        // A later `initialize` starts a new legacy session, at a revision
        // its params pick; a stateless process refuses it.
        let mut renegotiated = false;
        for (answer, line) in answers[1..].iter().zip(expected) {
            prop_assert_eq!(&answer["jsonrpc"], "2.0");
            match line {
                Line::Request(bytes, id) => {
                    let request: Value = serde_json::from_slice(bytes).unwrap();
                    renegotiated |= !modern_first && request["method"] == "initialize";
                    prop_assert_eq!(&answer["id"], id);
                    prop_assert!(answer.get("result").is_some() != answer.get("error").is_some());
                }
                Line::Garbage(_) => {
                    prop_assert_eq!(error_code(answer), Some(-32700));
                    // No id could be read from garbage, and both first
                    // moves pick a revision whose schema allows none.
                    if !renegotiated {
                        prop_assert!(answer.get("id").is_none_or(|id| !id.is_null()), "{}", answer);
                    }
                }
                Line::NullId(_) => {
                    prop_assert_eq!(&answer["id"], &Value::Null);
                    prop_assert_eq!(error_code(answer), Some(-32600));
                }
                Line::Notification(_) => unreachable!("filtered out"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The stdio transport splits a byte stream into the same lines the
    /// replay double hands over, so the loop answers both alike, and every
    /// answer is flushed by the end of input.
    #[test]
    fn the_stdio_transport_serves_a_stream_like_the_replay_double(lines in arb_lines(), crlf in any::<bool>()) {
        use std::io::{Read, Seek, Write};

        let server = server();
        let input: Vec<Vec<u8>> = lines.iter().map(|line| line.bytes().to_vec()).collect();
        let mut stdin = tempfile::tempfile().unwrap();
        for line in &input {
            stdin.write_all(line).unwrap();
            stdin.write_all(if crlf { b"\r\n" } else { b"\n" }).unwrap();
        }
        stdin.rewind().unwrap();
        let stdout = tempfile::tempfile().unwrap();
        let mut transport = StdioTransport::new(&stdin, &stdout);
        server.serve(&mut transport).unwrap();
        let mut written = Vec::new();
        (&stdout).rewind().unwrap();
        (&stdout).read_to_end(&mut written).unwrap();

        let mut expected = Vec::new();
        for line in serve_raw(&server, input) {
            expected.extend_from_slice(&line);
            expected.push(b'\n');
        }
        if crlf {
            // A line that ended in `\r` already keeps one `\r` here, which
            // may change a parse error's wording but nothing else.
            let shape = |bytes: &[u8]| -> Vec<(Value, Value, bool)> {
                bytes
                    .split(|&b| b == b'\n')
                    .filter(|line| !line.is_empty())
                    .map(|line| serde_json::from_slice::<Value>(line).unwrap())
                    .map(|answer| (answer["id"].clone(), answer["error"]["code"].clone(), answer.get("result").is_some()))
                    .collect()
            };
            prop_assert_eq!(shape(&written), shape(&expected));
        } else {
            prop_assert_eq!(written, expected);
        }
    }
}
