//! Where a run's report goes: one format on stdout and the files asked
//! for, the same for every command that reports (`check`, `fuzz`).
//!
//! A report format is added here, once: its flag in [`ReportArgs`] (which
//! both commands flatten into theirs) and its writing in
//! [`Emitter::emit`].

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::report::{self, ColorChoice, Palette, Report};
use crate::transcript::output;

/// The formats of a report on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for people.
    Human,
    /// JSON Lines for programs.
    Json,
}

/// The flags that say where the report goes.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// The report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also append a Markdown summary to FILE (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Also write a SARIF 2.1.0 log to FILE (for GitHub code scanning).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// List every law (and tool) of the human report, those that held too.
    #[arg(short, long)]
    pub verbose: bool,
    /// When to colour the human report.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

impl ReportArgs {
    /// Whether stdout gets the report for people.
    pub fn is_human(&self) -> bool {
        self.format == Format::Human
    }

    /// Opens, before the run, the files that must be writable for it to
    /// start: a path that cannot be written is a usage error found before
    /// anything runs, not after a long run.
    ///
    /// # Errors
    ///
    /// [`EmitError::Junit`] or [`EmitError::Sarif`] when the JUnit or
    /// SARIF file cannot be opened.
    pub fn open(&self) -> Result<Emitter<'_>, EmitError> {
        let junit = self
            .junit
            .as_deref()
            .map(|path| ReportFile::open(path, Kind::Junit))
            .transpose()?;
        let sarif = match self
            .sarif
            .as_deref()
            .map(|path| ReportFile::open(path, Kind::Sarif))
        {
            Some(Err(err)) => {
                if let Some(junit) = junit {
                    junit.discard();
                }
                return Err(err);
            }
            other => other.transpose()?,
        };
        Ok(Emitter {
            args: self,
            junit,
            sarif,
        })
    }
}

/// The report's destinations, open and waiting for the report.
#[derive(Debug)]
pub struct Emitter<'a> {
    args: &'a ReportArgs,
    junit: Option<ReportFile>,
    sarif: Option<ReportFile>,
}

/// A report that could not be written where it was asked to go.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// The JUnit file.
    #[error("cannot write the JUnit report `{}`", .path.display())]
    Junit {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// The SARIF log.
    #[error("cannot write the SARIF log `{}`", .path.display())]
    Sarif {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// The Markdown summary.
    #[error("cannot write the Markdown summary `{}`", .path.display())]
    Summary {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: io::Error,
    },
    /// Stdout.
    #[error(transparent)]
    Stdout(io::Error),
}

impl Emitter<'_> {
    /// The run did not start: leaves no file behind that it created.
    pub fn discard(self) {
        for file in [self.junit, self.sarif].into_iter().flatten() {
            file.discard();
        }
    }

    /// Writes `report` everywhere it goes: the files first, then `out`
    /// (stdout, coloured as `--color` says where `terminal`). Returns the
    /// exit status of the run.
    ///
    /// A file that fails to be written fails the run, but only once the
    /// report is out on stdout: the findings are not lost with it. A reader
    /// of stdout that stopped reading (`| head`) is no failure; an
    /// interrupted run still ends as its signal says.
    ///
    /// # Errors
    ///
    /// The first destination that could not be written.
    pub fn emit(self, report: &Report, out: impl Write, terminal: bool) -> Result<u8, EmitError> {
        let args = self.args;
        let junit = self.junit.and_then(|junit| junit.write(report).err());
        let sarif = self.sarif.and_then(|sarif| sarif.write(report).err());
        let summary = args
            .summary
            .as_deref()
            .and_then(|path| append_summary(report, path).err());
        let palette = Palette::choose(args.color, terminal);
        let mut out = io::BufWriter::new(out);
        let written = match args.format {
            Format::Human => report::human::render(report, &palette, args.verbose, &mut out),
            Format::Json => report::json::render(report, &mut out),
        }
        .and_then(|()| out.flush());
        drop(out);
        if let Some(failure) = junit.or(sarif).or(summary) {
            return Err(failure);
        }
        match written {
            Ok(()) => Ok(report.exit_code()),
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(report
                .interrupted
                .as_ref()
                .map_or(0, report::Interruption::exit_code)),
            Err(err) => Err(EmitError::Stdout(err)),
        }
    }
}

/// Which report a [`ReportFile`] holds.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// `--junit`.
    Junit,
    /// `--sarif`.
    Sarif,
}

/// A report file (`--junit`, `--sarif`), opened before the run so that a
/// path that cannot be written stops the run before it starts.
#[derive(Debug)]
struct ReportFile {
    kind: Kind,
    path: PathBuf,
    file: std::fs::File,
    /// The file did not exist before: a run that does not start removes it.
    created: bool,
}

impl ReportFile {
    fn error(kind: Kind, path: &Path, source: io::Error) -> EmitError {
        let path = path.to_owned();
        match kind {
            Kind::Junit => EmitError::Junit { path, source },
            Kind::Sarif => EmitError::Sarif { path, source },
        }
    }

    fn open(path: &Path, kind: Kind) -> Result<ReportFile, EmitError> {
        let created = !path.exists();
        // Not truncated yet: an old report stays whole until the new one
        // replaces it. A FIFO or a device is refused, not waited on.
        let file = output::open(path, output::Open::Write)
            .map_err(|source| ReportFile::error(kind, path, source))?;
        Ok(ReportFile {
            kind,
            path: path.to_owned(),
            file,
            created,
        })
    }

    /// Replaces the file's content with its rendering of `report`.
    fn write(mut self, report: &Report) -> Result<(), EmitError> {
        let mut text = Vec::new();
        match self.kind {
            Kind::Junit => report::junit::render(report, &mut text),
            Kind::Sarif => report::sarif::render(report, &mut text),
        }
        .expect("writing to a Vec cannot fail");
        self.file
            .set_len(0)
            .and_then(|()| self.file.write_all(&text))
            .and_then(|()| self.file.flush())
            .map_err(|source| ReportFile::error(self.kind, &self.path, source))
    }

    /// Leaves no file behind that the run created and did not write.
    fn discard(self) {
        if self.created {
            drop(self.file);
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Appends the Markdown summary to `path`: GitHub collects a step's
/// summary from what the step appends to one file.
fn append_summary(report: &Report, path: &Path) -> Result<(), EmitError> {
    let mut markdown = Vec::new();
    report::markdown::render(report, &mut markdown).expect("writing to a Vec cannot fail");
    // Opened without waiting: a FIFO no process reads would hold the run
    // past the signals it handles.
    output::open(path, output::Open::Append)
        .and_then(|mut file| file.write_all(&markdown))
        .map_err(|source| EmitError::Summary {
            path: path.to_owned(),
            source,
        })
}
