//! Planning a check run: which transcripts this share replays, against
//! which command and with which settings, and which commands it probes.

use std::collections::{BTreeSet, HashMap};
use std::io::BufReader;
use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use super::probes::ProbeOptions;
use super::{CheckError, CheckOptions, DEFAULT_DIR, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT};
use crate::compare::diff::IgnoreRules;
use crate::config::{self, Config};
use crate::laws::{LawId, Profile};
use crate::process::{ServerCommand, shell_quote};
use crate::replay::ReplayOptions;
use crate::report::{InputError, chain};
use crate::transcript::input::{Input, MAX_TRANSCRIPT_LINE, MAX_TRANSCRIPT_SIZE};
use crate::transcript::{
    FILL_ENV, Redaction, Transcript, TranscriptError, filler, line_too_long, read_line,
    with_fill_names,
};

/// One transcript of the run, with everything its replay needs but its
/// events: those are read by the job that replays it, so that a run holds
/// only the transcripts being replayed, not the whole corpus.
pub(super) struct Planned {
    pub(super) path: PathBuf,
    pub(super) command: ServerCommand,
    pub(super) replay: ReplayOptions,
    pub(super) waive: BTreeSet<LawId>,
    /// The whole transcript, for a file that can be read only once (a pipe,
    /// a FIFO): the planner read it, and the replay takes it.
    kept: Mutex<Option<Transcript>>,
}

impl Planned {
    /// The transcript to replay: the one the planner kept, or else the file
    /// read now.
    ///
    /// # Errors
    ///
    /// As [`Transcript::read`].
    pub(super) fn transcript(&self) -> Result<Transcript, TranscriptError> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        match kept {
            Some(transcript) => Ok(transcript),
            None => Transcript::read(&self.path),
        }
    }
}

/// One probe run of the run.
pub(super) struct PlannedProbe {
    pub(super) command: ServerCommand,
    pub(super) options: ProbeOptions,
    pub(super) waive: BTreeSet<LawId>,
}

/// The settings of one transcript (or of a probe-only run): the command line
/// over the directory config over the defaults.
#[derive(Clone)]
struct Settings {
    profile: Profile,
    waive: BTreeSet<LawId>,
    ignore: IgnoreRules,
    timeout: Duration,
    startup_timeout: Duration,
    settle: Duration,
    grace: Duration,
    /// The config's redaction settings, and the variables of `fill`.
    redaction: Redaction,
    /// The variables named for the run whose values fill placeholders.
    fill: Vec<String>,
    /// The bad flag of the CLI probes, when they run.
    cli: Option<String>,
    /// The tools the probes may call whatever their annotations say.
    tools: Vec<String>,
}

impl Settings {
    fn new(options: &CheckOptions, config: &Config) -> Settings {
        let probe_defaults = ProbeOptions::default();
        Settings {
            profile: options.profile.or(config.profile).unwrap_or_default(),
            waive: options.waive.iter().chain(&config.waive).copied().collect(),
            ignore: config.ignore.clone(),
            timeout: options
                .timeout
                .or(config.timeout)
                .unwrap_or(DEFAULT_TIMEOUT),
            startup_timeout: options
                .startup_timeout
                .or(config.startup_timeout)
                .unwrap_or(DEFAULT_STARTUP_TIMEOUT),
            settle: options
                .settle
                .or(config.settle)
                .unwrap_or(probe_defaults.settle),
            grace: options
                .grace
                .or(config.grace)
                .unwrap_or(probe_defaults.grace),
            // A value sent to a server is a secret wherever it comes back:
            // in live lines, in reports, in blessed transcripts.
            redaction: Redaction {
                env: with_fill_names(config.redaction.env.clone(), options.fill_env.clone()),
                patterns: config.redaction.patterns.clone(),
            },
            fill: options.fill_env.clone(),
            cli: options.cli_probes.clone(),
            tools: options.tools.clone(),
        }
    }

    fn probe_options(&self) -> ProbeOptions {
        ProbeOptions {
            profile: self.profile,
            settle: self.settle,
            timeout: self.timeout,
            startup_timeout: self.startup_timeout,
            grace: self.grace,
            redaction: self.redaction.clone(),
            cli: self.cli.clone(),
            tools: self.tools.clone(),
        }
    }
}

/// What a run will do: the transcripts of its share, the commands to probe,
/// and the inputs it already knows it cannot check.
pub(super) struct Plan {
    pub(super) transcripts: Vec<Planned>,
    pub(super) probes: Vec<PlannedProbe>,
    pub(super) errors: Vec<InputError>,
}

