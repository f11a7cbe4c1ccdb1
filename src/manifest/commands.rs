//! The manifest of `mcp-replay` itself: what `mcp-replay manifest` prints.
//!
//! Every clap subcommand and flag of the binary has an entry here; a test
//! of the binary holds the two in step.

use serde_json::Value;

use super::{
    CommandEntry, DangerLevel, ExitCodeEntry, Flag, FlagType, MCP_STDIO, Manifest,
    RegistrationError, STDOUT_PROTOCOL,
};

/// The codes of a run that a signal ended (REQ-F-013): 128 + N.
fn signal_codes(entry: &mut CommandEntry, what: &'static str) {
    code(entry, 129, "SIGHUP", what, true, "partial");
    code(entry, 130, "SIGINT", what, true, "partial");
    code(entry, 143, "SIGTERM", what, true, "partial");
}

fn code(
    entry: &mut CommandEntry,
    code: u8,
    name: &'static str,
    description: &'static str,
    retryable: bool,
    side_effects: &'static str,
) {
    entry.exit_codes.insert(
        code.to_string(),
        ExitCodeEntry::new(name, description, retryable, side_effects),
    );
}

fn flag(entry: &mut CommandEntry, name: &str, flag: Flag) {
    entry.flags.insert(name.to_owned(), flag);
}

fn command(description: &str, danger_level: DangerLevel) -> CommandEntry {
    CommandEntry {
        description: description.to_owned(),
        danger_level: Some(danger_level),
        ..CommandEntry::default()
    }
}

const FORMAT_HELP: &str =
    "The output format; with `json`, a usage error also ends stderr with a ResponseEnvelope";

/// The manifest of every `mcp-replay` command, at `version`.
///
/// # Errors
///
/// A [`RegistrationError`] if an entry broke REQ-C-032; a test shows none
/// does.
pub fn mcp_replay(version: &str) -> Result<Manifest, RegistrationError> {
    let mut manifest = Manifest::new(version);
    manifest.register("record", record())?;
    manifest.register("check", check())?;
    manifest.register("fuzz", fuzz())?;
    manifest.register("laws", laws())?;
    manifest.register("manifest", manifest_command())?;
    manifest.register("serve", serve())?;
    manifest.register("mock", mock())?;
    manifest.register("demo-server", demo_server())?;
    Ok(manifest)
}

fn record() -> CommandEntry {
    let mut entry = command(
        "Record a host↔server session: start this in place of the server",
        DangerLevel::Mutating,
    );
    // An interactive proxy between a host and its server: it lives as long
    // as the host's session and hands stdio on to the server.
    entry.mcp = Some(false);
    entry.arguments = Some("passthrough".to_owned());
    entry.output_file = Some("output".to_owned());
    use FlagType::{Array, Boolean, Path};
    flag(
        &mut entry,
        "output",
        Flag::new(
            Path,
            "The transcript to write [default: transcripts/<server>-<UTC time>.jsonl]",
        ),
    );
    flag(
        &mut entry,
        "force",
        Flag::new(Boolean, "Overwrite the transcript if it exists").default(false),
    );
    flag(
        &mut entry,
        "no-stderr",
        Flag::new(
            Boolean,
            "Do not record the server's stderr (it is still passed through)",
        )
        .default(false),
    );
    flag(
        &mut entry,
        "redact",
        Flag::new(
            Array,
            "Also redact matches of this regular expression (repeatable)",
        ),
    );
    flag(
        &mut entry,
        "redact-env",
        Flag::new(
            Array,
            "Also redact the value of this environment variable (repeatable)",
        ),
    );
    flag(
        &mut entry,
        "ignore",
        Flag::new(Array, "An ignore rule for `check` (repeatable)"),
    );
    flag(
        &mut entry,
        "command",
        Flag::new(Array, "The server command and its arguments")
            .required()
            .positional("after_separator"),
    );
    code(
        &mut entry,
        0,
        "SUCCESS",
        "The server exited 0; any other status is the server's own, passed on",
        false,
        "complete",
    );
    code(
        &mut entry,
        2,
        "ARG_ERROR",
        "A flag is invalid, or the server or transcript could not be started",
        false,
        "none",
    );
    code(
        &mut entry,
        74,
        "TRANSCRIPT_INCOMPLETE",
        "The server exited 0, but writing the transcript failed (a full disk): it lacks the rest of the session",
        true,
        "partial",
    );
    entry
}

