//! Which placeholders a replay fills: only those of the variables the
//! person running it names for the run.
//!
//! A transcript's header lists the variables the recorder redacted, and a
//! client line carries `[REDACTED:NAME]` where a value was. A replay that
//! filled every placeholder the transcript names would let a transcript
//! pull any variable of the checker's environment (a CI secret, `HOME`)
//! into the messages it sends to the server, which may send them on. So a
//! placeholder is filled only from a variable named for the run: a
//! command-line flag (`--fill-env NAME`), or [`FILL_ENV`] in the
//! environment of the run, as a CI workflow sets it. Any other placeholder
//! is sent as it stands, and the replay says so in a note naming how to
//! allow it.

use super::secrets::PASSWORD_PART;
use super::{Redaction, Redactor};

/// The environment variable that names, for a run, the variables whose
/// values fill the placeholders of replayed lines: names separated by
/// commas or whitespace (`MCP_REPLAY_FILL_ENV=API_TOKEN,DATABASE_URL`).
pub const FILL_ENV: &str = "MCP_REPLAY_FILL_ENV";

/// The most a placeholder's name is read to, for notes.
const MAX_NAME: usize = 256;

/// The names a list such as [`FILL_ENV`] holds: separated by commas or
/// whitespace, empty ones left out, each once, in order.
pub fn fill_names(list: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in list.split(|c: char| c == ',' || c.is_whitespace()) {
        if !name.is_empty() && !names.iter().any(|known| known == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The names [`FILL_ENV`] lists in this process's environment.
pub fn fill_names_from_env() -> Vec<String> {
    std::env::var(FILL_ENV)
        .map(|list| fill_names(&list))
        .unwrap_or_default()
}

/// `names` with `more` after them, each once.
pub fn with_fill_names(
    mut names: Vec<String>,
    more: impl IntoIterator<Item = String>,
) -> Vec<String> {
    for name in more {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The redactor that fills the placeholders of the variables `names` with
/// their values (from `lookup`): `[REDACTED:NAME]`, and the password of the
/// URL in `NAME` for `[REDACTED:NAME:password]`.
pub(crate) fn filler(names: &[String], lookup: impl Fn(&str) -> Option<String>) -> Redactor {
    let env = names
        .iter()
        .flat_map(|name| {
            let base = name.strip_suffix(PASSWORD_PART).unwrap_or(name);
            [base.to_owned(), format!("{base}{PASSWORD_PART}")]
        })
        .collect();
    Redactor::new(
        &Redaction {
            env,
            patterns: Vec::new(),
        },
        lookup,
    )
    .unwrap_or_default()
}

/// The variable a placeholder `[REDACTED:NAME]` or
/// `[REDACTED:NAME:password]` stands for.
fn variable(placeholder: &str) -> &str {
    placeholder
        .strip_suffix(PASSWORD_PART)
        .unwrap_or(placeholder)
}

/// The names of the placeholders of variables in `line`, in order
/// (`pattern-N` placeholders, which stand for no variable, left out).
pub(crate) fn placeholders(line: &[u8]) -> Vec<String> {
    const START: &[u8] = b"[REDACTED:";
    let mut found = Vec::new();
    for at in memchr::memmem::find_iter(line, START) {
        let rest = &line[at + START.len()..];
        let Some(end) = rest.iter().take(MAX_NAME + 1).position(|&b| b == b']') else {
            continue;
        };
        let Ok(name) = std::str::from_utf8(&rest[..end]) else {
            continue;
        };
        let is_pattern = name
            .strip_prefix("pattern-")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if name.is_empty()
            || is_pattern
            || name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '\\' | '['))
        {
            continue;
        }
        found.push(name.to_owned());
    }
    found
}

/// The placeholders a replay sent as they stand, by name: where first, and
/// how many times.
#[derive(Debug, Default)]
pub(crate) struct Unfilled {
    seen: Vec<(String, usize, usize)>,
}

impl Unfilled {
    /// Notes the placeholders left in `bytes`, sent at transcript `line`
    /// (1, the header's, for the recorded command).
    pub(crate) fn saw(&mut self, line: usize, bytes: &[u8]) {
        if memchr::memmem::find(bytes, b"[REDACTED:").is_none() {
            return;
        }
        for name in placeholders(bytes) {
            // The command's and the client lines' are noted apart.
            match self
                .seen
                .iter_mut()
                .find(|(known, first, _)| *known == name && (*first == 1) == (line == 1))
            {
                Some((_, _, count)) => *count += 1,
                None => self.seen.push((name, line, 1)),
            }
        }
    }

    /// One note per placeholder sent as it stands: why, and how to allow
    /// filling it; `fill` is what the run named, `allow` words how to name
    /// a variable (`--fill-env NAME`).
    pub(crate) fn notes(&self, fill: &[String], allow: impl Fn(&str) -> String) -> Vec<String> {
        self.seen
            .iter()
            .map(|(name, line, count)| {
                let variable = variable(name);
                let at = match count {
                    1 => format!("line {line}"),
                    _ => format!("line {line}, and {} more", count - 1),
                };
                let named = fill
                    .iter()
                    .any(|allowed| variable == self::variable(allowed));
                if *line == 1 {
                    // The header's line: the recorded command.
                    let how = if named {
                        format!("`{variable}`, named to fill it, is not set (or is empty) where the replay runs")
                    } else {
                        format!("{} fills it with the value of `{variable}`", allow(variable))
                    };
                    format!("`[REDACTED:{name}]` in the recorded command (line 1) was passed to the server as it stands: {how}")
                } else if named {
                    format!(
                        "`[REDACTED:{name}]` ({at}) was sent as it stands: `{variable}`, named to fill it, is not set (or is empty) where the replay runs"
                    )
                } else {
                    format!(
                        "`[REDACTED:{name}]` ({at}) was sent as it stands: a placeholder is filled only from a variable named for the run, never from the names a transcript lists; {} fills it with the value of `{variable}`",
                        allow(variable)
                    )
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_split_at_commas_and_whitespace_once_each() {
        assert_eq!(
            fill_names(" A_TOKEN,B\n,, C A_TOKEN\t"),
            ["A_TOKEN", "B", "C"]
        );
        assert!(fill_names("").is_empty());
    }

    #[test]
    fn placeholders_of_variables_are_found_and_patterns_left_out() {
        let line = br#"{"a":"x [REDACTED:TOKEN] [REDACTED:pattern-2] [REDACTED:DB:password]","b":"[REDACTED:bad name]","c":"[REDACTED:"}"#;
        assert_eq!(placeholders(line), ["TOKEN", "DB:password"]);
    }

    #[test]
    fn only_named_variables_fill_and_a_url_password_comes_with_its_variable() {
        let lookup = |name: &str| match name {
            "TOKEN" => Some("tok-123456".to_owned()),
            "OTHER" => Some("other-123456".to_owned()),
            "DB" => Some("postgres://app:hunter22@db/app".to_owned()),
            _ => None,
        };
        let filler = filler(&["TOKEN".to_owned(), "DB".to_owned()], lookup);
        let line = br#"{"t":"[REDACTED:TOKEN] [REDACTED:OTHER] [REDACTED:DB:password]"}"#;
        assert_eq!(
            String::from_utf8(filler.restore(line).into_owned()).unwrap(),
            r#"{"t":"tok-123456 [REDACTED:OTHER] hunter22"}"#
        );
    }

    #[test]
    fn notes_say_why_and_how_to_allow() {
        let mut unfilled = Unfilled::default();
        unfilled.saw(3, b"[REDACTED:HOME] [REDACTED:SET]");
        unfilled.saw(5, b"[REDACTED:HOME]");
        let notes = unfilled.notes(&["SET".to_owned()], |name| format!("`--fill-env {name}`"));
        assert_eq!(notes.len(), 2);
        assert!(
            notes[0].starts_with("`[REDACTED:HOME]` (line 3, and 1 more) was sent as it stands")
                && notes[0].ends_with("`--fill-env HOME` fills it with the value of `HOME`"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("`SET`, named to fill it, is not set"),
            "{notes:?}"
        );
    }
}
