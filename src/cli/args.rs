//! The command line as clap declares it: every subcommand and flag of
//! `mcp-replay`, once.
//!
//! A flag is declared here and nowhere else: `--help` is clap's, the
//! manifest's flags are read from these declarations
//! (`manifest::args`), and so are the input schemas of `serve`'s tools and
//! the parse of their arguments. What clap cannot say of a flag is in
//! [`super::declared`].
//!
//! The doc comments of the flags are their help, written for a terminal:
//! `[REDACTED:NAME]` and `<server>` are text there, not links or tags.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};

use super::emit::ReportArgs;
use crate::check::{CheckOptions, Partition};
use crate::client::duration::parse_duration;
use crate::fuzz::{EraChoice, FuzzOptions};
use crate::laws::{CATALOG, LawId, Profile};
use crate::transcript::{fill_names_from_env, with_fill_names};

/// Record, replay and check MCP stdio servers.
#[derive(Debug, Parser)]
#[command(name = "mcp-replay", version = env!("MCP_REPLAY_VERSION"), about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Record a host↔server session: start this in place of the server.
    Record(RecordArgs),
    /// Replay transcripts against a server and check the laws.
    Check(Box<CheckArgs>),
    /// Call a server's tools with arguments drawn from their schemas; keep each bug as a transcript.
    Fuzz(Box<FuzzArgs>),
    /// List the laws: id, severity per profile, implemented or reserved, citations.
    Laws(LawsArgs),
    /// Print the command manifest as JSON: every command, its flags and exit codes.
    Manifest,
    /// Serve `check` and `laws` as MCP tools over stdio until stdin closes.
    Serve(ServeArgs),
    /// Serve recorded transcripts over stdio as a fake MCP server, for testing clients.
    Mock(MockArgs),
    /// Serve the demo MCP server on stdio: the server the bundled transcripts run against.
    DemoServer(SchemaArgs),
}

/// The flag every protocol command takes besides its own.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Print this command's manifest entry as JSON and exit, without serving.
    #[arg(long)]
    pub schema: bool,
}

/// Arguments of `mcp-replay serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Stdout carries MCP messages from the first byte (protocol mcp-stdio); diagnostics go to \
stderr. Exit status: 0 when the client closes stdin, 2 for an invalid flag (the server \
never starts), 1 when stdio cannot be set aside, 128 + N when signal N ends the session. \
With --format json, every exit but 0 ends stderr with a ResponseEnvelope.")]
pub struct ServeArgs {
    /// The format of a failure report on stderr.
    #[arg(long, value_enum, default_value_t = ServeFormat::Text)]
    pub format: ServeFormat,
    /// The longest one `check` call may run; past it the call is stopped,
    /// its servers killed, and the answer says so.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "600s")]
    pub call_timeout: Duration,
    /// `--schema`.
    #[command(flatten)]
    pub schema: SchemaArgs,
}

/// Arguments of `mcp-replay mock`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Each request is answered with a recorded one of the same method: the one with the same \
params (`_meta` and the transcript's ignore rules left out), else, unless --strict, the \
one naming the same tool, prompt or resource, else the next of the same method; \
identical requests get the recorded answers in order, then the last one again. Recorded \
notifications and server requests follow the request they followed. See docs/mock.md.

`exercise` (when no file has that name) is the built-in scenario that puts a host through \
its duties: server requests for what it declared, ping, a list change, a call to cancel, \
an input_required answer to retry on 2026-07-28. It judges the host against the host laws, \
as --judge-host does for transcripts, and reports when the session ends: on stderr, and \
to the --junit, --report and --summary files. See docs/host-laws.md.

Stdout carries MCP messages from the first byte (protocol mcp-stdio); diagnostics go to \
stderr. Exit status: 0 when the client closes stdin (and, when the host is judged, kept \
every host law), 1 when a judged host broke one (or, with --deny-unobserved, left a host \
requirement unobserved), 2 for an invalid flag or a transcript \
that cannot be read (the server never starts), 1 when stdio cannot be taken, 128 + N when \
signal N ends the session. With --format json, every exit but 0 ends stderr with a \
ResponseEnvelope.")]
pub struct MockArgs {
    /// The transcripts to serve, in order, or the built-in scenario `exercise`.
    #[arg(required_unless_present = "schema", value_name = "SCENARIO")]
    pub transcripts: Vec<PathBuf>,
    /// Judge the host against the host laws and report when the session
    /// ends (always on for the built-in scenario; --deny-unobserved,
    /// --junit, --report and --summary turn it on too).
    #[arg(long)]
    pub judge_host: bool,
    /// The profile of the host report (host laws are graded alike in both).
    #[arg(long, value_name = "PROFILE", value_parser = profiles(), hide_possible_values = true,
          default_value = "core")]
    pub profile: Profile,
    /// Do not fail on this host law (repeatable).
    #[arg(long, value_name = "LAW", value_parser = laws(), hide_possible_values = true)]
    pub waive: Vec<LawId>,
    /// Fail on warnings of the host laws too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Fail when a host requirement of the registry was not observed in
    /// the session, not only when one is broken (turns --judge-host on).
    #[arg(long)]
    pub deny_unobserved: bool,
    /// Write the host report as JUnit XML to FILE when the session ends.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the host report as JSON Lines (as `check --format json`) to
    /// FILE when the session ends.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Append the host report as Markdown to FILE when the session ends.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Answer only requests whose normalized params a recorded request has exactly.
    #[arg(long)]
    pub strict: bool,
    /// Fill the placeholders [REDACTED:NAME] of the recorded lines sent with
    /// the value of the variable NAME (repeatable; MCP_REPLAY_FILL_ENV adds
    /// more); others are sent as they stand.
    #[arg(long, value_name = "NAME")]
    pub fill_env: Vec<String>,
    /// The format of a failure report on stderr.
    #[arg(long, value_enum, default_value_t = ServeFormat::Text)]
    pub format: ServeFormat,
    /// `--schema`.
    #[command(flatten)]
    pub schema: SchemaArgs,
}

