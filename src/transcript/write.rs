//! Writing transcripts as a stream: one `write` per batch of events, no
//! buffering in between, so what was written survives the writer being killed.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::read::TranscriptError;
use super::{Direction, Exit, Header, LineKind, base64};

/// A transcript being written, event by event.
///
/// Every call writes its events to the file with a single `write` before it
/// returns; nothing is held back in a buffer. Times are measured from the
/// writer's creation.
#[derive(Debug)]
pub struct TranscriptWriter {
    file: File,
    path: PathBuf,
    start: Instant,
    buf: Vec<u8>,
}

impl TranscriptWriter {
    /// Creates the file at `path` and writes the header. An existing file is
    /// refused unless `overwrite` is set.
    ///
    /// # Errors
    ///
    /// [`TranscriptError::Exists`] when the file exists and `overwrite` is
    /// not set; [`TranscriptError::Write`] when it cannot be created or
    /// written.
    pub fn create(
        path: impl AsRef<Path>,
        header: &Header,
        overwrite: bool,
    ) -> Result<TranscriptWriter, TranscriptError> {
        let path = path.as_ref();
        let mut options = OpenOptions::new();
        options.write(true);
        if overwrite {
            options.create(true).truncate(true);
        } else {
            options.create_new(true);
        }
        let io_err = |source| TranscriptError::Write {
            path: path.to_owned(),
            source,
        };
        let file = options.open(path).map_err(|err| {
            if err.kind() == io::ErrorKind::AlreadyExists {
                TranscriptError::Exists {
                    path: path.to_owned(),
                }
            } else {
                io_err(err)
            }
        })?;
        TranscriptWriter::from_file(file, path, header).map_err(io_err)
    }

