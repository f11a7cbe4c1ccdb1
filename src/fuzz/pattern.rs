//! Strings drawn from a JSON Schema `pattern`: the pattern is read by
//! regex-syntax, and a string is built by walking what it matches (the
//! fewest repetitions for the smallest example, random ones otherwise).
//! Look-arounds are read as empty, so every string built is held to the
//! compiled pattern before it is used; one that does not match is thrown
//! away, and a pattern that yields none is reported as not generated for.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::rng::Rng;

/// Repetitions without an upper bound are drawn up to this many past their
/// lower bound.
const MAX_EXTRA_REPEATS: u32 = 6;

/// The smallest string `pattern` matches, as built from its parse (the
/// caller holds it to the compiled pattern); `None` when the pattern does
/// not parse.
pub(crate) fn example(pattern: &str) -> Option<String> {
    let hir = parse(pattern)?;
    let mut out = String::new();
    build(&hir, &mut None, &mut out).then_some(out)
}

/// A random string `pattern` matches, as built from its parse.
pub(crate) fn random(pattern: &str, rng: &mut Rng) -> Option<String> {
    let hir = parse(pattern)?;
    let mut out = String::new();
    build(&hir, &mut Some(rng), &mut out).then_some(out)
}

fn parse(pattern: &str) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()
}

/// Appends a string `hir` matches; `false` when it matches nothing (an
/// empty class).
fn build(hir: &Hir, rng: &mut Option<&mut Rng>, out: &mut String) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
            Ok(text) => {
                out.push_str(text);
                true
            }
            Err(_) => false,
        },
        HirKind::Class(class) => match pick(class, rng) {
            Some(ch) => {
                out.push(ch);
                true
            }
            None => false,
        },
        HirKind::Repetition(repetition) => {
            let times = match rng {
                None => repetition.min,
                Some(rng) => {
                    let max = repetition
                        .max
                        .unwrap_or(repetition.min.saturating_add(MAX_EXTRA_REPEATS))
                        .min(repetition.min.saturating_add(MAX_EXTRA_REPEATS));
                    rng.between(i64::from(repetition.min), i64::from(max)) as u32
                }
            };
            (0..times).all(|_| build(&repetition.sub, rng, out))
        }
        HirKind::Capture(capture) => build(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().all(|part| build(part, rng, out)),
        HirKind::Alternation(branches) => {
            let branch = match rng {
                None => 0,
                Some(rng) => rng.index(branches.len()),
            };
            build(&branches[branch], rng, out)
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
            assert_eq!(example(pattern).as_deref(), Some(smallest), "{pattern}");
        }
        assert_eq!(example("(unclosed"), None);
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
            for _ in 0..50 {
                let text = random(pattern, &mut rng).unwrap();
                assert!(regex.is_match(&text), "{pattern}: {text:?}");
            }
        }
    }
}
