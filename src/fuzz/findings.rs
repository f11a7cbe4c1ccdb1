//! A finding kept as a transcript: the session that shows it, written in
//! the transcript format (`docs/transcript-format.md`), so that
//! `mcp-replay check` replays it and fails the same way until the bug is
//! fixed, and passes after.
//!
//! The client side is what fuzz sent, line for line. The server side is
//! what a correct server answers, not what the buggy one did: the answers
//! that were right are kept as they came, and header ignore rules leave out
//! what a fix may change (the text of a result, the server's version); the
//! failing call's answer is left out where any answer will do (a crash, a
//! hang, a line that is no message, a schema the live answer is held to),
//! and written as the lawful answer where the kind of answer is the point
//! (an `isError` result for invalid arguments, a result for valid ones).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::checks::Kind;
use super::conn::{Log, Logged};
use crate::jsonrpc::RequestId;
use crate::transcript::{Direction, FuzzNote, Header, Redaction, Redactor, TranscriptWriter};

/// The members of results and errors a fix may change without fixing or
/// breaking anything a finding is about: the server's description of
/// itself and of its tools, the text of a tool's output, the words of an
/// error.
const IGNORED: &[&str] = &[
    "/result/serverInfo",
    "/result/instructions",
    "/result/capabilities",
    "/result/_meta",
    "/result/tools",
    "/result/nextCursor",
    "/result/ttlMs",
    "/result/cacheScope",
    "/result/supportedVersions",
    "/result/resultType",
    "/result/content",
    "/result/structuredContent",
    "/error/message",
    "/error/data",
];

/// How the failing call's answer is written.
#[derive(Debug, Clone)]
pub(super) enum Answer {
    /// Left out: the replay wants an answer, any answer (or one that
    /// passes the live laws).
    Omitted,
    /// The lawful answer's result: an `isError` one for invalid arguments,
    /// any result for valid ones (its `isError` ignored).
    Result {
        /// The result written.
        result: Value,
        /// Whether `isError` is ignored too.
        any_outcome: bool,
    },
}

impl Answer {
    /// The answer a transcript of a failure of `kind` records.
    pub(super) fn for_kind(kind: Kind) -> Answer {
        match kind {
            Kind::AcceptedInvalid | Kind::ErrorForInvalid => Answer::Result {
                result: json!({"content": [], "isError": true}),
                any_outcome: false,
            },
            Kind::ErrorWithoutText => Answer::Result {
                result: json!({"content": [{"type": "text", "text": ""}], "isError": true}),
                any_outcome: false,
            },
            Kind::ErrorForValid => Answer::Result {
                result: json!({"content": []}),
                any_outcome: true,
            },
            _ => Answer::Omitted,
        }
    }
}

/// Where and how a run writes its transcripts.
pub(super) struct Writer<'a> {
    /// The directory they go into.
    pub dir: &'a Path,
    /// The server command as the user gave it.
    pub argv: &'a [String],
    /// The working directory the server ran in, when it was not a scratch
    /// one.
    pub cwd: Option<&'a Path>,
    /// The redaction the lines went through.
    pub redaction: &'a Redaction,
    pub redactor: &'a Redactor,
}

