//! The `mcp-replay` command line: parse, run, map to an exit status.
//!
//! Exit status is a contract kept in one place: 0 all held, 1 findings, 2
//! usage error or unreadable input. A subcommand that proxies a server
//! (`record`) exits with the server's own status instead.
#![allow(clippy::print_stderr)]

use std::error::Error;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    /// List the laws: id, severity per profile, implemented or reserved, citations.
    Laws(LawsArgs),
    /// Serve the demo MCP server on stdio: the server the bundled transcripts run against.
    DemoServer,
}

/// Arguments of `mcp-replay record`.
#[derive(Debug, clap::Args)]
struct RecordArgs {
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

/// Arguments of `mcp-replay laws`.
#[derive(Debug, clap::Args)]
struct LawsArgs {
    /// How to print the catalog.
    #[arg(long, value_enum, default_value_t = LawsFormat::Human)]
    format: LawsFormat,
}

/// The formats of `mcp-replay laws`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LawsFormat {
    /// Aligned text.
    Human,
    /// JSON Lines, one object per law.
    Json,
}

/// The exit status of a usage error or unreadable input.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Record(args) => run_record(args),
        Command::Check(args) => run_check(args),
        Command::Laws(args) => run_laws(&args),
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

fn run_record(_args: RecordArgs) -> Result<ExitCode, Failure> {
    Ok(ExitCode::SUCCESS)
}

fn run_check(_args: CheckArgs) -> Result<ExitCode, Failure> {
    Ok(ExitCode::SUCCESS)
}

fn run_laws(args: &LawsArgs) -> Result<ExitCode, Failure> {
    use mcp_replay::check::laws::{CatalogFormat, render_catalog};
    let format = match args.format {
        LawsFormat::Human => CatalogFormat::Human,
        LawsFormat::Json => CatalogFormat::Json,
    };
    let mut out = std::io::stdout().lock();
    match render_catalog(&mut out, format).and_then(|()| std::io::Write::flush(&mut out)) {
        // A reader that stopped reading (`| head`) is no failure.
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}
