//! Reading transcripts, with errors that point at file:line:column.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::input::{Input, MAX_TRANSCRIPT_LINE, MAX_TRANSCRIPT_SIZE, mib};
use super::{
    Direction, Event, EventKind, Exit, FORMAT, Header, Payload, READS, Transcript, VERSION, base64,
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
    #[error("{}:1:1: the transcript is empty; expected a header line", .path.display())]
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
    #[error("{}:1:{column}: unsupported transcript {what}", .path.display())]
    Unsupported {
        /// The transcript.
        path: PathBuf,
        /// 1-based column of the version.
        column: usize,
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
                "{}:{line}:1: the last line is cut short (the recording was interrupted); it was left out",
                path.display()
            ),
        }
    }
}

/// The keys of an event line, each as it stands in the line, so that an
/// error can point at its value.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireEvent<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    t: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    dir: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    msg: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    text: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    bytes: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    eol: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    cut: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    protocol: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    eof: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    signal: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    exit: Option<&'a RawValue>,
}

/// The keys of a header line that decide whether it can be read at all.
#[derive(Deserialize)]
struct WireHead<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    format: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    version: Option<&'a RawValue>,
}

/// A key that is present, even with the value `null` (a recorded line can be
/// `null`); an absent key is `None` by `default`.
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

impl Transcript {
    /// Reads the transcript at `path`.
    ///
    /// The file is read within the limits of `docs/limits.md`: a regular
    /// file larger than 256 MiB is refused before it is read, a line longer
    /// than 128 MiB is an error at its line, and a file that is not a
    /// regular one (a FIFO, a pipe) must deliver all of its bytes within 10
    /// seconds.
    ///
    /// # Errors
    ///
    /// [`TranscriptError`] when the file cannot be read or a line other than a
    /// truncated last one is not a valid header or event; the error names
    /// file:line:column and what was expected.
    pub fn read(path: impl AsRef<Path>) -> Result<Transcript, TranscriptError> {
        let path = path.as_ref();
        let input =
            Input::open(path, MAX_TRANSCRIPT_SIZE).map_err(|source| TranscriptError::Read {
                path: path.to_owned(),
                source,
            })?;
        Transcript::from_reader(BufReader::new(input), path)
    }

    /// Reads a transcript from `reader`; `path` is used in messages only.
    /// Lines are held to the same limit as [`Transcript::read`] holds them
    /// to; the caller bounds the whole.
    ///
    /// # Errors
    ///
    /// As [`Transcript::read`].
    pub fn from_reader(
        reader: impl BufRead,
        path: impl AsRef<Path>,
    ) -> Result<Transcript, TranscriptError> {
        read_transcript(&mut { reader }, path.as_ref(), MAX_TRANSCRIPT_LINE)
    }
}

