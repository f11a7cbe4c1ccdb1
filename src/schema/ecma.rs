//! JSON Schema's `pattern` and `patternProperties`, read as ECMA-262 reads
//! them, or not at all.
//!
//! A pattern is first held to an allow-list of the syntax ECMA-262, the
//! regex crate and Python's `re` read alike (literals, `.`, anchors,
//! classes without nesting or set operations, `(…)` and `(?:…)`, greedy
//! and lazy quantifiers, and the escapes all three share); anything else
//! (look-arounds, back-references, flags, named groups, POSIX classes,
//! `\p{…}`, a `{` that is no quantifier) is not judged. A pattern that
//! passes is compiled by the regex crate, in the `cli` build only: the lean
//! build carries no regular expressions, and judges no pattern.
//!
//! Where the engines still read a text differently, the match is not
//! judged either: `\d`, `\w` and `\b` on non-ASCII text (ASCII in
//! ECMA-262, Unicode-aware in the regex crate and `re`), `\s` on anything
//! but printable ASCII and the ASCII spaces, `.` on `\r`, U+2028 or U+2029
//! (ECMA-262's `.` stops at them), `$` on a text ending in a line feed
//! (`re` matches before it), and `.` or a negated class on a character
//! beyond the Basic Multilingual Plane (two UTF-16 code units in
//! ECMA-262).

use std::cell::OnceCell;
use std::collections::HashMap;

/// Patterns longer than this, in bytes, are neither compiled nor parsed.
pub(crate) const MAX_PATTERN_LEN: usize = 16 * 1024;

/// How many distinct patterns of one schema are compiled and parsed, at
/// most; the others are unjudged and not generated for.
pub(crate) const MAX_PATTERNS: usize = 64;

/// What a pattern's compiled program may take, and its lazy DFA's cache,
/// in bytes each.
#[cfg(feature = "cli")]
const MAX_COMPILED: usize = 256 << 10;

/// Whether a text matches a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) enum Match {
    /// It matches, in every engine.
    Yes,
    /// It does not, in any engine.
    No,
    /// It cannot be told, and why.
    Unsure(String),
}

/// What in a pattern makes the engines differ on some texts.
#[derive(Debug, Default, Clone, Copy)]
struct Features {
    /// `\d`, `\D`, `\w`, `\W`, `\b` or `\B`.
    ascii_classes: bool,
    /// `\s` or `\S`.
    space: bool,
    /// `.`.
    dot: bool,
    /// `$`.
    dollar: bool,
    /// A negated class, `\D`, `\W` or `\S`.
    negated: bool,
}

/// A pattern as the judge and the generator read it.
pub(crate) struct Pattern {
    /// What makes engines differ on some texts, or why the pattern is
    /// not judged at all.
    features: Result<Features, String>,
    /// The regex crate's program, where it compiles within its limits.
    #[cfg(feature = "cli")]
    regex: Option<regex::Regex>,
    /// Its parse, which `fuzz` builds strings from.
    #[cfg(feature = "cli")]
    hir: Option<regex_syntax::hir::Hir>,
    /// Its smallest match, once built: `None` inside when there is none
    /// within the bounds.
    #[cfg(feature = "cli")]
    example: OnceCell<Option<String>>,
}

impl Pattern {
    /// `pattern` read: compiled and parsed where it can be, and judged
    /// where every engine reads it alike.
    pub(crate) fn compile(pattern: &str) -> Pattern {
        if pattern.len() > MAX_PATTERN_LEN {
            return Pattern::unread(format!(
                "it is longer than the {} KiB compiled",
                MAX_PATTERN_LEN >> 10
            ));
        }
        let features = scan(pattern).map_err(|why| format!("its {why}"));
        build(pattern, features)
    }

    fn unread(why: String) -> Pattern {
        Pattern {
            features: Err(why),
            #[cfg(feature = "cli")]
            regex: None,
            #[cfg(feature = "cli")]
            hir: None,
            #[cfg(feature = "cli")]
            example: OnceCell::new(),
        }
    }

