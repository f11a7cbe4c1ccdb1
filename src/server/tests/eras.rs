//! The revisions and the two eras: each legacy revision's handshake and
//! fields, the stateless 2026-07-28 requests, both on one process, and the
//! answers held to the official schemas where they are at hand.

use serde_json::{Value, json};

use super::*;
use crate::schema::validate as schema;

/// `sum {a, b}`: a tool with every optional descriptor field, answering
/// structured content that satisfies its output schema.
struct Sum;

fn sum_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"sum": {"type": "number"}},
        "required": ["sum"]
    })
}

impl Tool for Sum {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "sum",
            "adds two numbers",
            json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            }),
        )
        .with_title("Sum")
        .with_annotations(
            ToolAnnotations::new()
                .title("Sum of two")
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
        .with_output_schema(sum_schema())
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
        ToolOutput::structured(json!({ "sum": sum }))
    }
}

/// `liar`: declares the output schema of `sum` and breaks it.
struct Liar;

impl Tool for Liar {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "liar",
            "breaks its output schema",
            json!({"type": "object"}),
        )
        .with_output_schema(sum_schema())
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        ToolOutput::structured(json!({"sum": "three"}))
    }
}

/// `mute`: declares an output schema and answers text alone.
struct Mute;

impl Tool for Mute {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("mute", "answers no structure", json!({"type": "object"}))
            .with_output_schema(sum_schema())
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        ToolOutput::ok("3")
    }
}

fn eras_server() -> Server {
    let tools = ToolSet::new().with(Sum).with(Liar).with(Mute).with(Echo);
    Server::new("era-server", "2.0.0", tools).without_capture()
}

/// The `_meta` every modern request carries.
fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1"}
    })
}

/// A 2026-07-28 request with `params` and the modern `_meta`.
fn modern(id: i64, method: &str, mut params: Value) -> String {
    params["_meta"] = modern_meta("2026-07-28");
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn initialize(id: i64, version: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    })
    .to_string()
}