fn check() -> CommandEntry {
    let mut entry = command(
        "Replay transcripts against a server and check the laws",
        DangerLevel::Mutating,
    );
    entry.output_formats = vec!["human".to_owned(), "json".to_owned()];
    use FlagType::{Array, Boolean, Duration, Enum, Integer, Path, String};
    flag(
        &mut entry,
        "paths",
        Flag::new(
            Array,
            "Transcript files or directories; `transcripts/` when none is given",
        )
        .positional("leading"),
    );
    flag(
        &mut entry,
        "profile",
        Flag::new(Enum, "The contract to hold servers to")
            .values(&["core", "spec"])
            .default("core"),
    );
    flag(
        &mut entry,
        "waive",
        Flag::new(Array, "Do not fail on this law (repeatable)"),
    );
    flag(
        &mut entry,
        "deny-warnings",
        Flag::new(Boolean, "Fail on warnings too").default(false),
    );
    // Where a transcript's server may run, and what it may be sent, are
    // the person's to allow, never an agent's.
    flag(
        &mut entry,
        "allow-cwd",
        Flag::new(
            Array,
            "Also run a recorded server where its transcript's cwd leads inside DIR (repeatable)",
        )
        .off_mcp(),
    );
    flag(
        &mut entry,
        "fill-env",
        Flag::new(
            Array,
            "Fill the placeholders [REDACTED:NAME] of the transcripts' client lines and commands with the value of NAME (repeatable; MCP_REPLAY_FILL_ENV adds more)",
        )
        .off_mcp(),
    );
    flag(
        &mut entry,
        "baseline",
        Flag::new(
            Path,
            "Findings listed in FILE do not fail the run; entries that no longer occur do",
        ),
    );
    flag(
        &mut entry,
        "write-baseline",
        Flag::new(
            Path,
            "Write every finding of this run to FILE as a baseline, and pass them",
        )
        .off_mcp(),
    );
    // Blessing rewrites transcripts a person reviews: never an MCP tool's
    // argument.
    flag(
        &mut entry,
        "bless",
        Flag::new(
            Boolean,
            "Rewrite the server side of mismatched transcripts with the live answers",
        )
        .default(false)
        .off_mcp(),
    );
    flag(
        &mut entry,
        "fail-on-noise",
        Flag::new(Boolean, "Fail on differences that are noise too").default(false),
    );
    flag(
        &mut entry,
        "no-probes",
        Flag::new(Boolean, "Replay only; do not run the law probes").default(false),
    );
    flag(
        &mut entry,
        "cli-probes",
        Flag::new(
            Boolean,
            "Also run the CLI probes (help-does-not-serve, bad-flag-exits-2) against each server command",
        )
        .default(false),
    );
    flag(
        &mut entry,
        "bad-flag",
        Flag::new(String, "The invalid flag the bad-flag-exits-2 probe passes")
            .default(crate::check::probes::cli::DEFAULT_BAD_FLAG),
    );
    flag(
        &mut entry,
        "no-replay",
        Flag::new(
            Boolean,
            "Run the law probes of the server command alone; replay nothing",
        )
        .default(false),
    );
    flag(
        &mut entry,
        "format",
        Flag::new(Enum, "The report format on stdout")
            .values(&["human", "json"])
            .default("human"),
    );
    flag(
        &mut entry,
        "junit",
        Flag::new(Path, "Also write a JUnit XML report to FILE").off_mcp(),
    );
    flag(
        &mut entry,
        "summary",
        Flag::new(Path, "Also append a Markdown summary to FILE").off_mcp(),
    );
    flag(
        &mut entry,
        "verbose",
        Flag::new(Boolean, "List every law of the human report, held ones too").default(false),
    );
    flag(
        &mut entry,
        "color",
        Flag::new(Enum, "When to colour the human report")
            .values(&["auto", "always", "never"])
            .default("auto"),
    );
    flag(
        &mut entry,
        "jobs",
        Flag::new(
            Integer,
            "How many replays and probe runs at once [default: the machine's cores]",
        ),
    );
    flag(
        &mut entry,
        "partition",
        Flag::new(String, "Check only share I of N (e.g. 2/4)"),
    );
    flag(
        &mut entry,
        "timeout",
        Flag::new(Duration, "The deadline of each step").default("5s"),
    );
    flag(
        &mut entry,
        "startup-timeout",
        Flag::new(
            Duration,
            "The deadline of a step while the server has written nothing yet",
        )
        .default("20s"),
    );
    flag(
        &mut entry,
        "settle",
        Flag::new(
            Duration,
            "How long the probes watch stdout before the first message",
        )
        .default("1s"),
    );
    flag(
        &mut entry,
        "grace",
        Flag::new(
            Duration,
            "How long a server may take to exit after stdin closes or SIGTERM",
        )
        .default("2s"),
    );
    flag(
        &mut entry,
        "command",
        Flag::new(
            Array,
            "A server command that replaces the one recorded in each transcript",
        )
        .positional("after_separator"),
    );
    code(
        &mut entry,
        0,
        "SUCCESS",
        "Everything checked held",
        false,
        "complete",
    );
    code(
        &mut entry,
        1,
        "FINDINGS",
        "A finding fails the run, or a baseline entry is stale",
        false,
        "complete",
    );
    code(
        &mut entry,
        2,
        "ARG_ERROR",
        "A usage error or unreadable input",
        false,
        "none",
    );
    signal_codes(
        &mut entry,
        "A signal ended the run; every server still running was killed first",
    );
    entry
}