impl Plan {
    pub(super) fn new(options: &CheckOptions) -> Result<Plan, CheckError> {
        let override_command =
            (!options.command.is_empty()).then(|| ServerCommand::new(options.command.clone()));
        let mut skipped = Vec::new();
        let files = collect(options, override_command.is_some(), &mut skipped)?;
        let allowed = Allowed::new(options)?;
        // Files left out are reported, even when nothing else is checked.
        if files.is_empty() && !options.probes && skipped.is_empty() {
            return Err(CheckError::NothingToDo);
        }
        let mut configs = Configs::default();
        let mut plan = Plan {
            transcripts: Vec::new(),
            probes: Vec::new(),
            errors: skipped,
        };
        // Each distinct command is probed once. The commands, in the order
        // of their first transcripts, are dealt round-robin across the
        // shares like the transcripts themselves, so every share knows the
        // whole list (it reads the headers of the transcripts it does not
        // replay) and probe runs spread evenly whatever the corpus holds.
        let mut owners: Vec<(ServerCommand, Settings)> = Vec::new();
        if let Some(command) = &override_command {
            let settings = match files.first() {
                Some((file, root)) => configs.settings(options, file, root)?,
                // No transcript to take settings from: those `transcripts/`
                // would get, so that the probes alone are graded as the
                // same probes with the transcripts are.
                None => configs.settings_in(options, Path::new(DEFAULT_DIR), Path::new(""))?,
            };
            owners.push((command.clone(), settings));
        }
        for (position, (file, root)) in files.iter().enumerate() {
            let owned = options.partition.owns(position);
            if !owned {
                // Another share replays it; this one only needs to know
                // whether its command is first seen there.
                if options.probes
                    && override_command.is_none()
                    && let Some(command) = header_command(file, &allowed)
                    && !owners.iter().any(|(known, ..)| *known == command)
                {
                    owners.push((command, configs.settings(options, file, root)?));
                }
                continue;
            }
            let settings = configs.settings(options, file, root)?;
            match plan_transcript(
                file,
                &settings,
                override_command.as_ref(),
                &allowed,
                options.bless,
            ) {
                Ok(planned) => {
                    if !owners.iter().any(|(known, ..)| *known == planned.command) {
                        owners.push((planned.command.clone(), settings));
                    }
                    plan.transcripts.push(planned);
                }
                Err(error) => {
                    // The other shares know its command from the header
                    // alone; so must this one, to deal the same list.
                    if options.probes
                        && override_command.is_none()
                        && let Some(command) = header_command(file, &allowed)
                        && !owners.iter().any(|(known, ..)| *known == command)
                    {
                        owners.push((command, settings));
                    }
                    plan.errors.push(error);
                }
            }
        }
        if options.probes {
            plan.probes = owners
                .into_iter()
                .enumerate()
                .filter(|(index, _)| options.partition.owns(*index))
                .map(|(_, (command, settings))| PlannedProbe {
                    options: settings.probe_options(),
                    waive: settings.waive,
                    command,
                })
                .collect();
        }
        Ok(plan)
    }
}

/// Reads one transcript's header and works out how to replay it.
fn plan_transcript(
    file: &Path,
    settings: &Settings,
    override_command: Option<&ServerCommand>,
    allowed: &Allowed,
    bless: bool,
) -> Result<Planned, InputError> {
    let error = |message: String| InputError {
        path: Some(file.to_owned()),
        message,
    };
    let (head, kept) = read_header(file).map_err(|err| error(chain(&err)))?;
    let command = match override_command {
        Some(command) => command.clone(),
        None => recorded_command(&head, base_dir(file, kept.is_none()), allowed)
            .map_err(error)?
            .ok_or_else(|| {
                error(format!(
                    "{}:1: the header records no server command; give one after `--`",
                    file.display()
                ))
            })?,
    };
    let mut ignore = IgnoreRules::parse(head.header.ignore.iter().map(String::as_str))
        .map_err(|message| error(format!("{}:1: {message}", file.display())))?;
    ignore.extend(&settings.ignore);
    let mut bless_hint = format!(
        "mcp-replay check --bless {}",
        shell_quote(&file.display().to_string())
    );
    if let Some(command) = override_command {
        bless_hint.push_str(" -- ");
        bless_hint.push_str(&command.display());
    }
    Ok(Planned {
        replay: ReplayOptions {
            profile: settings.profile,
            timeout: settings.timeout,
            startup_timeout: settings.startup_timeout,
            grace: settings.grace,
            ignore,
            keep_live: bless,
            bless_hint,
            redaction: settings.redaction.clone(),
            fill: settings.fill.clone(),
            fill_hint: |name| {
                format!("`--fill-env {name}` (or `{name}` in `{FILL_ENV}` where `check` runs)")
            },
            command_left: match override_command {
                Some(_) => Vec::new(),
                None => command
                    .argv
                    .iter()
                    .filter(|arg| arg.contains("[REDACTED:"))
                    .cloned()
                    .collect(),
            },
        },
        path: file.to_owned(),
        command,
        waive: settings.waive.clone(),
        kept: Mutex::new(kept),
    })
}

