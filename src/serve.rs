//! `mcp-replay serve`: the checker as an MCP server, on the crate's own core
//! library.
//!
//! Three tools: `check`, which runs [`check::run`] as `mcp-replay check`
//! would and answers the human report as text and the JSON Lines report as
//! structured content; `fuzz`, which runs [`crate::fuzz::run`] as
//! `mcp-replay fuzz --read-only --no-findings` would and answers the same
//! way; and `laws`, the catalog. A run with a failing
//! finding is a failed tool call (`isError: true`, MCP-CORE r1 §3¶19): the
//! gate did not pass. Commands that must never be tools (`record`, and
//! `check --bless`, which rewrites files a person reviews) are not offered,
//! so a call naming them is refused as an unknown tool, and `check` takes
//! no argument that writes a file.
//!
//! Nothing a checked server prints reaches the protocol channel: the
//! checker talks to every server through pipes of its own, and the capture
//! guard holds whatever else is written while a tool runs.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::check::duration::parse_duration;
use crate::check::{self, CheckOptions};
use crate::laws::{CATALOG, CatalogFormat, LawId, Profile, render_catalog};
use crate::report::{self, Palette};
use crate::server::{Server, Tool, ToolAnnotations, ToolDescriptor, ToolOutput, ToolSet};

mod front;

pub use self::front::{Limits, MAX_RUNNING, MAX_WAITING, serve_stdio};

/// The names of the tools `mcp-replay serve` offers.
pub const TOOL_NAMES: &[&str] = &["check", "fuzz", "laws"];

/// The server `mcp-replay serve` runs, named `mcp-replay` at `version`.
pub fn server(version: &str) -> Server {
    Server::new("mcp-replay", version, tools()).with_instructions(
        "Run `check` on a server command (argv) or on transcript paths to hold an MCP \
         stdio server to the laws of the stdio contract; `fuzz` calls a server's \
         read-only tools with arguments drawn from their schemas; `laws` lists the \
         laws. A call with findings answers isError: true with the report.",
    )
}

/// The tools of `mcp-replay serve`.
pub fn tools() -> ToolSet {
    ToolSet::new().with(CheckTool).with(FuzzTool).with(LawsTool)
}

/// `check`: replay transcripts and probe a server command.
struct CheckTool;

/// The schema of one record of the JSON Lines report.
fn records_schema() -> Value {
    json!({
        "type": "array",
        "description": "The JSON Lines report of `mcp-replay check --format json`, one object per line (docs/output-formats.md).",
        "items": {
            "type": "object",
            "properties": {"type": {"type": "string"}},
            "required": ["type"]
        }
    })
}

impl Tool for CheckTool {
    fn descriptor(&self) -> ToolDescriptor {
        let duration = |what: &str| json!({"type": "string", "description": what});
        let laws: Vec<&str> = CATALOG.iter().map(|law| law.id.as_str()).collect();
        ToolDescriptor::new(
            "check",
            "Replay MCP transcripts against a server and probe the laws of the stdio \
             contract, as `mcp-replay check` does. Give `command` (the server's argv) to \
             probe a server, `paths` to replay transcripts, or both. Findings that fail \
             the run answer isError: true.",
            json!({
                "type": "object",
                "properties": {
                    "paths": {
                        "type": "array", "items": {"type": "string"},
                        "description": "Transcript files or directories, relative to the server's working directory."
                    },
                    "command": {
                        "type": "array", "items": {"type": "string"}, "minItems": 1,
                        "description": "The server command and its arguments, one element each."
                    },
                    "profile": {"enum": ["core", "spec"], "description": "The contract to hold the server to (default core)."},
                    "waive": {"type": "array", "items": {"enum": laws}, "description": "Laws not to fail on."},
                    "deny_warnings": {"type": "boolean", "description": "Fail on warnings too."},
                    "baseline": {"type": "string", "description": "A baseline file: the findings it lists do not fail the run."},
                    "fail_on_noise": {"type": "boolean", "description": "Fail on differences that are noise too."},
                    "no_probes": {"type": "boolean", "description": "Replay only; do not run the law probes."},
                    "no_replay": {"type": "boolean", "description": "Probe `command` alone; replay nothing."},
                    "cli_probes": {"type": "boolean", "description": "Also run the CLI probes: `<cmd> --help` and `<cmd> <bad flag>` (help-does-not-serve, bad-flag-exits-2)."},
                    "bad_flag": {"type": "string", "description": "The invalid flag bad-flag-exits-2 passes (default --mcp-replay-no-such-flag)."},
                    "verbose": {"type": "boolean", "description": "List the laws that held too."},
                    "timeout": duration("The deadline of each step, such as 5s (default 5s)."),
                    "startup_timeout": duration("The deadline of a step before the server has written anything (default 20s)."),
                    "settle": duration("How long the probes watch stdout before the first message (default 1s)."),
                    "grace": duration("How long a server may take to exit after stdin closes or SIGTERM (default 2s).")
                },
                "additionalProperties": false
            }),
        )
        .with_title("Check an MCP server")
        // It starts the command it is given, or the commands the
        // transcripts record.
        .with_annotations(runs_programs())
        .with_output_schema(report_schema("check", "unreadable input"))
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let (options, verbose) = match options(args) {
            Ok(parsed) => parsed,
            Err(message) => return ToolOutput::error(format!("check: {message}")),
        };
        let scope = crate::process::current_scope();
        let report = check::run(&options, &|_, _| {});
        // A call stopped while it ran was cancelled (and is not answered)
        // or ran past serve's limit for one call.
        if scope.is_some_and(|scope| scope.is_stopped()) {
            return stopped("check");
        }
        let report = match report {
            Ok(report) => report,
            Err(err) => {
                let mut text = format!("check: {err}");
                if let Some(hint) = err.hint() {
                    text.push_str("\nhint: ");
                    text.push_str(&hint);
                }
                return ToolOutput::error(text);
            }
        };
        answer(&report, verbose, "check")
    }
}