/// Reads one line of at most `max_line` bytes (its terminator aside) into
/// `buf`, without it; `None` at end of input, else whether the line ended
/// with a newline. The line is read no further than one byte past the
/// limit, so that a file without newlines (`/dev/zero`) cannot take more.
pub(crate) fn read_line(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    max_line: usize,
) -> io::Result<Option<bool>> {
    buf.clear();
    let most = u64::try_from(max_line)
        .unwrap_or(u64::MAX)
        .saturating_add(2);
    let n = reader.take(most).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    let complete = buf.last() == Some(&b'\n');
    if complete {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    Ok(Some(complete))
}

/// The error of a line longer than `max_line`.
pub(crate) fn line_too_long(path: &Path, line: usize, max_line: usize) -> TranscriptError {
    let limit = if max_line >= 1024 * 1024 {
        format!("{} MiB", mib(max_line as u64))
    } else {
        format!("{max_line} bytes")
    };
    invalid(
        path,
        line,
        1,
        format!(
            "line {line} is longer than {limit}, the most mcp-replay reads as one transcript line"
        ),
    )
}

fn read_transcript(
    reader: &mut dyn BufRead,
    path: &Path,
    max_line: usize,
) -> Result<Transcript, TranscriptError> {
    let io_err = |source| TranscriptError::Read {
        path: path.to_owned(),
        source,
    };
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut header: Option<Header> = None;
    let mut events = Vec::new();
    let mut warnings = Vec::new();
    while let Some(complete) = read_line(reader, &mut buf, max_line).map_err(io_err)? {
        line_no += 1;
        if buf.len() > max_line {
            return Err(line_too_long(path, line_no, max_line));
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            if complete {
                continue;
            }
            break;
        }
        let parsed = match &header {
            None => parse_header(&buf, path, line_no).map(|h| header = Some(h)),
            Some(head) => {
                parse_event(&buf, path, line_no, head.version).map(|event| events.push(event))
            }
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
    // The vector grew by doubling: give back what no event uses, up to half
    // of it, for the rest of the replay.
    events.shrink_to_fit();
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

/// The 1-based column, in characters, of byte `offset` of a line.
fn column(line: &[u8], offset: usize) -> usize {
    let offset = offset.min(line.len());
    line[..offset].iter().filter(|&&b| b & 0xC0 != 0x80).count() + 1
}

/// The column of `value`, which was read from `text`.
fn column_of(text: &str, value: &RawValue) -> usize {
    let offset = (value.get().as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    column(text.as_bytes(), offset)
}

fn json_error(
    path: &Path,
    line: usize,
    text: &[u8],
    what: &str,
    err: &serde_json::Error,
) -> TranscriptError {
    // Strip serde_json's own " at line 1 column N" suffix: the position is
    // ours, and counts characters where serde_json counts bytes.
    let message = err.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    let at = err.column().saturating_sub(1);
    let message = match bom_at(text, at) {
        true => format!("expected {what}, found {BOM_FOUND}"),
        false => format!("expected {what}: {message}"),
    };
    invalid(path, line, column(text, at), message)
}

/// What a reader says of a UTF-8 byte order mark where JSON has none.
pub(crate) const BOM_FOUND: &str = "a UTF-8 byte order mark (U+FEFF), which is no JSON whitespace (RFC 8259 §2) and which JSON text is not to begin with (§8.1); save the file as UTF-8 without a BOM";

/// Whether a byte order mark starts at byte `at` of `text`, where a JSON
/// reader stopped: it reads the mark as a character no JSON text has there.
pub(crate) fn bom_at(text: &[u8], at: usize) -> bool {
    text.get(at..)
        .is_some_and(|rest| rest.starts_with(b"\xEF\xBB\xBF"))
}

/// The line as UTF-8, or an error at the first byte that is not.
fn utf8<'a>(buf: &'a [u8], path: &Path, line: usize) -> Result<&'a str, TranscriptError> {
    std::str::from_utf8(buf).map_err(|e| {
        invalid(
            path,
            line,
            column(buf, e.valid_up_to()),
            "expected UTF-8 text (transcripts keep non-UTF-8 lines as base64 in `bytes`)",
        )
    })
}

fn parse_header(buf: &[u8], path: &Path, line: usize) -> Result<Header, TranscriptError> {
    let text = utf8(buf, path, line)?;
    let not_a_header = || {
        invalid(
            path,
            line,
            1,
            format!("expected a header with \"format\":\"{FORMAT}\" on the first line"),
        )
    };
    let head: WireHead<'_> = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            not_a_header()
        } else {
            json_error(path, line, buf, "a header object", &e)
        }
    })?;
    let format = head
        .format
        .and_then(|f| serde_json::from_str::<&str>(f.get()).ok());
    if format != Some(FORMAT) {
        return Err(not_a_header());
    }
    let version = head
        .version
        .and_then(|v| serde_json::from_str::<u64>(v.get()).ok());
    if !version.is_some_and(|version| READS.iter().any(|known| u64::from(*known) == version)) {
        let reads: Vec<String> = READS.iter().map(ToString::to_string).collect();
        return Err(TranscriptError::Unsupported {
            path: path.to_owned(),
            column: head.version.map_or(1, |v| column_of(text, v)),
            what: format!(
                "version {} (this mcp-replay reads versions {}; it writes version {VERSION})",
                head.version.map_or("(none)", |v| v.get()),
                reads.join(" and ")
            ),
        });
    }
    serde_json::from_str(text).map_err(|e| json_error(path, line, buf, "a valid header", &e))
}