/// The formats of a failure report of `mcp-replay serve` and `mcp-replay mock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ServeFormat {
    /// A plain-text error.
    Text,
    /// A ResponseEnvelope on the last line.
    Json,
}

/// Arguments of `mcp-replay record`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The recorder is invisible to both sides: it forwards every byte unchanged, writes nothing \
of its own to stdout, passes SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to the server, and exits with the \
server's status (ending by the same signal when the server died of one).

Environment values are never recorded, only names. Values of variables whose names look \
secret (TOKEN, KEY, SECRET, PASSWORD, ...), or whose values do (ghp_..., sk_live_..., JWTs, \
random values of PAT, SK, BEARER, ...), are replaced in the transcript by [REDACTED:NAME]; \
the password of a URL by [REDACTED:NAME:password]. The mcp-replay.json nearest to the \
transcript adds names (redactEnv) and patterns (redact).")]
pub struct RecordArgs {
    /// The transcript to write [default: transcripts/<server>-<UTC time>.jsonl].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite the transcript if it exists.
    #[arg(long)]
    pub force: bool,
    /// Do not record the server's stderr (it is still passed through).
    #[arg(long)]
    pub no_stderr: bool,
    /// Also redact matches of this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub redact: Vec<String>,
    /// Also redact the value of this environment variable (repeatable).
    #[arg(long, value_name = "NAME")]
    pub redact_env: Vec<String>,
    /// An ignore rule for `check`: a JSON pointer into server messages, `*`
    /// for any one segment, `**` for any number; or `method:NAME`, allowing
    /// server requests of `NAME` the recording lacks (repeatable).
    #[arg(long, value_name = "POINTER")]
    pub ignore: Vec<String>,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "SERVER CMD")]
    pub command: Vec<String>,
}