/// The annotations of a tool that starts the programs it is given: any
/// program, which can change anything and talk to anything, so neither
/// read-only nor idempotent, possibly destructive, open-world.
fn runs_programs() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(false)
        .destructive(true)
        .idempotent(false)
        .open_world(true)
}

/// The output schema of a tool that answers `mcp-replay COMMAND`'s
/// report, whose exit status 2 means `two`.
fn report_schema(command: &str, two: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "exit_code": {"type": "integer", "description": format!("The exit status `mcp-replay {command}` would end with: 0 held, 1 findings, 2 {two}.")},
            "passed": {"type": "boolean"},
            "records": records_schema(),
            "left_out": {"type": "integer", "description": format!("How many records of the report the answer left out to stay under its size limit; the whole report is `mcp-replay {command} --format json`.")}
        },
        "required": ["exit_code", "passed", "records"]
    })
}

/// A report as a tool's answer: the human report as text, the JSON Lines
/// report as structured content, both bounded; `isError` when the run
/// failed.
fn answer(report: &report::Report, verbose: bool, tool: &str) -> ToolOutput {
    let mut text = Vec::new();
    let mut lines = Vec::new();
    let rendered = report::human::render(report, &Palette::plain(), verbose, &mut text)
        .and_then(|()| report::json::render(report, &mut lines));
    if let Err(err) = rendered {
        return ToolOutput::error(format!("{tool}: the report could not be rendered: {err}"));
    }
    let (records, left_out) = bounded_records(&lines, MAX_RECORDS_BYTES);
    let exit_code = report.exit_code();
    let mut structured = json!({
        "exit_code": exit_code,
        "passed": exit_code == report::EXIT_OK,
        "records": records,
    });
    if left_out > 0 {
        structured["left_out"] = json!(left_out);
    }
    let mut output = ToolOutput::ok(bounded_text(
        &String::from_utf8_lossy(&text),
        MAX_TEXT_BYTES,
    ))
    .with_structured(structured);
    output.is_error = exit_code != report::EXIT_OK;
    output
}

/// The answer of a call that serve stopped while it ran: it ran past the
/// limit for one call (a cancelled call is not answered at all).
fn stopped(tool: &str) -> ToolOutput {
    let limit = front::call_timeout()
        .map(|limit| format!(" ({})", crate::check::duration::format_duration(limit)))
        .unwrap_or_default();
    ToolOutput::error(format!(
        "{tool}: stopped: the call ran past serve's limit for one call{limit}, and its servers were killed; \
         ask for less or with shorter deadlines, or start serve with a longer --call-timeout"
    ))
}

/// The most of the human report a `check` answer carries as text.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// The most of the JSON Lines report a `check` answer carries as records.
pub const MAX_RECORDS_BYTES: usize = 1 << 20;