fn fuzz() -> CommandEntry {
    let mut entry = command(
        "Call a server's tools with arguments drawn from their schemas; keep each bug as a transcript",
        // It runs the server's tools and writes finding transcripts.
        DangerLevel::Mutating,
    );
    // A tool of `serve`, which calls only read-only tools in a scratch
    // directory and writes no transcripts: the flags that would change
    // that are off its tool.
    entry.arguments = Some("passthrough".to_owned());
    entry.output_formats = vec!["human".to_owned(), "json".to_owned()];
    use FlagType::{Array, Boolean, Duration, Enum, Integer, Path};
    flag(
        &mut entry,
        "seed",
        Flag::new(
            Integer,
            "The seed of the run's cases [default: a fresh one, printed]",
        ),
    );
    flag(
        &mut entry,
        "cases",
        Flag::new(Integer, "How many cases to draw for each tool").default(100),
    );
    flag(
        &mut entry,
        "budget",
        Flag::new(Duration, "How long to send cases for").default("60s"),
    );
    flag(
        &mut entry,
        "timeout",
        Flag::new(Duration, "The deadline of each call").default("5s"),
    );
    flag(
        &mut entry,
        "startup-timeout",
        Flag::new(Duration, "The deadline of a fresh server's first answer").default("20s"),
    );
    flag(
        &mut entry,
        "grace",
        Flag::new(
            Duration,
            "How long a server may take to exit after stdin closes",
        )
        .default("2s"),
    );
    // Naming a tool, or all of them, calls what may change things.
    flag(
        &mut entry,
        "tool",
        Flag::new(
            Array,
            "Call this tool whatever its annotations say; only the tools named are called (repeatable)",
        )
        .off_mcp(),
    );
    flag(
        &mut entry,
        "all-tools",
        Flag::new(Boolean, "Call every tool, whatever its annotations say")
            .default(false)
            .off_mcp(),
    );
    flag(
        &mut entry,
        "read-only",
        Flag::new(
            Boolean,
            "Call by default only tools annotated readOnlyHint: true, leaving out those that only add (destructiveHint: false)",
        )
        .default(false)
        .off_mcp(),
    );
    flag(
        &mut entry,
        "skip-tool",
        Flag::new(Array, "Never call this tool (repeatable)"),
    );
    flag(
        &mut entry,
        "era",
        Flag::new(Enum, "The era to speak")
            .values(&["auto", "legacy", "modern"])
            .default("auto"),
    );
    flag(
        &mut entry,
        "pipeline",
        Flag::new(Integer, "How many calls may be in flight at once").default(8),
    );
    flag(
        &mut entry,
        "findings",
        Flag::new(Path, "The directory finding transcripts are written to")
            .default("fuzz-findings")
            .off_mcp(),
    );
    flag(
        &mut entry,
        "no-findings",
        Flag::new(Boolean, "Write no finding transcripts")
            .default(false)
            .off_mcp(),
    );
    flag(
        &mut entry,
        "no-shrink",
        Flag::new(Boolean, "Report failing cases as first sent, unshrunk").default(false),
    );
    flag(
        &mut entry,
        "cwd",
        Flag::new(Path, "Run the server in DIR instead of a scratch directory").off_mcp(),
    );
    flag(
        &mut entry,
        "profile",
        Flag::new(Enum, "The contract to hold the server to")
            .values(&["core", "spec"])
            .default("core"),
    );
    flag(
        &mut entry,
        "waive",
        Flag::new(Array, "Do not fail on this law (repeatable)"),
    );
    flag(
        &mut entry,
        "deny-warnings",
        Flag::new(Boolean, "Fail on warnings too").default(false),
    );
    flag(
        &mut entry,
        "format",
        Flag::new(Enum, "The report format on stdout")
            .values(&["human", "json"])
            .default("human"),
    );
    flag(
        &mut entry,
        "junit",
        Flag::new(Path, "Also write a JUnit XML report to FILE").off_mcp(),
    );
    flag(
        &mut entry,
        "summary",
        Flag::new(Path, "Also append a Markdown summary to FILE").off_mcp(),
    );
    flag(
        &mut entry,
        "verbose",
        Flag::new(Boolean, "List every tool and law of the human report").default(false),
    );
    flag(
        &mut entry,
        "color",
        Flag::new(Enum, "When to colour the human report")
            .values(&["auto", "always", "never"])
            .default("auto"),
    );
    flag(
        &mut entry,
        "command",
        Flag::new(Array, "The server command and its arguments")
            .required()
            .positional("after_separator"),
    );
    code(
        &mut entry,
        0,
        "SUCCESS",
        "Every call held to every law",
        false,
        "complete",
    );
    code(
        &mut entry,
        1,
        "FINDINGS",
        "A finding fails the run; its transcript is written",
        false,
        "complete",
    );
    code(
        &mut entry,
        2,
        "ARG_ERROR",
        "A usage error, or a server that cannot be started or opened",
        false,
        "none",
    );
    signal_codes(
        &mut entry,
        "A signal ended the run; every server still running was killed first",
    );
    entry
}

