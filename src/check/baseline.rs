//! Baselines: the findings a team has accepted for now, so that the gate can
//! be adopted on a legacy server and ratcheted.
//!
//! A finding is keyed by its law and its place: transcript path and line,
//! or server command and probe step. Messages are left out, so that a
//! reworded message does not make a known finding new.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::check::config::InvalidJson;
use crate::report::{Finding, Location, StaleEntry};

/// The value of a baseline's `format` field.
const FORMAT: &str = "mcp-replay-baseline";

/// The key of one finding.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
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

impl Entry {
    /// The key of `finding`.
    pub(crate) fn of(finding: &Finding) -> Entry {
        let mut entry = Entry {
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
    findings: Vec<Entry>,
}

/// Why a baseline cannot be read or written.
#[derive(Debug, thiserror::Error)]
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

/// Reads the baseline at `path`.
///
/// # Errors
///
/// [`BaselineError`] when the file cannot be read or is no baseline.
pub(crate) fn read(path: &Path) -> Result<BTreeSet<Entry>, BaselineError> {
    let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })?;
    let wire: Wire = serde_json::from_str(&text).map_err(|err| {
        InvalidJson::from_serde(path, "a baseline written by `--write-baseline`", &err)
    })?;
    if wire.format != FORMAT || wire.version != 1 {
        let message = format!("expected \"format\":\"{FORMAT}\" and \"version\":1");
        return Err(InvalidJson::new(path, message).into());
    }
    Ok(wire.findings.into_iter().collect())
}

/// Writes `entries` to `path` atomically (a temporary file beside it,
/// renamed over it).
///
/// # Errors
///
/// [`BaselineError::Io`] when the file cannot be written.
pub(crate) fn write(path: &Path, entries: &BTreeSet<Entry>) -> Result<(), BaselineError> {
    let io_err = |source| BaselineError::Io {
        action: "write",
        path: path.to_owned(),
        source,
    };
    let wire = Wire {
        format: FORMAT.to_owned(),
        version: 1,
        findings: entries.iter().cloned().collect(),
    };
    let mut text = serde_json::to_string_pretty(&wire).expect("a baseline always serializes");
    text.push('\n');
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io_err)?;
    file.write_all(text.as_bytes()).map_err(io_err)?;
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
        let entries: BTreeSet<Entry> = [Entry::of(&transcript), Entry::of(&probe)].into();
        write(&path, &entries).unwrap();
        assert_eq!(read(&path).unwrap(), entries);
        let reworded = Finding::new(
            LawId::TranscriptMatch,
            Profile::Spec,
            Location::Transcript {
                path: "t/a.jsonl".into(),
                line: 4,
            },
            "new words",
        );
        assert!(entries.contains(&Entry::of(&reworded)));
        assert_eq!(Entry::of(&probe).to_stale().location, "server, step `ping`");
    }

    #[test]
    fn a_file_that_is_no_baseline_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.json");
        std::fs::write(&path, "{\"format\":\"x\",\"version\":1,\"findings\":[]}").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "b.json:1:1: expected \"format\":\"mcp-replay-baseline\" and \"version\":1"
            ),
            "{err}"
        );
    }
}
