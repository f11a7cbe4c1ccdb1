//! The manifest of `mcp-replay` (what `mcp-replay manifest` prints): each
//! command as clap declares it, with what clap cannot say declared here
//! beside it: its danger level, whether it serves a protocol, whether
//! serve's MCP server may offer it, and its exit codes.
//!
//! The flags are clap's (`manifest::args`), with `mcp: false` where
//! [`super::declared`] keeps a flag off the command's tool; nothing here
//! names one, but for `record`'s `output_file`.

use clap::CommandFactory as _;

use super::args::Cli;
use super::declared::{ToolArg, tool_arg};
use crate::manifest::{
    CommandEntry, DangerLevel, ExitCodeEntry, MCP_STDIO, Manifest, RegistrationError,
    STDOUT_PROTOCOL,
};

/// The manifest of every `mcp-replay` command, at `version`.
///
/// # Errors
///
/// A [`RegistrationError`] if an entry broke REQ-C-032, or a command has
/// no declaration here; a test shows none does.
pub fn manifest(version: &str) -> Result<Manifest, RegistrationError> {
    manifest_of(&Cli::command(), version)
}

/// The manifest of the command line `cli` (`mcp-replay`'s, or one a test
/// changed), at `version`.
///
/// # Errors
///
/// As [`manifest`].
pub fn manifest_of(cli: &clap::Command, version: &str) -> Result<Manifest, RegistrationError> {
    let mut manifest = Manifest::new(version);
    for command in cli.get_subcommands() {
        let name = command.get_name();
        let mut entry = declared(name);
        entry.description = command
            .get_about()
            .map(ToString::to_string)
            .unwrap_or_default();
        entry.flags = crate::manifest::args::flags(command, |arg| {
            (tool_arg(name, arg) == ToolArg::Local).then_some(false)
        });
        manifest.register(name, entry)?;
    }
    Ok(manifest)
}

/// What clap cannot say of the command `name`; nothing for a command not
/// declared, which the manifest then refuses (it has no danger level).
fn declared(name: &str) -> CommandEntry {
    match name {
        "record" => record(),
        "check" => check(),
        "fuzz" => fuzz(),
        "laws" => laws(),
        "manifest" => manifest_command(),
        "serve" => serve(),
        "mock" => mock(),
        "demo-server" => demo_server(),
        _ => CommandEntry::default(),
    }
}

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

fn command(danger_level: DangerLevel) -> CommandEntry {
    CommandEntry {
        danger_level: Some(danger_level),
        ..CommandEntry::default()
    }
}

fn record() -> CommandEntry {
    let mut entry = command(DangerLevel::Mutating);
    // An interactive proxy between a host and its server: it lives as long
    // as the host's session and hands stdio on to the server.
    entry.mcp = Some(false);
    entry.arguments = Some("passthrough".to_owned());
    entry.output_file = Some("output".to_owned());
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
    let mut entry = command(DangerLevel::Mutating);
    entry.output_formats = vec!["human".to_owned(), "json".to_owned()];
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
    // It runs the server's tools and writes finding transcripts.
    let mut entry = command(DangerLevel::Mutating);
    entry.arguments = Some("passthrough".to_owned());
    entry.output_formats = vec!["human".to_owned(), "json".to_owned()];
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
    let mut entry = command(DangerLevel::ReadOnly);
    entry.output_formats = vec!["human".to_owned(), "json".to_owned()];
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
    let mut entry = command(DangerLevel::ReadOnly);
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

/// A command whose stdout carries MCP from the first byte.
fn protocol_command(danger_level: DangerLevel) -> CommandEntry {
    let mut entry = command(danger_level);
    entry.stdout = Some(STDOUT_PROTOCOL.to_owned());
    entry.protocol = Some(MCP_STDIO.to_owned());
    // A server lives until its client hangs up: never a tool call that
    // returns.
    entry.mcp = Some(false);
    entry
}

fn serve() -> CommandEntry {
    // A `check` call starts the server command it names.
    let mut entry = protocol_command(DangerLevel::Mutating);
    serving_codes(&mut entry);
    signal_codes(
        &mut entry,
        "A signal ended the session; every server a check had started was killed first",
    );
    entry
}

fn mock() -> CommandEntry {
    // Files are written only when asked: the host report's (`--junit`,
    // `--report`, `--summary`).
    let mut entry = protocol_command(DangerLevel::Mutating);
    serving_codes(&mut entry);
    // A judged host that broke a host law ends the session with 1, as
    // `check` does; stdio that could not be taken does too.
    code(
        &mut entry,
        1,
        "FAILED",
        "A judged host broke a host law (the built-in scenario, or --judge-host); or stdio could not be set aside for the protocol, and the server did not start",
        false,
        "complete",
    );
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
    let mut entry = protocol_command(DangerLevel::ReadOnly);
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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn json() -> Value {
        serde_json::to_value(manifest("0.0.0").unwrap()).unwrap()
    }

    #[test]
    fn every_command_is_declared_and_registers() {
        let manifest = manifest("0.0.0").unwrap();
        let cli = Cli::command();
        let names: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
        assert_eq!(manifest.commands.len(), names.len());
        assert_eq!(manifest.commands.len(), 8);
    }

    #[test]
    fn a_command_without_a_declaration_is_refused() {
        let cli = Cli::command().subcommand(clap::Command::new("new-command").about("New"));
        assert!(matches!(
            manifest_of(&cli, "0"),
            Err(RegistrationError::NoDangerLevel { command }) if command == "new-command"
        ));
    }

    // REQ-C-032: manifest shows stdout "protocol" and a protocol name on
    // every protocol server command, and neither field on any other.
    #[test]
    fn only_the_servers_carry_stdout_and_protocol() {
        let json = json();
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

    #[test]
    fn the_flags_a_tool_never_takes_say_mcp_false() {
        let json = json();
        let check = &json["commands"]["check"]["flags"];
        for flag in ["bless", "write-baseline", "junit", "format", "allow-cwd"] {
            assert_eq!(check[flag]["mcp"], false, "{flag}");
        }
        for flag in ["paths", "baseline", "no-probes", "timeout"] {
            assert!(check[flag].get("mcp").is_none(), "{flag}");
        }
        // A command that is no tool carries no `mcp` on its flags.
        let record = json["commands"]["record"]["flags"].as_object().unwrap();
        assert!(record.values().all(|flag| flag.get("mcp").is_none()));
    }
}