/// Arguments of `mcp-replay check`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 all held, 1 a finding fails the run (or a baseline entry is stale), \
2 usage error or unreadable input (2 wins over 1).")]
pub struct CheckArgs {
    /// Transcript files or directories (searched recursively for *.jsonl);
    /// `transcripts/` when none is given.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The contract to hold servers to: `core` (MCP-CORE and REQ-C-032 on top
    /// of the MCP spec, which servers built on mcp-replay's library keep) or
    /// `spec` (the MCP spec alone, for a server built on an official SDK or
    /// otherwise) [default: core, or the profile of the directory's
    /// mcp-replay.json]
    #[arg(long, value_name = "PROFILE", value_parser = profiles(), hide_possible_values = true)]
    pub profile: Option<Profile>,
    /// Do not fail on this law (repeatable).
    #[arg(long, value_name = "LAW", value_parser = laws(), hide_possible_values = true)]
    pub waive: Vec<LawId>,
    /// Fail on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Fail when a requirement of the registry was not observed (by the
    /// probes or the recordings), not only when one is broken.
    #[arg(long)]
    pub deny_unobserved: bool,
    /// Findings listed in FILE do not fail the run; entries that no longer
    /// occur do.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every finding of this run to FILE as a baseline, and pass them.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Rewrite the server side of mismatched transcripts with the live
    /// answers, and pin the values found to be noise with ignore rules in
    /// the header.
    #[arg(long)]
    pub bless: bool,
    /// Fail on differences that are noise too: values that are a time or a
    /// UUID on both sides, or that two live runs answer differently.
    #[arg(long)]
    pub fail_on_noise: bool,
    /// Replay only; do not run the law probes.
    #[arg(long, conflicts_with = "no_replay")]
    pub no_probes: bool,
    /// Also run the CLI probes against each server command:
    /// `help-does-not-serve` (`<cmd> --help`) and `bad-flag-exits-2`.
    #[arg(long)]
    pub cli_probes: bool,
    /// The invalid flag `bad-flag-exits-2` passes.
    #[arg(long, value_name = "FLAG", requires = "cli_probes", allow_hyphen_values = true,
          default_value = crate::check::probes::cli::DEFAULT_BAD_FLAG)]
    pub bad_flag: String,
    /// Run the law probes of the server command alone, even where
    /// `transcripts/` exists; replay nothing.
    #[arg(long, requires = "command", conflicts_with_all = ["paths", "bless"])]
    pub no_replay: bool,
    /// A probe may call this tool for real, whatever its annotations say;
    /// only the tools named are (repeatable). Without it only tools
    /// annotated readOnlyHint: true are called.
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Where the report goes.
    #[command(flatten)]
    pub report: ReportArgs,
    /// How many replays and probe runs at once [default: the machine's cores].
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Check only share I of N of the sorted transcripts and of the distinct
    /// server commands' probe runs (e.g. 2/4).
    #[arg(long, value_name = "I/N", value_parser = parse_partition)]
    pub partition: Option<Partition>,
    /// The deadline of each step [default: 5s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// The deadline of a step while the server has written nothing yet, for
    /// servers slow to start (npx, uv) [default: 20s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub startup_timeout: Option<Duration>,
    /// How long the probes watch stdout after spawning a server, before the
    /// first message [default: 1s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub settle: Option<Duration>,
    /// How long a server may take to exit after stdin closes or SIGTERM
    /// [default: 2s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub grace: Option<Duration>,
    /// Also run a transcript's recorded server where its `cwd` leads inside
    /// DIR (repeatable); by default only inside the current directory.
    #[arg(long, value_name = "DIR")]
    pub allow_cwd: Vec<PathBuf>,
    /// Fill the placeholders [REDACTED:NAME] of the transcripts' client
    /// lines and commands with the value of the variable NAME (repeatable;
    /// MCP_REPLAY_FILL_ENV=NAME,NAME adds more); others are sent as they
    /// stand.
    #[arg(long, value_name = "NAME")]
    pub fill_env: Vec<String>,
    /// A server command that replaces the one recorded in each transcript
    /// (`transcripts/` when no PATH is given and it exists); with no
    /// transcripts or `--no-replay`, the law probes run against it alone.
    #[arg(last = true, value_name = "SERVER CMD")]
    pub command: Vec<String>,
}

impl CheckArgs {
    /// The options of the run these arguments ask for; the variables that
    /// fill placeholders are those named here and in `MCP_REPLAY_FILL_ENV`.
    pub fn options(&self) -> CheckOptions {
        CheckOptions {
            paths: self.paths.clone(),
            command: self.command.clone(),
            profile: self.profile,
            waive: self.waive.clone(),
            deny_warnings: self.deny_warnings,
            deny_unobserved: self.deny_unobserved,
            baseline: self.baseline.clone(),
            write_baseline: self.write_baseline.clone(),
            bless: self.bless,
            fail_on_noise: self.fail_on_noise,
            probes: !self.no_probes,
            replay: !self.no_replay,
            jobs: self.jobs.map(usize::from),
            partition: self.partition.unwrap_or_default(),
            timeout: self.timeout,
            startup_timeout: self.startup_timeout,
            settle: self.settle,
            grace: self.grace,
            cli_probes: self.cli_probes.then(|| self.bad_flag.clone()),
            tools: self.tools.clone(),
            allow_cwd: self.allow_cwd.clone(),
            fill_env: with_fill_names(self.fill_env.clone(), fill_names_from_env()),
            ..CheckOptions::default()
        }
    }
}

/// Arguments of `mcp-replay fuzz`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Only tools whose annotations say they change nothing (readOnlyHint: true) are called, \
unless --tool names them or --all-tools is given; the server runs in a scratch directory \
(removed after the run) unless --cwd says where. Each distinct failure is shrunk, \
confirmed alone on a fresh process and written to --findings as a transcript that \
`mcp-replay check` replays. The seed is printed; --seed replays the same calls in the \
same order. See docs/fuzz.md.