fn parse_event(
    buf: &[u8],
    path: &Path,
    line: usize,
    version: u32,
) -> Result<Event, TranscriptError> {
    let text = utf8(buf, path, line)?;
    let at = |value: &RawValue, message: &str| invalid(path, line, column_of(text, value), message);
    let wire: WireEvent<'_> =
        serde_json::from_str(text).map_err(|e| {
            match serde_json::from_str::<WireHead<'_>>(text) {
                Ok(WireHead {
                    format: Some(format),
                    ..
                }) => at(
                    format,
                    "expected an event, found a second header (a transcript holds one session)",
                ),
                _ => json_error(path, line, buf, "an event object", &e),
            }
        })?;
    let t = match wire.t {
        None => {
            return Err(invalid(
                path,
                line,
                1,
                "expected an event with a number `t`",
            ));
        }
        Some(raw) => serde_json::from_str::<f64>(raw.get())
            .ok()
            .filter(|t| *t >= 0.0)
            .ok_or_else(|| {
                at(
                    raw,
                    "expected the seconds since the start, 0 or more, in `t`",
                )
            })?,
    };
    let kinds = [
        ("dir", wire.dir),
        ("protocol", wire.protocol),
        ("eof", wire.eof),
        ("signal", wire.signal),
        ("exit", wire.exit),
    ];
    let payloads = [
        ("msg", wire.msg),
        ("text", wire.text),
        ("bytes", wire.bytes),
    ];
    let kind = match one_of(&kinds, &at)? {
        None => {
            return Err(invalid(
                path,
                line,
                1,
                "expected an event with `dir`, `protocol`, `eof`, `signal` or `exit`",
            ));
        }
        Some(("dir", dir)) => {
            let dir = serde_json::from_str::<Direction>(dir.get())
                .map_err(|_| at(dir, "expected \"c2s\", \"s2c\" or \"stderr\" in `dir`"))?;
            let payload = match one_of(&payloads, &at)? {
                None => {
                    return Err(invalid(
                        path,
                        line,
                        1,
                        "expected one of `msg`, `text` or `bytes` in a line event",
                    ));
                }
                Some(("msg", msg)) => Payload::Json(msg.to_owned()),
                Some(("text", raw)) => Payload::Text(
                    serde_json::from_str(raw.get())
                        .map_err(|_| at(raw, "expected a string in `text`"))?,
                ),
                Some((_, raw)) => Payload::Bytes(
                    serde_json::from_str::<&str>(raw.get())
                        .ok()
                        .and_then(base64::decode)
                        .ok_or_else(|| at(raw, "expected base64 in `bytes`"))?,
                ),
            };
            let eol = match wire.eol {
                None => true,
                Some(raw) => serde_json::from_str(raw.get())
                    .map_err(|_| at(raw, "expected true or false in `eol`"))?,
            };
            let cut = match wire.cut {
                None => None,
                Some(raw) => Some(
                    serde_json::from_str::<u64>(raw.get())
                        .ok()
                        .filter(|cut| *cut > 0)
                        .ok_or_else(|| {
                            at(raw, "expected the number of bytes cut, 1 or more, in `cut`")
                        })?,
                ),
            };
            EventKind::Line {
                dir,
                payload,
                eol,
                cut,
            }
        }
        Some((kind, raw)) => {
            if let Some((key, value)) = payloads
                .iter()
                .chain([("eol", wire.eol), ("cut", wire.cut)].iter())
                .find_map(|(key, value)| Some((key, (*value)?)))
            {
                return Err(at(value, &format!("expected `{key}` only in a line event")));
            }
            if matches!(kind, "eof" | "signal") && version < 2 {
                return Err(at(
                    raw,
                    &format!(
                        "expected no `{kind}` event in a version-1 transcript (it came with version 2; the header says version {version})"
                    ),
                ));
            }
            if kind == "eof" {
                if serde_json::from_str::<&str>(raw.get()).ok() != Some("c2s") {
                    return Err(at(
                        raw,
                        "expected \"c2s\" in `eof` (the host's end of input)",
                    ));
                }
                EventKind::EndOfInput
            } else if kind == "signal" {
                EventKind::Signal(
                    serde_json::from_str::<i32>(raw.get())
                        .ok()
                        .filter(|signal| (1..=64).contains(signal))
                        .ok_or_else(|| at(raw, "expected a signal number, 1 to 64, in `signal`"))?,
                )
            } else if kind == "protocol" {
                EventKind::Protocol(
                    serde_json::from_str::<String>(raw.get())
                        .ok()
                        .filter(|revision| !revision.is_empty())
                        .ok_or_else(|| at(raw, "expected a protocol revision in `protocol`"))?,
                )
            } else {
                EventKind::Exit(
                    serde_json::from_str::<Exit>(raw.get())
                        .ok()
                        .filter(|exit| !matches!(exit, Exit::Signal(n) if *n < 1))
                        .ok_or_else(|| {
                            at(raw, "expected {\"code\":N} or {\"signal\":N} in `exit`")
                        })?,
                )
            }
        }
    };
    Ok(Event { line, t, kind })
}

