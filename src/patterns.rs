//! Regular expressions that come from input (a transcript header's
//! `redact.patterns`, a `mcp-replay.json`'s `redact` and `mask`, `record
//! --redact`), compiled within bounds.
//!
//! The regex crate matches in linear time, but what a pattern compiles to
//! can be large: `\w{100}` is a few bytes of text and about 6 MB compiled,
//! and forty such patterns took 250 MB before a line was read. Each pattern
//! is compiled within [`PATTERN_LIMIT`], with its lazy DFA's cache held to
//! the same size, and nested at most [`NEST_LIMIT`] deep; the patterns of
//! one list share a [`Budget`] of [`PATTERNS_LIMIT`]. A pattern is first
//! tried within 64 KiB, then within twice that, and so on up to the limit,
//! and the list is charged the size it compiled within, so many small
//! patterns cost little and a few large ones cannot add up past the budget.
//! `docs/limits.md` lists the limits.

use std::fmt;

/// The most one pattern compiles to: 2 MiB (the regex crate's own limit is
/// 10 MiB).
pub const PATTERN_LIMIT: usize = 2 * 1024 * 1024;

/// The most the patterns of one list compile to together: 16 MiB.
pub const PATTERNS_LIMIT: usize = 16 * 1024 * 1024;

/// How deep groups, repetitions and classes may nest in one pattern.
pub const NEST_LIMIT: u32 = 64;

/// The size a pattern is first tried within, and so the least it is
/// charged.
const FIRST_TRY: usize = 64 * 1024;

/// What the patterns of one list may still compile to.
#[derive(Debug)]
pub(crate) struct Budget {
    left: usize,
}

/// Why a pattern was not compiled.
#[derive(Debug)]
pub(crate) enum PatternError {
    /// The regex crate refused it (its syntax, or nesting past
    /// [`NEST_LIMIT`]).
    Syntax(regex::Error),
    /// It compiles to more than [`PATTERN_LIMIT`].
    TooLarge,
    /// With the patterns of its list before it, it compiles to more than
    /// [`PATTERNS_LIMIT`].
    OverBudget,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::Syntax(err) => write!(f, "{err}"),
            PatternError::TooLarge => write!(
                f,
                "it compiles to more than {} MiB, the most mcp-replay compiles one pattern to (docs/limits.md)",
                PATTERN_LIMIT >> 20
            ),
            PatternError::OverBudget => write!(
                f,
                "with the patterns before it, it compiles to more than {} MiB, the most mcp-replay compiles the patterns of one list to (docs/limits.md)",
                PATTERNS_LIMIT >> 20
            ),
        }
    }
}

impl std::error::Error for PatternError {}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            left: PATTERNS_LIMIT,
        }
    }
}

impl Budget {
    /// `pattern` compiled to match bytes, charged to this budget.
    pub(crate) fn bytes(&mut self, pattern: &str) -> Result<regex::bytes::Regex, PatternError> {
        self.compile(|size| {
            regex::bytes::RegexBuilder::new(pattern)
                .size_limit(size)
                .dfa_size_limit(size)
                .nest_limit(NEST_LIMIT)
                .build()
        })
    }

    /// `pattern` compiled to match text, charged to this budget.
    pub(crate) fn text(&mut self, pattern: &str) -> Result<regex::Regex, PatternError> {
        self.compile(|size| {
            regex::RegexBuilder::new(pattern)
                .size_limit(size)
                .dfa_size_limit(size)
                .nest_limit(NEST_LIMIT)
                .build()
        })
    }

    fn compile<R>(
        &mut self,
        build: impl Fn(usize) -> Result<R, regex::Error>,
    ) -> Result<R, PatternError> {
        let mut size = FIRST_TRY;
        loop {
            match build(size) {
                Ok(regex) if size <= self.left => {
                    self.left -= size;
                    return Ok(regex);
                }
                Ok(_) => return Err(PatternError::OverBudget),
                Err(regex::Error::CompiledTooBig(_)) if size < PATTERN_LIMIT => {
                    size = (size * 2).min(PATTERN_LIMIT);
                    if size > self.left {
                        return Err(PatternError::OverBudget);
                    }
                }
                Err(regex::Error::CompiledTooBig(_)) => return Err(PatternError::TooLarge),
                Err(err) => return Err(PatternError::Syntax(err)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_patterns_compile_and_cost_the_least() {
        let mut budget = Budget::default();
        let regex = budget.bytes("sk-[A-Za-z0-9]{32}").unwrap();
        assert!(regex.is_match(b"key sk-abcdefghijklmnopqrstuvwxyz012345"));
        assert_eq!(budget.left, PATTERNS_LIMIT - FIRST_TRY);
        assert!(budget.text(r"\w+@\w+").is_ok());
        assert!(matches!(budget.text("("), Err(PatternError::Syntax(_))));
    }

    /// A pattern of a few bytes that compiles to megabytes is refused, and
    /// so is a list whose patterns add up past the budget, however small
    /// each is; nesting is bounded too.
    // See: #25
    #[test]
    fn large_patterns_and_large_lists_are_refused() {
        let mut budget = Budget::default();
        let err = budget.bytes(r"\w{100}").unwrap_err();
        assert!(matches!(err, PatternError::TooLarge), "{err}");
        assert!(err.to_string().contains("more than 2 MiB"), "{err}");
        // Each fits within the limit; together they pass the budget.
        let mut budget = Budget::default();
        let mut compiled = 0;
        let err = loop {
            match budget.text(&format!(r"\w{{20}}{compiled}")) {
                Ok(_) => compiled += 1,
                Err(err) => break err,
            }
        };
        assert!(matches!(err, PatternError::OverBudget), "{err}");
        assert!((4..=16).contains(&compiled), "{compiled}");
        let nested = format!("{}a{}", "(".repeat(100), ")".repeat(100));
        let err = Budget::default().text(&nested).unwrap_err();
        assert!(matches!(err, PatternError::Syntax(_)), "{err}");
    }
}
