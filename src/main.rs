//! The `mcp-replay` command line: parse, run, map to an exit status.
//!
//! Exit status is a contract kept in one place: 0 all held, 1 findings, 2
//! usage error or unreadable input. A subcommand that proxies a server
//! (`record`) exits with the server's own status instead.
#![allow(clippy::print_stderr)]

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_replay::record::{RecordError, RecordOptions, record};

#[path = "../examples/demo-server.rs"]
mod demo_server;

/// Record, replay and check MCP stdio servers.
#[derive(Debug, Parser)]
#[command(name = "mcp-replay", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Record a host↔server session: start this in place of the server.
    Record(RecordArgs),
    /// Replay transcripts against a server and check the laws.
    Check(CheckArgs),
    /// Serve the demo MCP server on stdio: the server the bundled transcripts run against.
    DemoServer,
}

/// Arguments of `mcp-replay record`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The recorder is invisible to both sides: it forwards every byte unchanged, writes nothing \
of its own to stdout, passes SIGTERM, SIGINT and SIGHUP to the server, and exits with the \
server's status (128+N when the server died of signal N).

Environment values are never recorded, only names. Values of variables whose names look \
secret (TOKEN, KEY, SECRET, PASSWORD, ...) are replaced in the transcript by [REDACTED:NAME].")]
struct RecordArgs {
    /// The transcript to write [default: transcripts/<server>-<UTC time>.jsonl].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Overwrite the transcript if it exists.
    #[arg(long)]
    force: bool,
    /// Do not record the server's stderr (it is still passed through).
    #[arg(long)]
    no_stderr: bool,
    /// Also redact matches of this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    redact: Vec<String>,
    /// Also redact the value of this environment variable (repeatable).
    #[arg(long, value_name = "NAME")]
    redact_env: Vec<String>,
    /// An ignore rule for `check`: a JSON pointer into server messages, `*`
    /// for any one segment, `**` for any number (repeatable).
    #[arg(long, value_name = "POINTER")]
    ignore: Vec<String>,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "SERVER CMD")]
    command: Vec<String>,
}

/// Arguments of `mcp-replay check`.
#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// Transcript files or directories (searched recursively for *.jsonl).
    #[arg(value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
    /// A server command that replaces the recorded one.
    #[arg(last = true, value_name = "SERVER CMD")]
    command: Vec<String>,
}

/// The exit status of a usage error or unreadable input.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Record(args) => run_record(args),
        Command::Check(args) => run_check(args),
        Command::DemoServer => return demo_server::main(),
    };
    match result {
        Ok(code) => code,
        Err(failure) => {
            report_error(&failure);
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// An error for the top level: what failed, its causes, and one hint.
#[derive(Debug)]
struct Failure {
    error: Box<dyn Error + Send + Sync>,
    hint: Option<String>,
}

impl<E: Error + Send + Sync + 'static> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure {
            error: Box::new(error),
            hint: None,
        }
    }
}

/// Prints `mcp-replay: error: …`, one `caused by:` line per source, and the
/// hint, on stderr.
fn report_error(failure: &Failure) {
    eprintln!("mcp-replay: error: {}", failure.error);
    let mut source = failure.error.source();
    while let Some(cause) = source {
        eprintln!("  caused by: {cause}");
        source = cause.source();
    }
    if let Some(hint) = &failure.hint {
        eprintln!("hint: {hint}");
    }
}

fn run_record(args: RecordArgs) -> Result<ExitCode, Failure> {
    let mut options = RecordOptions::new(args.command);
    options.output = args.output;
    options.force = args.force;
    options.stderr = !args.no_stderr;
    options.redact_patterns = args.redact;
    options.redact_env = args.redact_env;
    options.ignore = args.ignore;
    let recorded = record(&options, &mut std::io::stderr()).map_err(|err| {
        let hint = match &err {
            RecordError::Exists { .. } => {
                Some("pass --force to overwrite it, or name another file with -o".to_owned())
            }
            RecordError::Spawn(spawn) if spawn.source.kind() == std::io::ErrorKind::NotFound => {
                Some("check that the server command is installed and on PATH".to_owned())
            }
            RecordError::Redact(_) => Some(
                "--redact takes a regular expression in the syntax of the regex crate".to_owned(),
            ),
            _ => None,
        };
        Failure {
            error: Box::new(err),
            hint,
        }
    })?;
    if let Some(err) = &recorded.write_error {
        // The session went on; only the transcript is incomplete.
        eprintln!(
            "mcp-replay: warning: the transcript `{}` stopped early: {err}",
            recorded.path.display()
        );
    }
    // A shell status is 0..=255, so the cast keeps every value a server can
    // exit with; 128 + N for a signal stays in range too.
    Ok(ExitCode::from(recorded.exit.shell_status() as u8))
}

fn run_check(_args: CheckArgs) -> Result<ExitCode, Failure> {
    Ok(ExitCode::SUCCESS)
}
