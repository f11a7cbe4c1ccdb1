//! Text from outside, escaped for the sink it goes to.
//!
//! A server's output, its stderr, a tool's name, an error message, a
//! transcript's content, a path: none of it is the report's own, and all of
//! it reaches a terminal, a CI log, a Markdown page, a JUnit file or a JSON
//! line. Each sink has one function here, and the renderers write outside
//! text through them alone:
//!
//! - [`line()`] and [`lines`]: plain text, for a terminal, a log line,
//!   stderr, the body of a code block. No control character, no escape
//!   sequence (ESC, CSI, OSC, BEL, C1 controls) and no character that
//!   reorders or hides text (bidirectional overrides and isolates,
//!   zero-width characters, line and paragraph separators, the byte order
//!   mark) goes out raw: each is written as `\u{1b}` (`\n`, `\r`, `\t` for
//!   those three), so the text shows what was there and steers nothing.
//!   GitHub Actions runs a log line as a workflow command when it starts
//!   with `::` after blanks (`::add-mask::`, `::error file=…::`,
//!   `::stop-commands::`), or holds `##[` anywhere (the older form): the
//!   first colon of such a start becomes `\u{3a}`, and the second `#` of
//!   `##[` becomes `\u{23}`.
//! - [`markdown`]: inline text of a Markdown page that GitHub renders as
//!   HTML, on one line: newlines as spaces, [`line()`], then the characters Markdown or HTML
//!   would read as markup as character references.
//! - [`xml_text`] and [`xml_attribute`]: [`lines`] and [`line()`], then XML's
//!   escapes; a character XML cannot hold is written as its `\u{…}` form
//!   above.
//! - [`json`]: a serialized JSON text, escaped once more where JSON itself
//!   allows a raw character: DEL, C1 controls and the characters that
//!   reorder or hide text become `\uXXXX`, and the second `#` of `##[`
//!   becomes `\u0023`; a JSON reader gets back exactly the text it got
//!   before, and pretty JSON keeps its lines. SARIF, being JSON, goes
//!   through it too.
//!
//! What the escaping changes is only ever made visible, never dropped: a
//! report still says what a server wrote.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is never written raw to a sink that shows text: a control
/// character (C0, DEL, C1), or one that reorders or hides text.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

/// Whether the plain-text escaping leaves `text` as it is.
fn plain_already(text: &str, keep_newlines: bool) -> bool {
    !text.contains("##[")
        && !text
            .chars()
            .any(|c| hidden(c) && !(keep_newlines && (c == '\n' || c == '\t')))
        && !text.split('\n').any(starts_a_command)
}

/// Whether `line` starts with `::` after blanks, as a workflow command does.
fn starts_a_command(line: &str) -> bool {
    line.trim_start_matches(char::is_whitespace)
        .starts_with("::")
}

/// Appends `c` in its escaped form: `\n`, `\r`, `\t`, or `\u{…}`.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// One line of `text` (or all of it, `keep_newlines`), escaped.
fn plain(text: &str, keep_newlines: bool) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (index, part) in text.split('\n').enumerate() {
        if index > 0 {
            if keep_newlines {
                out.push('\n');
            } else {
                push_escaped(&mut out, '\n');
            }
        }
        let mut rest = part;
        if starts_a_command(part) {
            let blanks = part.len() - part.trim_start_matches(char::is_whitespace).len();
            for c in part[..blanks].chars() {
                if hidden(c) && !(keep_newlines && c == '\t') {
                    push_escaped(&mut out, c);
                } else {
                    out.push(c);
                }
            }
            push_escaped(&mut out, ':');
            rest = &part[blanks + 1..];
        }
        let mut chars = rest.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if c == '#' && rest[at + 1..].starts_with("#[") {
                out.push('#');
                let (_, second) = chars.next().expect("`##[` has a second `#`");
                push_escaped(&mut out, second);
            } else if hidden(c) && !(keep_newlines && c == '\t') {
                push_escaped(&mut out, c);
            } else {
                out.push(c);
            }
        }
    }
    out
}

/// `text` for one line of plain text (a terminal, a log line, stderr):
/// newlines and every other control character escaped, and no workflow
/// command left in it.
pub fn line(text: &str) -> Cow<'_, str> {
    if plain_already(text, false) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(plain(text, false))
    }
}

/// `text` for several lines of plain text (a diff, the body of a code
/// block): as [`line()`], but newlines and tabs kept, and each line kept
/// from starting a workflow command.
pub fn lines(text: &str) -> Cow<'_, str> {
    if plain_already(text, true) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(plain(text, true))
    }
}

/// `text` as inline text of a Markdown page rendered as HTML, on one line:
/// newlines as spaces, [`line()`], then `&`, `<`, `>`, `|`, `` ` ``, `*`, `_`, `[`, `]`, `\`, `#`
/// and `~` as character references, so that nothing breaks a table cell
/// or becomes markup.
pub fn markdown(text: &str) -> String {
    // A newline inside a cell or a summary reads best as a space, as
    // Markdown itself would show it.
    let text = text.replace(['\n', '\r'], " ");
    let text = line(&text);
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '|' => escaped.push_str("&#124;"),
            '`' => escaped.push_str("&#96;"),
            // Entities, not backslashes: these lines are read as HTML as
            // well as Markdown (a `<summary>` line is raw HTML), and a
            // backslash shows there as it is.
            '*' | '_' | '[' | ']' | '\\' | '#' | '~' => {
                let _ = write!(escaped, "&#{};", u32::from(c));
            }
            c => escaped.push(c),
        }
    }
    escaped
}

