//! Opening the files mcp-replay writes (a report's `--junit` and
//! `--summary`, a transcript's old name, a file `--bless` rewrites in
//! place) so that no open waits: the writing side of [`input`](super::input).
//!
//! Opening a FIFO to write waits until some process opens it to read, and
//! a device may wait too; a command waiting there would wait past the
//! signals it handles itself. Such names are refused instead: they are
//! opened without blocking, and whatever is not a regular file is an
//! error saying what it is.

use std::fs::File;
use std::io;
use std::path::Path;

use rustix::fs::{FileType, Mode, OFlags};

/// How a report file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Open {
    /// Created if missing, kept as it is otherwise (the caller replaces
    /// its content once the report is ready).
    Write,
    /// Created if missing, and written at its end (a CI summary page is
    /// one file every step appends to).
    Append,
}

/// Opens `path` to write a report into, without waiting: created when
/// missing, and refused unless it is a regular file (after symbolic
/// links).
///
/// # Errors
///
/// The OS error of opening it, or `InvalidInput` naming what it is when
/// it is not a regular file (a FIFO, a socket, a device, a directory).
pub(crate) fn open(path: &Path, how: Open) -> io::Result<File> {
    let flags = match how {
        Open::Write => OFlags::WRONLY | OFlags::CREATE,
        Open::Append => OFlags::WRONLY | OFlags::CREATE | OFlags::APPEND,
    };
    open_regular(path, flags)
}

/// Opens `path` with `flags` without blocking, only if it is a regular
/// file: a name that leads to anything else is refused before it is
/// opened, and again once open, in case it changed in between. A file
/// created is created with mode 0666, less the umask.
///
/// # Errors
///
/// As [`open`].
pub(crate) fn open_regular(path: &Path, flags: OFlags) -> io::Result<File> {
    if let Ok(stat) = rustix::fs::stat(path) {
        refuse_unless_regular(FileType::from_raw_mode(stat.st_mode))?;
    }
    let all = flags | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = match rustix::fs::open(path, all, Mode::from_raw_mode(0o666)) {
        Ok(fd) => fd,
        // A FIFO no process reads (opened to write), a socket, a device
        // with nothing behind it: say which it is.
        Err(rustix::io::Errno::NXIO) => {
            let stat = rustix::fs::stat(path)?;
            refuse_unless_regular(FileType::from_raw_mode(stat.st_mode))?;
            return Err(rustix::io::Errno::NXIO.into());
        }
        Err(err) => return Err(err.into()),
    };
    refuse_unless_regular(FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode))?;
    // A regular file never makes a write wait; the flag goes all the same,
    // so the file is an ordinary one to whoever writes it.
    let open = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, open - OFlags::NONBLOCK)?;
    Ok(File::from(fd))
}

/// `Ok` for a regular file, else the error that says what `kind` is.
pub(crate) fn refuse_unless_regular(kind: FileType) -> io::Result<()> {
    let what = match kind {
        FileType::RegularFile => return Ok(()),
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Directory => "a directory",
        _ => "not a file",
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "it is not a regular file ({what}): output is written only to regular files, which no open waits for"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
    }

    #[test]
    fn a_regular_file_is_created_or_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.md");
        io::Write::write_all(&mut open(&path, Open::Append).unwrap(), b"a").unwrap();
        io::Write::write_all(&mut open(&path, Open::Append).unwrap(), b"b").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"ab");
        let file = open(&path, Open::Write).unwrap();
        let flags = rustix::fs::fcntl_getfl(&file).unwrap();
        assert!(!flags.contains(OFlags::NONBLOCK));
        assert_eq!(std::fs::read(&path).unwrap(), b"ab", "not truncated");
    }

    /// A FIFO, whether a process reads it or not, and a device are refused
    /// at once: none is opened in a way that waits.
    // See: #25
    #[test]
    fn what_is_not_a_regular_file_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        for how in [Open::Write, Open::Append] {
            let err = open(&fifo, how).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
            assert!(err.to_string().contains("(a FIFO)"), "{err}");
        }
        // With a reader, the open itself would not wait; it is refused too.
        let reader =
            rustix::fs::open(&fifo, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty()).unwrap();
        let err = open_regular(&fifo, OFlags::WRONLY).unwrap_err();
        assert!(err.to_string().contains("(a FIFO)"), "{err}");
        drop(reader);
        let err = open(Path::new("/dev/null"), Open::Append).unwrap_err();
        assert!(err.to_string().contains("(a character device)"), "{err}");
        let err = open(dir.path(), Open::Write).unwrap_err();
        assert!(!err.to_string().is_empty());
    }
}
