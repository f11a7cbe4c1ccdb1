//! The recording proxy: `mcp-replay record -- <server cmd>`.
//!
//! A host starts the recorder in place of the server. The recorder starts the
//! server in a process group of its own and forwards each stream byte for
//! byte (host stdin → server stdin, server stdout → host stdout, server
//! stderr → the recorder's stderr), each read as soon as it returns, and
//! writes every line a read ends to the transcript before forwarding it; a
//! line is held for the transcript with bounded memory, and one past 64 MiB
//! is recorded cut. Nothing of the recorder's own ever goes to stdout.
//!
//! The session ends when the server does: end of input from the host closes
//! the server's stdin, recorded as an `eof` event; SIGTERM, SIGINT, SIGHUP,
//! SIGQUIT, SIGUSR1 and SIGUSR2 sent to the recorder are recorded as `signal`
//! events and passed on to the server process (not its group,
//! as a host that signals its server signals that one process), except those
//! the host started the recorder with ignored, which stay ignored; a host that goes away (a broken
//! pipe on stdout) gets the server's stdin closed. Once the server has
//! exited, whatever it left running in its process group is killed, and on
//! Linux whatever left the group too (the recorder is a child subreaper), the
//! transcript gets the `exit` event, and the recorder exits with the server's
//! status: its code, or 128 + N when it died of signal N (the command line
//! then ends itself by that signal).

mod line;
mod output;
mod pump;

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGXFSZ};
use signal_hook::iterator::Signals;

use self::output::Draft;
use self::pump::{Recording, ServerStdin, Sink, pump};
use crate::process::{ServerCommand, SpawnError};
use crate::transcript::clock::Utc;
use crate::transcript::{
    Direction, Exit, Header, MIN_SECRET_LEN, RedactError, Redaction, Redactor, TranscriptError,
    TranscriptWriter, secret_names,
};

/// The directory of default transcript names, relative to the working
/// directory.
pub const DEFAULT_DIR: &str = "transcripts";

/// The exit status of a recording whose server exited 0 but whose
/// transcript stopped early (a full disk, a quota): `EX_IOERR` of
/// sysexits.h, "an error occurred while doing I/O on some file". A server
/// that exited otherwise keeps its own status.
pub const EXIT_INCOMPLETE: u8 = 74;

/// A replaced transcript shorter than this is closed (and its blocks freed)
/// on the session's own thread.
const REPLACED_INLINE: u64 = 1 << 20;

/// How long the server's streams may stay open after the server exited and
/// its process group and orphaned descendants were killed (a process out of
/// the recorder's reach can hold them: see `docs/recording.md`).
const DRAIN_GRACE: Duration = Duration::from_secs(5);

/// What to record and how.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RecordOptions {
    /// The server command as argv. Never empty.
    pub command: Vec<String>,
    /// The transcript to write; a timestamped file under [`DEFAULT_DIR`]
    /// when `None`.
    pub output: Option<PathBuf>,
    /// Overwrite an existing transcript, unless another recording is still
    /// writing it (then the transcript goes beside it, as `NAME-2.jsonl`).
    pub force: bool,
    /// Record the server's stderr (it is passed through either way).
    pub stderr: bool,
    /// Extra regular expressions whose matches are redacted.
    pub redact_patterns: Vec<String>,
    /// Extra environment variables whose values are redacted, besides those
    /// whose names look secret.
    pub redact_env: Vec<String>,
    /// Ignore rules for the header (JSON pointers with `*` and `**`).
    pub ignore: Vec<String>,
}

impl RecordOptions {
    /// Options to record `command` with the defaults: stderr recorded,
    /// output under [`DEFAULT_DIR`].
    pub fn new(command: Vec<String>) -> RecordOptions {
        RecordOptions {
            command,
            stderr: true,
            ..RecordOptions::default()
        }
    }
}

/// A finished recording.
#[derive(Debug)]
#[non_exhaustive]
pub struct Recorded {
    /// The transcript.
    pub path: PathBuf,
    /// How the server ended.
    pub exit: Exit,
    /// Why recording stopped before the end, if it did (the session itself
    /// went on: forwarding never depends on the transcript).
    pub write_error: Option<io::Error>,
}

