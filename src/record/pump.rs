//! Forwarding one stream: every read is forwarded in one write as soon as
//! it returns, and every line it completes is recorded, in one transcript
//! write, before that.
//!
//! Recording comes first, so every line whose newline reached the other
//! side is already in the transcript when the recorder is killed. Bytes after
//! the last newline of a read are forwarded at once too (a prompt, a progress
//! bar, a message in the middle of being written), and recorded once their
//! line ends: at its newline, at the end of the stream, or when the session
//! ends. Until then they wait in the stream's [`OpenLine`], which bounds what
//! a line can cost: a line longer than the limit is recorded as its start,
//! marked cut.
//!
//! The server→host stream also watches the host's end while it waits for the
//! server: a host that stops reading is noticed at once, not at the next
//! write that fails, since a server waiting for its stdin to end may write
//! nothing more.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::ChildStdin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use memchr::memmem::Finder;
use rustix::event::{PollFd, PollFlags};

use super::line::{Limits, OpenLine};
use crate::jsonrpc::{Frame, RequestId, method};
use crate::transcript::{Direction, Exit, Redactor, TranscriptWriter};

/// How much one read asks for: the only buffer a stream has besides its
/// open line.
const READ_SIZE: usize = 64 * 1024;

/// The transcript being written, shared by the stream threads.
#[derive(Debug)]
pub(crate) struct Recording {
    path: PathBuf,
    state: Mutex<State>,
    redactor: Redactor,
    initialize: InitializeWatch,
    limits: Limits,
}

/// Where a recording stands.
#[derive(Debug)]
enum State {
    /// Taking events.
    Writing(Box<Open>),
    /// A write failed, with this error until it is taken: a line after a
    /// half-written one would not be readable, so recording stops there,
    /// while the session goes on.
    Failed(Option<io::Error>),
    /// The `exit` event is written: it is the last event, and since nothing
    /// is forwarded that is not recorded first, nothing is forwarded either.
    Finished,
}

/// A recording that takes events: the writer, and the open line of each
/// stream.
#[derive(Debug)]
struct Open {
    writer: TranscriptWriter,
    lines: [OpenLine; 3],
}

/// The index of a stream's open line.
fn slot(dir: Direction) -> usize {
    match dir {
        Direction::ClientToServer => 0,
        Direction::ServerToClient => 1,
        Direction::Stderr => 2,
    }
}

impl Recording {
    /// A recording into `writer`, whose file is named `path`.
    pub(crate) fn new(writer: TranscriptWriter, path: PathBuf, redactor: Redactor) -> Recording {
        Recording::with_limits(writer, path, redactor, Limits::default())
    }

