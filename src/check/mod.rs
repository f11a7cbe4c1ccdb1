//! `mcp-replay check`: replay transcripts, diff the responses, and probe the
//! laws of the stdio contract.
//!
//! `run` plans the run (`plan.rs`: the transcripts of this share, their
//! commands and settings, the commands to probe), replays each transcript
//! against a fresh server process (`replay/`), runs the law probes
//! once per distinct server command (`probes/`), grades every finding
//! (profile, waivers, `--deny-warnings`, baseline) and returns the
//! `Report`. Replays and probe runs are independent jobs, run on up to
//! `--jobs` threads; the report lists them in a fixed order whatever the
//! order they finish in.
//!
//! The engine the command stands on is in rooms of its own, which the other
//! commands use as peers: the client (`client/`), the comparison
//! (`compare/`), the replay (`replay/`) and the JSON Schema room
//! (`schema/`).

pub(crate) mod baseline;
mod plan;
#[doc(hidden)]
pub mod probes;
mod run;

pub use self::run::*;
