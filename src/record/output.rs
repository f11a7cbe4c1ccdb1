//! Where the transcript goes: its name, and how the file comes to have it.
//!
//! The transcript is written under a temporary name in its directory, locked,
//! and given its name only once the server has started, so a server that
//! cannot start leaves no transcript and replaces none, and a directory that
//! cannot take the file is an error before the server starts.
//!
//! The lock marks a transcript that a recording is still writing. `--force`
//! replaces a finished transcript but never one in the middle of its session:
//! two sessions of one host configuration can run at once, and the second
//! then records beside the first (`NAME-2.jsonl`) and says so.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, FlockOperation, OFlags, flock};
use tempfile::TempPath;

use super::{DEFAULT_DIR, RecordError};
use crate::transcript::TranscriptError;
use crate::transcript::clock::Utc;

/// The transcript of a session that has not started yet: its file is open
/// and locked, and it is named once the server runs.
#[derive(Debug)]
pub(crate) struct Draft {
    /// The name the transcript is meant to have.
    path: PathBuf,
    /// The file under its temporary name.
    temp: TempPath,
    naming: Naming,
}

/// How a transcript gets its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Naming {
    /// `-o FILE`: that name or an error.
    Given,
    /// `-o FILE --force`: that name, replacing a finished transcript.
    Replace,
    /// No `-o`: the first free name of a series.
    Fresh,
}

/// A transcript that got its name.
#[derive(Debug)]
pub(crate) struct Published {
    /// Its path.
    pub(crate) path: PathBuf,
    /// The file it replaced, still open: closing it frees the old file's
    /// blocks, which can take milliseconds, so the caller closes it off the
    /// session's path.
    pub(crate) replaced: Option<File>,
}

impl Draft {
    /// Chooses the transcript's path for `output` (a timestamped name under
    /// [`DEFAULT_DIR`] for `command` when `None`) and opens its file, before
    /// the server starts.
    pub(crate) fn open(
        output: Option<&Path>,
        force: bool,
        command: &[String],
    ) -> Result<(Draft, File), RecordError> {
        let (path, naming) = match output {
            Some(path) if force => (path.to_owned(), Naming::Replace),
            Some(path) => (path.to_owned(), Naming::Given),
            None => {
                let dir = PathBuf::from(DEFAULT_DIR);
                std::fs::create_dir_all(&dir).map_err(|source| RecordError::Directory {
                    path: dir.clone(),
                    source,
                })?;
                let stem = format!("{}-{}", server_name(command), Utc::now().compact());
                (dir.join(format!("{stem}.jsonl")), Naming::Fresh)
            }
        };
        let write_error = |source| {
            RecordError::Transcript(TranscriptError::Write {
                path: path.clone(),
                source,
            })
        };
        // A symbolic link that leads nowhere is a name taken all the same.
        let taken = std::fs::symlink_metadata(&path).is_ok();
        match std::fs::metadata(&path) {
            _ if taken && naming == Naming::Given => {
                return Err(RecordError::Exists { path });
            }
            // A FIFO would make the recorder wait for a reader before the
            // session starts, past the signals it passes on; a device or a
            // socket is no transcript either.
            Ok(meta) if naming == Naming::Replace && !meta.is_file() => {
                let kind = FileType::from_raw_mode(meta.mode());
                let refused = crate::transcript::output::refuse_unless_regular(kind);
                return Err(write_error(refused.err().unwrap_or_else(|| {
                    io::Error::new(io::ErrorKind::InvalidInput, "it is not a regular file")
                })));
            }
            _ => {}
        }
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map_or_else(|| "transcript".into(), |name| name.to_string_lossy());
        let (file, temp) = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            // The umask applies, as to any file the user creates.
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(write_error)?
            .into_parts();
        // The file is not visible under its name yet, so nothing can hold
        // its lock; where locks are not supported, recordings cannot see
        // each other and a replaced transcript is replaced.
        let _ = flock(&file, FlockOperation::NonBlockingLockExclusive);
        let draft = Draft { path, temp, naming };
        Ok((draft, file))
    }