    /// Whether `text` matches, or why that cannot be told.
    pub(crate) fn matches(&self, text: &str) -> Result<Match, String> {
        let features = self.features.as_ref().map_err(Clone::clone)?;
        if let Some(why) = unsure(features, text) {
            return Ok(Match::Unsure(why.to_owned()));
        }
        self.is_match(text)
    }

    /// The regex crate's program.
    #[cfg(feature = "cli")]
    pub(crate) fn regex(&self) -> Option<&regex::Regex> {
        self.regex.as_ref()
    }

    /// The parse strings are built from.
    #[cfg(feature = "cli")]
    pub(crate) fn hir(&self) -> Option<&regex_syntax::hir::Hir> {
        self.hir.as_ref()
    }

    /// The smallest match built from the parse (see
    /// `super::pattern::example`), built once.
    #[cfg(feature = "cli")]
    pub(crate) fn example(&self) -> Option<&str> {
        self.example
            .get_or_init(|| self.hir.as_ref().and_then(super::pattern::example))
            .as_deref()
    }

    #[cfg(feature = "cli")]
    fn is_match(&self, text: &str) -> Result<Match, String> {
        match &self.regex {
            Some(regex) if regex.is_match(text) => Ok(Match::Yes),
            Some(_) => Ok(Match::No),
            None => Err("the regex crate does not compile it within its limits".to_owned()),
        }
    }

    #[cfg(not(feature = "cli"))]
    fn is_match(&self, _text: &str) -> Result<Match, String> {
        Err(LEAN.to_owned())
    }
}

/// Why the lean build judges no pattern.
#[cfg(not(feature = "cli"))]
const LEAN: &str = "a build without the `cli` feature carries no regular expressions";

#[cfg(feature = "cli")]
fn build(pattern: &str, features: Result<Features, String>) -> Pattern {
    let regex = regex::RegexBuilder::new(pattern)
        .size_limit(MAX_COMPILED)
        .dfa_size_limit(MAX_COMPILED)
        .build()
        .ok();
    Pattern {
        features,
        regex,
        hir: super::pattern::parse(pattern),
        example: OnceCell::new(),
    }
}

#[cfg(not(feature = "cli"))]
fn build(_pattern: &str, features: Result<Features, String>) -> Pattern {
    Pattern { features }
}

/// The patterns of one schema, each read the first time it is used.
#[derive(Default)]
pub(crate) struct Patterns<'a> {
    read: HashMap<&'a str, OnceCell<Pattern>>,
}

impl<'a> Patterns<'a> {
    /// Notes that the schema uses `pattern`.
    pub(crate) fn add(&mut self, pattern: &'a str) {
        if self.read.len() < MAX_PATTERNS {
            self.read.entry(pattern).or_default();
        }
    }

    /// `pattern`, read; `None` past the first [`MAX_PATTERNS`] of the
    /// schema.
    pub(crate) fn get(&self, pattern: &str) -> Option<&Pattern> {
        let cell = self.read.get(pattern)?;
        Some(cell.get_or_init(|| Pattern::compile(pattern)))
    }

    /// Whether `text` matches `pattern`.
    pub(crate) fn matches(&self, pattern: &str, text: &str) -> Match {
        let read = self.get(pattern).map_or_else(
            || {
                Err(format!(
                    "it is past the {MAX_PATTERNS} patterns compiled for one schema"
                ))
            },
            |read| read.matches(text),
        );
        match read {
            Ok(found) => match found {
                Match::Unsure(why) => Match::Unsure(format!(
                    "whether {} matches the pattern {} depends on the engine: {why}",
                    super::text::short_str(text),
                    super::text::short_str(pattern)
                )),
                decided => decided,
            },
            Err(why) => Match::Unsure(format!(
                "the pattern {} is not judged: {why}",
                super::text::short_str(pattern)
            )),
        }
    }
}