    /// Writes the header to an open file and returns the writer.
    ///
    /// # Errors
    ///
    /// The I/O error of writing the header.
    pub fn from_file(
        mut file: File,
        path: impl AsRef<Path>,
        header: &Header,
    ) -> io::Result<TranscriptWriter> {
        let mut line = serde_json::to_vec(header).map_err(io::Error::other)?;
        line.push(b'\n');
        file.write_all(&line)?;
        Ok(TranscriptWriter {
            file,
            path: path.as_ref().to_owned(),
            start: Instant::now(),
            buf: Vec::with_capacity(4096),
        })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Seconds since the writer was created.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Microseconds since the writer was created.
    fn micros(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    /// Records one line on stream `dir`; `eol` is `false` when the line ended
    /// its stream without a newline.
    ///
    /// # Errors
    ///
    /// The I/O error of the write.
    pub fn line(&mut self, dir: Direction, line: &[u8], eol: bool) -> io::Result<()> {
        self.lines(dir, std::iter::once((line, eol)))
    }

    /// Records several lines of one stream, all with the same time, in one
    /// write.
    ///
    /// # Errors
    ///
    /// The I/O error of the write.
    pub fn lines<L: AsRef<[u8]>>(
        &mut self,
        dir: Direction,
        lines: impl IntoIterator<Item = (L, bool)>,
    ) -> io::Result<()> {
        self.lines_cut(dir, lines.into_iter().map(|(line, eol)| (line, eol, None)))
    }

    /// Records the start of a line that was longer than the recorder keeps:
    /// `cut` more bytes of it followed `start` (up to its newline, when
    /// `eol`) and were not recorded.
    ///
    /// # Errors
    ///
    /// The I/O error of the write.
    pub fn cut_line(
        &mut self,
        dir: Direction,
        start: &[u8],
        eol: bool,
        cut: u64,
    ) -> io::Result<()> {
        self.lines_cut(dir, std::iter::once((start, eol, Some(cut))))
    }

    /// Records several lines of one stream, each maybe cut, in one write.
    pub(crate) fn lines_cut<L: AsRef<[u8]>>(
        &mut self,
        dir: Direction,
        lines: impl IntoIterator<Item = (L, bool, Option<u64>)>,
    ) -> io::Result<()> {
        self.buf.clear();
        let micros = self.micros();
        event_prefix(&mut self.buf, micros, dir);
        let prefix_len = self.buf.len();
        for (index, (line, eol, cut)) in lines.into_iter().enumerate() {
            if index > 0 {
                self.buf.extend_from_within(..prefix_len);
            }
            encode_payload(&mut self.buf, line.as_ref(), eol, cut);
        }
        if self.buf.len() == prefix_len {
            return Ok(());
        }
        let written = self.file.write_all(&self.buf);
        // A long line grew the buffer; do not keep that memory for the rest
        // of the session.
        if self.buf.capacity() > 1 << 20 {
            self.buf = Vec::with_capacity(4096);
        }
        written
    }

    /// Records the negotiated protocol revision.
    ///
    /// # Errors
    ///
    /// The I/O error of the write.
    pub fn protocol(&mut self, revision: &str) -> io::Result<()> {
        let micros = self.micros();
        self.buf.clear();
        self.buf.extend_from_slice(b"{\"t\":");
        write_time(&mut self.buf, micros);
        self.buf.extend_from_slice(b",\"protocol\":");
        serde_json::to_writer(&mut self.buf, revision).expect("writing to a Vec cannot fail");
        self.buf.extend_from_slice(b"}\n");
        self.file.write_all(&self.buf)
    }

    /// Records the host's end of input: it closed the server's stdin.
    ///
    /// # Errors
    ///
    /// The I/O error of the write.
    pub fn end_of_input(&mut self) -> io::Result<()> {
        let micros = self.micros();
        self.buf.clear();
        self.buf.extend_from_slice(b"{\"t\":");
        write_time(&mut self.buf, micros);
        self.buf.extend_from_slice(b",\"eof\":\"c2s\"}\n");
        self.file.write_all(&self.buf)
    }

    /// Records a signal the recorder received and passed on to the server.
    ///
    /// # Errors
    ///
    /// The I/O error of the write.
    pub fn signal(&mut self, signal: i32) -> io::Result<()> {
        let micros = self.micros();
        self.buf.clear();
        self.buf.extend_from_slice(b"{\"t\":");
        write_time(&mut self.buf, micros);
        self.buf
            .extend_from_slice(format!(",\"signal\":{signal}}}\n").as_bytes());
        self.file.write_all(&self.buf)
    }

    /// Records how the server ended.
    ///
    /// # Errors
    ///
    /// The I/O error of the write.
    pub fn exit(&mut self, exit: Exit) -> io::Result<()> {
        let micros = self.micros();
        self.buf.clear();
        self.buf.extend_from_slice(b"{\"t\":");
        write_time(&mut self.buf, micros);
        self.buf.extend_from_slice(b",\"exit\":");
        serde_json::to_writer(&mut self.buf, &exit).map_err(io::Error::other)?;
        self.buf.extend_from_slice(b"}\n");
        self.file.write_all(&self.buf)
    }

    /// Flushes the file to stable storage.
    ///
    /// # Errors
    ///
    /// The I/O error of the sync.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

// The key order of an event is fixed (`t`, `dir`, then `msg`, `text` or
// `bytes`, then `eol` when false, then `cut` when the line was cut) so that
// files diff cleanly.

/// Appends the keys every line event of a batch shares: `{"t":…,"dir":…,`.
fn event_prefix(out: &mut Vec<u8>, micros: u64, dir: Direction) {
    out.extend_from_slice(b"{\"t\":");
    write_time(out, micros);
    out.extend_from_slice(b",\"dir\":\"");
    out.extend_from_slice(dir.as_str().as_bytes());
    out.extend_from_slice(b"\",");
}

/// Appends a time in seconds with six decimals, from microseconds: the
/// digits by hand, since this runs for every batch a recording forwards.
fn write_time(out: &mut Vec<u8>, micros: u64) {
    let mut digits = [0u8; 27];
    let mut at = digits.len();
    let mut rest = micros;
    // The six decimals, the point, then the whole seconds (at least `0`).
    for place in 0.. {
        at -= 1;
        if place == 6 {
            digits[at] = b'.';
            continue;
        }
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if place > 6 && rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends the whole event of one recorded line to `out`, as the writer
/// does; `--bless` writes server lines with it.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn encode_line_event(out: &mut Vec<u8>, t: f64, dir: Direction, line: &[u8], eol: bool) {
    // `as` saturates, and a negative or NaN time becomes 0.
    event_prefix(out, (t * 1e6).round() as u64, dir);
    encode_payload(out, line, eol, None);
}

/// Appends the payload and the end of a line event.
fn encode_payload(out: &mut Vec<u8>, line: &[u8], eol: bool, cut: Option<u64>) {
    match LineKind::of(line) {
        LineKind::Json(json) => {
            out.extend_from_slice(b"\"msg\":");
            out.extend_from_slice(json);
        }
        LineKind::Text(text) => {
            out.extend_from_slice(b"\"text\":");
            serde_json::to_writer(&mut *out, text).expect("writing to a Vec cannot fail");
        }
        LineKind::Bytes(bytes) => {
            out.extend_from_slice(b"\"bytes\":\"");
            base64::encode_into(bytes, out);
            out.push(b'"');
        }
    }
    if !eol {
        out.extend_from_slice(b",\"eol\":false");
    }
    if let Some(cut) = cut {
        out.extend_from_slice(b",\"cut\":");
        out.extend_from_slice(cut.to_string().as_bytes());
    }
    out.extend_from_slice(b"}\n");
}

#[cfg(test)]
mod tests {
    use super::super::{EventKind, Transcript};
    use super::*;

    #[test]
    fn written_events_read_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let header = Header::new(
            vec!["server".into(), "--flag".into()],
            "2026-11-29T00:00:00Z".into(),
        );
        let mut writer = TranscriptWriter::create(&path, &header, false).unwrap();
        let lines: [&[u8]; 4] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            b"Server ready",
            b"\xff\x00bytes",
            b" {\"a\":1} ",
        ];
        for line in lines {
            writer.line(Direction::ServerToClient, line, true).unwrap();
        }
        writer.line(Direction::Stderr, b"tail", false).unwrap();
        writer.protocol("2024-11-05").unwrap();
        writer.exit(Exit::Code(0)).unwrap();
        drop(writer);

        let transcript = Transcript::read(&path).unwrap();
        assert_eq!(transcript.header, header);
        let read: Vec<&[u8]> = transcript
            .lines(Direction::ServerToClient)
            .map(|(_, payload)| payload.as_bytes())
            .collect();
        assert_eq!(read, lines);
        assert!(matches!(
            transcript.events[4].kind,
            EventKind::Line {
                dir: Direction::Stderr,
                eol: false,
                ..
            }
        ));
        assert_eq!(transcript.protocol(), Some("2024-11-05"));
        assert_eq!(transcript.exit(), Some(Exit::Code(0)));
    }

    #[test]
    fn existing_file_is_refused_without_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "keep").unwrap();
        let header = Header::new(vec!["server".into()], "2026-11-29T00:00:00Z".into());
        let err = TranscriptWriter::create(&path, &header, false).unwrap_err();
        assert!(matches!(err, TranscriptError::Exists { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep");
        TranscriptWriter::create(&path, &header, true).unwrap();
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .starts_with("{\"format\"")
        );
    }

    #[test]
    fn times_have_six_decimals() {
        for (micros, text) in [
            (0, "0.000000"),
            (7, "0.000007"),
            (500_000, "0.500000"),
            (1_000_000, "1.000000"),
            (12_345_678_901, "12345.678901"),
            (u64::MAX, "18446744073709.551615"),
        ] {
            let mut out = Vec::new();
            write_time(&mut out, micros);
            assert_eq!(String::from_utf8(out).unwrap(), text);
            assert_eq!(format!("{:.6}", micros as f64 / 1e6).len(), text.len());
        }
    }

    #[test]
    fn event_keys_come_in_a_fixed_order() {
        let mut out = Vec::new();
        event_prefix(&mut out, 500_000, Direction::ClientToServer);
        encode_payload(&mut out, br#"{"b":1,"a":2}"#, true, None);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"t\":0.500000,\"dir\":\"c2s\",\"msg\":{\"b\":1,\"a\":2}}\n"
        );
        let mut out = Vec::new();
        event_prefix(&mut out, 0, Direction::Stderr);
        encode_payload(&mut out, b"50%", false, Some(12));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"t\":0.000000,\"dir\":\"stderr\",\"text\":\"50%\",\"eol\":false,\"cut\":12}\n"
        );
    }
}
