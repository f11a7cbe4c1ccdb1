//! The reader on arbitrary bytes: whatever a file holds, reading it ends
//! without a panic, within the line limit, with an error that names
//! file:line, or with a transcript whose every line is within the limit.

use std::io::Read as _;
use std::path::Path;

use proptest::prelude::*;

use super::{TranscriptError, read_transcript};
use crate::transcript::{EventKind, Payload};

/// A small line limit, so that generated inputs pass it.
const MAX_LINE: usize = 64;

const HEADER: &str =
    r#"{"format":"mcp-replay-transcript","version":1,"tool":"t","created":"c","command":["s"]}"#;

/// Lines a transcript holds, valid and not, to be cut and mutated.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(HEADER.as_bytes().to_vec()),
        Just(br#"{"t":0.1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#.to_vec()),
        Just(br#"{"t":0.2,"dir":"s2c","text":"Server \u00e9 ready"}"#.to_vec()),
        Just(br#"{"t":0.3,"dir":"stderr","bytes":"/w==","eol":false}"#.to_vec()),
        Just(br#"{"t":0.4,"protocol":"2025-06-18"}"#.to_vec()),
        Just(br#"{"t":0.5,"exit":{"signal":9}}"#.to_vec()),
        prop::collection::vec(any::<u8>(), 0..80),
    ]
}

/// A change to a line: a byte replaced, removed or inserted.
fn mutate(mut line: Vec<u8>, changes: &[(usize, u8, u8)]) -> Vec<u8> {
    for &(at, byte, how) in changes {
        if line.is_empty() {
            line.push(byte);
            continue;
        }
        let at = at % line.len();
        match how % 3 {
            0 => line[at] = byte,
            1 => {
                line.remove(at);
            }
            _ => line.insert(at, byte),
        }
    }
    line
}

/// Reads `bytes` as `t.jsonl` and checks what any read must hold.
fn holds(bytes: &[u8]) -> Result<(), TestCaseError> {
    let lines = bytes.split(|&b| b == b'\n').count();
    match read_transcript(&mut { bytes }, Path::new("t.jsonl"), MAX_LINE) {
        Ok(transcript) => {
            for event in &transcript.events {
                prop_assert!(event.line >= 2 && event.line <= lines);
                if let EventKind::Line { payload, .. } = &event.kind {
                    // What a line decodes to is never longer than the line.
                    prop_assert!(payload.as_bytes().len() <= MAX_LINE);
                    if let Payload::Json(raw) = payload {
                        prop_assert!(
                            serde_json::from_str::<&serde_json::value::RawValue>(raw.get()).is_ok()
                        );
                    }
                }
            }
        }
        Err(TranscriptError::Invalid { line, column, .. }) => {
            prop_assert!(line >= 1 && line <= lines, "line {line} of {lines}");
            prop_assert!(column >= 1);
        }
        Err(err @ (TranscriptError::Empty { .. } | TranscriptError::Unsupported { .. })) => {
            prop_assert!(err.to_string().starts_with("t.jsonl:1:"), "{err}");
        }
        Err(err) => prop_assert!(false, "an error that names no line: {err}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_are_read_or_refused_at_a_line(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
    ) {
        holds(&bytes)?;
    }

    #[test]
    fn mutated_transcripts_are_read_or_refused_at_a_line(
        lines in prop::collection::vec(
            (line(), prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..3)),
            0..8,
        ),
        crlf in any::<bool>(),
        trailing in any::<bool>(),
    ) {
        let mut bytes = HEADER.as_bytes().to_vec();
        bytes.push(b'\n');
        let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        for (line, changes) in lines {
            bytes.extend(mutate(line, &changes));
            bytes.extend_from_slice(end);
        }
        if !trailing {
            bytes.pop();
        }
        holds(&bytes)?;
    }

    #[test]
    fn an_endless_line_is_read_no_further_than_the_limit(byte in any::<u8>().prop_filter("no newline", |b| *b != b'\n')) {
        // Counts the bytes the reader takes from an endless source.
        let mut source = std::io::repeat(byte).take(u64::MAX);
        let mut counted = Counted { inner: &mut source, taken: 0 };
        let mut reader = std::io::BufReader::with_capacity(16, &mut counted);
        let err = read_transcript(&mut reader, Path::new("t.jsonl"), MAX_LINE).unwrap_err();
        prop_assert!(matches!(err, TranscriptError::Invalid { line: 1, .. }), "{err}");
        drop(reader);
        prop_assert!(counted.taken <= MAX_LINE + 2 + 16);
    }
}

/// A reader that counts what is taken from it.
struct Counted<'a> {
    inner: &'a mut dyn std::io::Read,
    taken: usize,
}

impl std::io::Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken += n;
        Ok(n)
    }
}