/// Why the engines may read `text` differently under a pattern with
/// `features`.
fn unsure(features: &Features, text: &str) -> Option<&'static str> {
    if features.ascii_classes && !text.is_ascii() {
        return Some("`\\d`, `\\w` and `\\b` are ASCII in ECMA-262 and Unicode-aware elsewhere");
    }
    if features.space
        && text.chars().any(|c| {
            !(c.is_ascii_graphic() || matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'))
        })
    {
        return Some("engines differ on which characters `\\s` matches");
    }
    if features.dot && text.contains(['\r', '\u{2028}', '\u{2029}']) {
        return Some("ECMA-262's `.` does not match a line terminator");
    }
    if features.dollar && text.ends_with('\n') {
        return Some("Python's `$` matches before a final line feed");
    }
    if (features.dot || features.negated) && text.chars().any(|c| u32::from(c) > 0xFFFF) {
        return Some(
            "ECMA-262 reads a character beyond the Basic Multilingual Plane as two code units",
        );
    }
    None
}

/// Holds `pattern` to the syntax every engine reads alike; what it uses
/// that makes texts differ, or what it uses that is not read alike.
fn scan(pattern: &str) -> Result<Features, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut features = Features::default();
    let mut i = 0;
    let mut groups = 0usize;
    // Whether the token before can take a quantifier.
    let mut repeatable = false;
    while i < chars.len() {
        let c = chars[i];
        if u32::from(c) > 0xFFFF {
            return Err("character beyond the Basic Multilingual Plane".to_owned());
        }
        match c {
            '\\' => {
                let (length, escape) = escape(&chars, i, &mut features)?;
                repeatable = escape != Escape::Boundary;
                i += length;
                continue;
            }
            '[' => {
                i = class(&chars, i, &mut features)?;
                repeatable = true;
                continue;
            }
            '(' => {
                match (chars.get(i + 1), chars.get(i + 2)) {
                    (Some('?'), Some(':')) => i += 3,
                    (Some('?'), _) => {
                        return Err("group construct other than `(?:`".to_owned());
                    }
                    _ => i += 1,
                }
                groups += 1;
                repeatable = false;
                continue;
            }
            ')' => {
                if groups == 0 {
                    return Err("unbalanced `)`".to_owned());
                }
                groups -= 1;
                repeatable = true;
            }
            '|' | '^' => repeatable = false,
            '$' => {
                features.dollar = true;
                repeatable = false;
            }
            '.' => {
                features.dot = true;
                repeatable = true;
            }
            '*' | '+' | '?' | '{' => {
                if !repeatable {
                    return Err(format!("quantifier `{c}` with nothing to repeat"));
                }
                if c == '{' {
                    i = bounds(&chars, i)?;
                } else {
                    i += 1;
                }
                match chars.get(i) {
                    Some('?') => i += 1,
                    Some('+') => return Err("possessive quantifier".to_owned()),
                    _ => {}
                }
                repeatable = false;
                continue;
            }
            '}' | ']' => return Err(format!("lone `{c}`")),
            _ => repeatable = true,
        }
        i += 1;
    }
    if groups > 0 {
        return Err("unclosed group".to_owned());
    }
    Ok(features)
}

/// What an escape stands for.
#[derive(Debug, PartialEq, Eq)]
enum Escape {
    /// One character.
    Char(char),
    /// A class of characters (`\d`).
    Class,
    /// `\b` or `\B`.
    Boundary,
}

