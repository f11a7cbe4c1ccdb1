//! Baselines: the findings a team has accepted for now, so that the gate can
//! be adopted on a legacy server and ratcheted.
//!
//! A finding is keyed by its law and its place: transcript path and line,
//! or server command and probe step. Messages are left out, so that a
//! reworded message does not make a known finding new.
//!
//! A transcript's path is keyed relative to the directory of the baseline
//! file, normalized by its spelling alone (`.` and `..` taken out, no
//! symbolic link followed): `./transcripts/`, `transcripts` and an
//! absolute path name the same key, from whatever directory `check` runs.
//! Version 1 files keyed the paths as they were given, relative to the
//! directory `check` ran in; they are read as relative to the current
//! directory, and rewritten as version 2 by `--write-baseline`.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::InvalidJson;
use crate::report::{Finding, Location, StaleEntry};
use crate::transcript::input::{Input, MAX_BASELINE_SIZE};

/// The value of a baseline's `format` field.
const FORMAT: &str = "mcp-replay-baseline";

/// The version written: 2 keys transcripts relative to the baseline's
/// directory.
const VERSION: u32 = 2;

/// The key of one finding.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FindingKey {
    law: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    transcript: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    step: Option<String>,
}

/// How findings are keyed: transcript paths relative to the baseline's
/// directory.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    /// The current directory, absolute.
    cwd: PathBuf,
    /// The baseline's directory, absolute and normalized.
    base: PathBuf,
}

impl Keys {
    /// The keys of a baseline at `baseline` (the current directory's when
    /// there is none).
    pub(crate) fn new(baseline: Option<&Path>) -> Keys {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let dir = baseline
            .and_then(Path::parent)
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let base = normalize(&cwd.join(dir));
        Keys { cwd, base }
    }

    /// The key of the transcript at `path` (as given on the command line,
    /// relative to the current directory).
    pub(crate) fn transcript(&self, path: &Path) -> String {
        relative(&normalize(&self.cwd.join(path)), &self.base)
    }

    /// The key of `finding`.
    pub(crate) fn entry(&self, finding: &Finding) -> FindingKey {
        let mut entry = FindingKey::of(finding);
        if let Location::Transcript { path, .. } = &finding.location {
            entry.transcript = Some(self.transcript(path));
        }
        entry
    }
}

