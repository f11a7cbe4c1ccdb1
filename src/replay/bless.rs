//! `--bless`: accepting a server's new answers into its transcript.
//!
//! When only the content of responses changed, each changed response is
//! replaced where it stands (keeping its time) and every other line stays
//! byte for byte, so that `git diff` shows exactly what the server now says.
//! When the session changed shape (a recorded message never came, a line
//! got an answer it had not had), the server's whole stdout side is
//! rewritten from the live replay, each line placed between the same client
//! lines it arrived between; every other line (the header with its ignore
//! rules, the client side, stderr, protocol and exit events) still stays
//! byte for byte. Live lines carry the recorded ids in place of live ones,
//! and secrets redacted.
//!
//! The file written is the one the transcript's path leads to: a symbolic
//! link is followed, and stays a link. A file with one name is replaced
//! atomically (a temporary file beside it, renamed over it), so a crash
//! leaves the old transcript or the new one. A file with several names
//! (hard links) is rewritten in place instead, so that every name sees the
//! blessed transcript: a rename would give the new content to one name
//! only. That write is not atomic; a crash during it can leave the file
//! half written, which `git checkout` undoes.

use std::collections::HashMap;
use std::io::{self, Write as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::replay::LiveLine;
use crate::transcript::input::{Input, MAX_TRANSCRIPT_SIZE};
use crate::transcript::{Direction, EventKind, Transcript, encode_line_event};

/// Writes the live answers of `live` into `transcript`'s file: in place of
/// the responses that changed, or, when `reshaped`, as the whole server
/// side.
///
/// # Errors
///
/// The I/O error of reading the file or replacing it.
///
/// `rules` are ignore rules the replay learned (the places where the server
/// answers noise): the header gets those it does not hold yet.
pub(crate) fn bless(
    transcript: &Transcript,
    live: &[LiveLine],
    reshaped: bool,
    rules: &[String],
) -> io::Result<()> {
    let input = Input::open(&transcript.path, MAX_TRANSCRIPT_SIZE)?;
    if !input.is_regular() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file (a pipe or a FIFO cannot be rewritten)",
        ));
    }
    let original = input.read_all()?;
    let text = if reshaped {
        rewrite(&original, transcript, live)
    } else {
        replace(&original, transcript, live)
    };
    let text = with_rules(text, transcript, rules);
    write_through(&transcript.path, &text)
}

/// Replaces the content of the file `path` leads to with `text`: atomically
/// when the file has one name, in place when it has several.
pub(crate) fn write_through(path: &Path, text: &[u8]) -> io::Result<()> {
    let target = std::fs::canonicalize(path)?;
    let meta = std::fs::metadata(&target)?;
    // A device or a FIFO is neither replaced (a rename would put a file in
    // place of `/dev/null`) nor written (a FIFO's open waits for a reader).
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file",
        ));
    }
    if meta.nlink() > 1 {
        // Written over from the start, then cut to length: the file is never
        // empty on the way, whether it grows or shrinks.
        // Opened without waiting, should the name have come to lead to a
        // FIFO since it was looked at.
        let mut file =
            crate::transcript::output::open_regular(&target, rustix::fs::OFlags::WRONLY)?;
        file.write_all(text)?;
        file.set_len(text.len() as u64)?;
        return file.sync_all();
    }
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(text)?;
    let _ = file.as_file().set_permissions(meta.permissions());
    file.persist(&target).map_err(|err| err.error)?;
    Ok(())
}

/// `text` with `rules` added to its header's ignore rules, those it holds
/// already left out; the header is rewritten only when one is new.
fn with_rules(text: Vec<u8>, transcript: &Transcript, rules: &[String]) -> Vec<u8> {
    let new: Vec<&String> = rules
        .iter()
        .filter(|rule| !transcript.header.ignore.contains(rule))
        .collect();
    if new.is_empty() {
        return text;
    }
    let end = text.iter().position(|&b| b == b'\n').unwrap_or(text.len());
    // The header as the recorder writes it: its fields in their order.
    let mut header = transcript.header.clone();
    header.ignore.extend(new.into_iter().cloned());
    let Ok(mut out) = serde_json::to_vec(&header) else {
        return text;
    };
    out.extend_from_slice(&text[end..]);
    out
}

/// What a line of the original file holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Client,
    Server,
    Exit,
    Other,
}