fn laws() -> CommandEntry {
    let mut entry = command(
        "List the laws: id, severity per profile, implemented or reserved, citations",
        DangerLevel::ReadOnly,
    );
    entry.output_formats = vec!["human".to_owned(), "json".to_owned()];
    flag(
        &mut entry,
        "format",
        Flag::new(FlagType::Enum, "How to print the catalog")
            .values(&["human", "json"])
            .default("human"),
    );
    code(
        &mut entry,
        0,
        "SUCCESS",
        "The catalog is printed",
        false,
        "none",
    );
    code(
        &mut entry,
        2,
        "ARG_ERROR",
        "A flag is invalid",
        false,
        "none",
    );
    entry
}

fn manifest_command() -> CommandEntry {
    let mut entry = command("Print this manifest as JSON", DangerLevel::ReadOnly);
    entry.output_formats = vec!["json".to_owned()];
    code(
        &mut entry,
        0,
        "SUCCESS",
        "The manifest is printed",
        false,
        "none",
    );
    code(
        &mut entry,
        2,
        "ARG_ERROR",
        "A flag is invalid",
        false,
        "none",
    );
    entry
}

fn protocol_command(description: &str) -> CommandEntry {
    let mut entry = command(description, DangerLevel::ReadOnly);
    entry.stdout = Some(STDOUT_PROTOCOL.to_owned());
    entry.protocol = Some(MCP_STDIO.to_owned());
    // A server lives until its client hangs up: never a tool call that
    // returns.
    entry.mcp = Some(false);
    flag(
        &mut entry,
        "schema",
        Flag::new(
            FlagType::Boolean,
            "Print this command's manifest entry as JSON and exit, without serving",
        )
        .default(false),
    );
    entry
}

fn serve() -> CommandEntry {
    let mut entry =
        protocol_command("Serve `check` and `laws` as MCP tools over stdio until stdin closes");
    // A `check` call starts the server command it names.
    entry.danger_level = Some(DangerLevel::Mutating);
    flag(
        &mut entry,
        "format",
        Flag::new(FlagType::Enum, FORMAT_HELP)
            .values(&["text", "json"])
            .default("text"),
    );
    flag(
        &mut entry,
        "call-timeout",
        Flag::new(
            FlagType::Duration,
            "The longest one `check` call may run; past it the call is stopped and its servers killed",
        )
        .default("600s"),
    );
    serving_codes(&mut entry);
    signal_codes(
        &mut entry,
        "A signal ended the session; every server a check had started was killed first",
    );
    entry
}