/// `path` with `.` and `..` taken out by spelling alone (`..` at the root
/// stays at the root).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `base`, both absolute and normalized, `/`-separated.
fn relative(path: &Path, base: &Path) -> String {
    let path: Vec<Component<'_>> = path.components().collect();
    let base: Vec<Component<'_>> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); base.len() - common];
    parts.extend(
        path[common..]
            .iter()
            .map(|part| part.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

impl FindingKey {
    /// The key of `finding`, its path as the finding spells it.
    fn of(finding: &Finding) -> FindingKey {
        let mut entry = FindingKey {
            law: finding.law.as_str().to_owned(),
            transcript: None,
            line: None,
            command: None,
            step: None,
        };
        match &finding.location {
            Location::Transcript { path, line } => {
                entry.transcript = Some(path.display().to_string());
                entry.line = Some(*line);
            }
            Location::Probe { command, step } => {
                entry.command = Some(command.clone());
                entry.step = Some(step.clone());
            }
        }
        entry
    }

    /// The transcript the entry is about, if any.
    pub(crate) fn transcript(&self) -> Option<&str> {
        self.transcript.as_deref()
    }

    /// The server command whose probes the entry is about, if any.
    pub(crate) fn command(&self) -> Option<&str> {
        self.command.as_deref()
    }

    /// Whether the entry is about a host law (else a server law, or a law
    /// this build does not know).
    pub(crate) fn of_host(&self) -> bool {
        self.law
            .parse::<crate::laws::LawId>()
            .is_ok_and(|law| law.side() == crate::laws::Side::Host)
    }

    /// The entry as a report's stale line.
    pub(crate) fn to_stale(&self) -> StaleEntry {
        let location = match (&self.transcript, self.line, &self.command, &self.step) {
            (Some(path), Some(line), _, _) => format!("{path}:{line}"),
            (Some(path), None, _, _) => path.clone(),
            (None, _, Some(command), Some(step)) => format!("{command}, step `{step}`"),
            (None, _, Some(command), None) => command.clone(),
            (None, _, None, _) => "(nowhere)".to_owned(),
        };
        StaleEntry {
            law: self.law.clone(),
            location,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    format: String,
    version: u32,
    findings: Vec<FindingKey>,
}

/// Why a baseline cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BaselineError {
    /// The file cannot be read or written.
    #[error("cannot {action} baseline `{}`", .path.display())]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The file is no baseline.
    #[error(transparent)]
    Invalid(#[from] InvalidJson),
}

/// Reads the baseline at `path`, its transcript keys as `keys` makes them.
///
/// # Errors
///
/// [`BaselineError`] when the file cannot be read or is no baseline.
pub(crate) fn read(path: &Path, keys: &Keys) -> Result<BTreeSet<FindingKey>, BaselineError> {
    let io_err = |source| BaselineError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    };
    let bytes = Input::open(path, MAX_BASELINE_SIZE)
        .and_then(Input::read_all)
        .map_err(io_err)?;
    let text = String::from_utf8(bytes)
        .map_err(|err| io_err(std::io::Error::new(std::io::ErrorKind::InvalidData, err)))?;
    let wire: Wire = serde_json::from_str(&text).map_err(|err| {
        let what = "a baseline written by `--write-baseline`";
        InvalidJson::from_serde_unquoted(path, what, &err).naming_a_bom(&text, what)
    })?;
    if wire.format != FORMAT || !(1..=VERSION).contains(&wire.version) {
        let message = format!("expected \"format\":\"{FORMAT}\" and \"version\":1 or {VERSION}");
        return Err(InvalidJson::new(path, message).into());
    }
    Ok(wire
        .findings
        .into_iter()
        .map(|mut entry| {
            // Version 1 spelled paths as given, from the current directory;
            // version 2 from the baseline's. Either is normalized, so that
            // a hand-written `./` matches too.
            entry.transcript = entry.transcript.map(|key| {
                if wire.version == 1 {
                    keys.transcript(Path::new(&key))
                } else {
                    relative(&normalize(&keys.base.join(&key)), &keys.base)
                }
            });
            entry
        })
        .collect())
}

/// Writes `entries` (keyed by the [`Keys`] of `path`) to `path`: through a
/// symbolic link, atomically where the file has one name (see
/// [`write_through`](crate::replay::bless::write_through)).
///
/// # Errors
///
/// [`BaselineError::Io`] when the file cannot be written.
pub(crate) fn write(path: &Path, entries: &BTreeSet<FindingKey>) -> Result<(), BaselineError> {
    let io_err = |source| BaselineError::Io {
        action: "write",
        path: path.to_owned(),
        source,
    };
    let wire = Wire {
        format: FORMAT.to_owned(),
        version: VERSION,
        findings: entries.iter().cloned().collect(),
    };
    let mut text = serde_json::to_string_pretty(&wire).expect("a baseline always serializes");
    text.push('\n');
    if std::fs::symlink_metadata(path).is_ok() {
        return crate::replay::bless::write_through(path, text.as_bytes()).map_err(io_err);
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io_err)?;
    std::io::Write::write_all(&mut file, text.as_bytes()).map_err(io_err)?;
    file.persist(path).map_err(|err| io_err(err.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::{LawId, Profile};

    #[test]
    fn entries_round_trip_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        let transcript = Finding::new(
            LawId::TranscriptMatch,
            Profile::Core,
            Location::Transcript {
                path: "t/a.jsonl".into(),
                line: 4,
            },
            "any words",
        );
        let probe = Finding::new(
            LawId::Ping,
            Profile::Core,
            Location::Probe {
                command: "server".into(),
                step: "ping".into(),
            },
            "other words",
        );
        let keys = Keys::new(Some(Path::new("baseline.json")));
        let entries: BTreeSet<FindingKey> = [keys.entry(&transcript), keys.entry(&probe)].into();
        write(&path, &entries).unwrap();
        assert_eq!(read(&path, &keys).unwrap(), entries);
        let reworded = Finding::new(
            LawId::TranscriptMatch,
            Profile::Spec,
            Location::Transcript {
                path: "t/a.jsonl".into(),
                line: 4,
            },
            "new words",
        );
        assert!(entries.contains(&keys.entry(&reworded)));
        assert_eq!(
            FindingKey::of(&probe).to_stale().location,
            "server, step `ping`"
        );
    }

    #[test]
    fn a_file_that_is_no_baseline_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.json");
        std::fs::write(&path, "{\"format\":\"x\",\"version\":1,\"findings\":[]}").unwrap();
        let err = read(&path, &Keys::new(None)).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "b.json:1:1: expected \"format\":\"mcp-replay-baseline\" and \"version\":1 or 2"
            ),
            "{err}"
        );
    }

    #[test]
    fn paths_are_keyed_by_what_they_name_not_how_they_are_spelled() {
        let keys = Keys {
            cwd: PathBuf::from("/repo"),
            base: PathBuf::from("/repo"),
        };
        for spelling in [
            "t/a.jsonl",
            "./t/a.jsonl",
            "t/./a.jsonl",
            "t/x/../a.jsonl",
            "/repo/t/a.jsonl",
        ] {
            assert_eq!(
                keys.transcript(Path::new(spelling)),
                "t/a.jsonl",
                "{spelling}"
            );
        }
        let below = Keys {
            cwd: PathBuf::from("/repo/sub"),
            base: PathBuf::from("/repo/ci"),
        };
        assert_eq!(below.transcript(Path::new("../t/a.jsonl")), "../t/a.jsonl");
        assert_eq!(below.transcript(Path::new("x.jsonl")), "../sub/x.jsonl");
    }

    #[test]
    fn a_version_1_baseline_is_read_from_the_current_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.json");
        std::fs::write(
            &path,
            r#"{"format":"mcp-replay-baseline","version":1,"findings":[{"law":"transcript-match","transcript":"./t/a.jsonl","line":4}]}"#,
        )
        .unwrap();
        let keys = Keys {
            cwd: dir.path().to_owned(),
            base: dir.path().to_owned(),
        };
        let entries = read(&path, &keys).unwrap();
        assert_eq!(
            entries.iter().next().unwrap().transcript(),
            Some("t/a.jsonl")
        );
    }
}
