//! What a server adds to its tools: typed arguments, resources, prompts,
//! method hooks and notifications from a run, in both eras, with every line
//! held to its revision's schema and the loop's laws.

use std::cell::Cell;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::*;
use crate::jsonrpc::ErrorCode;
use crate::model::validate_server_message;

const MODERN: Revision = Revision::V2026_07_28;

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A 2026-07-28 request; `meta` is merged into its `_meta`.
fn modern(id: i64, method: &str, mut params: Value, meta: Value) -> String {
    let mut full = modern_meta();
    if let (Some(full), Value::Object(extra)) = (full.as_object_mut(), meta) {
        full.extend(extra);
    }
    params["_meta"] = full;
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn request(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn initialize(version: &str) -> String {
    request(
        0,
        "initialize",
        json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    )
}

/// Serves `lines`, holds every line written to `revision`'s schema, and
/// returns them parsed.
fn served(server: &Server, revision: Revision, lines: &[String]) -> Vec<Value> {
    let lines = lines.iter().map(|line| line.as_bytes().to_vec()).collect();
    let answers: Vec<Value> = serve_raw(server, lines)
        .iter()
        .map(|line| serde_json::from_slice(line).expect("every line is JSON"))
        .collect();
    for answer in &answers {
        let violations = validate_server_message(revision, answer);
        assert!(violations.is_empty(), "{answer}: {violations:?}");
    }
    answers
}

/// The answers with `id`, in order.
fn with_id(answers: &[Value], id: i64) -> Vec<&Value> {
    answers.iter().filter(|a| a["id"] == json!(id)).collect()
}

/// The one answer with `id`.
fn answer(answers: &[Value], id: i64) -> &Value {
    let found = with_id(answers, id);
    assert_eq!(
        found.len(),
        1,
        "{id} answered {} times: {answers:#?}",
        found.len()
    );
    found[0]
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Add {
    a: f64,
    b: f64,
}

/// A server with a typed tool, a tool that reports progress and logs, and
/// a resource, a template and a prompt.
fn open_server() -> Server {
    let tools = ToolSet::new()
        .with_typed(
            ToolDescriptor::new("add", "adds", json!({"type": "object"})),
            |args: Add, _cx: &mut Context<'_>| ToolOutput::ok((args.a + args.b).to_string()),
        )
        .with_typed(
            ToolDescriptor::new("steps", "reports progress", json!({"type": "object"})),
            |_: Value, cx: &mut Context<'_>| {
                let first = cx.progress(1.0, Some(3.0), Some("one"));
                let second = cx.progress(2.0, Some(3.0), None);
                // Progress must increase: a repeat is dropped.
                let repeat = cx.progress(2.0, Some(3.0), None);
                ToolOutput::ok(format!("{first} {second} {repeat}"))
            },
        )
        .with_typed(
            ToolDescriptor::new("logs", "logs", json!({"type": "object"})),
            |_: Value, cx: &mut Context<'_>| {
                let info = cx.log(LogLevel::Info, Some("notes"), "an info");
                let error = cx.log(LogLevel::Error, None, json!({"what": "an error"}));
                ToolOutput::ok(format!("{info} {error}"))
            },
        )
        .with_typed(
            ToolDescriptor::new("changes", "changes the lists", json!({"type": "object"})),
            |_: Value, cx: &mut Context<'_>| {
                let tools = cx.list_changed(List::Tools);
                let prompts = cx.list_changed(List::Prompts);
                ToolOutput::ok(format!("{tools} {prompts}"))
            },
        );
    let resources = ResourceSet::new()
        .with(
            Resource::new("notes://index", "index").with_title("Index"),
            |uri| Ok(vec![ResourceContents::text(uri, "1, 2")]),
        )
        .with(Resource::new("notes://broken", "broken"), |_| {
            Err(ResourceError::Failed("the disk is gone".into()))
        })
        .with(Resource::new("a://first", "first"), |uri| {
            Ok(vec![
                ResourceContents::blob(uri, "AAE=").with_mime_type("application/octet-stream"),
            ])
        })
        .with_template(
            ResourceTemplate::new("notes://{id}", "note"),
            |uri| match uri.strip_prefix("notes://") {
                Some("1") => Ok(vec![
                    ResourceContents::text(uri, "first note").with_mime_type("text/plain"),
                ]),
                _ => Err(ResourceError::NotFound),
            },
        );
    let prompts = PromptSet::new()
        .with(
            Prompt::new("summarize")
                .with_description("summarizes a note")
                .with_argument(PromptArgument::required("id").with_title("Note"))
                .with_argument(PromptArgument::optional("style")),
            |args| {
                Ok(GetPrompt::new(vec![PromptMessage::user(format!(
                    "Summarize note {} {}",
                    args["id"],
                    args.get("style").map_or("plainly", String::as_str)
                ))]))
            },
        )
        .with(Prompt::new("broken"), |_| Err("no template".into()))
        .with(Prompt::new("a-first"), |_| {
            Ok(GetPrompt::new(vec![PromptMessage::assistant("hi")]))
        });
    Server::new("open-server", "1", tools)
        .with_resources(resources)
        .with_prompts(prompts)
        .with_logging()
}

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "arguments": args})
}

