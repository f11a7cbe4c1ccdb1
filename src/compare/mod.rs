//! The comparison of a replayed message with the recorded one: ignore rules
//! and masks, normalisation to sorted pretty JSON, the structural
//! differences, which of them are noise, and the one text diff every build
//! draws.
//!
//! Replay, `check --bless`, the in-process testing API and `mock` (whose
//! matching normalises a live request the way a recording's is) lean on
//! this room; it leans on nothing of theirs.

#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod diff;
mod lines;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod noise;
