//! Colours by role, for the human report on a terminal.

use super::Status;

/// The escape sequences the human report uses, named by role.
///
/// [`Palette::plain`] has none, for pipes, files, `NO_COLOR` and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    pass: &'static str,
    fail: &'static str,
    warn: &'static str,
    quiet: &'static str,
    added: &'static str,
    removed: &'static str,
    hunk: &'static str,
    emphasis: &'static str,
    reset: &'static str,
}

impl Palette {
    /// No colour at all.
    pub fn plain() -> Palette {
        Palette {
            pass: "",
            fail: "",
            warn: "",
            quiet: "",
            added: "",
            removed: "",
            hunk: "",
            emphasis: "",
            reset: "",
        }
    }

    /// ANSI colours for a terminal.
    pub fn ansi() -> Palette {
        Palette {
            pass: "\x1b[32m",
            fail: "\x1b[1;31m",
            warn: "\x1b[33m",
            quiet: "\x1b[2m",
            added: "\x1b[32m",
            removed: "\x1b[31m",
            hunk: "\x1b[36m",
            emphasis: "\x1b[1m",
            reset: "\x1b[0m",
        }
    }

    /// The palette `--color` asks for. `auto` colours only when stdout is a
    /// terminal, `NO_COLOR` is unset or empty, and `TERM` is not `dumb`.
    pub fn choose(choice: ColorChoice, stdout_is_terminal: bool) -> Palette {
        Palette::choose_in(choice, stdout_is_terminal, |name| std::env::var_os(name))
    }

    /// [`Palette::choose`] with the environment read through `env`.
    fn choose_in(
        choice: ColorChoice,
        stdout_is_terminal: bool,
        env: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Palette {
        let auto = || {
            stdout_is_terminal
                && env("NO_COLOR").is_none_or(|value| value.is_empty())
                && env("TERM").is_none_or(|term| term != "dumb")
        };
        match choice {
            ColorChoice::Always => Palette::ansi(),
            ColorChoice::Never => Palette::plain(),
            ColorChoice::Auto if auto() => Palette::ansi(),
            ColorChoice::Auto => Palette::plain(),
        }
    }

    /// `text` in the colour of `status`.
    pub(crate) fn status(&self, status: Status, text: &str) -> String {
        let color = match status {
            Status::Pass => self.pass,
            Status::Fail | Status::Error | Status::Stale => self.fail,
            Status::Warn | Status::Known => self.warn,
            Status::Skip | Status::Waived => self.quiet,
        };
        self.paint(color, text)
    }

    /// One line of a unified diff, coloured by its kind.
    pub(crate) fn diff_line(&self, line: &str) -> String {
        let color = if line.starts_with("@@") {
            self.hunk
        } else if line.starts_with("+++") || line.starts_with("---") {
            self.emphasis
        } else if line.starts_with('+') {
            self.added
        } else if line.starts_with('-') {
            self.removed
        } else {
            ""
        };
        self.paint(color, line)
    }

    /// `text` in bold.
    pub(crate) fn emphasis(&self, text: &str) -> String {
        self.paint(self.emphasis, text)
    }

    /// `text` dimmed.
    pub(crate) fn quiet(&self, text: &str) -> String {
        self.paint(self.quiet, text)
    }

    fn paint(&self, color: &str, text: &str) -> String {
        if color.is_empty() {
            text.to_owned()
        } else {
            format!("{color}{text}{}", self.reset)
        }
    }
}

/// When to colour the human report (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ColorChoice {
    /// When stdout is a terminal and neither `NO_COLOR` nor `TERM=dumb` say
    /// otherwise.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_adds_nothing_and_ansi_resets() {
        assert_eq!(Palette::plain().status(Status::Fail, "FAIL"), "FAIL");
        assert_eq!(
            Palette::ansi().status(Status::Pass, "PASS"),
            "\x1b[32mPASS\x1b[0m"
        );
        assert_eq!(Palette::ansi().diff_line(" same"), " same");
    }

    #[test]
    fn auto_colours_a_terminal_unless_no_color_or_a_dumb_terminal_say_otherwise() {
        let with = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(var, _)| *var == name)
                    .map(|(_, value)| value.into())
            }
        };
        let auto = |terminal, vars| Palette::choose_in(ColorChoice::Auto, terminal, with(vars));
        assert_eq!(auto(true, &[("TERM", "xterm")]), Palette::ansi());
        assert_eq!(auto(true, &[]), Palette::ansi());
        assert_eq!(auto(false, &[("TERM", "xterm")]), Palette::plain());
        assert_eq!(auto(true, &[("NO_COLOR", "1")]), Palette::plain());
        // An empty NO_COLOR is unset, as no-color.org has it.
        assert_eq!(auto(true, &[("NO_COLOR", "")]), Palette::ansi());
        assert_eq!(auto(true, &[("TERM", "dumb")]), Palette::plain());
        // An explicit choice wins over the environment.
        let always = Palette::choose_in(ColorChoice::Always, false, with(&[("NO_COLOR", "1")]));
        assert_eq!(always, Palette::ansi());
    }

    #[test]
    fn never_and_always_ignore_the_terminal() {
        assert_eq!(Palette::choose(ColorChoice::Never, true), Palette::plain());
        assert_eq!(Palette::choose(ColorChoice::Always, false), Palette::ansi());
        assert_eq!(Palette::choose(ColorChoice::Auto, false), Palette::plain());
    }
}