mod registries;

/// Typed arguments that the type refuses are a failed run with the reason,
/// never a JSON-RPC error, in both eras.
#[test]
fn typed_arguments_the_type_refuses_are_an_is_error_result() {
    let server = open_server();
    let cases = [
        (json!({"a": 1, "b": 2}), false, "3"),
        (json!({"a": 1}), true, "missing field `b`"),
        (
            json!({"a": "one", "b": 2}),
            true,
            "invalid type: string \"one\", expected f64",
        ),
        (json!({"a": 1, "b": 2, "c": 3}), true, "unknown field `c`"),
    ];
    for revision in [Revision::V2025_06_18, MODERN] {
        let mut lines = vec![initialize(revision.as_str())];
        for (id, (args, _, _)) in cases.iter().enumerate() {
            let params = call("add", args.clone());
            lines.push(if revision.is_modern() {
                modern(id as i64 + 1, "tools/call", params, json!({}))
            } else {
                request(id as i64 + 1, "tools/call", params)
            });
        }
        if revision.is_modern() {
            lines.remove(0);
        }
        let answers = served(&server, revision, &lines);
        for (id, (_, is_error, text)) in cases.iter().enumerate() {
            let answer = answer(&answers, id as i64 + 1);
            assert_eq!(answer["result"]["isError"], json!(is_error), "{answer}");
            let report = answer["result"]["content"][0]["text"].as_str().unwrap();
            assert!(report.contains(text), "{report}");
            if *is_error {
                assert!(
                    report.starts_with("invalid arguments for `add`: "),
                    "{report}"
                );
            }
        }
    }
}

