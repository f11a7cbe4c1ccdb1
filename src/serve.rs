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

use std::sync::OnceLock;

use clap::CommandFactory as _;
use serde_json::{Value, json};

use crate::check;
use crate::cli::args::{CheckArgs, Cli, FuzzArgs};
use crate::laws::{CatalogFormat, render_catalog, render_laws};
use crate::report::{self, Palette};
use crate::server::{Server, Tool, ToolAnnotations, ToolDescriptor, ToolOutput, ToolSet};

mod arguments;
mod front;

pub use self::arguments::ToolArgs;
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

/// The flags of `check` that its tool takes, read from the command line
/// once.
fn check_args() -> &'static ToolArgs {
    static ARGS: OnceLock<ToolArgs> = OnceLock::new();
    ARGS.get_or_init(|| command_args("check"))
}

/// The flags of `fuzz` that its tool takes, read from the command line
/// once.
fn fuzz_args() -> &'static ToolArgs {
    static ARGS: OnceLock<ToolArgs> = OnceLock::new();
    ARGS.get_or_init(|| command_args("fuzz"))
}

fn command_args(name: &str) -> ToolArgs {
    let cli = Cli::command();
    let command = cli
        .find_subcommand(name)
        .expect("the tool is a command of the command line");
    ToolArgs::of(command)
}