/// The one key of `keys` that is present; an error at the second when two
/// are.
fn one_of<'a>(
    keys: &[(&'static str, Option<&'a RawValue>)],
    at: &impl Fn(&RawValue, &str) -> TranscriptError,
) -> Result<Option<(&'static str, &'a RawValue)>, TranscriptError> {
    let mut found = keys
        .iter()
        .filter_map(|(key, value)| Some((*key, (*value)?)));
    let first = found.next();
    if let (Some((a, _)), Some((b, value))) = (first, found.next()) {
        return Err(at(
            value,
            &format!("expected one of `{a}` and `{b}`, found both"),
        ));
    }
    Ok(first)
}

#[cfg(test)]
mod props;

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
                eol: true,
                cut: None,
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
    fn a_cut_line_reads_back_with_what_was_cut() {
        let text = format!(
            "{HEADER}\n{}\n{}\n",
            r#"{"t":0.1,"dir":"s2c","text":"{\"jsonrpc\":","cut":4096}"#,
            r#"{"t":0.2,"dir":"stderr","text":"50%","eol":false,"cut":7}"#,
        );
        let transcript = read(&text).unwrap();
        assert!(matches!(
            &transcript.events[0].kind,
            EventKind::Line { eol: true, cut: Some(4096), payload, .. }
                if payload.as_bytes() == b"{\"jsonrpc\":"
        ));
        assert!(matches!(
            &transcript.events[1].kind,
            EventKind::Line {
                eol: false,
                cut: Some(7),
                ..
            }
        ));
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
        let header = HEADER.replace("\"version\":1", "\"version\":3");
        let err = read(&format!("{header}\n")).unwrap_err().to_string();
        assert_eq!(
            err,
            "t.jsonl:1:45: unsupported transcript version 3 (this mcp-replay reads versions 1 and 2; it writes version 2)"
        );
    }

    #[test]
    fn version_2_records_how_the_host_ended() {
        let header = HEADER.replace("\"version\":1", "\"version\":2");
        let text = format!(
            "{header}\n{}\n{}\n{}\n",
            r#"{"t":0.5,"eof":"c2s"}"#,
            r#"{"t":2.5,"signal":15}"#,
            r#"{"t":2.6,"exit":{"signal":15}}"#,
        );
        let transcript = read(&text).unwrap();
        assert!(transcript.records_host_ending());
        let kinds: Vec<&EventKind> = transcript.events.iter().map(|e| &e.kind).collect();
        assert_eq!(
            kinds,
            [
                &EventKind::EndOfInput,
                &EventKind::Signal(15),
                &EventKind::Exit(Exit::Signal(15))
            ]
        );
        // Version 1 reads as it did, and says nothing of the host's end.
        let old = read(&format!("{HEADER}\n{}\n", r#"{"t":0.1,"exit":{"code":0}}"#)).unwrap();
        assert!(!old.records_host_ending());
        // A version-1 file holds no event of version 2.
        assert_eq!(
            event_error(r#"{"t":0.5,"eof":"c2s"}"#),
            "t.jsonl:2:16: expected no `eof` event in a version-1 transcript (it came with version 2; the header says version 1)"
        );
        for (event, expected) in [
            (
                r#"{"t":0.5,"eof":"s2c"}"#,
                r#"t.jsonl:2:16: expected "c2s" in `eof` (the host's end of input)"#,
            ),
            (
                r#"{"t":0.5,"signal":0}"#,
                "t.jsonl:2:19: expected a signal number, 1 to 64, in `signal`",
            ),
            (
                r#"{"t":0.5,"signal":15,"eof":"c2s"}"#,
                "t.jsonl:2:19: expected one of `eof` and `signal`, found both",
            ),
        ] {
            let err = read(&format!("{header}\n{event}\n"))
                .unwrap_err()
                .to_string();
            assert_eq!(err, expected, "{event}");
        }
    }

    #[test]
    fn event_needs_a_kind() {
        let err = read(&format!("{HEADER}\n{{\"t\":1}}\n"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t.jsonl:2:1: expected an event with `dir`, `protocol`, `eof`, `signal` or `exit`"
        );
    }

    /// The error of reading the header and then `event` as line 2.
    fn event_error(event: &str) -> String {
        read(&format!("{HEADER}\n{event}\n"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_null_line_reads_back() {
        let text = format!("{HEADER}\n{{\"t\":0.1,\"dir\":\"s2c\",\"msg\":null}}\n");
        let transcript = read(&text).unwrap();
        let (_, payload) = transcript.lines(Direction::ServerToClient).next().unwrap();
        assert_eq!(payload.as_bytes(), b"null");
    }

    #[test]
    fn errors_point_at_the_value_at_fault() {
        for (event, expected) in [
            (
                r#"{"t":0.1,"dir":"up","msg":1}"#,
                r#"t.jsonl:2:16: expected "c2s", "s2c" or "stderr" in `dir`"#,
            ),
            (
                r#"{"t":0.1,"dir":"c2s","bytes":"not base64!"}"#,
                "t.jsonl:2:30: expected base64 in `bytes`",
            ),
            (
                r#"{"t":"soon","protocol":"x"}"#,
                "t.jsonl:2:6: expected the seconds since the start, 0 or more, in `t`",
            ),
            (
                r#"{"t":-1,"protocol":"x"}"#,
                "t.jsonl:2:6: expected the seconds since the start, 0 or more, in `t`",
            ),
            (
                r#"{"t":1,"dir":"c2s","msg":{},"text":"x"}"#,
                "t.jsonl:2:36: expected one of `msg` and `text`, found both",
            ),
            (
                r#"{"t":1,"dir":"c2s","msg":{},"exit":{"code":0}}"#,
                "t.jsonl:2:36: expected one of `dir` and `exit`, found both",
            ),
            (
                r#"{"t":1,"exit":{"signal":0}}"#,
                r#"t.jsonl:2:15: expected {"code":N} or {"signal":N} in `exit`"#,
            ),
            (
                r#"{"t":1,"protocol":"x","eol":false}"#,
                "t.jsonl:2:29: expected `eol` only in a line event",
            ),
            (
                r#"{"t":1,"dir":"c2s","text":7}"#,
                "t.jsonl:2:27: expected a string in `text`",
            ),
            (
                r#"{"t":1,"dir":"c2s","text":"x","cut":0}"#,
                "t.jsonl:2:37: expected the number of bytes cut, 1 or more, in `cut`",
            ),
            (
                r#"{"t":1,"exit":{"code":0},"cut":5}"#,
                "t.jsonl:2:32: expected `cut` only in a line event",
            ),
        ] {
            assert_eq!(event_error(event), expected, "{event}");
        }
    }

    #[test]
    fn unknown_keys_are_refused() {
        let err = event_error(r#"{"t":1,"dir":"c2s","msg":1,"extra":2}"#);
        assert!(
            err.starts_with("t.jsonl:2:34: expected an event object: unknown field `extra`"),
            "{err}"
        );
    }

    #[test]
    fn a_second_header_is_named() {
        assert_eq!(
            event_error(HEADER),
            "t.jsonl:2:11: expected an event, found a second header (a transcript holds one session)"
        );
    }

    #[test]
    fn columns_count_characters() {
        // Three two-byte characters before the value: column 27, byte 30.
        let err = event_error(r#"{"t":1,"text":"ééé","dir":"up"}"#);
        assert!(err.starts_with("t.jsonl:2:27: expected \"c2s\""), "{err}");
        let err = event_error("{\"t\":1,\"dir\":\"c2s\",\"text\":\"ééé\" x}");
        assert!(
            err.starts_with("t.jsonl:2:33: expected an event object"),
            "{err}"
        );
        let mut bytes = format!("{HEADER}\n{{\"t\":1,\"dir\":\"c2s\",\"text\":\"é").into_bytes();
        bytes.extend_from_slice(b"\xff\"}\n");
        let err = Transcript::from_reader(&bytes[..], "t.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.jsonl:2:29: expected UTF-8 text"),
            "{err}"
        );
    }

    #[test]
    fn an_invalid_header_field_is_pointed_at() {
        let header = HEADER.replace(r#"["server"]"#, r#""server --flag""#);
        let err = read(&format!("{header}\n")).unwrap_err().to_string();
        assert!(
            err.starts_with("t.jsonl:1:130: expected a valid header: invalid type: string"),
            "{err}"
        );
    }

    #[test]
    fn a_line_longer_than_the_limit_is_an_error_at_its_line() {
        let text = format!("{HEADER}\n{}\n", "x".repeat(1000));
        let err = read_transcript(&mut text.as_bytes(), Path::new("t.jsonl"), 500)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t.jsonl:2:1: line 2 is longer than 500 bytes, the most mcp-replay reads as one transcript line"
        );
        // A file without a newline is read no further than the limit.
        let mut endless = std::io::repeat(b'x');
        let mut reader = std::io::BufReader::new(&mut endless);
        let err = read_transcript(&mut reader, Path::new("t.jsonl"), 500)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.jsonl:1:1: line 1 is longer than 500 bytes"),
            "{err}"
        );
    }

    #[test]
    fn empty_file_is_an_error() {
        assert!(matches!(read(""), Err(TranscriptError::Empty { .. })));
    }
}