impl Writer<'_> {
    /// Writes `log` (up to line `end`, all of it when `None`) as a new
    /// transcript named after `tool` and `kind`; the answer to `failing` as
    /// `answer` says, and in the header what the server really did (`said`,
    /// the finding's words, and its answer as it came). Returns its path.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write(
        &self,
        tool: &str,
        kind: Kind,
        log: &Log,
        end: Option<usize>,
        failing: &RequestId,
        answer: &Answer,
        said: &str,
    ) -> io::Result<PathBuf> {
        std::fs::create_dir_all(self.dir)?;
        let (path, file) = self.create(tool, kind)?;
        let mut header = Header::new(
            self.argv.to_vec(),
            crate::transcript::clock::Utc::now().rfc3339(),
        );
        header.cwd = self.cwd.map(|cwd| relative_to(cwd, self.dir));
        header.redact = self.redaction.clone();
        header.ignore = IGNORED.iter().map(|rule| (*rule).to_owned()).collect();
        if let Answer::Result {
            any_outcome: true, ..
        } = answer
        {
            header.ignore.push("/result/isError".to_owned());
        }
        let lines = match end {
            Some(end) => &log.lines[..=end.min(log.lines.len().saturating_sub(1))],
            None => &log.lines[..],
        };
        let answered =
            lines.iter().find_map(|logged| match logged {
                Logged::Got {
                    line,
                    answers: Some(id),
                    ..
                } if id == failing => {
                    let line = self.redactor.redact(line);
                    Some(serde_json::from_slice::<Value>(&line).unwrap_or_else(|_| {
                        Value::String(String::from_utf8_lossy(&line).into_owned())
                    }))
                }
                _ => None,
            });
        header.fuzz = Some(FuzzNote {
            tool: tool.to_owned(),
            failure: kind.slug().to_owned(),
            said: String::from_utf8_lossy(&self.redactor.redact(said.as_bytes())).into_owned(),
            answered,
        });
        let mut writer = TranscriptWriter::from_file(file, &path, &header)?;
        let mut answered = false;
        for logged in lines {
            match logged {
                Logged::Sent { line, id } => {
                    writer.line(Direction::ClientToServer, &self.redactor.redact(line), true)?;
                    if id.as_ref() == Some(failing)
                        && let Answer::Result { result, .. } = answer
                        && !log_answers(lines, failing)
                    {
                        // No answer came (the log ends at the call): the
                        // lawful one follows it.
                        let line =
                            json!({"jsonrpc": "2.0", "id": failing.to_value(), "result": result});
                        writer.line(
                            Direction::ServerToClient,
                            line.to_string().as_bytes(),
                            true,
                        )?;
                        answered = true;
                    }
                }
                Logged::Got {
                    line,
                    answers: Some(id),
                    ..
                } if id == failing => {
                    if answered {
                        continue;
                    }
                    if let Answer::Result { result, .. } = answer {
                        let line =
                            json!({"jsonrpc": "2.0", "id": failing.to_value(), "result": result});
                        writer.line(
                            Direction::ServerToClient,
                            line.to_string().as_bytes(),
                            true,
                        )?;
                    } else {
                        let _ = line;
                    }
                }
                Logged::Got { line, .. } => {
                    writer.line(Direction::ServerToClient, &self.redactor.redact(line), true)?;
                }
                Logged::Protocol(revision) => writer.protocol(revision.as_str())?,
            }
        }
        // The client's input ends after its last line, as the fuzz client
        // closed it and as a replay does: the host's ending, on record.
        writer.end_of_input()?;
        writer.sync()?;
        Ok(path)
    }

    /// A file of its own in the directory: `<tool>-<kind>.jsonl`, numbered
    /// when that exists (a transcript is never overwritten).
    fn create(&self, tool: &str, kind: Kind) -> io::Result<(PathBuf, File)> {
        let stem = format!("{}-{}", file_safe(tool), kind.slug());
        for n in 1.. {
            let name = match n {
                1 => format!("{stem}.jsonl"),
                n => format!("{stem}-{n}.jsonl"),
            };
            let path = self.dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => return Ok((path, file)),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(error) => return Err(error),
            }
        }
        unreachable!("some number is free")
    }
}

/// Whether `lines` hold an answer to `id`.
fn log_answers(lines: &[Logged], id: &RequestId) -> bool {
    lines.iter().any(
        |logged| matches!(logged, Logged::Got { answers: Some(answered), .. } if answered == id),
    )
}

/// A tool's name as a file name: letters, digits, `-`, `_` and `.`, the
/// rest `_`.
fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .take(64)
        .map(|ch| match ch {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => ch,
            _ => '_',
        })
        .collect();
    match safe.trim_start_matches('.') {
        "" => "tool".to_owned(),
        rest => rest.to_owned(),
    }
}

/// `path` relative to `dir` where one is below the other's parents, as the
/// header's `cwd` is read (relative to the transcript's directory).
fn relative_to(path: &Path, dir: &Path) -> String {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
    let (path, dir) = (absolute(path), absolute(dir));
    let mut base = dir.as_path();
    let mut ups = 0;
    loop {
        if let Ok(rest) = path.strip_prefix(base) {
            let mut relative = PathBuf::new();
            for _ in 0..ups {
                relative.push("..");
            }
            relative.push(rest);
            let text = relative.display().to_string();
            return if text.is_empty() {
                ".".to_owned()
            } else {
                text
            };
        }
        match base.parent() {
            Some(parent) => {
                base = parent;
                ups += 1;
            }
            None => return path.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_paths_relative() {
        assert_eq!(file_safe("read_file"), "read_file");
        assert_eq!(file_safe("../etc/passwd"), "_etc_passwd");
        assert_eq!(file_safe("日本"), "__");
        assert_eq!(
            relative_to(Path::new("/a/b/c"), Path::new("/a/b/d")),
            "../c"
        );
        assert_eq!(relative_to(Path::new("/a/b"), Path::new("/a/b")), ".");
    }
}