Exit status: 0 all held, 1 a finding fails the run, 2 usage error, a server that \
cannot be started or opened, or a run that fuzzed nothing without --allow-empty (2 wins \
over 1), 128 + N when signal N ends the run.")]
pub struct FuzzArgs {
    /// The seed of the run's cases [default: a fresh one, printed].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// How many cases to draw for each tool.
    #[arg(long, value_name = "N", default_value_t = crate::fuzz::DEFAULT_CASES)]
    pub cases: usize,
    /// How long the whole run may take, shrinking and confirming the
    /// findings included.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "60s")]
    pub budget: Duration,
    /// The deadline of each call.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "5s")]
    pub timeout: Duration,
    /// The deadline of a fresh server's first answer, for servers slow to
    /// start (npx, uv).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "20s")]
    pub startup_timeout: Duration,
    /// How long a server may take to exit after stdin closes.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "2s")]
    pub grace: Duration,
    /// Call this tool whatever its annotations say; only the tools named
    /// are called (repeatable).
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Call every tool, whatever its annotations say.
    #[arg(long)]
    pub all_tools: bool,
    /// Call by default only tools annotated readOnlyHint: true, leaving out
    /// those that only add (destructiveHint: false).
    #[arg(long)]
    pub read_only: bool,
    /// Never call this tool (repeatable).
    #[arg(long = "skip-tool", value_name = "NAME")]
    pub skip_tools: Vec<String>,
    /// The era to speak: as `server/discover` decides, the legacy handshake,
    /// or 2026-07-28.
    #[arg(long, value_enum, default_value_t = FuzzEra::Auto)]
    pub era: FuzzEra,
    /// How many calls may be in flight at once (1: each after the previous
    /// answer).
    #[arg(long, value_name = "N", default_value_t = crate::fuzz::DEFAULT_PIPELINE as u16,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub pipeline: u16,
    /// The directory finding transcripts are written to.
    #[arg(long, value_name = "DIR", default_value = crate::fuzz::DEFAULT_FINDINGS)]
    pub findings: PathBuf,
    /// Write no finding transcripts.
    #[arg(long, conflicts_with = "findings")]
    pub no_findings: bool,
    /// Report failing cases as first sent, unshrunk.
    #[arg(long)]
    pub no_shrink: bool,
    /// Pass a run that fuzzes nothing (no tool called, or no call reached
    /// a tool), which is otherwise an error (exit 2).
    #[arg(long)]
    pub allow_empty: bool,
    /// Run the server in DIR instead of a scratch directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// The contract to hold the server to: `core` or `spec`.
    #[arg(long, value_name = "PROFILE", value_parser = profiles(), hide_possible_values = true,
          default_value = "core")]
    pub profile: Profile,
    /// Do not fail on this law (repeatable).
    #[arg(long, value_name = "LAW", value_parser = laws(), hide_possible_values = true)]
    pub waive: Vec<LawId>,
    /// Fail on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Fail when a requirement of the registry was not observed (by the
    /// probes or the recordings), not only when one is broken.
    #[arg(long)]
    pub deny_unobserved: bool,
    /// Where the report goes.
    #[command(flatten)]
    pub report: ReportArgs,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "SERVER CMD")]
    pub command: Vec<String>,
}

impl FuzzArgs {
    /// The options of the run these arguments ask for.
    pub fn options(&self) -> FuzzOptions {
        let mut options = FuzzOptions::new(self.command.clone());
        options.seed = self.seed;
        options.cases = self.cases;
        options.budget = self.budget;
        options.call_timeout = self.timeout;
        options.startup_timeout = self.startup_timeout;
        options.grace = self.grace;
        options.tools = self.tools.clone();
        options.all_tools = self.all_tools;
        options.read_only = self.read_only;
        options.skip_tools = self.skip_tools.clone();
        options.era = match self.era {
            FuzzEra::Auto => EraChoice::Auto,
            FuzzEra::Legacy => EraChoice::Legacy,
            FuzzEra::Modern => EraChoice::Modern,
        };
        options.pipeline = usize::from(self.pipeline);
        options.findings = (!self.no_findings).then(|| self.findings.clone());
        options.shrink = !self.no_shrink;
        options.allow_empty = self.allow_empty;
        options.cwd = self.cwd.clone();
        options.profile = self.profile;
        options.waive = self.waive.clone();
        options.deny_warnings = self.deny_warnings;
        options.deny_unobserved = self.deny_unobserved;
        options
    }
}