/// MCP basic/utilities/progress: progress goes out only for a request that
/// carried a token, with that token, increasing, and before the answer.
#[test]
fn progress_precedes_the_answer_and_carries_the_request_token() {
    let server = open_server();
    for revision in [Revision::V2024_11_05, Revision::V2025_03_26, MODERN] {
        let with_token = json!({"name": "steps", "_meta": {"progressToken": "tok-7"}});
        let lines = if revision.is_modern() {
            vec![
                modern(
                    1,
                    "tools/call",
                    json!({"name": "steps"}),
                    json!({"progressToken": "tok-7"}),
                ),
                modern(2, "tools/call", json!({"name": "steps"}), json!({})),
            ]
        } else {
            vec![
                initialize(revision.as_str()),
                request(1, "tools/call", with_token),
                request(2, "tools/call", json!({"name": "steps"})),
            ]
        };
        let answers = served(&server, revision, &lines);
        let skip = usize::from(!revision.is_modern());
        let methods: Vec<_> = answers[skip..]
            .iter()
            .map(|a| {
                a["method"]
                    .as_str()
                    .map_or(a["id"].to_string(), str::to_owned)
            })
            .collect();
        assert_eq!(
            methods,
            ["notifications/progress", "notifications/progress", "1", "2"],
            "{revision}"
        );
        let first = &answers[skip]["params"];
        assert_eq!(first["progressToken"], "tok-7");
        assert_eq!(first["progress"], 1.0);
        assert_eq!(first["total"], 3.0);
        // `message` came with 2025-03-26.
        assert_eq!(
            first.get("message").is_some(),
            revision >= Revision::V2025_03_26,
            "{revision}: {first}"
        );
        assert_eq!(answers[skip + 1]["params"]["progress"], 2.0);
        assert_eq!(
            answer(&answers, 1)["result"]["content"][0]["text"],
            "true true false"
        );
        assert_eq!(
            answer(&answers, 2)["result"]["content"][0]["text"],
            "false false false"
        );
    }
}

/// MCP server/utilities/logging: a legacy client gets no log message before
/// `logging/setLevel`, then only those at or above its level; a bad level
/// is -32602.
#[test]
fn no_log_message_without_set_level() {
    let server = open_server();
    let logs = || call("logs", json!({}));
    let answers = served(
        &server,
        Revision::V2025_06_18,
        &[
            initialize("2025-06-18"),
            request(1, "tools/call", logs()),
            request(2, "logging/setLevel", json!({"level": "warning"})),
            request(3, "tools/call", logs()),
            request(4, "logging/setLevel", json!({"level": "loud"})),
            request(5, "logging/setLevel", json!({"level": "debug"})),
            request(6, "tools/call", logs()),
        ],
    );
    assert_eq!(answers[0]["result"]["capabilities"]["logging"], json!({}));
    let shape: Vec<String> = answers[1..]
        .iter()
        .map(|a| match a["method"].as_str() {
            Some(_) => format!("log {}", a["params"]["level"].as_str().unwrap()),
            None => a["id"].to_string(),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "1",
            "2",
            "log error",
            "3",
            "4",
            "5",
            "log info",
            "log error",
            "6"
        ]
    );
    assert_eq!(
        answer(&answers, 1)["result"]["content"][0]["text"],
        "false false"
    );
    assert_eq!(answer(&answers, 2)["result"], json!({}));
    assert_eq!(error_code(answer(&answers, 4)), Some(-32602));
    let info = &answers[7]["params"];
    assert_eq!(info["logger"], "notes");
    assert_eq!(info["data"], "an info");

    // A server that does not declare logging neither answers setLevel nor
    // logs.
    let quiet = Server::new("quiet", "1", ToolSet::new());
    let answers = served(
        &quiet,
        Revision::V2025_06_18,
        &[
            initialize("2025-06-18"),
            request(1, "logging/setLevel", json!({"level": "debug"})),
        ],
    );
    assert!(
        answers[0]["result"]["capabilities"]
            .get("logging")
            .is_none()
    );
    assert_eq!(error_code(&answers[1]), Some(-32601));
}

/// MCP 2026-07-28 server/utilities/logging: a request opts in with its
/// `_meta` log level; without one nothing is logged, and an unknown level
/// is -32602.
#[test]
fn modern_log_messages_only_for_a_request_that_asked() {
    let server = open_server();
    let level = |level: &str| json!({"io.modelcontextprotocol/logLevel": level});
    let answers = served(
        &server,
        MODERN,
        &[
            modern(1, "tools/call", call("logs", json!({})), json!({})),
            modern(2, "tools/call", call("logs", json!({})), level("error")),
            modern(3, "tools/call", call("logs", json!({})), level("loud")),
        ],
    );
    let shape: Vec<String> = answers
        .iter()
        .map(|a| match a["method"].as_str() {
            Some(_) => format!("log {}", a["params"]["level"].as_str().unwrap()),
            None => a["id"].to_string(),
        })
        .collect();
    assert_eq!(shape, ["1", "log error", "2", "3"]);
    assert_eq!(error_code(answer(&answers, 3)), Some(-32602));
}

