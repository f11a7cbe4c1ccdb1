//! `mcp-replay check`: replay transcripts, diff the responses, and probe the
//! laws of the stdio contract.
//!
//! `run` plans the run (`plan.rs`: the transcripts of this share, their
//! commands and settings, the commands to probe), replays each transcript
//! against a fresh server process (`replay/`), runs the law probes once per
//! distinct server command (`probes/`), grades every finding (profile,
//! waivers, `--deny-warnings`, baseline) and returns the `Report`. Replays
//! and probe runs are independent jobs, run on up to `--jobs` threads; the
//! report lists them in a fixed order whatever the order they finish in.
//!
//! Without the `cli` feature what the in-process testing API
//! ([`crate::testing`]) needs is here: the client (`client/`, with its
//! in-memory channel), the replay (`replay/`), `wire` (what a stdout line
//! is), `diff` (ignore rules, normalization and the structural diff),
//! `noise`, `bless` and `schema` (a message against the model of its
//! revision). The runner, the probes, the baseline and the directory config
//! are the command's.

#[cfg(feature = "cli")]
pub(crate) mod baseline;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod bless;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod client;
#[cfg(feature = "cli")]
pub mod config;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod diff;
#[doc(hidden)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub mod duration;
#[cfg(any(test, not(feature = "cli")))]
mod lines;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod noise;
#[cfg(feature = "cli")]
mod plan;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod probes;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod replay;
#[cfg(feature = "cli")]
mod run;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod schema;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod wire;

#[cfg(feature = "cli")]
pub use self::run::*;