/// XML's own escapes of `text`, which [`line()`] or [`lines`] made free of
/// characters XML cannot hold.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// `text` as the content of an XML element: [`lines`], then XML's escapes.
pub fn xml_text(text: &str) -> String {
    xml(&lines(text))
}

/// `text` as an XML attribute value, on one line: [`line()`], then XML's
/// escapes.
pub fn xml_attribute(text: &str) -> String {
    xml(&line(text))
}

/// `serialized`, one JSON text, with what JSON allows raw but a terminal or
/// a CI log would act on written as escapes: DEL, C1 controls and the
/// characters that reorder or hide text as `\uXXXX`, and `##[` as
/// `#\u0023[`. Such characters occur only inside strings, so the JSON
/// means what it meant.
pub fn json(serialized: &str) -> Cow<'_, str> {
    // A raw newline, return or tab is whitespace between tokens (of pretty
    // JSON): inside a string, JSON has them escaped already.
    let raw = |c: char| hidden(c) && !matches!(c, '\n' | '\r' | '\t');
    if !serialized.contains("##[") && !serialized.chars().any(raw) {
        return Cow::Borrowed(serialized);
    }
    let mut out = String::with_capacity(serialized.len() + 16);
    let mut chars = serialized.char_indices();
    while let Some((at, c)) = chars.next() {
        if c == '#' && serialized[at + 1..].starts_with("#[") {
            out.push_str("#\\u0023");
            chars.next();
        } else if raw(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of hostile string the sinks must hold.
    const HOSTILE: &[&str] = &[
        "\u{1b}[2J\u{1b}]0;owned\u{7}",
        "\u{9b}31m C1 CSI",
        "bell\u{7} del\u{7f}",
        "right\u{202e}gnp.exe",
        "zero\u{200b}width\u{2028}separator\u{feff}",
        "::add-mask::secret",
        "  ::error file=x.rs,line=1::all laws held",
        "\t::stop-commands::token",
        "text ##[error]old form",
        "first\n::notice::second line\r\n##[group]x",
    ];

    /// What no output line may hold: a raw character that steers or hides,
    /// a line that starts a workflow command, `##[`.
    fn assert_inert(out: &str, newlines: bool) {
        for c in out.chars() {
            let allowed = newlines && (c == '\n' || c == '\t');
            assert!(!hidden(c) || allowed, "{c:?} in {out:?}");
        }
        assert!(!out.contains("##["), "{out:?}");
        for line in out.split('\n') {
            assert!(!starts_a_command(line), "{line:?} in {out:?}");
        }
    }

    #[test]
    fn plain_text_shows_what_was_there_and_steers_nothing() {
        for text in HOSTILE {
            assert_inert(&line(text), false);
            assert_inert(&lines(text), true);
            assert_inert(&markdown(text), false);
            assert_inert(&xml_text(text), true);
            assert_inert(&xml_attribute(text), false);
        }
        assert_eq!(line("\u{1b}[2Jready\0\t"), "\\u{1b}[2Jready\\u{0}\\t");
        assert_eq!(line("a\nb"), "a\\nb");
        assert_eq!(lines("a\n\tb"), "a\n\tb");
        assert_eq!(line("right\u{202e}left"), "right\\u{202e}left");
        assert_eq!(line("::add-mask::x"), "\\u{3a}:add-mask::x");
        assert_eq!(line(" ::error::x"), " \\u{3a}:error::x");
        assert_eq!(lines("ok\n  ::warning::x"), "ok\n  \\u{3a}:warning::x");
        assert_eq!(line("a ##[error]b"), "a #\\u{23}[error]b");
        assert_eq!(line("###[x"), "##\\u{23}[x");
        // Text with nothing to escape is not copied.
        assert!(matches!(line("a: b :: c # [d]"), Cow::Borrowed(_)));
        assert!(matches!(lines("a\n\tb"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_and_xml_escape_their_markup_after_the_text() {
        assert_eq!(
            markdown("a | b <script> `x` *y* [z](u)\nnext"),
            "a &#124; b &lt;script&gt; &#96;x&#96; &#42;y&#42; &#91;z&#93;(u) next"
        );
        assert_eq!(markdown("\u{1b}[1m"), "&#92;u{1b}&#91;1m");
        assert_eq!(
            xml_text("a<b>&\"c\"'d'\u{1}\ttab\n"),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\\u{1}\ttab\n"
        );
        assert_eq!(xml_attribute("a\nb"), "a\\nb");
    }

    #[test]
    fn json_reads_back_to_the_same_text() {
        for text in HOSTILE {
            let serialized = serde_json::to_string(&serde_json::json!({"m": text})).unwrap();
            let escaped = json(&serialized);
            assert_inert(&escaped, false);
            let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
            assert_eq!(back["m"], *text);
        }
        let plain = r#"{"a":"b # [c]"}"#;
        assert!(matches!(json(plain), Cow::Borrowed(_)));
        // Pretty JSON keeps its lines.
        let pretty = serde_json::to_string_pretty(&serde_json::json!({"m": HOSTILE})).unwrap();
        let escaped = json(&pretty);
        assert_eq!(escaped.lines().count(), pretty.lines().count());
        assert_inert(&escaped, true);
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back["m"], serde_json::json!(HOSTILE));
    }
}