/// Capabilities name only what is registered, in `initialize` and
/// MCP server/resources: lists sorted, each field for the revisions that
/// know it; reads of listed and templated URIs; an unknown URI is -32002
/// MCP server/prompts: the list sorted by name; `prompts/get` fills one in;
/// an unknown name, a missing required argument, an undeclared one or one
/// A method hook answers its requests once each, in both eras; unknown
/// methods are still -32601; a panic or a result that is no object is
/// -32603; 2026-07-28's removed methods stay unknown there; a notification
/// hook is called and never answered.
#[test]
fn hooks_answer_once_and_keep_the_laws() {
    let seen = Rc::new(Cell::new(0));
    let counted = Rc::clone(&seen);
    let server = Server::new("hooked", "1", ToolSet::new())
        .with_method("notes/count", |params, cx| {
            cx.progress(1.0, None, None);
            Ok(json!({"count": params["of"].as_array().map_or(0, Vec::len)}))
        })
        .with_method("notes/fail", |_, _| {
            Err(MethodError::invalid_params("no such note").with_data(json!({"id": 9})))
        })
        .with_method("notes/reserved", |_, _| {
            Err(MethodError::new(ErrorCode(-32050), "reserved code"))
        })
        .with_method("notes/panic", |_, _| panic!("the hook broke"))
        .with_method("notes/array", |_, _| Ok(json!([1])))
        .with_method("resources/subscribe", |_, _| Ok(json!({})))
        .with_notification("notes/seen", move |_| counted.set(counted.get() + 1));
    for revision in [Revision::V2025_06_18, MODERN] {
        seen.set(0);
        let req = |id, method: &str, params: Value, meta: Value| {
            if revision.is_modern() {
                modern(id, method, params, meta)
            } else {
                let mut params = params;
                if let Value::Object(meta) = meta {
                    params["_meta"] = Value::Object(meta);
                }
                request(id, method, params)
            }
        };
        let mut lines = vec![
            req(
                1,
                "notes/count",
                json!({"of": [1, 2]}),
                json!({"progressToken": 5}),
            ),
            req(2, "notes/fail", json!({}), json!({})),
            req(3, "notes/reserved", json!({}), json!({})),
            req(4, "notes/panic", json!({}), json!({})),
            req(5, "notes/array", json!({}), json!({})),
            req(6, "notes/unknown", json!({}), json!({})),
            req(7, "resources/subscribe", json!({"uri": "x://1"}), json!({})),
            r#"{"jsonrpc":"2.0","method":"notes/seen","params":{}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","method":"notes/seen"}"#.to_owned(),
        ];
        if !revision.is_modern() {
            lines.insert(0, initialize(revision.as_str()));
        }
        let answers = served(&server, revision, &lines);
        assert_eq!(seen.get(), 2, "{revision}");
        let ids: Vec<_> = answers.iter().filter_map(|a| a["id"].as_i64()).collect();
        let expected: &[i64] = if revision.is_modern() {
            &[1, 2, 3, 4, 5, 6, 7]
        } else {
            &[0, 1, 2, 3, 4, 5, 6, 7]
        };
        assert_eq!(ids, expected, "every request answered once, in order");
        let progress = answers
            .iter()
            .position(|a| a["method"] == "notifications/progress");
        let first = answers.iter().position(|a| a["id"] == 1);
        assert!(progress.is_some() && progress < first, "{answers:#?}");
        let count = &answer(&answers, 1)["result"];
        assert_eq!(count["count"], 2);
        assert_eq!(count.get("resultType").is_some(), revision.is_modern());
        assert_eq!(error_code(answer(&answers, 2)), Some(-32602));
        assert_eq!(answer(&answers, 2)["error"]["data"]["id"], 9);
        let reserved = if revision.is_modern() { -32603 } else { -32050 };
        assert_eq!(error_code(answer(&answers, 3)), Some(reserved));
        assert_eq!(error_code(answer(&answers, 4)), Some(-32603));
        assert_eq!(error_code(answer(&answers, 5)), Some(-32603));
        assert_eq!(error_code(answer(&answers, 6)), Some(-32601));
        let subscribe = error_code(answer(&answers, 7));
        assert_eq!(
            subscribe,
            revision.is_modern().then_some(-32601),
            "{revision}"
        );
    }
}