/// The directory configs read so far, by file.
#[derive(Default)]
struct Configs(HashMap<PathBuf, Config>);

impl Configs {
    /// The settings of the transcript `file` found under `root`.
    fn settings(
        &mut self,
        options: &CheckOptions,
        file: &Path,
        root: &Path,
    ) -> Result<Settings, CheckError> {
        self.settings_in(options, file.parent().unwrap_or(Path::new("")), root)
    }

    /// The settings of the transcripts of the directory `dir` under `root`.
    fn settings_in(
        &mut self,
        options: &CheckOptions,
        dir: &Path,
        root: &Path,
    ) -> Result<Settings, CheckError> {
        let Some(path) = config::find(dir, root) else {
            return Ok(Settings::new(options, &Config::default()));
        };
        if !self.0.contains_key(&path) {
            let config = Config::read(&path)?;
            self.0.insert(path.clone(), config);
        }
        Ok(Settings::new(options, &self.0[&path]))
    }
}

/// The transcripts the run's paths name, sorted, each with the directory
/// its config search stops at.
///
/// Files a directory holds that are not regular ones (a FIFO, a device, a
/// socket) are left out, each with an error in `skipped`: reading one could
/// wait forever, or never end.
fn collect(
    options: &CheckOptions,
    has_command: bool,
    skipped: &mut Vec<InputError>,
) -> Result<Vec<(PathBuf, PathBuf)>, CheckError> {
    if !options.replay {
        return if has_command {
            Ok(Vec::new())
        } else {
            Err(CheckError::NoTranscripts {
                what: "nothing (replay is off and no server command was given)".to_owned(),
            })
        };
    }
    let defaulted = options.paths.is_empty();
    let paths = if defaulted {
        let default = PathBuf::from(DEFAULT_DIR);
        if !default.exists() {
            return if has_command {
                Ok(Vec::new())
            } else {
                Err(CheckError::NoTranscripts {
                    what: format!("`{DEFAULT_DIR}/` (it does not exist)"),
                })
            };
        }
        vec![default]
    } else {
        options.paths.clone()
    };
    let mut files = Vec::new();
    for path in &paths {
        let meta = std::fs::metadata(path).map_err(|source| CheckError::Path {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            walk(path, path, &mut files, skipped).map_err(|source| CheckError::Path {
                path: path.clone(),
                source,
            })?;
        } else {
            let root = match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
                _ => PathBuf::from("."),
            };
            files.push((path.clone(), root));
        }
    }
    if options.confine_to_cwd {
        for path in &paths {
            confined(path)?;
        }
        for (file, _) in &files {
            confined(file)?;
        }
    }
    let cwd = std::env::current_dir().ok();
    for (file, root) in &mut files {
        if let Some(within) = cwd_root(file, cwd.as_deref()) {
            *root = within;
        }
    }
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    if files.is_empty() && !has_command && skipped.is_empty() {
        let what = paths
            .iter()
            .map(|path| format!("`{}`", path.display()))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(CheckError::NoTranscripts { what });
    }
    Ok(files)
}

/// Where the config search of `file` stops when it lies inside the current
/// directory `cwd`: the current directory itself, so that a transcript
/// named alone (as a bless hint names it) gets the settings it gets when
/// its directory is checked. `None` for a file outside it.
fn cwd_root(file: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    use std::path::Component;
    if file.is_relative() {
        let inside = file
            .components()
            .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
        return inside.then(PathBuf::new);
    }
    let cwd = cwd?;
    file.starts_with(cwd).then(|| cwd.to_owned())
}

