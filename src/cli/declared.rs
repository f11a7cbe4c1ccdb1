//! What clap cannot say of a flag, in one table keyed by the flag's id:
//! whether `serve`'s tool for its command takes it, and how much of it.
//!
//! A flag without an entry is an argument of its command's tool, as the
//! command line takes it. A flag whose value is a path must have an entry
//! all the same (a test of `serve` holds this): whether an agent may name a
//! place on disk is decided, never inherited.

/// Whether `serve`'s tool for a command takes a flag as an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolArg {
    /// Taken as the command line takes it.
    Taken,
    /// Taken up to this value: the most work one call may ask for.
    AtMost(u64),
    /// Never taken (`mcp: false` in the manifest): what it decides is the
    /// person's, on the command line, or means nothing to a tool's answer.
    Local,
}

/// One flag's entry.
#[derive(Debug)]
pub struct Declared {
    /// The commands whose flag of this id it is.
    pub commands: &'static [&'static str],
    /// The flag's id (clap's: the field's name).
    pub arg: &'static str,
    /// Whether the tool takes it.
    pub tool: ToolArg,
}

/// The most cases a `fuzz` call draws for one tool.
pub const MAX_FUZZ_CASES: u64 = 10_000;

/// The commands that flatten `ReportArgs` into theirs.
const REPORTING: &[&str] = &["check", "fuzz"];

const fn declared(commands: &'static [&'static str], arg: &'static str, tool: ToolArg) -> Declared {
    Declared {
        commands,
        arg,
        tool,
    }
}

/// Every entry.
pub const FLAGS: &[Declared] = &[
    // A tool answers with the human report as text and the JSON report as
    // structured content: stdout's format and colour are no question, and
    // the files are the person's to write.
    declared(REPORTING, "format", ToolArg::Local),
    declared(REPORTING, "color", ToolArg::Local),
    declared(REPORTING, "junit", ToolArg::Local),
    declared(REPORTING, "summary", ToolArg::Local),
    declared(REPORTING, "sarif", ToolArg::Local),
    // The agent's paths stay inside the directory serve runs in
    // (`confine_to_cwd`).
    declared(&["check"], "paths", ToolArg::Taken),
    declared(&["check"], "baseline", ToolArg::Taken),
    // Blessing and baselines rewrite files a person reviews.
    declared(&["check"], "write_baseline", ToolArg::Local),
    declared(&["check"], "bless", ToolArg::Local),
    // Where a transcript's server may run, and what it may be sent, are the
    // person's to allow, never an agent's.
    declared(&["check"], "allow_cwd", ToolArg::Local),
    declared(&["check"], "fill_env", ToolArg::Local),
    // How a run shares the machine is serve's to say: it runs a few calls
    // at once, each with the cores.
    declared(&["check"], "jobs", ToolArg::Local),
    declared(&["check"], "partition", ToolArg::Local),
    // A `check` call's probes run for real only the tools that say they
    // change nothing, as a `fuzz` call does: naming one is no argument.
    declared(&["check"], "tools", ToolArg::Local),
    // A `fuzz` call calls only read-only tools, in a scratch directory, and
    // writes no transcripts: what would change that is no argument.
    declared(&["fuzz"], "tools", ToolArg::Local),
    declared(&["fuzz"], "all_tools", ToolArg::Local),
    declared(&["fuzz"], "read_only", ToolArg::Local),
    declared(&["fuzz"], "findings", ToolArg::Local),
    declared(&["fuzz"], "no_findings", ToolArg::Local),
    declared(&["fuzz"], "cwd", ToolArg::Local),
    declared(&["fuzz"], "cases", ToolArg::AtMost(MAX_FUZZ_CASES)),
];

/// Whether the tool of `command` takes the flag `arg` (by id).
pub fn tool_arg(command: &str, arg: &str) -> ToolArg {
    FLAGS
        .iter()
        .find(|entry| entry.arg == arg && entry.commands.contains(&command))
        .map_or(ToolArg::Taken, |entry| entry.tool)
}
