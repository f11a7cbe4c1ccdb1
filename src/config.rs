//! The per-directory config: `mcp-replay.json` beside transcripts.
//!
//! The nearest `mcp-replay.json` above a transcript (up to the directory the
//! run was given) sets the profile, waived laws, extra ignore rules and
//! deadlines of the transcripts below it. Flags on the command line win over
//! it, except `--waive`, which adds to its waivers. Its redaction settings
//! (`redactEnv`, `redact`) add to the command line's, for `record` (the
//! config nearest to the transcript being written) and `check` alike. JSON,
//! so that no new format or dependency is needed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::client::duration::parse_duration;
use crate::compare::diff::IgnoreRules;
use crate::laws::{LawId, Profile};
use crate::patterns::PatternError;
use crate::transcript::input::{Input, MAX_CONFIG_SIZE};
use crate::transcript::{BOM_FOUND, Redaction, bom_at};

/// The file name looked for.
pub const FILE_NAME: &str = "mcp-replay.json";

/// What one `mcp-replay.json` says.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Config {
    pub profile: Option<Profile>,
    pub waive: Vec<LawId>,
    pub ignore: IgnoreRules,
    pub timeout: Option<Duration>,
    pub startup_timeout: Option<Duration>,
    pub settle: Option<Duration>,
    pub grace: Option<Duration>,
    /// More variables whose values are secret (`redactEnv`), and regular
    /// expressions whose matches are (`redact`).
    pub redaction: Redaction,
}

/// Why a config file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read config `{}`", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The file is not what a config must be.
    #[error(transparent)]
    Invalid(#[from] InvalidJson),
}

/// A JSON file of the user's (a config, a baseline) that is not what it
/// must be: where, and what was expected there.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", .path.display())]
pub struct InvalidJson {
    /// The file.
    pub path: PathBuf,
    /// 1-based line (1 when the whole file is at fault).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What was expected.
    pub message: String,
}

impl InvalidJson {
    /// The whole file at `path` is at fault.
    pub(crate) fn new(path: &Path, message: String) -> InvalidJson {
        InvalidJson {
            path: path.to_owned(),
            line: 1,
            column: 1,
            message,
        }
    }

    /// The file at `path` is not `what`, as serde_json found.
    pub(crate) fn from_serde(path: &Path, what: &str, err: &serde_json::Error) -> InvalidJson {
        // The position is ours to report: drop serde_json's own suffix.
        let text = err.to_string();
        let text = text.split(" at line ").next().unwrap_or(&text);
        InvalidJson {
            path: path.to_owned(),
            line: err.line().max(1),
            column: err.column().max(1),
            message: format!("expected {what}: {text}"),
        }
    }

    /// As [`from_serde`](Self::from_serde), but never quoting the file: a
    /// value serde_json names (`invalid type: string "…"`) is the file's
    /// content, which the reader of the error may not be meant to see (an
    /// agent that named a file it should not read). Only where and what
    /// kind of error it is are said.
    pub(crate) fn from_serde_unquoted(
        path: &Path,
        what: &str,
        err: &serde_json::Error,
    ) -> InvalidJson {
        use serde_json::error::Category;
        let text = err.to_string();
        let why = match err.classify() {
            Category::Data if text.starts_with("missing field `") => {
                text.split(" at line ").next().unwrap_or(&text).to_owned()
            }
            Category::Data => "a value of the wrong type or an unknown field".to_owned(),
            Category::Eof => "the JSON ends early".to_owned(),
            Category::Syntax | Category::Io => "this is not JSON".to_owned(),
        };
        InvalidJson {
            path: path.to_owned(),
            line: err.line().max(1),
            column: err.column().max(1),
            message: format!("expected {what}: {why}"),
        }
    }