/// Every `*.jsonl` below `dir`, skipping hidden directories; a `*.jsonl`
/// that is not a regular file (after symbolic links) goes to `skipped`.
fn walk(
    dir: &Path,
    root: &Path,
    files: &mut Vec<(PathBuf, PathBuf)>,
    skipped: &mut Vec<InputError>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if entry.file_type()?.is_dir() {
            if !hidden {
                walk(&path, root, files, skipped)?;
            }
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
            // A link that leads nowhere is kept: reading it names the error.
            match std::fs::metadata(&path) {
                Ok(meta) if !meta.is_file() => skipped.push(InputError {
                    message: format!(
                        "`{}` is not a regular file ({}); skipped",
                        path.display(),
                        file_kind(meta.file_type())
                    ),
                    path: Some(path),
                }),
                _ => files.push((path, root.to_owned())),
            }
        }
    }
    Ok(())
}

/// What a file that is not a regular one is, in words.
fn file_kind(kind: std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a file"
    }
}

/// What the person running `check` allows a transcript's header: the
/// directory trees its recorded `cwd` may lead into (the one `check` runs
/// in, and each `--allow-cwd`, symbolic links resolved), and the variables
/// whose values may fill the placeholders of its command (`--fill-env`).
/// A transcript is a program: its header says what runs, where, and with
/// what, so it runs nowhere and gets nothing the person did not allow.
pub(super) struct Allowed {
    roots: Vec<PathBuf>,
    fill: Vec<String>,
}

impl Allowed {
    fn new(options: &CheckOptions) -> Result<Allowed, CheckError> {
        let resolve = |path: &Path| {
            path.canonicalize().map_err(|source| CheckError::Path {
                path: path.to_owned(),
                source,
            })
        };
        let mut roots = vec![resolve(Path::new("."))?];
        for dir in &options.allow_cwd {
            roots.push(resolve(dir)?);
        }
        Ok(Allowed {
            roots,
            fill: options.fill_env.clone(),
        })
    }

    /// Whether the recorded `cwd` of the transcript `file`, taken from
    /// `dir` (see [`base_dir`]), leads inside the allowed trees; the error
    /// (file:line) says where it leads instead.
    fn cwd(&self, file: &Path, dir: &Path, cwd: &str) -> Result<(), String> {
        // The transcript was read from there; should its directory be gone
        // since, the `cwd` is still held to the bounds, taken as written.
        let base = dir.canonicalize().unwrap_or_else(|_| {
            std::env::current_dir()
                .unwrap_or_else(|_| PathBuf::from("/"))
                .join(dir)
        });
        let resolved = resolve_beneath(&base, Path::new(cwd));
        if self.roots.iter().any(|root| resolved.starts_with(root)) {
            return Ok(());
        }
        let roots: Vec<String> = self
            .roots
            .iter()
            .map(|root| format!("`{}`", root.display()))
            .collect();
        let within = match roots.as_slice() {
            [only] => format!("the directory `check` runs in ({only})"),
            _ => format!(
                "the directories a recorded server may run in ({})",
                roots.join(", ")
            ),
        };
        Err(format!(
            "{}:1: the header's `cwd` ({}) leads to `{}`, outside {within}: a transcript's server runs only where the person running `check` allows; pass `--allow-cwd {}` to run it there, or give a server command after `--`",
            file.display(),
            serde_json::Value::from(cwd),
            resolved.display(),
            shell_quote(&resolved.display().to_string()),
        ))
    }
}

/// Whether `path` leads inside the current directory, `..` and symbolic
/// links followed as the OS will follow them; the error says where it
/// leads instead.
pub(super) fn confined(path: &Path) -> Result<(), CheckError> {
    let root = Path::new(".")
        .canonicalize()
        .map_err(|source| CheckError::Path {
            path: PathBuf::from("."),
            source,
        })?;
    let resolved = resolve_beneath(&root, path);
    if resolved.starts_with(&root) {
        return Ok(());
    }
    Err(CheckError::Outside {
        path: path.to_owned(),
        resolved,
        root,
    })
}

/// `relative` resolved against the directory `base` (itself resolved), as
/// the OS will resolve it: `..` and symbolic links followed one component
/// at a time, and the components that do not exist (yet) taken as they
/// are written.
fn resolve_beneath(base: &Path, relative: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = base.to_owned();
    for component in relative.components() {
        match component {
            Component::RootDir => out = PathBuf::from("/"),
            Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                // A symbolic link leads elsewhere: follow it, so that a
                // `..` after it leaves where the OS would leave.
                if let Ok(real) = out.canonicalize() {
                    out = real;
                }
            }
        }
    }
    out
}

