//! Reading transcripts, with errors that point at file:line:column.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{
    Direction, Event, EventKind, Exit, FORMAT, Header, Payload, Transcript, VERSION, base64,
};

/// Why a transcript could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    /// The file could not be opened or read.
    #[error("cannot read transcript `{}`", .path.display())]
    Read {
        /// The transcript.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// The file could not be created or written.
    #[error("cannot write transcript `{}`", .path.display())]
    Write {
        /// The transcript.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// The file exists and overwriting was not asked for.
    #[error("transcript `{}` already exists", .path.display())]
    Exists {
        /// The transcript.
        path: PathBuf,
    },
    /// The file is empty: it has no header line.
    #[error("{}:1: the transcript is empty; expected a header line", .path.display())]
    Empty {
        /// The transcript.
        path: PathBuf,
    },
    /// A line is not what the format expects there.
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Invalid {
        /// The transcript.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (1 when the whole line is at fault).
        column: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// The header names a format or version this crate does not read.
    #[error("{}:1: unsupported transcript {what}", .path.display())]
    Unsupported {
        /// The transcript.
        path: PathBuf,
        /// What is unsupported, in words.
        what: String,
    },
}

/// A problem that did not stop a transcript from being read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TranscriptWarning {
    /// The last line is cut short (the recorder was killed while writing it);
    /// it was left out.
    TruncatedLastLine {
        /// The transcript.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
    },
}

impl fmt::Display for TranscriptWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranscriptWarning::TruncatedLastLine { path, line } => write!(
                f,
                "{}:{line}: the last line is cut short (the recording was interrupted); it was left out",
                path.display()
            ),
        }
    }
}

#[derive(Deserialize)]
struct WireEvent<'a> {
    t: Option<f64>,
    dir: Option<Direction>,
    #[serde(borrow)]
    msg: Option<&'a RawValue>,
    text: Option<String>,
    bytes: Option<String>,
    eol: Option<bool>,
    protocol: Option<String>,
    exit: Option<Exit>,
}

impl Transcript {
    /// Reads the transcript at `path`.
    ///
    /// # Errors
    ///
    /// [`TranscriptError`] when the file cannot be read or a line other than a
    /// truncated last one is not a valid header or event; the error names
    /// file:line:column and what was expected.
    pub fn read(path: impl AsRef<Path>) -> Result<Transcript, TranscriptError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|source| TranscriptError::Read {
            path: path.to_owned(),
            source,
        })?;
        Transcript::from_reader(BufReader::new(file), path)
    }

    /// Reads a transcript from `reader`; `path` is used in messages only.
    ///
    /// # Errors
    ///
    /// As [`Transcript::read`].
    pub fn from_reader(
        reader: impl BufRead,
        path: impl AsRef<Path>,
    ) -> Result<Transcript, TranscriptError> {
        read_transcript(&mut { reader }, path.as_ref())
    }
}

fn read_transcript(reader: &mut dyn BufRead, path: &Path) -> Result<Transcript, TranscriptError> {
    let io_err = |source| TranscriptError::Read {
        path: path.to_owned(),
        source,
    };
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut header: Option<Header> = None;
    let mut events = Vec::new();
    let mut warnings = Vec::new();
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io_err)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let complete = buf.last() == Some(&b'\n');
        if complete {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            if complete {
                continue;
            }
            break;
        }
        let parsed = match header {
            None => parse_header(&buf, path, line_no).map(|h| header = Some(h)),
            Some(_) => parse_event(&buf, path, line_no).map(|event| events.push(event)),
        };
        if let Err(err) = parsed {
            // Only the last line can lack its newline: `read_until` stops
            // short of one at end of input alone.
            if !complete && header.is_some() {
                warnings.push(super::TranscriptWarning::TruncatedLastLine {
                    path: path.to_owned(),
                    line: line_no,
                });
                break;
            }
            return Err(err);
        }
    }
    let header = header.ok_or_else(|| TranscriptError::Empty {
        path: path.to_owned(),
    })?;
    Ok(Transcript {
        path: path.to_owned(),
        header,
        events,
        warnings,
    })
}

fn invalid(path: &Path, line: usize, column: usize, message: impl Into<String>) -> TranscriptError {
    TranscriptError::Invalid {
        path: path.to_owned(),
        line,
        column,
        message: message.into(),
    }
}

fn json_error(path: &Path, line: usize, what: &str, err: &serde_json::Error) -> TranscriptError {
    // Strip serde_json's own " at line 1 column N" suffix: the position is ours.
    let text = err.to_string();
    let text = text.split(" at line ").next().unwrap_or(&text).to_owned();
    invalid(
        path,
        line,
        err.column().max(1),
        format!("expected {what}: {text}"),
    )
}

fn parse_header(buf: &[u8], path: &Path, line: usize) -> Result<Header, TranscriptError> {
    let value: serde_json::Value =
        serde_json::from_slice(buf).map_err(|e| json_error(path, line, "a header object", &e))?;
    let format = value.get("format").and_then(|f| f.as_str());
    if format != Some(FORMAT) {
        return Err(invalid(
            path,
            line,
            1,
            format!("expected a header with \"format\":\"{FORMAT}\" on the first line"),
        ));
    }
    let version = value.get("version").and_then(|v| v.as_u64());
    if version != Some(u64::from(VERSION)) {
        return Err(TranscriptError::Unsupported {
            path: path.to_owned(),
            what: format!(
                "version {} (this mcp-replay reads version {VERSION})",
                value
                    .get("version")
                    .map_or_else(|| "(none)".to_owned(), ToString::to_string)
            ),
        });
    }
    serde_json::from_value(value)
        .map_err(|e| invalid(path, line, 1, format!("invalid header: {e}")))
}