    /// The same error, saying so when what serde_json stopped at in `text`
    /// is a UTF-8 byte order mark, which it reads as a character no JSON
    /// has there; the column then counts characters.
    pub(crate) fn naming_a_bom(mut self, text: &str, what: &str) -> InvalidJson {
        let Some(line) = text.split('\n').nth(self.line - 1) else {
            return self;
        };
        let at = self.column - 1;
        if bom_at(line.as_bytes(), at) {
            self.column = line
                .get(..at)
                .map_or(self.column, |before| before.chars().count() + 1);
            self.message = format!("expected {what}, found {BOM_FOUND}");
        }
        self
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Wire {
    profile: Option<String>,
    #[serde(default)]
    waive: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    mask: Vec<String>,
    timeout: Option<Value>,
    startup_timeout: Option<Value>,
    settle: Option<Value>,
    grace: Option<Value>,
    #[serde(default)]
    redact_env: Vec<String>,
    #[serde(default)]
    redact: Vec<String>,
}

impl Config {
    /// Reads the config at `path`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] naming file:line:column and what was expected.
    pub(crate) fn read(path: &Path) -> Result<Config, ConfigError> {
        let read_err = |source| ConfigError::Read {
            path: path.to_owned(),
            source,
        };
        let bytes = Input::open(path, MAX_CONFIG_SIZE)
            .and_then(Input::read_all)
            .map_err(read_err)?;
        let text = String::from_utf8(bytes)
            .map_err(|err| read_err(std::io::Error::new(std::io::ErrorKind::InvalidData, err)))?;
        Config::parse(&text, path)
    }

    fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid(InvalidJson::new(path, message));
        let wire: Wire = serde_json::from_str(text).map_err(|err| {
            InvalidJson::from_serde(path, "a config object", &err)
                .naming_a_bom(text, "a config object")
        })?;
        let duration = |field: &str,
                        value: Option<Value>|
         -> Result<Option<Duration>, ConfigError> {
            let Some(value) = value else { return Ok(None) };
            let text = match value {
                Value::Number(n) => n.to_string(),
                Value::String(s) => s,
                other => {
                    return Err(invalid(format!(
                        "`{field}` must be a number of seconds or a string like \"5s\", not {other}"
                    )));
                }
            };
            parse_duration(&text)
                .map(Some)
                .map_err(|err| invalid(format!("`{field}`: {err}")))
        };
        // Compiled as the recorder and the checker will compile them, within
        // the same bounds, so that a pattern too large is named here, at its
        // line.
        let mut budget = crate::patterns::Budget::default();
        for pattern in &wire.redact {
            if let Err(err) = budget.bytes(pattern) {
                let why = match err {
                    PatternError::Syntax(err) => format!("is no regular expression: {err}"),
                    err => format!("is refused: {err}"),
                };
                return Err(
                    at_string(path, text, pattern, format!("`redact`: `{pattern}` {why}")).into(),
                );
            }
        }
        let mut budget = crate::patterns::Budget::default();
        for pattern in &wire.mask {
            if let Err(err) = budget.text(pattern) {
                let why = match err {
                    PatternError::Syntax(err) => format!("is no regular expression: {err}"),
                    err => format!("is refused: {err}"),
                };
                return Err(at_string(
                    path,
                    text,
                    pattern,
                    format!("`mask`: mask `{pattern}` {why}"),
                )
                .into());
            }
        }
        if let Some(name) = wire
            .redact_env
            .iter()
            .find(|name| name.is_empty() || name.contains('='))
        {
            return Err(invalid(format!(
                "`redactEnv`: `{name}` is no environment variable name"
            )));
        }
        Ok(Config {
            redaction: Redaction {
                env: wire.redact_env,
                patterns: wire.redact,
            },
            profile: wire
                .profile
                .map(|p| p.parse::<Profile>())
                .transpose()
                .map_err(|err| invalid(format!("`profile`: {err}")))?,
            waive: wire
                .waive
                .iter()
                .map(|id| id.parse::<LawId>())
                .collect::<Result<_, _>>()
                .map_err(|err| invalid(format!("`waive`: {err}")))?,
            ignore: IgnoreRules::parse(wire.ignore.iter().map(String::as_str))
                .map_err(|err| invalid(format!("`ignore`: {err}")))?
                .with_masks(wire.mask.iter().map(String::as_str))
                .map_err(|err| invalid(format!("`mask`: {err}")))?,
            timeout: duration("timeout", wire.timeout)?,
            startup_timeout: duration("startupTimeout", wire.startup_timeout)?,
            settle: duration("settle", wire.settle)?,
            grace: duration("grace", wire.grace)?,
        })
    }
}

/// `message` at the place in `text` (the config at `path`) where the JSON
/// string `value` is written, or at its start when it is written some other
/// way (with escapes of its own).
fn at_string(path: &Path, text: &str, value: &str, message: String) -> InvalidJson {
    let mut error = InvalidJson::new(path, message);
    let written = serde_json::Value::from(value).to_string();
    if let Some(at) = text.find(&written) {
        let before = &text[..at];
        error.line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
        error.column = before[line_start..].chars().count() + 1;
    }
    error
}

/// The redaction settings of the config nearest to the transcripts of
/// `dir` (for `record`): the search goes up to the current directory when
/// `dir` is inside it, and looks in `dir` alone otherwise. Nothing when no
/// config is found.
///
/// # Errors
///
/// [`ConfigError`] when the config found cannot be used.
pub fn redaction_near(dir: &Path) -> Result<Redaction, ConfigError> {
    let root = if dir.is_relative() {
        PathBuf::new()
    } else {
        match std::env::current_dir() {
            Ok(cwd) if dir.starts_with(&cwd) => cwd,
            _ => dir.to_owned(),
        }
    };
    match find(dir, &root) {
        Some(path) => Ok(Config::read(&path)?.redaction),
        None => Ok(Redaction::default()),
    }
}

/// The nearest config file for the transcripts of `dir`: in `dir` or a
/// parent, not above `root` (`""` is the current directory). Anything of
/// that name but a directory counts, so that one that cannot be read (a
/// link to a device, a FIFO) is reported rather than quietly passed over.
pub(crate) fn find(dir: &Path, root: &Path) -> Option<PathBuf> {
    let mut dir = Some(dir);
    while let Some(current) = dir {
        let candidate = current.join(FILE_NAME);
        if std::fs::metadata(&candidate).is_ok_and(|meta| !meta.is_dir()) {
            return Some(candidate);
        }
        if current == root || current.as_os_str().is_empty() {
            return None;
        }
        dir = current.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(text, Path::new("t/mcp-replay.json")).map_err(|e| e.to_string())
    }

    #[test]
    fn every_field_reads() {
        let config = parse(
            r#"{"profile":"spec","waive":["ping"],"ignore":["/result/t"],"timeout":2,"startupTimeout":"30s","settle":"100ms","grace":1.5}"#,
        )
        .unwrap();
        assert_eq!(config.profile, Some(Profile::Spec));
        assert_eq!(config.waive, vec![LawId::Ping]);
        assert_eq!(config.ignore, IgnoreRules::parse(["/result/t"]).unwrap());
        assert_eq!(config.timeout, Some(Duration::from_secs(2)));
        assert_eq!(config.startup_timeout, Some(Duration::from_secs(30)));
        assert_eq!(config.settle, Some(Duration::from_millis(100)));
        assert_eq!(config.grace, Some(Duration::from_millis(1500)));
    }

    #[test]
    fn redaction_settings_read_and_bad_ones_are_named() {
        let config = parse(r#"{"redactEnv":["TEAM"],"redact":["order-[0-9]+"]}"#).unwrap();
        assert_eq!(config.redaction.env, ["TEAM"]);
        assert_eq!(config.redaction.patterns, ["order-[0-9]+"]);
        let err = parse(r#"{"redact":["("]}"#).unwrap_err();
        assert!(
            err.starts_with("t/mcp-replay.json:1:12: `redact`: `(` is no regular expression"),
            "{err}"
        );
        // A pattern of a few bytes that compiles to megabytes is named at
        // its line, and so is a mask.
        // See: #25
        let err = parse("{\n  \"redact\": [\"ok\",\n    \"\\\\w{100}\"]\n}").unwrap_err();
        assert_eq!(
            err,
            "t/mcp-replay.json:3:5: `redact`: `\\w{100}` is refused: it compiles to more than 2 MiB, the most mcp-replay compiles one pattern to (docs/limits.md)"
        );
        let err = parse("{\"mask\": [\"\\\\w{100}\"]}").unwrap_err();
        assert!(err.starts_with("t/mcp-replay.json:1:11: `mask`: mask `\\w{100}` is refused: it compiles to more than 2 MiB"), "{err}");
        assert_eq!(
            parse(r#"{"redactEnv":["A=B"]}"#).unwrap_err(),
            "t/mcp-replay.json:1:1: `redactEnv`: `A=B` is no environment variable name"
        );
    }

    #[test]
    fn mistakes_name_the_file_and_what_was_expected() {
        assert_eq!(
            parse(r#"{"profile":"strict"}"#).unwrap_err(),
            "t/mcp-replay.json:1:1: `profile`: unknown profile `strict` (expected `core` or `spec`)"
        );
        assert_eq!(
            parse(r#"{"waive":["nope"]}"#).unwrap_err(),
            "t/mcp-replay.json:1:1: `waive`: unknown law `nope` (`mcp-replay laws` lists them)"
        );
        let err = parse("{\n  \"timeouts\": 1\n}").unwrap_err();
        assert!(err.starts_with("t/mcp-replay.json:2:"), "{err}");
        assert!(err.contains("unknown field `timeouts`"), "{err}");
        assert!(
            parse(r#"{"timeout":true}"#)
                .unwrap_err()
                .contains("`timeout` must be")
        );
    }

    #[test]
    fn a_config_that_never_ends_is_refused_at_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join(FILE_NAME)).unwrap();
        let path = find(dir.path(), dir.path()).unwrap();
        let err = Config::read(&path).unwrap_err();
        let text = format!("{err}: {}", std::error::Error::source(&err).unwrap());
        assert!(
            text.ends_with("it is longer than the 1 MiB mcp-replay reads (docs/limits.md)"),
            "{text}"
        );
    }

    #[test]
    fn the_nearest_file_wins_and_the_root_bounds_the_search() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "{}").unwrap();
        std::fs::write(dir.path().join("a").join(FILE_NAME), "{}").unwrap();
        assert_eq!(
            find(&sub, dir.path()),
            Some(dir.path().join("a").join(FILE_NAME))
        );
        assert_eq!(find(&sub, &sub), None);
    }
}