/// The methods the library answers itself cannot be hooked.
#[test]
fn built_in_methods_cannot_be_hooked() {
    for name in BUILT_IN {
        let hooked = std::panic::catch_unwind(|| {
            Server::new("s", "1", ToolSet::new()).with_method(*name, |_, _| Ok(json!({})))
        });
        assert!(hooked.is_err(), "{name} was hooked");
    }
}

/// `list_changed` goes out only to legacy clients of a server that says
/// its lists change, and only for the lists it offers.
#[test]
fn list_changes_only_where_the_capabilities_announce_them() {
    let changing = || {
        Server::new(
            "changing",
            "1",
            ToolSet::new().with_typed(
                ToolDescriptor::new("changes", "changes", json!({"type": "object"})),
                |_: Value, cx: &mut Context<'_>| {
                    let tools = cx.list_changed(List::Tools);
                    let prompts = cx.list_changed(List::Prompts);
                    ToolOutput::ok(format!("{tools} {prompts}"))
                },
            ),
        )
    };
    let report = |server: &Server, revision: Revision| {
        let lines = if revision.is_modern() {
            vec![modern(
                1,
                "tools/call",
                call("changes", json!({})),
                json!({}),
            )]
        } else {
            vec![
                initialize(revision.as_str()),
                request(1, "tools/call", call("changes", json!({}))),
            ]
        };
        let answers = served(server, revision, &lines);
        let notes: Vec<_> = answers
            .iter()
            .filter_map(|a| a["method"].as_str())
            .map(str::to_owned)
            .collect();
        (
            answer(&answers, 1)["result"]["content"][0]["text"].clone(),
            notes,
        )
    };
    let announcing = changing().with_list_changed();
    assert_eq!(
        report(&announcing, Revision::V2025_06_18),
        (
            json!("true false"),
            vec!["notifications/tools/list_changed".to_owned()]
        )
    );
    assert_eq!(report(&announcing, MODERN), (json!("false false"), vec![]));
    assert_eq!(
        report(&changing(), Revision::V2025_06_18),
        (json!("false false"), vec![])
    );
    let answers = served(
        &announcing,
        Revision::V2025_06_18,
        &[initialize("2025-06-18")],
    );
    assert_eq!(
        answers[0]["result"]["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    // The open server's own tool: no announcement without the capability.
    let answers = served(
        &open_server(),
        Revision::V2025_06_18,
        &[
            initialize("2025-06-18"),
            request(1, "tools/call", call("changes", json!({}))),
        ],
    );
    assert_eq!(answers.len(), 2);
}

/// A batch of 2025-03-26 carries the answers of its requests; the progress
/// of a call inside it goes out before the batch's line.
#[test]
fn progress_inside_a_batch_precedes_the_batch() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "steps", "_meta": {"progressToken": 1}}},
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}
    ])
    .to_string();
    let answers = served(
        &open_server(),
        Revision::V2025_03_26,
        &[initialize("2025-03-26"), batch],
    );
    assert_eq!(answers.len(), 4, "{answers:#?}");
    assert_eq!(answers[1]["method"], "notifications/progress");
    assert_eq!(answers[2]["method"], "notifications/progress");
    assert!(answers[3].is_array());
}