/// Why a recording could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// No server command was given.
    #[error("no server command given")]
    NoCommand,
    /// The transcript exists and `force` was not set.
    #[error("transcript `{}` already exists", .path.display())]
    Exists {
        /// The transcript.
        path: PathBuf,
    },
    /// The directory for the default transcript name cannot be created.
    #[error("cannot create the transcript directory `{}`", .path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// A `--redact` pattern is invalid.
    #[error(transparent)]
    Redact(#[from] RedactError),
    /// The server could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// The transcript could not be created.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// The recorder could not set itself up (signal handlers, its own
    /// standard streams).
    #[error("cannot set up the recorder: {what}")]
    Setup {
        /// What could not be set up.
        what: &'static str,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
}

/// Records one session of `options.command` through this process's standard
/// streams, and returns once the server has ended.
///
/// Notes for the user (the default transcript name) go to `notes`.
///
/// # Errors
///
/// [`RecordError`] when the session cannot start: no command, a bad pattern,
/// an existing transcript without `force`, a server that cannot be started
/// (no transcript is left behind then), or a transcript that cannot be
/// created. Once the server runs, nothing is an error: a transcript that
/// stops taking writes is reported in [`Recorded::write_error`].
pub fn record(options: &RecordOptions, notes: &mut dyn Write) -> Result<Recorded, RecordError> {
    if options.command.is_empty() {
        return Err(RecordError::NoCommand);
    }
    let env: Vec<(String, String)> = std::env::vars_os()
        .map(|(name, value)| {
            (
                name.to_string_lossy().into_owned(),
                value.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let redaction = Redaction {
        env: secret_names(
            env.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            &options.redact_env,
        ),
        patterns: options.redact_patterns.clone(),
    };
    let redactor = Redactor::new(&redaction, |name| std::env::var(name).ok())?;
    for name in &options.redact_env {
        if let Some((_, value)) = env.iter().find(|(n, _)| n == name)
            && (1..MIN_SECRET_LEN).contains(&value.len())
        {
            let _ = writeln!(
                notes,
                "mcp-replay: note: {name} is not redacted: its value is shorter than {MIN_SECRET_LEN} bytes"
            );
        }
    }

    // A secret can be an argument of the server (a token flag, a database
    // URL); replay restores the values it knows.
    let command = options
        .command
        .iter()
        .map(|arg| String::from_utf8_lossy(&redactor.redact(arg.as_bytes())).into_owned())
        .collect();
    let mut header = Header::new(command, Utc::now().rfc3339());
    let ignored = ignored_signals();
    // Past a file size limit a write fails, as on a full disk, and the
    // kernel sends SIGXFSZ, which would end the recorder and leave the
    // session without it. A handler (not an ignore, which the server would
    // inherit) turns that into the failed write alone.
    if ignored & (1 << (SIGXFSZ - 1)) == 0 {
        signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false))).map_err(
            |source| RecordError::Setup {
                what: "signal handlers",
                source,
            },
        )?;
    }
    let (draft, file) = Draft::open(options.output.as_deref(), options.force, &options.command)?;
    header.cwd = std::env::current_dir()
        .ok()
        .map(|cwd| output::relative_cwd(&cwd, draft.path()));
    header.env = {
        let mut names: Vec<String> = env.into_iter().map(|(name, _)| name).collect();
        names.sort();
        names
    };
    header.redact = redaction;
    header.ignore = options.ignore.clone();
    let writer = TranscriptWriter::from_file(file, draft.path(), &header).map_err(|source| {
        TranscriptError::Write {
            path: draft.path().to_owned(),
            source,
        }
    })?;

    // Handlers go in before the server starts: a signal that arrives in
    // between is held for the server instead of killing the recorder and
    // orphaning it.
    let mut signals = Signals::new(
        FORWARDED
            .into_iter()
            .filter(|signal| ignored & (1 << (signal - 1)) == 0),
    )
    .map_err(|source| RecordError::Setup {
        what: "signal handlers",
        source,
    })?;
    let host_stdout = own_stream(io::stdout().as_fd(), "stdout")?;
    let host_stderr = own_stream(io::stderr().as_fd(), "stderr")?;

    // A process the server starts in a session of its own leaves its
    // process group; as a subreaper, the recorder inherits it once its
    // parent is gone, and kills it with the rest.
    crate::process::adopt_orphans();
    let server = ServerCommand::new(options.command.clone());
    let mut cmd = Command::new(server.resolve_program());
    cmd.args(&options.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if options.stderr {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .process_group(0);
    let mut child = cmd.spawn().map_err(|source| SpawnError {
        command: server.display(),
        source,
    })?;
    let pid = Pid::from_child(&child);

    let published = match draft.publish(notes) {
        Ok(published) => published,
        Err(err) => {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            let _ = child.wait();
            return Err(err.into());
        }
    };
    // The streams start first: the host's first message is waiting for them.
    let recording = Arc::new(Recording::new(writer, published.path, redactor));
    let streams = start_streams(&mut child, &recording, host_stdout, host_stderr);
    let exited = Arc::new(Mutex::new(false));
    let signal_handle = signals.handle();
    {
        let exited = Arc::clone(&exited);
        let recording = Arc::clone(&recording);
        thread::spawn(move || {
            for signal in signals.forever() {
                // The flag is set, under this lock, before the server is
                // reaped, so its pid cannot have been reused by another
                // process when the signal is sent.
                let exited = exited.lock().unwrap_or_else(PoisonError::into_inner);
                if !*exited && let Some(named) = Signal::from_named_raw(signal) {
                    // Recorded before it is passed on, so that it comes
                    // before whatever the server does about it.
                    recording.signal(signal);
                    let _ = rustix::process::kill_process(pid, named);
                }
            }
        });
    }
    // Closing the replaced file frees its blocks. For a long transcript that
    // takes milliseconds, so a thread of its own does it while the session
    // goes on; a short one is closed here, cheaper than starting a thread.
    let removal = published.replaced.and_then(|replaced| {
        if replaced
            .metadata()
            .is_ok_and(|meta| meta.len() < REPLACED_INLINE)
        {
            drop(replaced);
            None
        } else {
            Some(thread::spawn(move || drop(replaced)))
        }
    });

    let status = wait_for_exit(&mut child, pid, &exited);
    signal_handle.close();
    let deadline = Instant::now() + DRAIN_GRACE;
    for _ in 0..streams.count {
        if streams
            .done
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .is_err()
        {
            break;
        }
    }
    let exit = match status.signal() {
        Some(signal) => Exit::Signal(signal),
        None => Exit::Code(status.code().unwrap_or(0)),
    };
    recording.exit(exit);
    if let Some(removal) = removal {
        let _ = removal.join();
    }
    Ok(Recorded {
        path: recording.path().to_owned(),
        exit,
        write_error: recording.take_error(),
    })
}

/// The signals a host may send its server to end it: the recorder passes them
/// on to the server. Those the host started the recorder with ignored (as
/// `nohup` or a script's background job do) stay ignored instead: the server
/// inherits that, as it would without the recorder.
const FORWARDED: [i32; 6] = [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2];

/// The set of signals this process started with ignored, bit N - 1 for
/// signal N. Linux lists it in `/proc`; elsewhere none count as ignored.
fn ignored_signals() -> u64 {
    use std::io::Read as _;
    // One read: the file reports no size, so reading it to the end would
    // take a read per doubling of the buffer.
    let mut status = [0u8; 4096];
    let Ok(len) = File::open("/proc/self/status").and_then(|mut file| file.read(&mut status))
    else {
        return 0;
    };
    status[..len]
        .split(|&byte| byte == b'\n')
        .find_map(|line| line.strip_prefix(b"SigIgn:"))
        .and_then(|mask| std::str::from_utf8(mask).ok())
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .unwrap_or(0)
}

/// A writable handle of one of the recorder's own standard streams, written
/// without Rust's buffering so every batch goes out in one write.
fn own_stream(fd: std::os::fd::BorrowedFd<'_>, name: &'static str) -> Result<File, RecordError> {
    fd.try_clone_to_owned()
        .map(File::from)
        .map_err(|source| RecordError::Setup { what: name, source })
}

/// The stream threads that are still running, and how they say they ended.
struct Streams {
    count: usize,
    done: Receiver<()>,
}

fn start_streams(
    child: &mut Child,
    recording: &Arc<Recording>,
    host_stdout: File,
    host_stderr: File,
) -> Streams {
    let server_stdin = Arc::new(ServerStdin::new(
        child.stdin.take().expect("stdin is piped"),
    ));
    let server_stdout = child.stdout.take().expect("stdout is piped");
    let (done_tx, done) = mpsc::channel();
    let mut count = 0;

    {
        let recording = Arc::clone(recording);
        let server_stdin = Arc::clone(&server_stdin);
        thread::spawn(move || {
            let stdin = io::stdin().lock();
            pump(
                stdin,
                Direction::ClientToServer,
                Sink::Server(&server_stdin),
                &recording,
                || {},
            );
        });
    }
    {
        let recording = Arc::clone(recording);
        let done_tx = done_tx.clone();
        thread::spawn(move || {
            // The host is gone: close the server's stdin, once what the host
            // sent before is forwarded, so the server ends, and keep
            // recording what it still says.
            pump(
                server_stdout,
                Direction::ServerToClient,
                Sink::Host(host_stdout),
                &recording,
                || server_stdin.host_left(io::stdin()),
            );
            let _ = done_tx.send(());
        });
        count += 1;
    }
    if let Some(server_stderr) = child.stderr.take() {
        let recording = Arc::clone(recording);
        thread::spawn(move || {
            pump(
                server_stderr,
                Direction::Stderr,
                Sink::Host(host_stderr),
                &recording,
                || {},
            );
            let _ = done_tx.send(());
        });
        count += 1;
    }
    Streams { count, done }
}

/// Waits for the server to exit, kills what it left in its process group
/// and what escaped the group, and reaps it.
fn wait_for_exit(child: &mut Child, pid: Pid, exited: &Mutex<bool>) -> ExitStatus {
    // Wait without reaping first: until the server is reaped its pid (and so
    // its process group id) cannot be reused, so the group kill below and a
    // late forwarded signal can only reach the server's own processes.
    while let Err(rustix::io::Errno::INTR) = rustix::process::waitid(
        WaitId::Pid(pid),
        WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
    ) {}
    let mut exited = exited.lock().unwrap_or_else(PoisonError::into_inner);
    *exited = true;
    let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    let status = loop {
        match child.wait() {
            Ok(status) => break status,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            // Only a child that is not ours fails here, and ours is.
            Err(_) => break ExitStatus::from_raw(0),
        }
    };
    // With the server reaped, any child of the recorder is a descendant
    // that left the group (and lost its parent): it goes too, so that it
    // neither outlives the session nor holds its streams open.
    crate::process::kill_orphans();
    status
}