/// The file with each changed response replaced by the live line that
/// answers it, at the same time.
fn replace(original: &[u8], transcript: &Transcript, live: &[LiveLine]) -> Vec<u8> {
    let times: HashMap<usize, f64> = transcript
        .events
        .iter()
        .map(|event| (event.line, event.t))
        .collect();
    let replacements: HashMap<usize, &LiveLine> = live
        .iter()
        .flat_map(|line| line.replaces.iter().map(move |at| (*at, line)))
        .collect();
    let mut out = Vec::with_capacity(original.len());
    for (index, raw) in original.split_inclusive(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        match replacements.get(&number) {
            Some(line) => {
                let t = times.get(&number).copied().unwrap_or(0.0);
                encode_line_event(
                    &mut out,
                    t,
                    Direction::ServerToClient,
                    &line.bytes,
                    line.eol,
                );
            }
            None => {
                out.extend_from_slice(raw);
                if !raw.ends_with(b"\n") {
                    out.push(b'\n');
                }
            }
        }
    }
    out
}

/// The file with its whole server stdout side taken from the live replay.
fn rewrite(original: &[u8], transcript: &Transcript, live: &[LiveLine]) -> Vec<u8> {
    let events: HashMap<usize, (Kind, f64)> = transcript
        .events
        .iter()
        .map(|event| {
            let kind = match &event.kind {
                EventKind::Line {
                    dir: Direction::ClientToServer,
                    ..
                } => Kind::Client,
                EventKind::Line {
                    dir: Direction::ServerToClient,
                    ..
                } => Kind::Server,
                EventKind::Exit(_) => Kind::Exit,
                _ => Kind::Other,
            };
            (event.line, (kind, event.t))
        })
        .collect();
    let mut out = Vec::with_capacity(original.len());
    let mut segment = 0;
    let mut emitted = 0;
    let mut t = 0.0;
    let mut emit = |out: &mut Vec<u8>, upto: usize, t: f64| {
        while emitted < live.len() && live[emitted].segment <= upto {
            let line = &live[emitted];
            encode_line_event(out, t, Direction::ServerToClient, &line.bytes, line.eol);
            emitted += 1;
        }
    };
    let lines: Vec<&[u8]> = original.split_inclusive(|&b| b == b'\n').collect();
    for (index, raw) in lines.iter().enumerate() {
        let (kind, event_t) = events
            .get(&(index + 1))
            .copied()
            .unwrap_or((Kind::Other, t));
        match kind {
            // The live lines of this segment take the place of the first
            // recorded one; the other recorded ones go.
            Kind::Server => {
                emit(&mut out, segment, t);
                continue;
            }
            Kind::Client | Kind::Exit => emit(&mut out, segment, t),
            Kind::Other => {}
        }
        out.extend_from_slice(raw);
        if !raw.ends_with(b"\n") {
            out.push(b'\n');
        }
        t = event_t;
        if kind == Kind::Client {
            segment += 1;
        }
    }
    emit(&mut out, usize::MAX, t);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbolic_link_is_written_through_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.jsonl");
        let link = dir.path().join("link.jsonl");
        std::fs::write(&real, "old\n").unwrap();
        std::os::unix::fs::symlink("real.jsonl", &link).unwrap();
        write_through(&link, b"new\n").unwrap();
        assert_eq!(std::fs::read(&real).unwrap(), b"new\n");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_device_is_neither_replaced_nor_written() {
        let err = write_through(Path::new("/dev/null"), b"x").unwrap_err();
        assert_eq!(err.to_string(), "it is not a regular file");
        assert!(
            !std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_file()
        );
    }

    #[test]
    fn every_hard_link_sees_the_new_content() {
        let dir = tempfile::tempdir().unwrap();
        let one = dir.path().join("one.jsonl");
        let two = dir.path().join("two.jsonl");
        std::fs::write(&one, "a longer old content\n").unwrap();
        std::fs::hard_link(&one, &two).unwrap();
        write_through(&one, b"new\n").unwrap();
        assert_eq!(std::fs::read(&one).unwrap(), b"new\n");
        assert_eq!(std::fs::read(&two).unwrap(), b"new\n");
        assert_eq!(std::fs::metadata(&one).unwrap().nlink(), 2);
    }

    const HEADER: &str = r#"{"format":"mcp-replay-transcript","version":1,"tool":"t","created":"c","command":["s"],"ignore":["/result/x"]}"#;

    fn live(segment: usize, text: &str) -> LiveLine {
        LiveLine {
            segment,
            bytes: text.as_bytes().to_vec(),
            eol: true,
            replaces: Vec::new(),
        }
    }

    #[test]
    fn changed_responses_are_replaced_where_they_stand() {
        let original = format!(
            "{HEADER}\n{}\n{}\n{}\n{}\n",
            r#"{"t":0.1,"dir":"c2s","msg":{"id":1, "method":"a"}}"#,
            r#"{"t":0.2,"dir":"s2c","msg":{"id":1,"result":"same", "x":1}}"#,
            r#"{"t":0.3,"dir":"c2s","msg":{"id":2,"method":"b"}}"#,
            r#"{"t":0.4,"dir":"s2c","msg":{"id":2,"result":"old"}}"#,
        );
        let transcript = Transcript::from_reader(original.as_bytes(), "t.jsonl").unwrap();
        let mut changed = live(2, r#"{"id":2,"result":"new"}"#);
        changed.replaces = vec![5];
        let live = [live(1, r#"{"x":1,"id":1,"result":"same"}"#), changed];
        let text = String::from_utf8(replace(original.as_bytes(), &transcript, &live)).unwrap();
        assert_eq!(
            text,
            original.replace(
                r#"{"t":0.4,"dir":"s2c","msg":{"id":2,"result":"old"}}"#,
                r#"{"t":0.400000,"dir":"s2c","msg":{"id":2,"result":"new"}}"#
            )
        );
    }

    #[test]
    fn only_server_lines_change_and_they_keep_their_place() {
        let original = format!(
            "{HEADER}\n{}\n{}\n{}\n{}\n{}\n{}\n",
            r#"{"t":0.1,"dir":"c2s","msg":{"id":1, "method":"a"}}"#,
            r#"{"t":0.2,"dir":"s2c","msg":{"id":1,"result":"old"}}"#,
            r#"{"t":0.3,"dir":"stderr","text":"log"}"#,
            r#"{"t":0.4,"dir":"c2s","msg":{"id":2,"method":"b"}}"#,
            r#"{"t":0.5,"dir":"s2c","msg":{"id":2,"result":"old"}}"#,
            r#"{"t":0.6,"exit":{"code":0}}"#,
        );
        let transcript = Transcript::from_reader(original.as_bytes(), "t.jsonl").unwrap();
        let live = [
            live(1, r#"{"id":1,"result":"new"}"#),
            live(1, r#"{"method":"note"}"#),
            live(2, r#"{"id":2,"result":"new"}"#),
        ];
        let text = String::from_utf8(rewrite(original.as_bytes(), &transcript, &live)).unwrap();
        assert_eq!(
            text,
            format!(
                "{HEADER}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n",
                r#"{"t":0.1,"dir":"c2s","msg":{"id":1, "method":"a"}}"#,
                r#"{"t":0.100000,"dir":"s2c","msg":{"id":1,"result":"new"}}"#,
                r#"{"t":0.100000,"dir":"s2c","msg":{"method":"note"}}"#,
                r#"{"t":0.3,"dir":"stderr","text":"log"}"#,
                r#"{"t":0.4,"dir":"c2s","msg":{"id":2,"method":"b"}}"#,
                r#"{"t":0.400000,"dir":"s2c","msg":{"id":2,"result":"new"}}"#,
                r#"{"t":0.6,"exit":{"code":0}}"#,
            )
        );
    }

    #[test]
    fn lines_of_a_segment_with_no_recorded_answer_go_before_the_next_client_line() {
        let original = format!(
            "{HEADER}\n{}\n{}\n",
            r#"{"t":0.1,"dir":"c2s","msg":{"id":1,"method":"a"}}"#,
            r#"{"t":0.2,"dir":"c2s","msg":{"id":2,"method":"b"}}"#,
        );
        let transcript = Transcript::from_reader(original.as_bytes(), "t.jsonl").unwrap();
        let live = [
            live(1, r#"{"id":1,"result":1}"#),
            live(2, r#"{"id":2,"result":2}"#),
        ];
        let text = String::from_utf8(rewrite(original.as_bytes(), &transcript, &live)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert!(lines[2].contains(r#""result":1"#), "{text}");
        assert!(lines[3].contains(r#""method":"b""#), "{text}");
        assert!(lines[4].contains(r#""result":2"#), "{text}");
    }
}