    /// The name the transcript is meant to have.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Gives the transcript its name, once the server has started. Notes for
    /// the user (the name, when it was not given) go to `notes`.
    pub(crate) fn publish(self, notes: &mut dyn Write) -> Result<Published, TranscriptError> {
        let Draft {
            path,
            mut temp,
            naming,
        } = self;
        let write_error = |path: &Path, source| TranscriptError::Write {
            path: path.to_owned(),
            source,
        };
        match naming {
            Naming::Given => match temp.persist_noclobber(&path) {
                Ok(()) => Ok(Published {
                    path,
                    replaced: None,
                }),
                Err(err) if err.error.kind() == io::ErrorKind::AlreadyExists => {
                    Err(TranscriptError::Exists { path })
                }
                Err(err) => Err(write_error(&path, err.error)),
            },
            Naming::Fresh => {
                let path = persist_first_free(temp, &path, 1)?;
                let _ = writeln!(notes, "mcp-replay: recording to {}", path.display());
                Ok(Published {
                    path,
                    replaced: None,
                })
            }
            Naming::Replace => loop {
                // Opened without waiting, and only as a regular file: the
                // name may have come to lead to a FIFO meanwhile.
                let old = match crate::transcript::output::open_regular(&path, OFlags::RDONLY) {
                    Ok(old) => old,
                    Err(err) if err.kind() == io::ErrorKind::NotFound => {
                        match temp.persist_noclobber(&path) {
                            Ok(()) => {
                                return Ok(Published {
                                    path,
                                    replaced: None,
                                });
                            }
                            // A symbolic link that leads nowhere: replaced,
                            // as a link to a finished transcript is.
                            Err(err)
                                if err.error.kind() == io::ErrorKind::AlreadyExists
                                    && std::fs::metadata(&path).is_err()
                                    && std::fs::symlink_metadata(&path).is_ok() =>
                            {
                                return match err.path.persist(&path) {
                                    Ok(()) => Ok(Published {
                                        path,
                                        replaced: None,
                                    }),
                                    Err(err) => Err(write_error(&path, err.error)),
                                };
                            }
                            // Created meanwhile: look at the new one.
                            Err(err) if err.error.kind() == io::ErrorKind::AlreadyExists => {
                                temp = err.path;
                                continue;
                            }
                            Err(err) => return Err(write_error(&path, err.error)),
                        }
                    }
                    Err(err) => return Err(write_error(&path, err)),
                };
                if flock(&old, FlockOperation::NonBlockingLockExclusive)
                    == Err(rustix::io::Errno::WOULDBLOCK)
                {
                    let beside = persist_first_free(temp, &path, 2)?;
                    let _ = writeln!(
                        notes,
                        "mcp-replay: {} is being recorded by another session; recording to {}",
                        path.display(),
                        beside.display()
                    );
                    return Ok(Published {
                        path: beside,
                        replaced: None,
                    });
                }
                // The lock is ours; if the name still leads to the file
                // that holds it, no other recording can take the name
                // before the rename, and none is writing to the file.
                if !same_file(&old, &path) {
                    continue;
                }
                return match temp.persist(&path) {
                    Ok(()) => Ok(Published {
                        path,
                        replaced: Some(old),
                    }),
                    Err(err) => Err(write_error(&path, err.error)),
                };
            },
        }
    }
}

/// Gives `temp` the first free name of the series `base`, `base-2`,
/// `base-3`, … from its `from`-th (1 for `base` itself): every name of the
/// series is numbered from `base`, however many recordings take one at
/// once (never `base-2-2`).
fn persist_first_free(
    mut temp: TempPath,
    base: &Path,
    from: usize,
) -> Result<PathBuf, TranscriptError> {
    for n in from.max(1).. {
        let path = match n {
            1 => base.to_owned(),
            n => numbered(base, n),
        };
        match temp.persist_noclobber(&path) {
            Ok(()) => return Ok(path),
            Err(err) if err.error.kind() == io::ErrorKind::AlreadyExists => temp = err.path,
            Err(err) => {
                return Err(TranscriptError::Write {
                    path,
                    source: err.error,
                });
            }
        }
    }
    unreachable!("the names run out only after usize::MAX tries")
}

/// `dir/stem-N.ext` for `dir/stem.ext`.
fn numbered(path: &Path, n: usize) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "transcript".into(), |stem| stem.to_string_lossy());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    path.with_file_name(name)
}

/// Whether `path` names the file `file` has open.
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// How a launcher or interpreter is skipped to reach the server it starts.
struct Launcher {
    /// Its program names (the basename of the command's first word).
    programs: &'static [&'static str],
    /// Subcommands that come before the server (`uv run`, `pnpm dlx`).
    subcommands: &'static [&'static str],
    /// Options that take the next argument as their value.
    valued: &'static [&'static str],
    /// The option whose value is the server itself (`python -m MODULE`,
    /// `java -jar FILE`).
    names: Option<&'static str>,
}