/// The eras `mcp-replay fuzz --era` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FuzzEra {
    /// As era detection decides.
    Auto,
    /// The legacy handshake.
    Legacy,
    /// 2026-07-28, statelessly.
    Modern,
}

/// Arguments of `mcp-replay laws`.
#[derive(Debug, clap::Args)]
pub struct LawsArgs {
    /// How to print the catalog.
    #[arg(long, value_enum, default_value_t = LawsFormat::Human)]
    pub format: LawsFormat,
}

/// The formats of `mcp-replay laws`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LawsFormat {
    /// Aligned text.
    Human,
    /// JSON Lines, one object per law.
    Json,
}

fn parse_partition(text: &str) -> Result<Partition, String> {
    text.parse()
}

/// The parser of `--profile`: the profiles' names, each parsed by
/// [`Profile`]'s own `FromStr`.
fn profiles() -> OneOf<Profile> {
    OneOf {
        names: || Profile::ALL.map(Profile::as_str).to_vec(),
        parse: str::parse,
    }
}

/// The parser of `--waive`: the catalog's law ids, and a message that
/// lists them for any other.
fn laws() -> OneOf<LawId> {
    fn law_ids() -> Vec<&'static str> {
        CATALOG.iter().map(|law| law.id.as_str()).collect()
    }
    OneOf {
        names: law_ids,
        parse: |text| {
            text.parse().map_err(|_: String| {
                format!(
                    "unknown law `{text}`; the laws are: {}",
                    law_ids().join(", ")
                )
            })
        },
    }
}

/// A value parser that knows every value it takes, so that clap can say
/// them (to the manifest, to serve's schemas, to shell completion), and
/// that parses with the type's own message for any other.
#[derive(Clone)]
struct OneOf<T> {
    names: fn() -> Vec<&'static str>,
    parse: fn(&str) -> Result<T, String>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for OneOf<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        self.parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.names)().into_iter().map(PossibleValue::new)))
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory as _, Parser as _};

    use super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("mcp-replay").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    // The defaults `fuzz` shows in `--help` (and the manifest, and serve's
    // schema) are the library's own.
    #[test]
    fn fuzz_defaults_are_the_librarys() {
        let Command::Fuzz(args) = parse(&["fuzz", "--", "server"]).command else {
            panic!("not fuzz");
        };
        let given = args.options();
        let library = FuzzOptions::new(vec!["server".to_owned()]);
        assert_eq!(given.cases, library.cases);
        assert_eq!(given.budget, library.budget);
        assert_eq!(given.call_timeout, library.call_timeout);
        assert_eq!(given.startup_timeout, library.startup_timeout);
        assert_eq!(given.grace, library.grace);
        assert_eq!(given.pipeline, library.pipeline);
        assert_eq!(given.findings, library.findings);
        assert_eq!(given.profile, library.profile);
        assert_eq!(given.era, library.era);
        assert_eq!(given.shrink, library.shrink);
    }

    #[test]
    fn check_without_flags_runs_as_the_library_defaults() {
        let Command::Check(args) = parse(&["check"]).command else {
            panic!("not check");
        };
        let given = args.options();
        let library = CheckOptions::default();
        assert_eq!(given.probes, library.probes);
        assert_eq!(given.replay, library.replay);
        assert_eq!(given.profile, library.profile);
        assert_eq!(given.timeout, library.timeout);
        assert_eq!(given.cli_probes, library.cli_probes);
        assert_eq!(given.tools, library.tools);
        assert_eq!(given.partition, library.partition);
    }

    #[test]
    fn profile_and_waive_name_their_values_and_keep_their_messages() {
        let cli = Cli::command();
        let check = cli.find_subcommand("check").unwrap();
        let values = |id: &str| -> Vec<String> {
            check
                .get_arguments()
                .find(|arg| arg.get_id() == id)
                .unwrap()
                .get_possible_values()
                .iter()
                .map(|value| value.get_name().to_owned())
                .collect()
        };
        assert_eq!(values("profile"), ["core", "spec"]);
        assert_eq!(values("waive").len(), CATALOG.len());
        let err = Cli::try_parse_from(["mcp-replay", "check", "--waive", "nope"]).unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown law `nope`; the laws are: quiet-before-serving"),
            "{err}"
        );
        let err = Cli::try_parse_from(["mcp-replay", "check", "--profile", "strict"]).unwrap_err();
        assert!(
            err.to_string().contains("unknown profile `strict`"),
            "{err}"
        );
    }
}