/// Where the whole report is, for an answer that left part of it out.
const WHOLE_REPORT: &str = "run `mcp-replay check --format json > report.jsonl` (or with `--junit FILE`) for the whole report";

/// `text`, or when it is longer than `max` bytes, its start and its end
/// (the summary) around a line that says how much was left out.
fn bounded_text(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let tail_max = max / 16;
    let mut tail_at = text.len() - tail_max;
    while !text.is_char_boundary(tail_at) {
        tail_at += 1;
    }
    let tail_at = text[tail_at..]
        .find('\n')
        .map_or(tail_at, |at| tail_at + at + 1);
    let mut head_at = max - tail_max;
    while !text.is_char_boundary(head_at) {
        head_at -= 1;
    }
    let head_at = text[..head_at].rfind('\n').map_or(head_at, |at| at + 1);
    let left_out = tail_at - head_at;
    format!(
        "{}… {left_out} bytes of the report left out (serve answers at most {max} bytes of it): {WHOLE_REPORT}\n{}",
        &text[..head_at],
        &text[tail_at..]
    )
}

/// The records of a JSON Lines report, at most `max` bytes of them in all:
/// in order, the last (the summary) always; a record too big to fit loses
/// its `exchanges` (counted in `exchanges_left_out`), and one still too big
/// is left out. Returns the records and how many were left out.
fn bounded_records(lines: &[u8], max: usize) -> (Vec<Value>, usize) {
    let lines: Vec<&[u8]> = lines
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .collect();
    let last = lines.len().saturating_sub(1);
    let reserved = lines.last().map_or(0, |line| line.len());
    let mut budget = max.saturating_sub(reserved);
    let mut records = Vec::new();
    let mut left_out = 0;
    for (index, line) in lines.iter().enumerate() {
        let Ok(mut record) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if index == last {
            records.push(record);
            break;
        }
        let mut size = line.len();
        if size > budget
            && let Some(Value::Array(exchanges)) = record
                .as_object_mut()
                .and_then(|record| record.remove("exchanges"))
        {
            record["exchanges_left_out"] = json!(exchanges.len());
            size = record.to_string().len();
        }
        if size > budget {
            left_out += 1;
            continue;
        }
        budget -= size;
        records.push(record);
    }
    (records, left_out)
}