fn parse_event(buf: &[u8], path: &Path, line: usize) -> Result<Event, TranscriptError> {
    let text = std::str::from_utf8(buf).map_err(|e| {
        invalid(
            path,
            line,
            e.valid_up_to() + 1,
            "expected UTF-8 text (transcripts keep non-UTF-8 lines as base64 in `bytes`)",
        )
    })?;
    let wire: WireEvent<'_> =
        serde_json::from_str(text).map_err(|e| json_error(path, line, "an event object", &e))?;
    let t = wire
        .t
        .ok_or_else(|| invalid(path, line, 1, "expected an event with a number `t`"))?;
    let kind = if let Some(dir) = wire.dir {
        let payload = match (wire.msg, wire.text, wire.bytes) {
            (Some(msg), None, None) => Payload::Json(msg.to_owned()),
            (None, Some(text), None) => Payload::Text(text),
            (None, None, Some(encoded)) => Payload::Bytes(
                base64::decode(&encoded)
                    .ok_or_else(|| invalid(path, line, 1, "expected base64 in `bytes`"))?,
            ),
            _ => {
                return Err(invalid(
                    path,
                    line,
                    1,
                    "expected exactly one of `msg`, `text` or `bytes` in a line event",
                ));
            }
        };
        EventKind::Line {
            dir,
            payload,
            eol: wire.eol.unwrap_or(true),
        }
    } else if let Some(revision) = wire.protocol {
        EventKind::Protocol(revision)
    } else if let Some(exit) = wire.exit {
        EventKind::Exit(exit)
    } else {
        return Err(invalid(
            path,
            line,
            1,
            "expected an event with `dir`, `protocol` or `exit`",
        ));
    };
    Ok(Event { line, t, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"format":"mcp-replay-transcript","version":1,"tool":"mcp-replay 0.1.0","created":"2026-11-29T00:00:00Z","command":["server"]}"#;

    fn read(text: &str) -> Result<Transcript, TranscriptError> {
        Transcript::from_reader(text.as_bytes(), "t.jsonl")
    }

    #[test]
    fn reads_events_of_every_kind() {
        let text = format!(
            "{HEADER}\n{}\n{}\n{}\n{}\n{}\n{}\n",
            r#"{"t":0.000100,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
            r#"{"t":0.000200,"dir":"s2c","text":"banner"}"#,
            r#"{"t":0.000300,"dir":"s2c","bytes":"/w=="}"#,
            r#"{"t":0.000400,"dir":"stderr","text":"log","eol":false}"#,
            r#"{"t":0.000500,"protocol":"2024-11-05"}"#,
            r#"{"t":0.000600,"exit":{"signal":15}}"#,
        );
        let transcript = read(&text).unwrap();
        assert_eq!(transcript.events.len(), 6);
        assert_eq!(transcript.events[0].line, 2);
        assert_eq!(
            transcript.events[0].kind,
            EventKind::Line {
                dir: Direction::ClientToServer,
                payload: Payload::from_line(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
                eol: true
            }
        );
        assert!(matches!(
            &transcript.events[2].kind,
            EventKind::Line { payload: Payload::Bytes(b), .. } if b == &[0xff]
        ));
        assert!(matches!(
            &transcript.events[3].kind,
            EventKind::Line { eol: false, .. }
        ));
        assert_eq!(transcript.protocol(), Some("2024-11-05"));
        assert_eq!(transcript.exit(), Some(Exit::Signal(15)));
        assert!(transcript.warnings.is_empty());
    }

    #[test]
    fn truncated_last_line_is_a_warning() {
        let text = format!("{HEADER}\n{{\"t\":0.1,\"dir\":\"c2s\",\"msg\":{{\"jsonrpc\"");
        let transcript = read(&text).unwrap();
        assert!(transcript.events.is_empty());
        assert_eq!(
            transcript.warnings,
            vec![TranscriptWarning::TruncatedLastLine {
                path: "t.jsonl".into(),
                line: 2
            }]
        );
    }

    #[test]
    fn broken_middle_line_is_an_error_with_its_position() {
        let text = format!(
            "{HEADER}\n{{\"t\":0.1,\"dir\":\"c2s\",\"msg\":}}\n{{\"t\":0.2,\"protocol\":\"x\"}}\n"
        );
        let err = read(&text).unwrap_err().to_string();
        assert!(err.starts_with("t.jsonl:2:"), "{err}");
        assert!(err.contains("expected an event object"), "{err}");
    }

    #[test]
    fn missing_header_is_named() {
        let err = read("{\"t\":0.1,\"protocol\":\"x\"}\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t.jsonl:1:1: expected a header with \"format\":\"mcp-replay-transcript\" on the first line"
        );
    }

    #[test]
    fn newer_version_is_unsupported() {
        let header = HEADER.replace("\"version\":1", "\"version\":2");
        let err = read(&format!("{header}\n")).unwrap_err().to_string();
        assert_eq!(
            err,
            "t.jsonl:1: unsupported transcript version 2 (this mcp-replay reads version 1)"
        );
    }

    #[test]
    fn event_needs_a_kind() {
        let err = read(&format!("{HEADER}\n{{\"t\":1}}\n"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t.jsonl:2:1: expected an event with `dir`, `protocol` or `exit`"
        );
    }

    #[test]
    fn empty_file_is_an_error() {
        assert!(matches!(read(""), Err(TranscriptError::Empty { .. })));
    }
}