/// The escape at `chars[at]` (a backslash): its length and what it is.
fn escape(chars: &[char], at: usize, features: &mut Features) -> Result<(usize, Escape), String> {
    let Some(&next) = chars.get(at + 1) else {
        return Err("trailing backslash".to_owned());
    };
    let hex = |from: usize, n: usize| -> Option<u32> {
        let digits: String = chars.get(from..from + n)?.iter().collect();
        if digits.chars().all(|c| c.is_ascii_hexdigit()) {
            u32::from_str_radix(&digits, 16).ok()
        } else {
            None
        }
    };
    let escape = match next {
        'd' | 'w' => {
            features.ascii_classes = true;
            Escape::Class
        }
        'D' | 'W' => {
            features.ascii_classes = true;
            features.negated = true;
            Escape::Class
        }
        's' => {
            features.space = true;
            Escape::Class
        }
        'S' => {
            features.space = true;
            features.negated = true;
            Escape::Class
        }
        'b' | 'B' => {
            features.ascii_classes = true;
            Escape::Boundary
        }
        't' => Escape::Char('\t'),
        'n' => Escape::Char('\n'),
        'r' => Escape::Char('\r'),
        'f' => Escape::Char('\x0c'),
        'v' => Escape::Char('\x0b'),
        'x' => {
            let code = hex(at + 2, 2).ok_or("`\\x` without two hex digits")?;
            return Ok((4, Escape::Char(char::from_u32(code).unwrap_or('\0'))));
        }
        'u' => {
            let code = hex(at + 2, 4).ok_or("`\\u` without four hex digits")?;
            let Some(c) = char::from_u32(code) else {
                return Err("escaped surrogate".to_owned());
            };
            return Ok((6, Escape::Char(c)));
        }
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
        | '/' | '-' => Escape::Char(next),
        other => return Err(format!("escape `\\{other}`")),
    };
    Ok((2, escape))
}

/// Reads the class opening at `chars[at]`; the index past its `]`.
fn class(chars: &[char], at: usize, features: &mut Features) -> Result<usize, String> {
    let mut i = at + 1;
    if chars.get(i) == Some(&'^') {
        features.negated = true;
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        return Err("class that is empty or opens with `]`".to_owned());
    }
    // The member before, if it can start a range.
    let mut previous: Option<char> = None;
    let mut first = true;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("unclosed class".to_owned());
        };
        if u32::from(c) > 0xFFFF {
            return Err("character beyond the Basic Multilingual Plane".to_owned());
        }
        match c {
            ']' => return Ok(i + 1),
            '[' => return Err("`[` inside a class".to_owned()),
            '&' | '~' if chars.get(i + 1) == Some(&c) => {
                return Err(format!("`{c}{c}` inside a class"));
            }
            '-' if chars.get(i + 1) == Some(&'-') => {
                return Err("`--` inside a class".to_owned());
            }
            '-' if !first && chars.get(i + 1) != Some(&']') => {
                // A range: the members on both sides must be characters.
                let Some(low) = previous else {
                    return Err("range from a class".to_owned());
                };
                let (length, high) = match chars.get(i + 1) {
                    Some('\\') => match escape(chars, i + 1, features)? {
                        (length, Escape::Char(high)) => (length, high),
                        _ => return Err("range to a class".to_owned()),
                    },
                    Some('[') => return Err("`[` inside a class".to_owned()),
                    Some(&high) => (1, high),
                    None => return Err("unclosed class".to_owned()),
                };
                if u32::from(high) > 0xFFFF {
                    return Err("character beyond the Basic Multilingual Plane".to_owned());
                }
                if high < low {
                    return Err("range out of order".to_owned());
                }
                i += 1 + length;
                previous = None;
                first = false;
                continue;
            }
            '\\' => {
                let (length, escape) = escape(chars, i, features)?;
                previous = match escape {
                    Escape::Char(c) => Some(c),
                    Escape::Class => None,
                    Escape::Boundary => return Err("`\\b` inside a class".to_owned()),
                };
                i += length;
                first = false;
                continue;
            }
            other => previous = Some(other),
        }
        first = false;
        i += 1;
    }
}