/// The check options of a `check` call, and whether the report is verbose.
fn options(args: &Value) -> Result<(CheckOptions, bool), String> {
    let empty = Map::new();
    let args = args.as_object().unwrap_or(&empty);
    let strings = |key: &str| -> Vec<String> {
        args.get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let flag = |key: &str| args.get(key).and_then(Value::as_bool).unwrap_or(false);
    let duration = |key: &str| -> Result<Option<Duration>, String> {
        args.get(key)
            .and_then(Value::as_str)
            .map(|text| parse_duration(text).map_err(|err| format!("`{key}`: {err}")))
            .transpose()
    };
    let profile = args
        .get("profile")
        .and_then(Value::as_str)
        .map(str::parse::<Profile>)
        .transpose()
        .map_err(|err| format!("`profile`: {err}"))?;
    let waive = strings("waive")
        .iter()
        .map(|id| id.parse::<LawId>())
        .collect::<Result<_, _>>()?;
    let options = CheckOptions {
        paths: strings("paths").into_iter().map(PathBuf::from).collect(),
        command: strings("command"),
        profile,
        waive,
        deny_warnings: flag("deny_warnings"),
        baseline: args
            .get("baseline")
            .and_then(Value::as_str)
            .map(PathBuf::from),
        fail_on_noise: flag("fail_on_noise"),
        probes: !flag("no_probes"),
        replay: !flag("no_replay"),
        timeout: duration("timeout")?,
        startup_timeout: duration("startup_timeout")?,
        settle: duration("settle")?,
        grace: duration("grace")?,
        cli_probes: flag("cli_probes").then(|| {
            args.get("bad_flag")
                .and_then(Value::as_str)
                .unwrap_or(check::probes::cli::DEFAULT_BAD_FLAG)
                .to_owned()
        }),
        // Which variables fill a transcript's placeholders is the serve
        // process's to say (its environment), never the agent's.
        fill_env: crate::transcript::fill_names_from_env(),
        // The agent's paths, and what a directory of them holds, stay in
        // the directory serve was started in.
        confine_to_cwd: true,
        ..CheckOptions::default()
    };
    if !options.replay && options.command.is_empty() {
        return Err("`no_replay` needs a `command` to probe".to_owned());
    }
    if !options.replay && !options.probes {
        return Err("`no_replay` and `no_probes` leave nothing to check".to_owned());
    }
    Ok((options, flag("verbose")))
}

/// `fuzz`: every tool of a server called with arguments drawn from its
/// schema, as `mcp-replay fuzz --read-only --no-findings` does.
struct FuzzTool;

/// The most cases a `fuzz` call draws for one tool.
pub const MAX_FUZZ_CASES: u64 = 10_000;

impl Tool for FuzzTool {
    fn descriptor(&self) -> ToolDescriptor {
        let duration = |what: &str| json!({"type": "string", "description": what});
        let laws: Vec<&str> = CATALOG.iter().map(|law| law.id.as_str()).collect();
        ToolDescriptor::new(
            "fuzz",
            "Call a server's tools with arguments drawn from their input schemas, as \
             `mcp-replay fuzz` does: only the tools annotated readOnlyHint: true, the \
             server in a scratch directory, no finding transcripts written. Findings \
             that fail the run answer isError: true.",
            json!({
                "type": "object",
                "properties": {
                    "command": {
                        "type": "array", "items": {"type": "string"}, "minItems": 1,
                        "description": "The server command and its arguments, one element each."
                    },
                    "seed": {"type": "integer", "minimum": 0, "description": "The seed of the run's cases (default: a fresh one, in the report)."},
                    "cases": {"type": "integer", "minimum": 0, "maximum": MAX_FUZZ_CASES, "description": "How many cases to draw for each tool (default 100)."},
                    "budget": duration("How long to send cases for, such as 60s (default 60s); shrinking gets half as long again at most."),
                    "timeout": duration("The deadline of each call (default 5s)."),
                    "startup_timeout": duration("The deadline of a fresh server's first answer (default 20s)."),
                    "grace": duration("How long a server may take to exit after stdin closes (default 2s)."),
                    "skip_tools": {"type": "array", "items": {"type": "string"}, "description": "Tools never to call."},
                    "era": {"enum": ["auto", "legacy", "modern"], "description": "The era to speak (default auto)."},
                    "pipeline": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "How many calls may be in flight at once (default 8)."},
                    "no_shrink": {"type": "boolean", "description": "Report failing cases as first sent, unshrunk."},
                    "profile": {"enum": ["core", "spec"], "description": "The contract to hold the server to (default core)."},
                    "waive": {"type": "array", "items": {"enum": laws}, "description": "Laws not to fail on."},
                    "deny_warnings": {"type": "boolean", "description": "Fail on warnings too."},
                    "verbose": {"type": "boolean", "description": "List every tool and law of the report."}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        )
        .with_title("Fuzz an MCP server's tools")
        // It starts the command it is given and calls its tools.
        .with_annotations(runs_programs())
        .with_output_schema(report_schema("fuzz", "a server that cannot be started"))
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let (options, verbose) = match fuzz_options(args) {
            Ok(parsed) => parsed,
            Err(message) => return ToolOutput::error(format!("fuzz: {message}")),
        };
        let scope = crate::process::current_scope();
        let report = crate::fuzz::run(&options, &|_, _| {});
        if scope.is_some_and(|scope| scope.is_stopped()) {
            return stopped("fuzz");
        }
        match report {
            Ok(report) => answer(&report, verbose, "fuzz"),
            Err(err) => ToolOutput::error(format!("fuzz: {err}")),
        }
    }
}

/// The fuzz options of a `fuzz` call, and whether the report is verbose.
/// What would widen the run past what its tools say of themselves (`tool`,
/// `all_tools`), or write or choose files (`findings`, `cwd`), is no
/// argument: the call calls only read-only tools, in a scratch directory,
/// and writes no transcripts.
fn fuzz_options(args: &Value) -> Result<(crate::fuzz::FuzzOptions, bool), String> {
    use crate::fuzz::{EraChoice, FuzzOptions};
    let empty = Map::new();
    let args = args.as_object().unwrap_or(&empty);
    if let Some(unknown) = args
        .keys()
        .find(|key| !FUZZ_ARGUMENTS.contains(&key.as_str()))
    {
        return Err(format!("`{unknown}` is no argument of fuzz"));
    }
    let strings = |key: &str| -> Result<Vec<String>, String> {
        match args.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| format!("`{key}` must be an array of strings"))
                })
                .collect(),
            Some(_) => Err(format!("`{key}` must be an array of strings")),
        }
    };
    let flag = |key: &str| args.get(key).and_then(Value::as_bool).unwrap_or(false);
    let duration = |key: &str| -> Result<Option<Duration>, String> {
        args.get(key)
            .map(|value| {
                value
                    .as_str()
                    .ok_or_else(|| format!("`{key}` must be a duration such as 5s"))
                    .and_then(|text| parse_duration(text).map_err(|err| format!("`{key}`: {err}")))
            })
            .transpose()
    };
    let integer = |key: &str, min: u64, max: u64| -> Result<Option<u64>, String> {
        args.get(key)
            .map(|value| {
                value
                    .as_u64()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| format!("`{key}` must be an integer from {min} to {max}"))
            })
            .transpose()
    };
    let command = strings("command")?;
    if command.is_empty() {
        return Err("`command` (the server's argv) is required".to_owned());
    }
    let mut options = FuzzOptions::new(command);
    options.seed = integer("seed", 0, u64::MAX)?;
    if let Some(cases) = integer("cases", 0, MAX_FUZZ_CASES)? {
        options.cases = usize::try_from(cases).unwrap_or(usize::MAX);
    }
    if let Some(pipeline) = integer("pipeline", 1, 65_535)? {
        options.pipeline = usize::try_from(pipeline).unwrap_or(1);
    }
    if let Some(budget) = duration("budget")? {
        options.budget = budget;
    }
    if let Some(timeout) = duration("timeout")? {
        options.call_timeout = timeout;
    }
    if let Some(startup) = duration("startup_timeout")? {
        options.startup_timeout = startup;
    }
    if let Some(grace) = duration("grace")? {
        options.grace = grace;
    }
    options.skip_tools = strings("skip_tools")?;
    options.era = match args.get("era").map(|era| era.as_str()) {
        None | Some(Some("auto")) => EraChoice::Auto,
        Some(Some("legacy")) => EraChoice::Legacy,
        Some(Some("modern")) => EraChoice::Modern,
        Some(_) => return Err("`era` must be auto, legacy or modern".to_owned()),
    };
    options.profile = args
        .get("profile")
        .map(|profile| {
            profile
                .as_str()
                .ok_or_else(|| "`profile` must be core or spec".to_owned())
                .and_then(|text| {
                    text.parse::<Profile>()
                        .map_err(|err| format!("`profile`: {err}"))
                })
        })
        .transpose()?
        .unwrap_or_default();
    options.waive = strings("waive")?
        .iter()
        .map(|id| id.parse::<LawId>())
        .collect::<Result<_, _>>()?;
    options.deny_warnings = flag("deny_warnings");
    options.shrink = !flag("no_shrink");
    // Only what says it changes nothing, in a scratch directory, and no
    // transcript written: the agent's call decides none of these.
    options.read_only = true;
    options.tools = Vec::new();
    options.all_tools = false;
    options.cwd = None;
    options.findings = None;
    Ok((options, flag("verbose")))
}

