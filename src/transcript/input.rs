//! Opening the files `check` reads (transcripts, baselines, configs) so that
//! no read waits forever or takes more memory than its limit.
//!
//! A file is opened without blocking, so that a FIFO with no writer cannot
//! hold the open. A regular file larger than the limit is refused from its
//! size before a byte is read; anything else (a FIFO, a pipe, a device) is
//! read with a deadline, and every read stops with an error once it has
//! taken more than the limit. `docs/limits.md` lists the limits.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags};
use rustix::fs::{FileType, Mode, OFlags};

/// The largest transcript read: 256 MiB.
pub const MAX_TRANSCRIPT_SIZE: u64 = 256 * 1024 * 1024;

/// The longest transcript line read, newline excluded: 128 MiB, twice the
/// longest line the checker takes from a server, so that a recorded line of
/// that length fits with its escapes.
pub const MAX_TRANSCRIPT_LINE: usize = 128 * 1024 * 1024;

/// The largest baseline read: 64 MiB.
pub const MAX_BASELINE_SIZE: u64 = 64 * 1024 * 1024;

/// The largest `mcp-replay.json` read: 1 MiB.
pub const MAX_CONFIG_SIZE: u64 = 1024 * 1024;

/// How long a file that is not a regular one (a FIFO, a pipe) may take to
/// deliver all of its bytes: 10 seconds.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

/// A file opened for a bounded read.
#[derive(Debug)]
pub(crate) struct Input {
    file: File,
    /// A regular file: it can be read again, and read without waiting.
    regular: bool,
    /// Bytes taken so far, and the most that may be.
    taken: u64,
    limit: u64,
    /// For a file that is not regular: when reading must be done.
    deadline: Option<Instant>,
}

/// Mebibytes, for messages.
pub(crate) fn mib(bytes: u64) -> u64 {
    bytes / (1024 * 1024)
}

impl Input {
    /// Opens `path` to read at most `limit` bytes of it.
    ///
    /// # Errors
    ///
    /// The OS error of opening it; a directory; a regular file larger than
    /// `limit` (`FileTooLarge`, saying so in words).
    pub(crate) fn open(path: &Path, limit: u64) -> io::Result<Input> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let stat = rustix::fs::fstat(&fd)?;
        let kind = FileType::from_raw_mode(stat.st_mode);
        if kind == FileType::Directory {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "it is a directory",
            ));
        }
        let regular = kind == FileType::RegularFile;
        let size = u64::try_from(stat.st_size).unwrap_or(0);
        if regular && size > limit {
            let size = size.div_ceil(1024 * 1024);
            return Err(too_large(format!("it is {size} MiB, more"), limit));
        }
        Ok(Input {
            file: File::from(fd),
            regular,
            taken: 0,
            limit,
            deadline: (!regular).then(|| Instant::now() + READ_DEADLINE),
        })
    }

    /// Whether the file is a regular one (which can be read again).
    pub(crate) fn is_regular(&self) -> bool {
        self.regular
    }

    /// The whole file, within the limit and the deadline.
    ///
    /// # Errors
    ///
    /// As the reads: the OS's error, the limit passed, the deadline passed.
    pub(crate) fn read_all(mut self) -> io::Result<Vec<u8>> {
        // Through a small buffer: `read_to_end` would zero the spare
        // capacity it reads into, which for a file that turns out too long
        // is memory taken for bytes never kept.
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match self.read(&mut chunk) {
                Ok(0) => return Ok(bytes),
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
    }

    /// Waits until the file can be read, up to the deadline.
    fn wait(&self) -> io::Result<()> {
        let Some(deadline) = self.deadline else {
            return Ok(());
        };
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "it is not a regular file, and it did not deliver all of its bytes within {} s",
                        READ_DEADLINE.as_secs()
                    ),
                ));
            }
            let timespec = rustix::event::Timespec {
                tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
                tv_nsec: i64::from(left.subsec_nanos()),
            };
            let mut fds = [PollFd::new(&self.file, PollFlags::IN)];
            // An error (EINTR) only means: look again.
            if rustix::event::poll(&mut fds, Some(&timespec)).is_ok()
                && !fds[0].revents().is_empty()
            {
                return Ok(());
            }
        }
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte past the limit is asked for, so that a file of exactly
        // the limit ends cleanly and a longer one is told apart.
        let room = usize::try_from(self.limit + 1 - self.taken).unwrap_or(usize::MAX);
        let want = buf.len().min(room);
        if want == 0 {
            return Ok(0);
        }
        // A FIFO whose writer has not come yet reads as ended: only a wait
        // for it to be readable (or hung up) tells the two apart.
        self.wait()?;
        let n = loop {
            match self.file.read(&mut buf[..want]) {
                Ok(n) => break n,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => self.wait()?,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        };
        self.taken += n as u64;
        if self.taken > self.limit {
            return Err(too_large("it is longer".to_owned(), self.limit));
        }
        Ok(n)
    }
}

fn too_large(what: String, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "{what} than the {} MiB mcp-replay reads (docs/limits.md)",
            mib(limit)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_over_the_limit_is_refused_from_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let file = File::create(&path).unwrap();
        file.set_len(3 * 1024 * 1024).unwrap();
        let err = Input::open(&path, 1024 * 1024).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            err.to_string(),
            "it is 3 MiB, more than the 1 MiB mcp-replay reads (docs/limits.md)"
        );
    }

    #[test]
    fn a_device_is_read_up_to_the_limit_only() {
        let input = Input::open(Path::new("/dev/zero"), 4096).unwrap();
        assert!(!input.is_regular());
        let err = input.read_all().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn a_file_of_exactly_the_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap();
        let input = Input::open(&path, 5).unwrap();
        assert_eq!(input.read_all().unwrap(), b"12345");
        assert!(Input::open(dir.path(), 5).is_err());
    }
}