fn mock() -> CommandEntry {
    let mut entry = protocol_command(
        "Serve recorded transcripts over stdio as a fake MCP server, for testing clients",
    );
    flag(
        &mut entry,
        "transcripts",
        Flag::new(FlagType::Array, "The transcripts to serve, in order")
            .required()
            .positional("leading"),
    );
    flag(
        &mut entry,
        "strict",
        Flag::new(
            FlagType::Boolean,
            "Answer only requests whose normalized params a recorded request has exactly",
        )
        .default(false),
    );
    flag(
        &mut entry,
        "fill-env",
        Flag::new(
            FlagType::Array,
            "Fill the placeholders [REDACTED:NAME] of the recorded lines sent with the value of NAME (repeatable; MCP_REPLAY_FILL_ENV adds more)",
        ),
    );
    flag(
        &mut entry,
        "format",
        Flag::new(FlagType::Enum, FORMAT_HELP)
            .values(&["text", "json"])
            .default("text"),
    );
    serving_codes(&mut entry);
    // A transcript that cannot be read is unreadable input, as for
    // `check`: the mock never starts.
    code(
        &mut entry,
        2,
        "ARG_ERROR",
        "A flag is invalid, or a transcript is missing or cannot be read; the server did not start",
        false,
        "none",
    );
    signal_codes(&mut entry, "A signal ended the session");
    entry
}

fn demo_server() -> CommandEntry {
    let mut entry = protocol_command(
        "Serve the demo MCP server on stdio: the server the bundled transcripts run against",
    );
    serving_codes(&mut entry);
    code(
        &mut entry,
        143,
        "SIGTERM",
        "SIGTERM ended the session",
        false,
        "complete",
    );
    entry
}

/// The exit codes every protocol command of the tool declares: a clean
/// shutdown, stdio that could not be set aside, an invalid flag.
fn serving_codes(entry: &mut CommandEntry) {
    code(
        entry,
        0,
        "SUCCESS",
        "The client closed stdin and the server shut down cleanly",
        false,
        "complete",
    );
    code(
        entry,
        1,
        "SERVE_ERROR",
        "Stdio could not be set aside for the protocol; the server did not start",
        true,
        "none",
    );
    code(
        entry,
        2,
        "ARG_ERROR",
        "A flag is invalid; the server did not start",
        false,
        "none",
    );
}

/// The manifest as one JSON value.
pub fn to_json(manifest: &Manifest) -> Value {
    serde_json::to_value(manifest).expect("a manifest always serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_registers() {
        let manifest = mcp_replay("0.0.0").unwrap();
        assert_eq!(manifest.commands.len(), 8);
    }

    // REQ-C-032: manifest shows stdout "protocol" and a protocol name on
    // every protocol server command, and neither field on any other.
    #[test]
    fn only_the_servers_carry_stdout_and_protocol() {
        let json = to_json(&mcp_replay("0.0.0").unwrap());
        for (name, entry) in json["commands"].as_object().unwrap() {
            let server = matches!(name.as_str(), "serve" | "mock" | "demo-server");
            assert_eq!(entry.get("stdout").is_some(), server, "{name}");
            assert_eq!(entry.get("protocol").is_some(), server, "{name}");
            if server {
                assert_eq!(entry["stdout"], "protocol");
                assert_eq!(entry["protocol"], "mcp-stdio");
            }
        }
    }

    // REQ-C-032: manifest shows mcp: false on every command the MCP server
    // leaves out, and no mcp field on any other command.
    #[test]
    fn mcp_false_marks_exactly_the_commands_serve_leaves_out() {
        let json = to_json(&mcp_replay("0.0.0").unwrap());
        let offered = crate::serve::TOOL_NAMES;
        for (name, entry) in json["commands"].as_object().unwrap() {
            match entry.get("mcp") {
                Some(value) => {
                    assert_eq!(value, &Value::Bool(false), "{name}");
                    assert!(!offered.contains(&name.as_str()), "{name} is offered");
                }
                None => assert!(
                    offered.contains(&name.as_str()) || name == "manifest",
                    "{name} carries no mcp field but is not offered"
                ),
            }
        }
        assert_eq!(json["commands"]["check"]["flags"]["bless"]["mcp"], false);
    }
}