/// Launchers and interpreters whose arguments name the server better than
/// they do, with what to skip. A program not listed is the server.
const LAUNCHERS: &[Launcher] = &[
    Launcher {
        programs: &["npx", "bunx"],
        subcommands: &[],
        valued: &["-p", "--package", "-c", "--call"],
        names: None,
    },
    Launcher {
        programs: &["pnpm", "yarn", "npm"],
        subcommands: &["dlx", "exec", "x"],
        valued: &["-p", "--package", "-c", "--call"],
        names: None,
    },
    Launcher {
        programs: &["uvx", "uv", "pipx"],
        subcommands: &["run", "tool"],
        valued: &[
            "--from",
            "--with",
            "--python",
            "-p",
            "--directory",
            "--project",
            "--spec",
            "--env-file",
            "--index-url",
        ],
        names: None,
    },
    Launcher {
        programs: &["node", "nodejs", "bun", "deno", "tsx", "ts-node"],
        subcommands: &["run", "x"],
        valued: &["-r", "--require", "--import", "--loader", "--env-file"],
        names: None,
    },
    Launcher {
        programs: &["python", "python3", "pypy", "pypy3", "ruby"],
        subcommands: &[],
        valued: &["-X", "-W", "-I", "-r"],
        names: Some("-m"),
    },
    Launcher {
        programs: &["java"],
        subcommands: &[],
        valued: &["-cp", "-classpath", "--class-path"],
        names: Some("-jar"),
    },
    Launcher {
        programs: &["docker", "podman"],
        subcommands: &["run"],
        valued: &[
            "-e",
            "--env",
            "-v",
            "--volume",
            "--name",
            "-p",
            "--publish",
            "--network",
            "--mount",
            "-w",
            "--workdir",
            "-u",
            "--user",
            "--env-file",
            "--entrypoint",
            "--platform",
        ],
        names: None,
    },
];

/// The argument of `command` that names the server: launchers, their
/// subcommands, options and option values are skipped, `env` with its
/// assignments too, and a `sh -c` script is looked into; argv\[0\] when
/// nothing is left.
fn server_argument(command: &[String]) -> Option<String> {
    let program = command.first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    let rest = &command[1..];
    if base == "env" {
        let mut args = rest.iter();
        while let Some(arg) = args.next() {
            if arg == "-u" || arg == "--unset" || arg == "-C" || arg == "--chdir" {
                args.next();
            } else if !(arg.starts_with('-') || arg.contains('=')) {
                let at = command.len() - args.as_slice().len() - 1;
                return server_argument(&command[at..]);
            }
        }
        return Some(program.clone());
    }
    if matches!(base, "sh" | "bash" | "zsh" | "dash") {
        if let Some(at) = rest.iter().position(|arg| arg == "-c")
            && let Some(script) = rest.get(at + 1)
        {
            let words: Vec<String> = script.split_whitespace().map(str::to_owned).collect();
            // `exec` hands the shell's place to the server.
            let words = match words.first() {
                Some(word) if word == "exec" => &words[1..],
                _ => &words[..],
            };
            return server_argument(words).or_else(|| Some(program.clone()));
        }
        return rest
            .iter()
            .find(|arg| !arg.starts_with('-'))
            .cloned()
            .or_else(|| Some(program.clone()));
    }
    // `python3.12` is `python3`.
    let family = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let Some(launcher) = LAUNCHERS
        .iter()
        .find(|l| l.programs.contains(&base) || l.programs.contains(&family))
    else {
        return Some(program.clone());
    };
    let mut args = rest.iter().enumerate();
    while let Some((i, arg)) = args.next() {
        if Some(arg.as_str()) == launcher.names {
            return args.next().map(|(_, value)| value.clone());
        }
        if launcher.valued.contains(&arg.as_str()) {
            args.next();
        } else if arg.starts_with('-') || launcher.subcommands.contains(&arg.as_str()) {
            // A flag, or a subcommand before the server (`uv tool run`).
        } else {
            // A launcher that starts another (`uv run python srv.py`).
            return server_argument(&rest[i..]);
        }
    }
    Some(program.clone())
}

/// A short name for the server, safe in a file name: the last path
/// component of [`server_argument`], without a version (`@latest`,
/// `==1.2`) or a script's extension.
fn server_name(command: &[String]) -> String {
    let arg = server_argument(command).unwrap_or_default();
    let last = arg.trim_end_matches('/').rsplit('/').next().unwrap_or(&arg);
    // A version follows the name; a scope's `@` leads it and went with the
    // path above.
    let last = last
        .split(['@', '='])
        .find(|part| !part.is_empty())
        .unwrap_or(last);
    let stem = [
        ".js", ".mjs", ".cjs", ".ts", ".mts", ".py", ".jar", ".rb", ".exe",
    ]
    .iter()
    .find_map(|ext| last.strip_suffix(ext))
    .unwrap_or(last);
    let name = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .trim_matches(['-', '.'])
        .to_owned();
    if name.is_empty() {
        "server".to_owned()
    } else {
        name
    }
}