/// The directory a transcript's relative `cwd` is taken from: the
/// directory of the file, or for one that is not a regular file (a pipe, a
/// FIFO, stdin: `check <(cat t.jsonl)` reads `/dev/fd/63`) the directory
/// `check` runs in, since the path names no directory the transcript was
/// kept in.
fn base_dir(file: &Path, regular: bool) -> &Path {
    match file.parent() {
        Some(dir) if regular && !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The server command a transcript records: its argv, run in its `cwd`
/// resolved against `dir` ([`base_dir`]; the caller's directory when it
/// records none); `Ok(None)` when it records no command, and an error
/// (file:line) when its `cwd` leads outside the trees `allowed` holds.
fn recorded_command(
    transcript: &Transcript,
    dir: &Path,
    allowed: &Allowed,
) -> Result<Option<ServerCommand>, String> {
    let header = &transcript.header;
    if header.command.is_empty() {
        return Ok(None);
    }
    // The recorder redacts secrets in the command too: the values of the
    // variables named for the run go back in their places, and no others.
    let restorer = filler(&allowed.fill, |name| std::env::var(name).ok());
    let argv = header
        .command
        .iter()
        .map(|arg| String::from_utf8_lossy(&restorer.restore(arg.as_bytes())).into_owned())
        .collect();
    let mut command = ServerCommand::new(argv);
    if let Some(cwd) = &header.cwd {
        allowed.cwd(&transcript.path, dir, cwd)?;
        command = command.in_dir(dir.join(cwd));
    }
    Ok(Some(command))
}

/// The command of a transcript another share replays, read from its header
/// alone; `None` when the header is unusable (its share reports it), and
/// for a file that is not a regular one, which can be read only once (and
/// only by the share that replays it).
fn header_command(path: &Path, allowed: &Allowed) -> Option<ServerCommand> {
    if !std::fs::metadata(path).is_ok_and(|meta| meta.is_file()) {
        return None;
    }
    recorded_command(&read_header(path).ok()?.0, base_dir(path, true), allowed)
        .ok()
        .flatten()
}

/// A transcript's first line alone: its header, and no events. A file that
/// is not a regular one (a pipe, a FIFO) can be read only once, so it is
/// read whole (within the limits and deadline of [`Transcript::read`]), and
/// the whole transcript is returned too, for its replay.
///
/// # Errors
///
/// As [`Transcript::read`], for the first line.
fn read_header(path: &Path) -> Result<(Transcript, Option<Transcript>), TranscriptError> {
    let io_error = |source| TranscriptError::Read {
        path: path.to_owned(),
        source,
    };
    let input = Input::open(path, MAX_TRANSCRIPT_SIZE).map_err(io_error)?;
    if !input.is_regular() {
        let whole = Transcript::from_reader(BufReader::new(input), path)?;
        let head = Transcript {
            path: whole.path.clone(),
            header: whole.header.clone(),
            events: Vec::new(),
            warnings: Vec::new(),
        };
        return Ok((head, Some(whole)));
    }
    let mut first = Vec::new();
    let complete =
        read_line(&mut BufReader::new(input), &mut first, MAX_TRANSCRIPT_LINE).map_err(io_error)?;
    if first.len() > MAX_TRANSCRIPT_LINE {
        return Err(line_too_long(path, 1, MAX_TRANSCRIPT_LINE));
    }
    if complete == Some(true) {
        first.push(b'\n');
    }
    Ok((Transcript::from_reader(first.as_slice(), path)?, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `cwd` resolves as the OS resolves it: through symbolic links one
    /// component at a time, with `..` after a link leaving the link's
    /// target, and components that do not exist taken as written.
    #[test]
    fn a_recorded_cwd_resolves_through_links_and_missing_parts() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("sub")).unwrap();
        std::os::unix::fs::symlink(&target, base.join("link")).unwrap();
        let resolve = |cwd: &str| resolve_beneath(&base, Path::new(cwd));
        assert_eq!(resolve("."), base);
        assert_eq!(resolve("sub/./"), base.join("sub"));
        assert_eq!(resolve("sub/.."), base);
        assert_eq!(resolve("link"), target);
        assert_eq!(resolve("link/.."), target.parent().unwrap());
        assert_eq!(resolve("missing/../sub"), base.join("sub"));
        assert_eq!(resolve("missing/deeper"), base.join("missing/deeper"));
        assert_eq!(resolve("/"), Path::new("/"));
        assert_eq!(resolve("../../../../../../../../.."), Path::new("/"));
    }
}