/// Reads the `{n}`, `{n,}` or `{n,m}` at `chars[at]`; the index past it.
fn bounds(chars: &[char], at: usize) -> Result<usize, String> {
    let number = |from: usize| -> (usize, Option<u32>) {
        let digits: String = chars[from.min(chars.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        (
            digits.len(),
            digits.parse().ok().filter(|_| digits.len() <= 6),
        )
    };
    let not_quantifier = || Err("`{` that is no quantifier".to_owned());
    let (length, low) = number(at + 1);
    let Some(low) = low else {
        return not_quantifier();
    };
    let mut i = at + 1 + length;
    match chars.get(i) {
        Some('}') => return Ok(i + 1),
        Some(',') => i += 1,
        _ => return not_quantifier(),
    }
    let (length, high) = number(i);
    i += length;
    if chars.get(i) != Some(&'}') {
        return not_quantifier();
    }
    if let Some(high) = high
        && high < low
    {
        return Err("quantifier out of order".to_owned());
    }
    if length > 0 && high.is_none() {
        return not_quantifier();
    }
    Ok(i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_every_engine_reads_alike_is_accepted() {
        for pattern in [
            "",
            "^[a-z0-9_-]+$",
            "^\\d{3}-\\d{4}$",
            "^(?:foo|bar)*baz?$",
            "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$",
            "a{2,}b{1,3}?c{4}",
            "\\u00e9\\x41\\/\\-\\.",
            "[\\]\\\\a-]",
            "^x-",
        ] {
            assert!(scan(pattern).is_ok(), "{pattern}: {:?}", scan(pattern));
        }
    }

    #[test]
    fn syntax_engines_read_differently_is_refused() {
        for (pattern, why) in [
            ("(?=a)a", "group construct"),
            ("(?i)a", "group construct"),
            ("(?<name>a)", "group construct"),
            ("(a)\\1", "escape `\\1`"),
            ("[[:alpha:]]", "`[` inside a class"),
            ("[a&&b]", "`&&` inside a class"),
            ("[]a]", "empty or opens with `]`"),
            ("[^]", "empty or opens with `]`"),
            ("\\p{L}", "escape `\\p`"),
            ("a{", "no quantifier"),
            ("a{,3}", "no quantifier"),
            ("\\z", "escape `\\z`"),
            ("a**", "nothing to repeat"),
            ("a*+", "possessive"),
            ("[\\w-a]", "range from a class"),
            ("[\\b]", "`\\b` inside a class"),
            ("\u{1F600}", "beyond the Basic Multilingual Plane"),
            ("(a", "unclosed group"),
            ("a)", "unbalanced"),
            ("\\u{41}", "four hex digits"),
        ] {
            let found = scan(pattern).err().unwrap_or_default();
            assert!(found.contains(why), "{pattern}: {found:?}");
        }
    }

    #[test]
    fn texts_the_engines_read_differently_are_unsure() {
        let features = |pattern| scan(pattern).unwrap();
        assert!(unsure(&features("^\\d+$"), "٣").is_some());
        assert!(unsure(&features("^\\d+$"), "3").is_none());
        assert!(unsure(&features("^\\s$"), "\u{a0}").is_some());
        assert!(unsure(&features("^\\s$"), "\x1c").is_some());
        assert!(unsure(&features("^.$"), "\r").is_some());
        assert!(unsure(&features("^a$"), "a\n").is_some());
        assert!(unsure(&features("^.$"), "\u{1F600}").is_some());
        assert!(unsure(&features("^[^a]$"), "\u{1F600}").is_some());
        assert!(unsure(&features("^a"), "\u{1F600}").is_none());
    }

    #[cfg(feature = "cli")]
    #[test]
    fn patterns_match_as_ecma_262_reads_them() {
        let mut patterns = Patterns::default();
        for pattern in ["^x-", "^a$", "(?=a)"] {
            patterns.add(pattern);
        }
        assert_eq!(patterns.matches("^x-", "x-a"), Match::Yes);
        assert_eq!(patterns.matches("^x-", "y"), Match::No);
        assert!(matches!(patterns.matches("^a$", "a\n"), Match::Unsure(_)));
        assert!(matches!(patterns.matches("(?=a)", "a"), Match::Unsure(_)));
    }

    #[cfg(not(feature = "cli"))]
    #[test]
    fn the_lean_build_judges_no_pattern() {
        let mut patterns = Patterns::default();
        patterns.add("^a$");
        assert!(matches!(patterns.matches("^a$", "a"), Match::Unsure(_)));
    }
}
