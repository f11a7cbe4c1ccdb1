//! Strings drawn from a JSON Schema `pattern`: the pattern is read by
//! regex-syntax, and a string is built by walking what it matches (the
//! fewest repetitions for the smallest example, random ones otherwise).
//! Look-arounds are read as empty, so every string built is held to the
//! compiled pattern before it is used; one that does not match is thrown
//! away, and a pattern that yields none is reported as not generated for.
//!
//! A build is bounded: it stops past [`MAX_MATCH`] characters or
//! [`MAX_STEPS`] steps through the parse, so that `a{1000000000}` or an
//! empty group repeated billions of times costs a few microseconds and
//! yields nothing, never a gigabyte or an endless loop.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::rng::Rng;

/// Repetitions without an upper bound are drawn up to this many past their
/// lower bound.
const MAX_EXTRA_REPEATS: u32 = 6;

/// The most characters a string built from a pattern has: the long text
/// fuzz sends (a pattern whose smallest match is longer is not generated
/// for).
pub(crate) const MAX_MATCH: usize = super::bounds::LONG_TEXT;

/// The most steps (parts of the parse visited) one build takes.
pub(crate) const MAX_STEPS: usize = 100_000;

/// The parse of `pattern`; `None` when it does not parse.
pub(crate) fn parse(pattern: &str) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()
}

/// The smallest string the pattern parsed as `hir` matches, as built from
/// its parse (the caller holds it to the compiled pattern); `None` when
/// it matches nothing or nothing within the bounds.
pub(crate) fn example(hir: &Hir) -> Option<String> {
    let mut build = Build::new(None);
    build.build(hir).then_some(build.out)
}

/// A random string the pattern parsed as `hir` matches, as built from its
/// parse, within the bounds.
pub(crate) fn random(hir: &Hir, rng: &mut Rng) -> Option<String> {
    let mut build = Build::new(Some(rng));
    build.build(hir).then_some(build.out)
}

/// One string being built, with what it may still take.
struct Build<'r> {
    rng: Option<&'r mut Rng>,
    out: String,
    chars: usize,
    steps: usize,
}

impl<'r> Build<'r> {
    fn new(rng: Option<&'r mut Rng>) -> Build<'r> {
        Build {
            rng,
            out: String::new(),
            chars: 0,
            steps: 0,
        }
    }

    /// Appends one character; `false` past the bound.
    fn push(&mut self, ch: char) -> bool {
        self.chars += 1;
        if self.chars > MAX_MATCH {
            return false;
        }
        self.out.push(ch);
        true
    }

    /// Appends a string `hir` matches; `false` when it matches nothing (an
    /// empty class) or the build passed a bound.
    fn build(&mut self, hir: &Hir) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return false;
        }
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
                Ok(text) => text.chars().all(|ch| self.push(ch)),
                Err(_) => false,
            },
            HirKind::Class(class) => match pick(class, &mut self.rng) {
                Some(ch) => self.push(ch),
                None => false,
            },
            HirKind::Repetition(repetition) => {
                let times = match &mut self.rng {
                    None => repetition.min,
                    Some(rng) => {
                        let max = repetition
                            .max
                            .unwrap_or(repetition.min.saturating_add(MAX_EXTRA_REPEATS))
                            .min(repetition.min.saturating_add(MAX_EXTRA_REPEATS));
                        rng.between(i64::from(repetition.min), i64::from(max)) as u32
                    }
                };
                (0..times).all(|_| self.build(&repetition.sub))
            }
            HirKind::Capture(capture) => self.build(&capture.sub),
            HirKind::Concat(parts) => parts.iter().all(|part| self.build(part)),
            HirKind::Alternation(branches) => {
                let branch = match &mut self.rng {
                    None => 0,
                    Some(rng) => rng.index(branches.len()),
                };
                self.build(&branches[branch])
            }
        }
    }
}

/// A character of `class`: the first printable ASCII one for the smallest
/// example, a random one (ASCII more often than not) otherwise.
fn pick(class: &Class, rng: &mut Option<&mut Rng>) -> Option<char> {
    let ranges: Vec<(char, char)> = match class {
        Class::Unicode(class) => class
            .ranges()
            .iter()
            .map(|r| (r.start(), r.end()))
            .collect(),
        Class::Bytes(class) => class
            .ranges()
            .iter()
            .filter(|r| r.start().is_ascii())
            .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))))
            .collect(),
    };
    let printable = |ch: char| ch.is_ascii_graphic() || ch == ' ';
    let first_printable = ranges.iter().find_map(|&(start, end)| {
        (start..=end.min('\u{7f}')).find(|ch| printable(*ch) && *ch != ' ')
    });
    match rng {
        None => first_printable.or_else(|| ranges.first().map(|r| r.0)),
        Some(rng) => {
            let ascii: Vec<(char, char)> = ranges
                .iter()
                .filter(|(start, _)| *start <= '\u{7e}')
                .map(|&(start, end)| (start.max('!'), end.min('\u{7e}')))
                .filter(|(start, end)| start <= end)
                .collect();
            let pool = if !ascii.is_empty() && rng.chance(3, 4) {
                &ascii
            } else {
                &ranges
            };
            if pool.is_empty() {
                return None;
            }
            let (start, end) = pool[rng.index(pool.len())];
            let span = u32::from(end) - u32::from(start);
            // Surrogates are no chars; a draw that lands on one is moved off.
            let ch = u32::from(start) + rng.below(u64::from(span) + 1) as u32;
            char::from_u32(ch).or(Some(start))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_example_matches() {
        for (pattern, smallest) in [
            ("^[a-z]{2}-[0-9]{3}$", "aa-000"),
            ("^(foo|bar)+$", "foo"),
            ("abc", "abc"),
            ("^\\d*$", ""),
            ("^[A-Z][a-z]+ [A-Z][a-z]+$", "Aa Aa"),
        ] {
            let hir = parse(pattern).unwrap();
            assert_eq!(example(&hir).as_deref(), Some(smallest), "{pattern}");
        }
        assert_eq!(parse("(unclosed"), None);
    }

    #[test]
    fn random_strings_match_their_pattern() {
        let mut rng = Rng::new(3);
        for pattern in [
            "^[a-z]{2}-[0-9]{3}$",
            "^(foo|bar)+\\.txt$",
            "^\\w+@\\w+\\.com$",
            "^[^/]+$",
            "^.{3,8}$",
        ] {
            let regex = regex::Regex::new(pattern).unwrap();
            let hir = parse(pattern).unwrap();
            for _ in 0..50 {
                let text = random(&hir, &mut rng).unwrap();
                assert!(regex.is_match(&text), "{pattern}: {text:?}");
            }
        }
    }

    // See: #25
    #[test]
    fn huge_repetitions_build_nothing_within_their_bounds() {
        let mut rng = Rng::new(5);
        for pattern in [
            "^a{1000000000}$",
            "^((a{1000}){1000}){1000}$",
            "^(?:(?:x?){4294967295})b$",
            "^[a-z]{10001}$",
        ] {
            let hir = parse(pattern).unwrap();
            let started = std::time::Instant::now();
            assert_eq!(example(&hir), None, "{pattern}");
            for _ in 0..10 {
                if let Some(text) = random(&hir, &mut rng) {
                    assert!(text.chars().count() <= MAX_MATCH, "{pattern}");
                }
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(2),
                "{pattern} took {:?}",
                started.elapsed()
            );
        }
        // The longest smallest match within the bound is still built.
        let hir = parse("^[a-z]{10000}$").unwrap();
        assert_eq!(example(&hir).map(|text| text.len()), Some(MAX_MATCH));
    }
}