impl Tool for CheckTool {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "check",
            "Replay MCP transcripts against a server and probe the laws of the stdio \
             contract, as `mcp-replay check` does. Give `command` (the server's argv) to \
             probe a server, `paths` to replay transcripts, or both. Findings that fail \
             the run answer isError: true.",
            check_args().input_schema(),
        )
        .with_title("Check an MCP server")
        // It starts the command it is given, or the commands the
        // transcripts record.
        .with_annotations(runs_programs())
        .with_output_schema(report_schema("check", "unreadable input"))
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let (options, verbose) = match check_options(args) {
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
        .map(|limit| format!(" ({})", crate::client::duration::format_duration(limit)))
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

/// The check options of a `check` call, and whether the report is verbose:
/// the arguments as `mcp-replay check` parses the same flags, then what
/// serve decides whatever they say.
fn check_options(args: &Value) -> Result<(check::CheckOptions, bool), String> {
    let args: CheckArgs = check_args().parse(args)?;
    let mut options = args.options();
    // Which variables fill a transcript's placeholders is the serve
    // process's to say (its environment), never the agent's.
    options.fill_env = crate::transcript::fill_names_from_env();
    options.allow_cwd = Vec::new();
    // The agent's paths, and what a directory of them holds, stay in the
    // directory serve was started in; no file is rewritten or written.
    options.confine_to_cwd = true;
    options.bless = false;
    options.write_baseline = None;
    // The probes run for real only the tools that say they change nothing.
    options.tools = Vec::new();
    Ok((options, args.report.verbose))
}

/// `fuzz`: every tool of a server called with arguments drawn from its
/// schema, as `mcp-replay fuzz --read-only --no-findings` does.
struct FuzzTool;

impl Tool for FuzzTool {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "fuzz",
            "Call a server's tools with arguments drawn from their input schemas, as \
             `mcp-replay fuzz` does: only the tools annotated readOnlyHint: true, the \
             server in a scratch directory, no finding transcripts written. Findings \
             that fail the run answer isError: true.",
            fuzz_args().input_schema(),
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

/// The fuzz options of a `fuzz` call, and whether the report is verbose:
/// the arguments as `mcp-replay fuzz` parses the same flags, then what
/// serve decides whatever they say. What would widen the run past what its
/// tools say of themselves (`tools`, `all_tools`), or write or choose files
/// (`findings`, `cwd`), is no argument: the call calls only read-only
/// tools, in a scratch directory, and writes no transcripts.
fn fuzz_options(args: &Value) -> Result<(crate::fuzz::FuzzOptions, bool), String> {
    let args: FuzzArgs = fuzz_args().parse(args)?;
    let mut options = args.options();
    options.read_only = true;
    options.tools = Vec::new();
    options.all_tools = false;
    options.cwd = None;
    options.findings = None;
    Ok((options, args.report.verbose))
}

/// `laws`: the catalog.
struct LawsTool;

impl Tool for LawsTool {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "laws",
            "List the laws `check` holds servers to: id, severity per profile, \
             implemented or reserved, and the contract each cites; with \
             `requirements`, the requirements of the MCP revisions too, each \
             with the law that judges it or none.",
            json!({
                "type": "object",
                "properties": {
                    "requirements": {
                        "type": "boolean",
                        "description": "Also list the requirements of the MCP revisions (about 300), each with the law that judges it, as `mcp-replay laws` does."
                    }
                },
                "additionalProperties": false
            }),
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
                },
                "requirements": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "side": {"enum": ["server", "host"]},
                            "level": {"enum": ["MUST", "SHOULD", "MAY"]},
                            "law": {"type": ["string", "null"]}
                        },
                        "required": ["id", "side", "level", "law"]
                    }
                }
            },
            "required": ["laws"]
        }))
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let with_requirements = args.get("requirements") == Some(&Value::Bool(true));
        let mut text = Vec::new();
        let mut lines = Vec::new();
        let rendered = if with_requirements {
            render_catalog(&mut text, CatalogFormat::Human)
                .and_then(|()| render_catalog(&mut lines, CatalogFormat::Json))
        } else {
            render_laws(&mut text, CatalogFormat::Human)
                .and_then(|()| render_laws(&mut lines, CatalogFormat::Json))
        };
        if let Err(err) = rendered {
            return ToolOutput::error(format!("laws: the catalog could not be rendered: {err}"));
        }
        let (laws, requirements): (Vec<Value>, Vec<Value>) = lines
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
            .partition(|line| line["type"] == "law");
        let structured = if with_requirements {
            json!({ "laws": laws, "requirements": requirements })
        } else {
            json!({ "laws": laws })
        };
        ToolOutput::ok(String::from_utf8_lossy(&text).into_owned()).with_structured(structured)
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
            output.report.contains("missing `command`"),
            "{}",
            output.report
        );
        let output =
            CheckTool.run(&json!({"no_replay": true, "no_probes": true, "command": ["x"]}));
        assert!(output.is_error);
        assert!(
            output.report.contains("cannot be given with"),
            "{}",
            output.report
        );
    }

    #[test]
    fn a_call_runs_with_serve_s_limits_whatever_it_asks() {
        let (options, verbose) =
            check_options(&json!({"paths": ["t"], "verbose": true, "timeout": "3s"})).unwrap();
        assert!(verbose);
        assert!(options.confine_to_cwd);
        assert_eq!(options.timeout, Some(std::time::Duration::from_secs(3)));
        assert_eq!(options.paths, [std::path::PathBuf::from("t")]);
        let (options, _) = fuzz_options(&json!({"command": ["server"], "cases": 7})).unwrap();
        assert_eq!(options.cases, 7);
        assert!(options.read_only);
        assert_eq!(options.findings, None);
        assert_eq!(options.cwd, None);
        let err = fuzz_options(&json!({"command": ["server"], "cases": 10_001})).unwrap_err();
        assert_eq!(err, "`cases` must be at most 10000");
        let err = fuzz_options(&json!({"command": ["server"], "findings": "f"})).unwrap_err();
        assert_eq!(err, "`findings` is no argument of fuzz");
    }

    // The flags of `check` and `fuzz` a tool takes are those the manifest
    // does not mark `mcp: false`, each with the manifest's description.
    #[test]
    fn the_tools_take_what_the_manifest_offers() {
        let manifest = crate::cli::commands::manifest("0").unwrap();
        let cli = Cli::command();
        for tool in [CheckTool.descriptor(), FuzzTool.descriptor()] {
            let specs = crate::manifest::args::args(cli.find_subcommand(&tool.name).unwrap());
            let flags = &manifest.commands[&tool.name].flags;
            let properties = tool.input_schema["properties"].as_object().unwrap();
            let mut taken: Vec<&str> = Vec::new();
            for (id, property) in properties {
                let spec = specs.iter().find(|spec| spec.id == *id).unwrap();
                let flag = &flags[&spec.name];
                assert_eq!(flag.mcp, None, "{} {id}", tool.name);
                assert_eq!(property["description"], flag.description.as_str());
                taken.push(&spec.name);
            }
            taken.sort_unstable();
            let offered: Vec<&str> = flags
                .iter()
                .filter(|(_, flag)| flag.mcp.is_none())
                .map(|(name, _)| name.as_str())
                .collect();
            assert_eq!(taken, offered, "{}", tool.name);
        }
    }

    // REQ-C-032: manifest shows mcp: false on every command the MCP server
    // leaves out, and no mcp field on any other command.
    #[test]
    fn mcp_false_marks_exactly_the_commands_serve_leaves_out() {
        let manifest = crate::cli::commands::manifest("0").unwrap();
        for (name, entry) in &manifest.commands {
            match entry.mcp {
                Some(value) => {
                    assert!(!value, "{name}");
                    assert!(!TOOL_NAMES.contains(&name.as_str()), "{name} is offered");
                }
                None => assert!(
                    TOOL_NAMES.contains(&name.as_str()) || name == "manifest",
                    "{name} carries no mcp field but is not offered"
                ),
            }
        }
    }

    // What clap cannot say of a flag is declared for flags that exist, of
    // commands that are tools; and every flag of a tool's command whose
    // value is a place on disk is declared, taken or not: whether an agent
    // may name one is decided, never inherited.
    #[test]
    fn every_declared_flag_exists_and_every_path_flag_is_declared() {
        use crate::cli::declared::FLAGS;
        use crate::manifest::{FlagType, args::args};
        let cli = Cli::command();
        for entry in FLAGS {
            for &command in entry.commands {
                assert!(TOOL_NAMES.contains(&command), "`{command}` is no tool");
                let command = cli.find_subcommand(command).unwrap();
                assert!(
                    command.get_arguments().any(|arg| arg.get_id() == entry.arg),
                    "`{} {}` is declared but no flag",
                    command.get_name(),
                    entry.arg
                );
            }
        }
        for command in cli
            .get_subcommands()
            .filter(|command| TOOL_NAMES.contains(&command.get_name()))
        {
            for spec in args(command) {
                if spec.item == FlagType::Path {
                    assert!(
                        FLAGS.iter().any(|entry| entry.arg == spec.id
                            && entry.commands.contains(&command.get_name())),
                        "`{} --{}` names a place on disk: declare whether serve's tool takes it (src/cli/declared.rs)",
                        command.get_name(),
                        spec.name
                    );
                }
            }
        }
    }

    // See: #24. A flag added to `check` in one place, its clap declaration,
    // is in `--help`, in the manifest and in serve's tool, which parses it.
    #[test]
    fn a_new_flag_on_check_appears_everywhere_from_one_declaration() {
        use clap::{Arg, ArgAction};
        let mut cli = Cli::command().mut_subcommand("check", |check| {
            check.arg(
                Arg::new("allow_empty")
                    .long("allow-empty")
                    .action(ArgAction::SetTrue)
                    .help("Pass a run that checked nothing"),
            )
        });
        let help = cli
            .find_subcommand_mut("check")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(help.contains("--allow-empty"), "{help}");
        assert!(help.contains("Pass a run that checked nothing"), "{help}");

        let manifest = crate::cli::commands::manifest_of(&cli, "0").unwrap();
        let flag = &manifest.commands["check"].flags["allow-empty"];
        assert_eq!(flag.kind, crate::manifest::FlagType::Boolean);
        assert_eq!(flag.description, "Pass a run that checked nothing");
        assert_eq!(flag.default, Some(json!(false)));
        assert_eq!(flag.mcp, None);

        let tool = ToolArgs::of(cli.find_subcommand("check").unwrap());
        let schema = tool.input_schema();
        assert_eq!(schema["properties"]["allow_empty"]["type"], "boolean");
        assert_eq!(
            schema["properties"]["allow_empty"]["description"],
            "Pass a run that checked nothing"
        );
        let matches = tool
            .matches(&json!({"allow_empty": true, "command": ["server"]}))
            .unwrap();
        assert!(matches.get_flag("allow_empty"));
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
        let structured = output.structured.unwrap();
        let laws = structured["laws"].as_array().unwrap().len();
        assert_eq!(laws, crate::laws::CATALOG.len());
        assert!(structured.get("requirements").is_none(), "{structured}");
        assert!(output.report.contains("help-does-not-serve"));
        assert!(!output.report.contains("srv-ping-empty-result"));

        // With `requirements`, the registry too.
        let output = LawsTool.run(&json!({"requirements": true}));
        assert!(!output.is_error);
        let structured = output.structured.unwrap();
        assert_eq!(
            structured["laws"].as_array().unwrap().len(),
            crate::laws::CATALOG.len()
        );
        let requirements = structured["requirements"].as_array().unwrap();
        assert_eq!(requirements.len(), crate::laws::registry::REGISTRY.len());
        assert!(requirements.iter().all(|r| r["type"] == "requirement"));
        assert!(output.report.contains("srv-ping-empty-result"));
    }
}
