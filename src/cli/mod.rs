//! The command line as data: every subcommand and flag of `mcp-replay` as
//! clap declares it ([`args`]), what clap cannot say beside it (which flags
//! `serve`'s tools never take, [`declared`]; each command's danger level,
//! protocol and exit codes, [`commands`]), the manifest built from both, and
//! where a run's report goes ([`emit`]).
//!
//! A flag is declared once, in [`args`]: `--help`, the manifest and the
//! input schemas of `serve`'s tools all read it from there. The binary
//! (`src/main.rs`, with its own modules in `src/main/`) parses, runs and
//! maps the result to an exit status; it prints, this never does.

pub mod args;
pub mod commands;
pub mod declared;
pub mod emit;
