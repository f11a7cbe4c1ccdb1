//! JSON Schema, in one room: one judge of values, the validation the
//! server library holds tool arguments and structured output to, and the
//! generation of values from a schema.
//!
//! - `judge/` (every build): the one judge, three-valued: valid, invalid
//!   with the keywords broken, or unjudged with why, over JSON Schema
//!   2020-12 and the forms of draft-07 and 2019-09; the checker holds
//!   `structuredContent` to it, `mock` tool arguments, `fuzz` its cases;
//! - `ecma.rs` (every build; its regular expressions `cli`'s): `pattern`
//!   and `patternProperties` read as ECMA-262 reads them, or left
//!   unjudged;
//! - `validate.rs` (every build): the judge with what it cannot decide
//!   ignored, each violation by its JSON Pointer: it never rejects a value
//!   JSON Schema 2020-12 accepts;
//! - `text.rs` (every build) and `bounds.rs` (`cli`): values shortened for
//!   messages, and the longest text and array generation draws;
//! - `generate.rs`, `pattern.rs` and `rng.rs` (`cli`): a tool's cases drawn
//!   from its `inputSchema`, boundaries first, each labelled by the judge;
//!   strings for a `pattern`; SplitMix64.
//!
//! The room leans on the frames' `json_kind` alone; `model/`, `server/`,
//! the client, the checker, `mock` and `fuzz` stand on it.

#[cfg(feature = "cli")]
mod bounds;
mod ecma;
#[cfg(feature = "cli")]
pub(crate) mod generate;
pub(crate) mod judge;
#[cfg(feature = "cli")]
mod pattern;
#[cfg(feature = "cli")]
pub(crate) mod rng;
mod text;
pub(crate) mod validate;

/// The simplest arguments `input_schema` accepts, as fuzz draws them
/// first for the tool `tool` (its required members alone, or none); `None`
/// when the judge cannot call them valid.
#[cfg(feature = "cli")]
pub(crate) fn valid_arguments(
    input_schema: &serde_json::Value,
    tool: &str,
) -> Option<serde_json::Value> {
    let case = generate::cases(input_schema, 0, tool, 1)
        .cases
        .into_iter()
        .next()?;
    (case.verdict == judge::Verdict::Valid)
        .then(|| case.arguments.unwrap_or_else(|| serde_json::json!({})))
}

#[cfg(test)]
mod differential;