fn request(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn descriptor<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` in {list}"))
}

fn message(answer: &Value) -> &str {
    answer["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message: {answer}"))
}

/// Each legacy revision the library speaks is answered as asked, and its
/// tool descriptors and results carry exactly the fields it knows:
/// `annotations` from 2025-03-26, `title`, `outputSchema` and
/// `structuredContent` from 2025-06-18; no legacy result has a
/// `resultType`.
#[test]
fn each_legacy_revision_gets_its_own_fields() {
    let expected: [(&str, &[&str], bool); 4] = [
        ("2024-11-05", &["description", "inputSchema", "name"], false),
        (
            "2025-03-26",
            &["annotations", "description", "inputSchema", "name"],
            false,
        ),
        (
            "2025-06-18",
            &[
                "annotations",
                "description",
                "inputSchema",
                "name",
                "outputSchema",
                "title",
            ],
            true,
        ),
        (
            "2025-11-25",
            &[
                "annotations",
                "description",
                "inputSchema",
                "name",
                "outputSchema",
                "title",
            ],
            true,
        ),
    ];
    for (revision, fields, structured) in expected {
        let answers = serve(
            &eras_server(),
            &[
                &initialize(1, revision),
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                &request(2, "tools/list", json!({})),
                &call(3, json!({"name": "sum", "arguments": {"a": 1, "b": 2}})),
            ],
        );
        assert_eq!(answers.len(), 3, "{revision}");
        assert_eq!(answers[0]["result"]["protocolVersion"], revision);
        let sum = descriptor(&answers[1], "sum");
        assert_eq!(keys(sum), fields, "{revision}: {sum}");
        if fields.contains(&"annotations") {
            assert_eq!(
                sum["annotations"],
                json!({
                    "title": "Sum of two",
                    "readOnlyHint": true,
                    "destructiveHint": false,
                    "idempotentHint": true,
                    "openWorldHint": false
                })
            );
        }
        assert_eq!(
            keys(descriptor(&answers[1], "echo")),
            ["description", "inputSchema", "name"],
            "{revision}"
        );
        let result = &answers[2]["result"];
        assert_eq!(result["isError"], false, "{revision}: {result}");
        assert_eq!(result["content"][0]["text"], r#"{"sum":3.0}"#);
        assert_eq!(
            result.get("structuredContent").cloned(),
            structured.then(|| json!({"sum": 3.0})),
            "{revision}"
        );
        for answer in &answers {
            assert!(answer["result"].get("resultType").is_none(), "{answer}");
        }
    }
}

/// `server/discover` answers the `DiscoverResult` (MCP 2026-07-28
/// server/discover): the stateless versions, the capabilities, the result
/// type, the cache hints and the server's name and version; instructions
/// when the server has them.
#[test]
fn server_discover_answers_the_discover_result() {
    let answers = serve(&eras_server(), &[&modern(1, "server/discover", json!({}))]);
    assert_eq!(
        answers[0],
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {"listChanged": false}},
                "ttlMs": 0,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "era-server", "version": "2.0.0"}}
            }
        })
    );
    let server = eras_server()
        .with_instructions("call sum to add")
        .with_cache_hints(60_000, CacheScope::Private);
    let answers = serve(
        &server,
        &[
            &modern(1, "server/discover", json!({})),
            &modern(2, "tools/list", json!({})),
        ],
    );
    for answer in &answers {
        assert_eq!(answer["result"]["ttlMs"], 60_000, "{answer}");
        assert_eq!(answer["result"]["cacheScope"], "private", "{answer}");
    }
    assert_eq!(answers[0]["result"]["instructions"], "call sum to add");
    let init = serve(&server, &[&initialize(1, "2025-06-18")]);
    assert_eq!(init[0]["result"]["instructions"], "call sum to add");
}

/// Every modern request carries `params._meta` with the protocol version
/// and the client capabilities; a request missing either is invalid params
/// (-32602) naming what is missing (MCP 2026-07-28 basic/index#_meta), and
/// so is a `_meta` that is no object or keys of the wrong type.
#[test]
fn modern_requests_missing_meta_keys_are_invalid_params() {
    let version = "io.modelcontextprotocol/protocolVersion";
    let capabilities = "io.modelcontextprotocol/clientCapabilities";
    let answers = serve(
        &eras_server(),
        &[
            // The first request makes the process modern, though it lacks
            // both keys.
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
            &request(2, "tools/list", json!({"_meta": {version: "2026-07-28"}})),
            &request(3, "tools/list", json!({"_meta": {capabilities: {}}})),
            &request(4, "tools/list", json!({})),
            &request(5, "tools/list", json!({"_meta": "2026-07-28"})),
            &request(
                6,
                "tools/list",
                json!({"_meta": {version: 2026, capabilities: {}}}),
            ),
            &request(
                7,
                "tools/list",
                json!({"_meta": {version: "2026-07-28", capabilities: []}}),
            ),
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#,
            &request(
                9,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "x"}}),
            ),
        ],
    );
    assert_eq!(answers.len(), 9);
    for answer in &answers {
        assert_eq!(error_code(answer), Some(-32602), "{answer}");
    }
    let names = |answer: &Value| {
        (
            message(answer).contains(version),
            message(answer).contains(capabilities),
        )
    };
    assert_eq!(names(&answers[0]), (true, true));
    assert_eq!(
        answers[0]["error"]["data"]["missing"],
        json!([version, capabilities])
    );
    assert_eq!(names(&answers[1]), (false, true));
    assert_eq!(names(&answers[2]), (true, false));
    assert_eq!(names(&answers[3]), (true, true));
    assert!(message(&answers[4]).contains("`params._meta` must be an object"));
    assert_eq!(names(&answers[5]), (true, false));
    assert_eq!(names(&answers[6]), (false, true));
    assert_eq!(names(&answers[7]), (true, true));
    assert_eq!(names(&answers[8]), (true, true));
}

/// A modern request naming a revision the library does not serve
/// statelessly gets -32022 with `data{supported, requested}` (MCP
/// 2026-07-28 basic/versioning), whether the revision is unknown or a
/// legacy one, which is reached through `initialize` only.
#[test]
fn an_unsupported_modern_version_gets_32022_with_data() {
    let mut lines = Vec::new();
    for (id, version) in [(1, "2099-01-01"), (2, "2025-11-25"), (3, "")] {
        let params = json!({"_meta": modern_meta(version)});
        lines.push(request(id, "tools/list", params));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let answers = serve(&eras_server(), &lines);
    for (answer, requested) in answers.iter().zip(["2099-01-01", "2025-11-25", ""]) {
        assert_eq!(error_code(answer), Some(-32022), "{answer}");
        assert_eq!(
            answer["error"]["data"],
            json!({"supported": ["2026-07-28"], "requested": requested})
        );
        assert!(message(answer).contains("2026-07-28"), "{answer}");
    }
}

/// Every modern result carries `resultType: "complete"` and the server's
/// name and version in `_meta`; `tools/list` carries the cache hints too,
/// `tools/call` does not; a modern error is no result and carries none of
/// them (MCP 2026-07-28 basic/index#resulttype, server/utilities/caching).
#[test]
fn modern_results_carry_result_type_cache_hints_and_server_info() {
    let answers = serve(
        &eras_server(),
        &[
            &modern(1, "tools/list", json!({})),
            &modern(
                2,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}}),
            ),
            &modern(
                3,
                "tools/call",
                json!({"name": "sum", "arguments": {"a": 2, "b": 3}}),
            ),
            &modern(4, "tools/call", json!({"name": "echo", "arguments": {}})),
            &modern(5, "tools/call", json!({"name": "nope"})),
        ],
    );
    let info =
        json!({"io.modelcontextprotocol/serverInfo": {"name": "era-server", "version": "2.0.0"}});
    for answer in &answers[..4] {
        assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
        assert_eq!(answer["result"]["_meta"], info, "{answer}");
    }
    assert_eq!(
        keys(&answers[0]["result"]),
        ["_meta", "cacheScope", "resultType", "tools", "ttlMs"]
    );
    assert_eq!(answers[0]["result"]["ttlMs"], 0);
    assert_eq!(answers[0]["result"]["cacheScope"], "public");
    let names: Vec<&str> = answers[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "liar", "mute", "sum"]);
    assert_eq!(
        keys(descriptor(&answers[0], "sum")),
        [
            "annotations",
            "description",
            "inputSchema",
            "name",
            "outputSchema",
            "title"
        ]
    );
    assert_eq!(
        keys(&answers[1]["result"]),
        ["_meta", "content", "isError", "resultType"]
    );
    assert_eq!(answers[1]["result"]["content"][0]["text"], "hi");
    assert_eq!(
        answers[2]["result"]["structuredContent"],
        json!({"sum": 5.0})
    );
    assert_eq!(answers[3]["result"]["isError"], true);
    assert_eq!(error_code(&answers[4]), Some(-32601));
    assert!(answers[4].get("result").is_none());
}

/// `ping`, `logging/setLevel`, `resources/subscribe` and
/// `resources/unsubscribe` are gone from 2026-07-28: on a modern request
/// they are unknown methods (-32601), while a legacy session still answers
/// `ping`.
#[test]
fn removed_methods_are_unknown_on_modern_requests() {
    let answers = serve(
        &eras_server(),
        &[
            &modern(1, "ping", json!({})),
            &modern(2, "logging/setLevel", json!({"level": "info"})),
            &modern(3, "resources/subscribe", json!({"uri": "file:///x"})),
            &modern(4, "resources/unsubscribe", json!({"uri": "file:///x"})),
        ],
    );
    let codes: Vec<Option<i64>> = answers.iter().map(error_code).collect();
    assert_eq!(codes, [Some(-32601); 4]);
    assert!(message(&answers[0]).contains("ping"));
    let legacy = serve(
        &eras_server(),
        &[
            &initialize(1, "2025-11-25"),
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        ],
    );
    assert_eq!(legacy[1]["result"], json!({}));
}

/// Once a request carried modern `_meta`, the process is stateless for
/// good: an `initialize` is an error naming the versions served (MCP
/// 2026-07-28 basic/versioning), starts no session, and every later
/// request still needs its own `_meta`.
#[test]
fn initialize_after_a_modern_request_names_the_supported_versions() {
    let answers = serve(
        &eras_server(),
        &[
            &modern(1, "server/discover", json!({})),
            &initialize(2, "2025-11-25"),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
            &modern(4, "tools/list", json!({})),
        ],
    );
    assert_eq!(answers.len(), 4);
    assert_eq!(error_code(&answers[1]), Some(-32022), "{}", answers[1]);
    assert_eq!(
        answers[1]["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );
    assert!(message(&answers[1]).contains("2026-07-28"));
    assert_eq!(error_code(&answers[2]), Some(-32602));
    assert_eq!(answers[3]["result"]["resultType"], "complete");
}

/// The first move picks the era for the process (MCP 2026-07-28
/// basic/versioning, the compatibility matrix). After `initialize`,
/// requests are served in the negotiated revision, modern `_meta` or not,
/// and `server/discover` is unknown; before either move, a request without
/// modern `_meta` is served as 2024-11-05 and decides nothing. No
/// notification is answered in either era.
#[test]
fn the_first_move_picks_the_era_for_the_process() {
    let legacy = serve(
        &eras_server(),
        &[
            r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#,
            &initialize(1, "2025-06-18"),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            &modern(2, "tools/list", json!({})),
            &modern(3, "server/discover", json!({})),
            &modern(4, "ping", json!({})),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#,
        ],
    );
    assert_eq!(legacy.len(), 5);
    assert_eq!(
        keys(descriptor(&legacy[0], "sum")),
        ["description", "inputSchema", "name"]
    );
    assert_eq!(legacy[1]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(keys(&legacy[2]["result"]), ["tools"]);
    assert!(descriptor(&legacy[2], "sum").get("outputSchema").is_some());
    assert_eq!(error_code(&legacy[3]), Some(-32601));
    assert_eq!(legacy[4]["result"], json!({}));

    let modern_first = serve(
        &eras_server(),
        &[
            &modern(1, "tools/list", json!({})),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            &modern(
                2,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "a"}}),
            ),
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            &initialize(4, "2024-11-05"),
        ],
    );
    let ids: Vec<&Value> = modern_first.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2), &json!(4)]);
    assert_eq!(modern_first[1]["result"]["resultType"], "complete");
    assert_eq!(error_code(&modern_first[2]), Some(-32022));
}

/// A tool that declares an `outputSchema` answers structured content that
/// satisfies it (MCP 2025-06-18 server/tools#output-schema): content that
/// breaks it, or none at all, becomes an `isError` result naming each
/// violation, in every revision.
#[test]
fn structured_output_is_held_to_the_output_schema() {
    for first in [initialize(0, "2025-06-18"), initialize(0, "2024-11-05")] {
        let answers = serve(
            &eras_server(),
            &[
                &first,
                &call(1, json!({"name": "liar"})),
                &call(2, json!({"name": "mute"})),
                &call(3, json!({"name": "sum", "arguments": {"a": 1, "b": 1}})),
            ],
        );
        let report = |answer: &Value| {
            answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(answers[1]["result"]["isError"], true, "{}", answers[1]);
        assert_eq!(
            report(&answers[1]),
            "the output of `liar` breaks its outputSchema:\n/sum: expected a number, found a string"
        );
        assert!(answers[1]["result"].get("structuredContent").is_none());
        assert_eq!(answers[2]["result"]["isError"], true);
        assert_eq!(
            report(&answers[2]),
            "the output of `mute` breaks its outputSchema:\nthe tool declares an `outputSchema` but answered no structured content"
        );
        assert_eq!(answers[3]["result"]["isError"], false);
    }
    let modern_answers = serve(
        &eras_server(),
        &[&modern(1, "tools/call", json!({"name": "liar"}))],
    );
    assert_eq!(modern_answers[0]["result"]["isError"], true);
    assert_eq!(modern_answers[0]["result"]["resultType"], "complete");
}

/// A malformed line whose id cannot be read is answered -32700 (MCP-CORE r1
/// §1¶10) with `"id": null` before any revision is known and in the legacy
/// revisions whose schemas require an id (JSON-RPC 2.0 §5), and with no id
/// in 2025-11-25 and 2026-07-28, whose schemas allow an absent id but no
/// null; a readable id is echoed in every era.
#[test]
fn parse_errors_carry_the_id_form_of_the_revision() {
    let cases: [(Option<String>, bool); 6] = [
        (None, true),
        (Some(initialize(0, "2024-11-05")), true),
        (Some(initialize(0, "2025-03-26")), true),
        (Some(initialize(0, "2025-06-18")), true),
        (Some(initialize(0, "2025-11-25")), false),
        (Some(modern(0, "server/discover", json!({}))), false),
    ];
    for (first, null) in cases {
        let mut lines: Vec<&str> = first.iter().map(String::as_str).collect();
        lines.extend([
            "not json",
            r#"{"jsonrpc":"2.0","id":true,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":7}"#,
        ]);
        let answers = serve(&eras_server(), &lines);
        let errors = &answers[answers.len() - 3..];
        for answer in &errors[..2] {
            assert_eq!(error_code(answer), Some(-32700), "{first:?}: {answer}");
            let id = answer.as_object().unwrap().get("id");
            assert_eq!(id, null.then_some(&Value::Null), "{first:?}: {answer}");
        }
        assert_eq!(errors[2]["id"], 7, "{first:?}");
        assert_eq!(error_code(&errors[2]), Some(-32700));
    }
}

/// A 2025-03-26 session takes batches (MCP 2025-03-26 basic/index#batching):
/// one array line of answers, in order, none for notifications, no line for
/// a batch of notifications, and `initialize` refused inside one. Other
/// revisions read an array as a malformed line.
#[test]
fn a_2025_03_26_session_takes_batches() {
    let batch = format!(
        "[{},{},{},{}]",
        r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        call(5, json!({"name": "echo", "arguments": {"text": "b"}})),
        r#""garbage""#
    );
    let answers = serve(
        &eras_server(),
        &[
            &initialize(1, "2025-03-26"),
            &batch,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            &format!("[{}]", initialize(2, "2025-03-26")),
            "[]",
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        ],
    );
    assert_eq!(answers.len(), 5, "{answers:?}");
    let batched = answers[1].as_array().expect("a batch answer is an array");
    assert_eq!(batched.len(), 3);
    assert_eq!(
        batched[0],
        json!({"jsonrpc": "2.0", "id": "a", "result": {}})
    );
    assert_eq!(batched[1]["result"]["content"][0]["text"], "b");
    assert_eq!(error_code(&batched[2]), Some(-32700));
    let refused = answers[2].as_array().unwrap();
    assert_eq!(error_code(&refused[0]), Some(-32600));
    assert_eq!(refused[0]["id"], 2);
    assert_eq!(error_code(&answers[3]), Some(-32700));
    assert_eq!(answers[4]["result"], json!({}));

    let other = serve(&eras_server(), &[&initialize(1, "2025-06-18"), &batch]);
    assert_eq!(error_code(&other[1]), Some(-32700));
}

/// `value` checked against the definition `name` of `spec`, with the
/// crate's validator.
fn against(spec: &Value, name: &str, value: &Value) -> Vec<String> {
    let defs = if spec.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    let mut root = spec.clone();
    root["$ref"] = json!(format!("#/{defs}/{name}"));
    schema::validate(&root, value)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The answers of every revision keep the shapes of its official schema:
/// each result against its result type, each error against the error
/// response, and the modern results against the 2026-07-28 definitions
/// (`DiscoverResult`, `ListToolsResult`, `CallToolResult`,
/// `UnsupportedProtocolVersionError`), with every required field present.
#[test]
fn answers_match_the_official_schema_of_their_revision() {
    let test = "server::tests::eras::answers_match_the_official_schema_of_their_revision";
    let revisions = [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ];
    // Where the schemas are not at hand, the shapes are pinned by the tests
    // above.
    let Some(mut schemas) = crate::official_schemas::schemas(test, &revisions) else {
        return;
    };
    let modern_spec = schemas.pop().expect("one schema per revision");
    for (revision, spec) in revisions.into_iter().zip(schemas) {
        let answers = serve(
            &eras_server(),
            &[
                &initialize(1, revision),
                &request(2, "tools/list", json!({})),
                &call(3, json!({"name": "sum", "arguments": {"a": 1, "b": 2}})),
                &call(4, json!({"name": "liar"})),
            ],
        );
        let expected = [
            "InitializeResult",
            "ListToolsResult",
            "CallToolResult",
            "CallToolResult",
        ];
        for (answer, result) in answers.iter().zip(expected) {
            let problems = against(&spec, result, &answer["result"]);
            assert!(
                problems.is_empty(),
                "{revision} {answer} breaks {result}: {problems:?}"
            );
        }
    }
    let spec = modern_spec;
    let defs = &spec["$defs"];
    let answers = serve(
        &eras_server(),
        &[
            &modern(1, "server/discover", json!({})),
            &modern(2, "tools/list", json!({})),
            &modern(
                3,
                "tools/call",
                json!({"name": "sum", "arguments": {"a": 1, "b": 2}}),
            ),
            &modern(4, "tools/call", json!({"name": "liar"})),
            &request(5, "tools/list", json!({"_meta": modern_meta("1999-01-01")})),
            &request(6, "tools/list", json!({})),
            "not json",
        ],
    );
    let results = [
        "DiscoverResult",
        "ListToolsResult",
        "CallToolResult",
        "CallToolResult",
    ];
    for (answer, result) in answers.iter().zip(results) {
        let required = defs[result]["required"].as_array().unwrap();
        for field in required {
            let field = field.as_str().unwrap();
            assert!(
                answer["result"].get(field).is_some(),
                "{answer} lacks {result}.{field}"
            );
        }
        let problems = against(&spec, result, &answer["result"]);
        assert!(
            problems.is_empty(),
            "{answer} breaks {result}: {problems:?}"
        );
        let problems = against(&spec, "JSONRPCResultResponse", answer);
        assert!(problems.is_empty(), "{answer}: {problems:?}");
    }
    let problems = against(&spec, "UnsupportedProtocolVersionError", &answers[4]);
    assert!(problems.is_empty(), "{}: {problems:?}", answers[4]);
    for answer in &answers[5..] {
        let problems = against(&spec, "JSONRPCErrorResponse", answer);
        assert!(problems.is_empty(), "{answer}: {problems:?}");
    }
    // The check has teeth: a result without its result type fails it.
    let mut broken = answers[1]["result"].clone();
    broken.as_object_mut().unwrap().remove("resultType");
    assert!(!against(&spec, "ListToolsResult", &broken).is_empty());
}