/// The arguments a `fuzz` call takes.
const FUZZ_ARGUMENTS: &[&str] = &[
    "command",
    "seed",
    "cases",
    "budget",
    "timeout",
    "startup_timeout",
    "grace",
    "skip_tools",
    "era",
    "pipeline",
    "no_shrink",
    "profile",
    "waive",
    "deny_warnings",
    "verbose",
];

/// `laws`: the catalog.
struct LawsTool;

impl Tool for LawsTool {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "laws",
            "List the laws `check` holds servers to: id, severity per profile, \
             implemented or reserved, and the contract each cites.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        )
        .with_title("The laws of the stdio contract")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
        .with_output_schema(json!({
            "type": "object",
            "properties": {
                "laws": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "string"}, "implemented": {"type": "boolean"}},
                        "required": ["id", "implemented"]
                    }
                }
            },
            "required": ["laws"]
        }))
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        let mut text = Vec::new();
        let mut lines = Vec::new();
        let rendered = render_catalog(&mut text, CatalogFormat::Human)
            .and_then(|()| render_catalog(&mut lines, CatalogFormat::Json));
        if let Err(err) = rendered {
            return ToolOutput::error(format!("laws: the catalog could not be rendered: {err}"));
        }
        let laws: Vec<Value> = lines
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .filter_map(|line| serde_json::from_slice(line).ok())
            .collect();
        ToolOutput::ok(String::from_utf8_lossy(&text).into_owned())
            .with_structured(json!({ "laws": laws }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_are_the_offered_names() {
        let names: Vec<String> = tools().descriptors().map(|d| d.name.clone()).collect();
        assert_eq!(names, TOOL_NAMES);
    }

    #[test]
    fn bless_is_not_an_argument_of_check() {
        let descriptor = CheckTool.descriptor();
        let properties = descriptor.input_schema["properties"].as_object().unwrap();
        for off in ["bless", "write_baseline", "junit", "summary"] {
            assert!(!properties.contains_key(off), "{off}");
        }
        assert_eq!(descriptor.input_schema["additionalProperties"], false);
    }

    #[test]
    fn check_says_it_runs_programs_and_laws_that_it_reads() {
        // `check` starts any command it is given: neither read-only nor
        // idempotent, possibly destructive, open-world.
        let annotations = serde_json::to_value(CheckTool.descriptor().annotations).unwrap();
        assert_eq!(annotations["readOnlyHint"], false);
        assert_eq!(annotations["destructiveHint"], true);
        assert_eq!(annotations["idempotentHint"], false);
        assert_eq!(annotations["openWorldHint"], true);
        let laws = serde_json::to_value(LawsTool.descriptor().annotations).unwrap();
        assert_eq!(laws["readOnlyHint"], true);
        assert_eq!(laws["destructiveHint"], false);
        assert_eq!(laws["idempotentHint"], true);
        assert_eq!(laws["openWorldHint"], false);
    }

    #[test]
    fn bad_arguments_are_a_failed_call() {
        let output = CheckTool.run(&json!({"timeout": "soon", "command": ["x"]}));
        assert!(output.is_error);
        assert!(output.report.contains("`timeout`"), "{}", output.report);
        let output = CheckTool.run(&json!({"no_replay": true}));
        assert!(output.is_error);
        assert!(
            output.report.contains("needs a `command`"),
            "{}",
            output.report
        );
    }

    #[test]
    fn a_long_text_keeps_its_start_and_its_summary_and_says_what_it_left_out() {
        let text: String = (0..10_000)
            .map(|i| format!("line {i}\n"))
            .chain(["Summary: everything\n".to_owned()])
            .collect();
        let bounded = bounded_text(&text, 4096);
        assert!(bounded.len() < 4096 + 300, "{}", bounded.len());
        assert!(bounded.starts_with("line 0\nline 1\n"), "{bounded}");
        assert!(bounded.ends_with("Summary: everything\n"), "{bounded}");
        assert!(bounded.contains("bytes of the report left out (serve answers at most 4096 bytes of it): run `mcp-replay check --format json > report.jsonl`"), "{bounded}");
        assert_eq!(bounded_text("short\n", 4096), "short\n");
    }

    #[test]
    fn records_past_the_budget_are_left_out_and_counted_and_the_summary_stays() {
        let mut lines = String::new();
        let exchanges: Vec<Value> = (0..1000)
            .map(|i| json!({"line": i, "status": "failed"}))
            .collect();
        lines.push_str(
            &json!({"type": "transcript", "path": "a.jsonl", "exchanges": exchanges}).to_string(),
        );
        lines.push('\n');
        for i in 0..100 {
            lines.push_str(
                &json!({"type": "finding", "n": i, "message": "x".repeat(100)}).to_string(),
            );
            lines.push('\n');
        }
        lines.push_str(&json!({"type": "summary", "passed": false}).to_string());
        lines.push('\n');
        let (records, left_out) = bounded_records(lines.as_bytes(), 4096);
        let size: usize = records.iter().map(|r| r.to_string().len()).sum();
        assert!(size <= 4096, "{size}");
        // The transcript's record lost its exchanges, and says how many.
        assert_eq!(records[0]["exchanges_left_out"], 1000);
        assert!(records[0].get("exchanges").is_none());
        assert_eq!(records.last().unwrap()["type"], "summary");
        assert_eq!(records.len() + left_out, 102);
        assert!(left_out > 50, "{left_out}");
    }

    #[test]
    fn laws_answers_the_whole_catalog() {
        let output = LawsTool.run(&json!({}));
        assert!(!output.is_error);
        let laws = output.structured.unwrap()["laws"].as_array().unwrap().len();
        assert_eq!(laws, CATALOG.len());
        assert!(output.report.contains("help-does-not-serve"));
    }
}