/// The working directory as the header records it: relative to the
/// transcript's directory when the two share more than the root, so the
/// transcript still works from another checkout; absolute otherwise.
pub(crate) fn relative_cwd(cwd: &Path, transcript: &Path) -> String {
    let dir = transcript
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let absolute =
        |path: &Path| -> PathBuf { std::fs::canonicalize(path).unwrap_or_else(|_| cwd.join(path)) };
    let cwd = absolute(cwd);
    let dir = absolute(dir);
    let cwd_parts: Vec<Component<'_>> = cwd.components().collect();
    let dir_parts: Vec<Component<'_>> = dir.components().collect();
    let common = cwd_parts
        .iter()
        .zip(&dir_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common <= 1 {
        return cwd.to_string_lossy().into_owned();
    }
    let mut relative = PathBuf::new();
    for _ in common..dir_parts.len() {
        relative.push("..");
    }
    for part in &cwd_parts[common..] {
        relative.push(part);
    }
    if relative.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        relative.to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn server_names_for_file_names() {
        let table: &[(&[&str], &str)] = &[
            (&["/usr/bin/my server"], "my-server"),
            (&["./target/release/my-mcp"], "my-mcp"),
            (
                &[
                    "npx",
                    "-y",
                    "@modelcontextprotocol/server-everything@latest",
                ],
                "server-everything",
            ),
            (&["npx", "-p", "pkg", "-y", "mcp-server-x"], "mcp-server-x"),
            (&["pnpm", "dlx", "@scope/srv@1.2.3"], "srv"),
            (&["yarn", "dlx", "srv"], "srv"),
            (&["bunx", "srv"], "srv"),
            (&["uvx", "mcp-server-time"], "mcp-server-time"),
            (
                &["uvx", "--from", "git+https://x/y", "mcp-server-git"],
                "mcp-server-git",
            ),
            (&["uv", "run", "--with", "mcp", "weather.py"], "weather"),
            (
                &["uv", "tool", "run", "mcp-server-fetch==0.6"],
                "mcp-server-fetch",
            ),
            (&["pipx", "run", "--spec", "x", "srv"], "srv"),
            (&["python3", "-m", "mcp_server_git"], "mcp_server_git"),
            (
                &["/usr/bin/python3.12", "-u", "mcp_server_time.py"],
                "mcp_server_time",
            ),
            (&["python", "-X", "utf8", "srv.py"], "srv"),
            (&["uv", "run", "python", "-m", "srv"], "srv"),
            (&["node", "--import", "tsx", "dist/index.js"], "index"),
            (&["deno", "run", "--allow-net", "main.ts"], "main"),
            (&["java", "-cp", "lib", "-jar", "server.jar"], "server"),
            (
                &["docker", "run", "-i", "--rm", "-e", "K=v", "mcp/fetch"],
                "fetch",
            ),
            (&["env", "-u", "X", "A=1", "npx", "-y", "srv@latest"], "srv"),
            (&["/usr/bin/env", "node", "srv.mjs"], "srv"),
            (&["sh", "-c", "exec npx -y srv 2>/dev/null"], "srv"),
            (&["bash", "run-server.sh"], "run-server.sh"),
            (&["node"], "node"),
            (&["python3", "-m"], "server"),
            (&["..."], "server"),
        ];
        for (command, name) in table {
            assert_eq!(server_name(&argv(command)), *name, "{command:?}");
        }
    }

    #[test]
    fn cwd_relative_to_the_transcript() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        std::fs::create_dir_all(root.join("repo/transcripts")).unwrap();
        let repo = root.join("repo");
        assert_eq!(relative_cwd(&repo, &repo.join("transcripts/s.jsonl")), "..");
        assert_eq!(relative_cwd(&repo, &repo.join("s.jsonl")), ".");
        assert_eq!(
            relative_cwd(&repo.join("transcripts"), &root.join("s.jsonl")),
            "repo/transcripts"
        );
        // Sharing only the root, the path stays absolute.
        assert_eq!(relative_cwd(Path::new("/"), &repo.join("s.jsonl")), "/");
    }

    #[test]
    fn numbered_names() {
        assert_eq!(
            numbered(Path::new("dir/t.jsonl"), 2),
            Path::new("dir/t-2.jsonl")
        );
        assert_eq!(numbered(Path::new("t"), 3), Path::new("t-3"));
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_draft_is_invisible_until_published() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let (draft, mut file) = Draft::open(Some(&path), false, &[]).unwrap();
        file.write_all(b"header\n").unwrap();
        assert!(!path.exists());
        let published = draft.publish(&mut Vec::new()).unwrap();
        assert_eq!(published.path, path);
        assert_eq!(std::fs::read(&path).unwrap(), b"header\n");
        assert_eq!(names(dir.path()), ["t.jsonl"]);
        // An unpublished draft leaves nothing behind.
        let other = dir.path().join("u.jsonl");
        drop(Draft::open(Some(&other), false, &[]).unwrap());
        assert_eq!(names(dir.path()), ["t.jsonl"]);
    }

    #[test]
    fn a_transcript_in_use_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let (first, mut first_file) = Draft::open(Some(&path), true, &[]).unwrap();
        first.publish(&mut Vec::new()).unwrap();
        let (second, mut second_file) = Draft::open(Some(&path), true, &[]).unwrap();
        let mut notes = Vec::new();
        let published = second.publish(&mut notes).unwrap();
        assert_eq!(published.path, dir.path().join("t-2.jsonl"));
        assert!(
            String::from_utf8(notes)
                .unwrap()
                .contains("is being recorded by another session"),
        );
        first_file.write_all(b"first\n").unwrap();
        second_file.write_all(b"second\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first\n");
        assert_eq!(std::fs::read(&published.path).unwrap(), b"second\n");

        // Once the first session is over, its transcript is replaced.
        drop(first_file);
        let (third, mut third_file) = Draft::open(Some(&path), true, &[]).unwrap();
        let published = third.publish(&mut Vec::new()).unwrap();
        assert_eq!(published.path, path);
        assert!(published.replaced.is_some());
        third_file.write_all(b"third\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"third\n");
        assert_eq!(names(dir.path()), ["t-2.jsonl", "t.jsonl"]);
    }

    /// `--force` never opens a FIFO or a device, whose open could wait
    /// past every signal the recorder passes on; a symbolic link that
    /// leads nowhere is a name taken without `--force`, and replaced with
    /// it, as a link to a finished transcript is.
    // See: #25
    #[test]
    fn force_refuses_what_is_no_regular_file_and_replaces_a_dangling_link() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.jsonl");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let err = Draft::open(Some(&fifo), true, &[]).unwrap_err();
        assert!(format!("{:?}", err).contains("(a FIFO)"), "{err:?}");
        let err = Draft::open(Some(Path::new("/dev/null")), true, &[]).unwrap_err();
        assert!(format!("{:?}", err).contains("character device"), "{err:?}");
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(dir.path().join("missing/t.jsonl"), &link).unwrap();
        let err = Draft::open(Some(&link), false, &[]).unwrap_err();
        assert!(matches!(err, RecordError::Exists { .. }), "{err}");
        let (draft, mut file) = Draft::open(Some(&link), true, &[]).unwrap();
        file.write_all(b"header\n").unwrap();
        let published = draft.publish(&mut Vec::new()).unwrap();
        assert_eq!(published.path, link);
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read(&link).unwrap(), b"header\n");
        assert_eq!(names(dir.path()), ["fifo.jsonl", "link.jsonl"]);
    }

    #[test]
    fn an_existing_transcript_is_refused_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, "keep").unwrap();
        let err = Draft::open(Some(&path), false, &[]).unwrap_err();
        assert!(matches!(err, RecordError::Exists { .. }), "{err}");
        // Created while the server was starting: still refused.
        let other = dir.path().join("u.jsonl");
        let (draft, _file) = Draft::open(Some(&other), false, &[]).unwrap();
        std::fs::write(&other, "theirs").unwrap();
        let err = draft.publish(&mut Vec::new()).unwrap_err();
        assert!(matches!(err, TranscriptError::Exists { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "theirs");
        assert_eq!(names(dir.path()), ["t.jsonl", "u.jsonl"]);
    }

    #[test]
    fn a_missing_directory_fails_before_anything_starts() {
        let dir = tempfile::tempdir().unwrap();
        let err = Draft::open(Some(&dir.path().join("no/such/t.jsonl")), true, &[]).unwrap_err();
        assert!(
            err.to_string().starts_with("cannot write transcript `"),
            "{err}"
        );
    }
}