    /// A recording whose open lines have the bounds `limits`.
    pub(crate) fn with_limits(
        writer: TranscriptWriter,
        path: PathBuf,
        redactor: Redactor,
        limits: Limits,
    ) -> Recording {
        Recording {
            path,
            state: Mutex::new(State::Writing(Box::new(Open {
                writer,
                lines: Default::default(),
            }))),
            redactor,
            initialize: InitializeWatch::default(),
            limits,
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Takes the bytes one read of stream `dir` returned: records the lines
    /// they end, in one write, and keeps what follows the last newline open.
    /// `false` once the recording is finished (nothing may be forwarded
    /// then).
    pub(crate) fn chunk(&self, dir: Direction, bytes: &[u8]) -> bool {
        let mut state = lock(&self.state);
        let open = match &mut *state {
            State::Writing(open) => open,
            State::Failed(_) => return true,
            State::Finished => return false,
        };
        let line = &mut open.lines[slot(dir)];
        let Some(last) = memchr::memrchr(b'\n', bytes) else {
            line.push(bytes, self.limits);
            return true;
        };
        let batch = &bytes[..=last];
        let written = if line.is_empty() {
            self.record_batch(&mut open.writer, dir, batch)
        } else {
            // The first line began in an earlier read.
            let first = memchr::memchr(b'\n', batch).expect("the batch ends with one");
            let (start, cut) = line.take(&batch[..first], self.limits);
            let rest = &batch[first + 1..];
            if dir == Direction::ServerToClient && self.initialize.waiting() {
                // The protocol event may have to go between them.
                self.record(&mut open.writer, dir, &start, true, cut)
                    .and_then(|()| {
                        if rest.is_empty() {
                            Ok(())
                        } else {
                            self.record_batch(&mut open.writer, dir, rest)
                        }
                    })
            } else {
                if dir == Direction::ClientToServer {
                    if cut.is_none() {
                        self.initialize.client_lines(&start, true);
                    }
                    self.initialize.client_lines(rest, true);
                }
                // One write for the whole read, as when lines and reads
                // line up.
                let lines = std::iter::once((self.redactor.redact(&start), true, cut)).chain(
                    each_line(rest, true).map(|(line, eol)| {
                        let (line, cut) = bounded(line, self.limits);
                        (self.redactor.redact(line), eol, cut)
                    }),
                );
                open.writer.lines_cut(dir, lines)
            }
        };
        open.lines[slot(dir)].push(&bytes[last + 1..], self.limits);
        if let Err(err) = written {
            *state = State::Failed(Some(err));
        }
        true
    }

    /// Records the open line of stream `dir`, which ended without a newline.
    pub(crate) fn end(&self, dir: Direction) {
        let mut state = lock(&self.state);
        if let State::Writing(open) = &mut *state
            && let Err(err) = self.end_line(open, dir)
        {
            *state = State::Failed(Some(err));
        }
    }

    fn end_line(&self, open: &mut Open, dir: Direction) -> io::Result<()> {
        let line = &mut open.lines[slot(dir)];
        if line.is_empty() {
            return Ok(());
        }
        let (start, cut) = line.take(&[], self.limits);
        self.record(&mut open.writer, dir, &start, false, cut)
    }

    /// Records one line, which may be cut, with what it tells of
    /// `initialize`.
    fn record(
        &self,
        writer: &mut TranscriptWriter,
        dir: Direction,
        line: &[u8],
        eol: bool,
        cut: Option<u64>,
    ) -> io::Result<()> {
        if cut.is_some() {
            // The start of a message is no message: it neither asks for nor
            // names a revision.
            let start = self.redactor.redact(line);
            return writer.lines_cut(dir, std::iter::once((start, eol, cut)));
        }
        match dir {
            Direction::ClientToServer => {
                self.initialize.client_lines(line, eol);
                writer.line(dir, &self.redactor.redact(line), eol)
            }
            Direction::ServerToClient => {
                writer.line(dir, &self.redactor.redact(line), eol)?;
                if self.initialize.waiting()
                    && let Some(revision) = self.initialize.server_line(line)
                {
                    writer.protocol(&revision)?;
                }
                Ok(())
            }
            Direction::Stderr => writer.line(dir, &self.redactor.redact(line), eol),
        }
    }

    /// Records a batch of complete lines, each with its newline, in one
    /// write (two, around the protocol event when the batch holds the
    /// answer to `initialize`).
    fn record_batch(
        &self,
        writer: &mut TranscriptWriter,
        dir: Direction,
        batch: &[u8],
    ) -> io::Result<()> {
        let lines = |batch| {
            each_line(batch, true).map(|(line, eol): (&[u8], bool)| {
                let (line, cut) = bounded(line, self.limits);
                (self.redactor.redact(line), eol, cut)
            })
        };
        match dir {
            Direction::ClientToServer => {
                // Before forwarding, so the answer cannot come back first.
                self.initialize.client_lines(batch, true);
                writer.lines_cut(dir, lines(batch))
            }
            Direction::ServerToClient => {
                // The protocol event goes right after the answer that names
                // it.
                match answer_to_initialize(batch, &self.initialize) {
                    Some((end, revision)) => {
                        writer.lines_cut(dir, lines(&batch[..end]))?;
                        writer.protocol(&revision)?;
                        writer.lines_cut(dir, lines(&batch[end..]))
                    }
                    None => writer.lines_cut(dir, lines(batch)),
                }
            }
            Direction::Stderr => writer.lines_cut(dir, lines(batch)),
        }
    }

    /// Records the host's end of input: the line it left open first, as a
    /// last line without newline. Nothing once the recording is finished.
    pub(crate) fn end_of_input(&self) {
        let mut state = lock(&self.state);
        if let State::Writing(open) = &mut *state {
            let written = self
                .end_line(open, Direction::ClientToServer)
                .and_then(|()| open.writer.end_of_input());
            if let Err(err) = written {
                *state = State::Failed(Some(err));
            }
        }
    }

    /// Records a signal the recorder passes on to the server. Nothing once
    /// the recording is finished.
    pub(crate) fn signal(&self, signal: i32) {
        let mut state = lock(&self.state);
        if let State::Writing(open) = &mut *state
            && let Err(err) = open.writer.signal(signal)
        {
            *state = State::Failed(Some(err));
        }
    }

    /// Records how the server ended, which finishes the recording: the line
    /// still open on each stream first, as a last line without newline.
    pub(crate) fn exit(&self, exit: Exit) {
        let mut state = lock(&self.state);
        if let State::Writing(open) = &mut *state {
            let written = [
                Direction::ClientToServer,
                Direction::ServerToClient,
                Direction::Stderr,
            ]
            .into_iter()
            .try_for_each(|dir| self.end_line(open, dir))
            .and_then(|()| open.writer.exit(exit));
            *state = match written {
                Ok(()) => State::Finished,
                Err(err) => State::Failed(Some(err)),
            };
        }
    }

    /// The write error, if recording stopped early.
    pub(crate) fn take_error(&self) -> Option<io::Error> {
        match &mut *lock(&self.state) {
            State::Failed(err) => err.take(),
            _ => None,
        }
    }

    /// The memory the open line of `dir` holds, for tests of its bound.
    #[cfg(test)]
    fn held(&self, dir: Direction) -> usize {
        match &*lock(&self.state) {
            State::Writing(open) => open.lines[slot(dir)].held(),
            _ => 0,
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Follows the client's `initialize` requests until the server's answer to
/// one names the negotiated protocol revision.
#[derive(Debug, Default)]
struct InitializeWatch {
    done: AtomicBool,
    armed: AtomicBool,
    pending: Mutex<Vec<RequestId>>,
}

impl InitializeWatch {
    /// Takes note of the `initialize` requests in a batch of client lines.
    fn client_lines(&self, batch: &[u8], eol: bool) {
        static INITIALIZE: LazyLock<Finder<'static>> =
            LazyLock::new(|| Finder::new(method::INITIALIZE.as_bytes()));
        // One substring search over the batch keeps JSON parsing off the
        // path of every other message.
        if self.done.load(Ordering::Relaxed) || INITIALIZE.find(batch).is_none() {
            return;
        }
        for (line, _) in each_line(batch, eol) {
            if let Frame::Request { id, method, .. } = Frame::parse(line)
                && method == method::INITIALIZE
            {
                lock(&self.pending).push(id);
                self.armed.store(true, Ordering::Release);
            }
        }
    }

    /// Whether a server line may be the answer that names the revision.
    fn waiting(&self) -> bool {
        !self.done.load(Ordering::Relaxed) && self.armed.load(Ordering::Acquire)
    }

    /// The revision, when `line` is the answer to a pending `initialize`.
    fn server_line(&self, line: &[u8]) -> Option<String> {
        if !self.waiting() {
            return None;
        }
        let Frame::Response {
            id: Some(id),
            outcome,
        } = Frame::parse(line)
        else {
            return None;
        };
        let mut pending = lock(&self.pending);
        let index = pending.iter().position(|p| *p == id)?;
        pending.remove(index);
        let revision = outcome
            .ok()?
            .get("protocolVersion")?
            .as_str()
            .map(str::to_owned)?;
        self.done.store(true, Ordering::Relaxed);
        Some(revision)
    }
}

/// The server's stdin, which the host→server stream writes and which may be
/// closed from another thread when the host goes away.
#[derive(Debug)]
pub(crate) struct ServerStdin {
    pipe: Mutex<Option<ChildStdin>>,
    close: AtomicBool,
    /// The host stopped reading: the pipe closes once the host's stdin has
    /// nothing more pending.
    host_gone: AtomicBool,
}

impl ServerStdin {
    pub(crate) fn new(pipe: ChildStdin) -> ServerStdin {
        ServerStdin {
            pipe: Mutex::new(Some(pipe)),
            close: AtomicBool::new(false),
            host_gone: AtomicBool::new(false),
        }
    }

    /// Records `bytes` with `record` and writes them, both under the pipe's
    /// lock, so that a line is recorded only while the pipe is open to take
    /// it; `false` once the pipe is closed or the recording is finished.
    fn deliver(&self, bytes: &[u8], record: impl FnOnce() -> bool) -> bool {
        let mut pipe = lock(&self.pipe);
        let open = match pipe.as_mut() {
            Some(stdin) if !self.close.load(Ordering::Acquire) => {
                record() && stdin.write_all(bytes).is_ok()
            }
            _ => false,
        };
        if !open || self.close.load(Ordering::Acquire) {
            *pipe = None;
            return false;
        }
        true
    }

    /// The host stopped reading its stdout. What it sent before is still
    /// forwarded: the pipe closes now if the host's stdin (`host_stdin`) has
    /// nothing pending, else once the stream thread has read what is.
    pub(crate) fn host_left(&self, host_stdin: impl AsFd) {
        self.host_gone.store(true, Ordering::Release);
        if !pending(host_stdin) {
            self.close();
        }
    }

    /// Closes the pipe, so the server reads end of input. When the stream
    /// thread is in the middle of a write (the server is not reading), the
    /// pipe is closed by that thread as soon as its write returns, so this
    /// never waits for the server.
    pub(crate) fn close(&self) {
        self.close.store(true, Ordering::Release);
        if let Ok(mut pipe) = self.pipe.try_lock() {
            *pipe = None;
        }
    }
}

/// Where a stream's lines go.
#[derive(Debug)]
pub(crate) enum Sink<'a> {
    /// The server's stdin.
    Server(&'a ServerStdin),
    /// One of the recorder's own standard streams.
    Host(File),
}

/// Whether `fd` can be read without blocking: data, or the end of the
/// stream, is pending.
fn pending(fd: impl AsFd) -> bool {
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    loop {
        match rustix::event::poll(&mut fds, Some(&rustix::event::Timespec::default())) {
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return false,
            Ok(n) => return n > 0,
        }
    }
}

/// Forwards `source` to `sink` until the end of `source`, recording every
/// line on stream `dir`. `on_gone` runs once when the sink stops taking
/// bytes, or, for the server's stdout, as soon as the host's stdout has no
/// reader left; the server's streams are still read and recorded after
/// that, so the server is never blocked on a full pipe, while the host's
/// stream ends there.
pub(crate) fn pump(
    mut source: impl Read + AsFd,
    dir: Direction,
    mut sink: Sink<'_>,
    recording: &Recording,
    on_gone: impl FnOnce(),
) {
    let mut on_gone = Some(on_gone);
    let mut forwarding = true;
    let mut buf = vec![0u8; READ_SIZE];
    loop {
        if forwarding
            && dir == Direction::ServerToClient
            && let Sink::Host(host) = &sink
            && host_stopped_reading(&source, host)
        {
            forwarding = false;
            if let Some(on_gone) = on_gone.take() {
                on_gone();
            }
        }
        let n = match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        forwarding = deliver(
            &buf[..n],
            dir,
            &mut sink,
            recording,
            forwarding,
            &mut on_gone,
        );
        if forwarding
            && let Sink::Server(stdin) = &sink
            && stdin.host_gone.load(Ordering::Acquire)
            && !pending(&source)
        {
            // The host has stopped reading, and what it had sent is
            // forwarded.
            stdin.close();
            forwarding = false;
        }
        if dir == Direction::ClientToServer && !forwarding {
            // The server's stdin is closed. What the host still sends is read
            // and dropped, unrecorded since it never reached the server, so
            // the host never blocks on a recorder that stopped reading.
            recording.end(dir);
            loop {
                match source.read(&mut buf) {
                    Ok(0) => {
                        // The host's input ends after the recorder closed
                        // the server's stdin (the host stopped reading).
                        recording.end_of_input();
                        return;
                    }
                    Ok(_) => {}
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return,
                }
            }
        }
    }
    if dir == Direction::ClientToServer {
        // The host closed its end: recorded, with the line it left open,
        // before the server's stdin closes.
        recording.end_of_input();
    }
    recording.end(dir);
    if let Sink::Server(stdin) = sink {
        stdin.close();
    }
}

/// Waits until `source` can be read without blocking or `host` has no
/// reader left, and says whether it has none.
///
/// The host's end is polled for no event at all: the kernel always reports
/// an error or a hang-up, which is how a pipe whose reader is gone, a Unix
/// socket whose peer closed both directions and a terminal that hung up
/// show on a descriptor written to; a regular file or `/dev/null` reports
/// neither, ever. A host that only shuts down its side of a shared socket
/// (or a TCP peer's FIN) is not reported: it may still read, and a write
/// that fails tells when it does not.
fn host_stopped_reading(source: &impl AsFd, host: &File) -> bool {
    let mut fds = [
        PollFd::new(source, PollFlags::IN),
        PollFd::new(host, PollFlags::empty()),
    ];
    loop {
        match rustix::event::poll(&mut fds, None) {
            Err(rustix::io::Errno::INTR) => continue,
            // The read that follows then waits on its own, as it would
            // without the watch.
            Err(_) => return false,
            Ok(_) => {
                return fds[1]
                    .revents()
                    .intersects(PollFlags::ERR | PollFlags::HUP | PollFlags::NVAL);
            }
        }
    }
}

/// Records the lines one read ends, then forwards its exact bytes; returns
/// whether the sink still takes bytes (never once the recording is
/// finished). The server's streams are recorded even when the host no longer
/// takes them (`forwarding` is false).
fn deliver(
    bytes: &[u8],
    dir: Direction,
    sink: &mut Sink<'_>,
    recording: &Recording,
    forwarding: bool,
    on_gone: &mut Option<impl FnOnce()>,
) -> bool {
    let file = match sink {
        // Recorded under the pipe's lock, so that a line is recorded only
        // while the pipe is open to take it.
        Sink::Server(stdin) => {
            return forwarding && stdin.deliver(bytes, || recording.chunk(dir, bytes));
        }
        Sink::Host(file) => file,
    };
    if !recording.chunk(dir, bytes) || !forwarding {
        return false;
    }
    if file.write_all(bytes).is_ok() {
        return true;
    }
    if let Some(on_gone) = on_gone.take() {
        on_gone();
    }
    false
}

/// The lines of a batch with whether each ended with a newline: a batch is
/// complete lines, each with its newline, or (when `eol` is false, at the
/// end of a stream) one last line without one.
/// A line that came whole in one read, bounded as an open line is
/// ([`OpenLine`](super::line::OpenLine)): past `max_line` only its first
/// `keep` bytes are recorded (a character cut in two left out), with the
/// count of the rest.
fn bounded(line: &[u8], limits: Limits) -> (&[u8], Option<u64>) {
    if line.len() as u64 <= limits.max_line {
        return (line, None);
    }
    let mut keep = limits.keep.min(line.len());
    if let Err(err) = std::str::from_utf8(&line[..keep])
        && err.error_len().is_none()
    {
        keep = err.valid_up_to();
    }
    (&line[..keep], Some((line.len() - keep) as u64))
}

fn each_line(batch: &[u8], eol: bool) -> impl Iterator<Item = (&[u8], bool)> {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', batch)
        .map(Some)
        .chain((!eol).then_some(None));
    ends.map(move |end| {
        let line = &batch[start..end.unwrap_or(batch.len())];
        start = end.map_or(batch.len(), |end| end + 1);
        (line, end.is_some())
    })
}

/// Where in a batch of server lines the answer to a pending `initialize`
/// ends, and the revision it names.
fn answer_to_initialize(batch: &[u8], watch: &InitializeWatch) -> Option<(usize, String)> {
    if !watch.waiting() {
        return None;
    }
    let mut end = 0;
    for (line, with_newline) in each_line(batch, true) {
        end += line.len() + usize::from(with_newline);
        if let Some(revision) = watch.server_line(line) {
            return Some((end, revision));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{EventKind, Header, Transcript};

    /// A recording into `dir/t.jsonl`, and that path.
    fn recording_in(dir: &Path) -> (Recording, PathBuf) {
        let path = dir.join("t.jsonl");
        let header = Header::new(vec!["server".into()], "2026-11-29T00:00:00Z".into());
        let writer = TranscriptWriter::create(&path, &header, false).unwrap();
        (
            Recording::new(writer, path.clone(), Redactor::default()),
            path,
        )
    }

    /// A file holding `bytes`, open for reading, as a stream to pump.
    fn source(bytes: &[u8]) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        std::io::Seek::rewind(&mut file).unwrap();
        file
    }

    /// A stream that returns `data` in reads of the given sizes, and notes
    /// the most memory the recording's open line held after any read.
    struct Chunked<'a> {
        fd: File,
        data: &'a [u8],
        sizes: Vec<usize>,
        reads: usize,
        recording: &'a Recording,
        dir: Direction,
        most_held: usize,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.most_held = self.most_held.max(self.recording.held(self.dir));
            let size = self.sizes[self.reads % self.sizes.len()];
            self.reads += 1;
            let n = size.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    impl AsFd for Chunked<'_> {
        fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
            self.fd.as_fd()
        }
    }

    const SMALL: Limits = Limits {
        in_memory: 8,
        max_line: 40,
        keep: 4,
    };

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

        #[test]
        fn any_stream_is_forwarded_exactly_and_recorded_within_bounds(
            data in proptest::collection::vec(
                proptest::prop_oneof![
                    4 => proptest::prelude::any::<u8>(),
                    1 => proptest::strategy::Just(b'\n'),
                ],
                0..400,
            ),
            sizes in proptest::collection::vec(1usize..70, 1..8),
            dir in proptest::prop_oneof![
                proptest::strategy::Just(Direction::ClientToServer),
                proptest::strategy::Just(Direction::ServerToClient),
                proptest::strategy::Just(Direction::Stderr),
            ],
        ) {
            let dir_path = tempfile::tempdir().unwrap();
            let path = dir_path.path().join("t.jsonl");
            let header = Header::new(vec!["server".into()], "2026-11-29T00:00:00Z".into());
            let writer = TranscriptWriter::create(&path, &header, false).unwrap();
            let recording =
                Recording::with_limits(writer, path.clone(), Redactor::default(), SMALL);
            let forwarded = dir_path.path().join("forwarded");
            let mut source = Chunked {
                fd: File::open("/dev/null").unwrap(),
                data: &data,
                sizes,
                reads: 0,
                recording: &recording,
                dir,
                most_held: 0,
            };
            let sink = Sink::Host(File::create(&forwarded).unwrap());
            pump(&mut source, dir, sink, &recording, || {});
            proptest::prop_assert!(source.most_held <= SMALL.in_memory);
            proptest::prop_assert_eq!(std::fs::read(&forwarded).unwrap(), data.clone());

            let transcript = Transcript::read(&path).unwrap();
            let mut expected: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
            if data.is_empty() || data.ends_with(b"\n") {
                expected.pop();
            }
            let recorded: Vec<(Vec<u8>, bool, Option<u64>)> = transcript
                .events
                .iter()
                .filter_map(|event| match &event.kind {
                    EventKind::Line { payload, eol, cut, .. } => {
                        Some((payload.as_bytes().to_vec(), *eol, *cut))
                    }
                    _ => None,
                })
                .collect();
            proptest::prop_assert_eq!(recorded.len(), expected.len());
            for (index, ((bytes, eol, cut), line)) in recorded.iter().zip(&expected).enumerate() {
                let last = index + 1 == expected.len();
                proptest::prop_assert_eq!(*eol, !last || data.ends_with(b"\n"));
                match cut {
                    None => {
                        proptest::prop_assert!(line.len() as u64 <= SMALL.max_line);
                        proptest::prop_assert_eq!(&bytes[..], *line);
                    }
                    Some(cut) => {
                        proptest::prop_assert!(line.len() as u64 > SMALL.max_line);
                        proptest::prop_assert!(bytes.len() <= SMALL.keep);
                        proptest::prop_assert!(line.starts_with(bytes));
                        proptest::prop_assert_eq!(bytes.len() as u64 + cut, line.len() as u64);
                    }
                }
            }
        }
    }

    #[test]
    fn a_batch_splits_into_its_lines() {
        let lines: Vec<(&[u8], bool)> = each_line(b"a\n\nbc\r\n", true).collect();
        assert_eq!(lines, [(&b"a"[..], true), (b"", true), (b"bc\r", true)]);
        let lines: Vec<(&[u8], bool)> = each_line(b"tail", false).collect();
        assert_eq!(lines, [(&b"tail"[..], false)]);
    }

    #[test]
    fn the_protocol_event_follows_the_answer_inside_a_batch() {
        let dir = tempfile::tempdir().unwrap();
        let (recording, path) = recording_in(dir.path());
        let host = || Sink::Host(File::create(dir.path().join("forwarded")).unwrap());
        let init = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\"}\n";
        pump(
            source(init),
            Direction::ClientToServer,
            host(),
            &recording,
            || {},
        );
        let answers = concat!(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}",
        );
        pump(
            source(answers.as_bytes()),
            Direction::ServerToClient,
            host(),
            &recording,
            || {},
        );
        let transcript = Transcript::read(&path).unwrap();
        let kinds: Vec<String> = transcript
            .events
            .iter()
            .map(|event| match &event.kind {
                EventKind::Line { dir, eol, .. } => format!("{} {eol}", dir.as_str()),
                EventKind::Protocol(revision) => revision.clone(),
                EventKind::EndOfInput => "eof".to_owned(),
                EventKind::Signal(signal) => format!("signal {signal}"),
                EventKind::Exit(_) => "exit".to_owned(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "c2s true",
                "eof",
                "s2c true",
                "s2c true",
                "2025-06-18",
                "s2c false"
            ]
        );
    }

    #[test]
    fn a_host_that_stops_reading_is_noticed_without_a_write() {
        use std::os::fd::OwnedFd;
        use std::os::unix::net::UnixStream;

        let dir = tempfile::tempdir().unwrap();
        let (recording, _) = recording_in(dir.path());
        let (server_stdout, server_end) = UnixStream::pair().unwrap();
        let (host_stdout, host_end) = UnixStream::pair().unwrap();
        let (gone_tx, gone) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            // Owned here, so that a failing assertion ends the server's
            // stream and with it the pump the scope waits for.
            let server_end = server_end;
            scope.spawn(|| {
                let host = Sink::Host(File::from(OwnedFd::from(host_stdout)));
                pump(
                    server_stdout,
                    Direction::ServerToClient,
                    host,
                    &recording,
                    move || gone_tx.send(()).unwrap(),
                );
            });
            // The server says nothing; the host goes away.
            drop(host_end);
            gone.recv_timeout(std::time::Duration::from_secs(60))
                .expect("the host's departure was not noticed");
            drop(server_end);
        });
    }

    #[test]
    fn nothing_is_recorded_or_forwarded_after_the_exit_event() {
        let dir = tempfile::tempdir().unwrap();
        let (recording, path) = recording_in(dir.path());
        let forwarded = dir.path().join("forwarded");
        let sink = File::create(&forwarded).unwrap();

        let host = Sink::Host(sink.try_clone().unwrap());
        pump(
            source(b"before\n"),
            Direction::ServerToClient,
            host,
            &recording,
            || {},
        );
        recording.exit(Exit::Code(0));
        let mut gone = false;
        pump(
            source(b"late\n"),
            Direction::Stderr,
            Sink::Host(sink),
            &recording,
            || {
                gone = true;
            },
        );

        assert_eq!(std::fs::read(&forwarded).unwrap(), b"before\n");
        assert!(!gone, "a finished recording is not a host that went away");
        let transcript = Transcript::read(&path).unwrap();
        assert_eq!(transcript.events.len(), 2);
        assert!(matches!(
            transcript.events.last().unwrap().kind,
            EventKind::Exit(Exit::Code(0))
        ));
        assert!(recording.take_error().is_none());
    }
}
