//! The snippets of README.md and docs/ held to code the build compiles and
//! to output the tests produce, so that they cannot drift.
//!
//! - A Rust block (fenced `rust`, never `rust,ignore` or `no_run`) is a
//!   verbatim part, at some indentation, of a source that `cargo test`
//!   compiles: `examples/hello-server.rs` (the 30-line server, whole),
//!   `examples/notes.rs` (the walkthrough's server, with its in-process
//!   tests), `examples/demo-server.rs`, `tests/in_process.rs`.
//! - A sample of output (a block fenced with no language, or `text`) says
//!   where it comes from in an HTML comment on the line before it:
//!   `<!-- sample: tests/golden/NAME -->`, a golden file that a test writes
//!   (the block equals it, times such as `0.006s` aside), or
//!   `<!-- sample: PATH.rs -->`, a test that asserts the block's text as a
//!   string literal, or `<!-- sample: read by PATH.rs -->`, a test that
//!   reads the page itself, runs what it shows and compares (it names the
//!   page). A block that is no output (a diagram) says
//!   `<!-- figure -->`. A JSON block may carry a sample comment too.
//! - A shell block (fenced `sh`): every `mcp-replay` command line in it
//!   (also as `cargo run -- …`, `npx`, `uvx` or `pipx run`) parses as the
//!   command line the build declares, so no page shows a command or a flag
//!   that does not exist; what the commands print is held by the samples
//!   and the CLI tests.

use std::path::Path;

/// One fenced block of a Markdown file.
#[derive(Debug)]
struct Block {
    /// `file:line` of the opening fence.
    at: String,
    /// The fence's info string (`rust`, `sh`, empty).
    info: String,
    /// The lines between the fences, each with its newline.
    text: String,
    /// What the HTML comment on the line before the fence says, if any.
    comment: Option<String>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file of docs/, by path from the root.
fn documents() -> Vec<String> {
    let mut paths = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.expect("docs/ lists").file_name())
        .filter_map(|name| name.to_str().map(str::to_owned))
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
}

/// The fenced blocks of the Markdown file at `path`.
fn blocks(path: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(path)).expect("the document is readable");
    let lines: Vec<&str> = text.lines().collect();
    let mut res = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let Some(info) = lines[at].strip_prefix("```") else {
            at += 1;
            continue;
        };
        let comment = lines[..at]
            .iter()
            .rev()
            .find(|line| !line.trim().is_empty())
            .and_then(|line| line.trim().strip_prefix("<!--")?.strip_suffix("-->"))
            .map(|comment| comment.trim().to_owned());
        let mut block = Block {
            at: format!("{path}:{}", at + 1),
            info: info.trim().to_owned(),
            text: String::new(),
            comment,
        };
        at += 1;
        while at < lines.len() && lines[at] != "```" {
            block.text.push_str(lines[at]);
            block.text.push('\n');
            at += 1;
        }
        assert!(at < lines.len(), "{}: the block is not closed", block.at);
        res.push(block);
        at += 1;
    }
    res
}

/// Whether `block` is in `source` verbatim, whole lines, every line
/// indented alike by 0, 4 or 8 spaces (empty lines stay empty).
fn contains_indented(source: &str, block: &str) -> bool {
    let source = format!("\n{source}");
    [0, 4, 8].iter().any(|indent| {
        let pad = " ".repeat(*indent);
        let indented: String = block
            .lines()
            .map(|line| {
                if line.is_empty() {
                    "\n".to_owned()
                } else {
                    format!("{pad}{line}\n")
                }
            })
            .collect();
        source.contains(&format!("\n{indented}"))
    })
}

/// `0.006s` and the like (digits, a point, three digits, `s`, then no
/// letter or digit) as `[ELAPSED]`, as the golden files write times.
fn mask_times(text: &str) -> String {
    let bytes = text.as_bytes();
    let word = |at: usize| {
        bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let mut res = String::new();
    let mut at = 0;
    while at < bytes.len() {
        let digits = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let starts = digits > 0 && (at == 0 || !word(at - 1));
        let end = at + digits + 5;
        if starts
            && bytes.get(at + digits) == Some(&b'.')
            && bytes[at + digits + 1..]
                .iter()
                .take(3)
                .filter(|b| b.is_ascii_digit())
                .count()
                == 3
            && bytes.get(at + digits + 4) == Some(&b's')
            && !word(end)
        {
            res.push_str("[ELAPSED]");
            at = end;
            continue;
        }
        let len = text[at..].chars().next().map_or(1, char::len_utf8);
        res.push_str(&text[at..at + len]);
        at += len;
    }
    res
}

/// `text` as the body of a Rust string literal.
fn escaped(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// What is wrong with one sample, or `None` when it is what its source
/// says.
fn sample_problem(block: &Block, source: &str) -> Option<String> {
    let at = &block.at;
    // A page whose samples a test reads from the page itself, runs and
    // compares: the test must name the page.
    if let Some(test) = source.strip_prefix("read by ") {
        let page = at.rsplit_once(':').map_or(at.as_str(), |(page, _)| page);
        return match std::fs::read_to_string(root().join(test)) {
            Ok(file) if file.contains(page) => None,
            Ok(_) => Some(format!(
                "{at}: {test} does not read {page}, so nothing checks the sample"
            )),
            Err(err) => Some(format!("{at}: the sample's reader `{test}`: {err}")),
        };
    }
    let file = match std::fs::read_to_string(root().join(source)) {
        Ok(file) => file,
        Err(err) => return Some(format!("{at}: the sample's source `{source}`: {err}")),
    };
    if source.starts_with("tests/golden/") {
        let shown = mask_times(&block.text);
        let golden = if file.ends_with('\n') {
            file
        } else {
            format!("{file}\n")
        };
        (shown != golden).then(|| {
            format!(
                "{at}: the sample is not {source} (times aside); copy it from there:\n--- {source}\n{golden}--- {at}\n{shown}"
            )
        })
    } else if source.ends_with(".rs") {
        let literal = format!("\"{}\"", escaped(block.text.trim_end_matches('\n')));
        (!file.contains(&literal)).then(|| {
            format!("{at}: {source} asserts no string {literal}, so nothing checks the sample")
        })
    } else {
        Some(format!(
            "{at}: a sample comes from tests/golden/ or a Rust test, not `{source}`"
        ))
    }
}

/// Every Rust block of README.md and docs/ is code the build compiles.
#[test]
fn the_rust_snippets_are_code_the_build_compiles() {
    let compiled = [
        include_str!("../examples/hello-server.rs"),
        include_str!("../examples/notes.rs"),
        include_str!("../examples/demo-server.rs"),
        include_str!("../tests/in_process.rs"),
    ];
    let mut wrong = Vec::new();
    let mut seen = 0;
    for path in documents() {
        for block in blocks(&path) {
            if !block.info.starts_with("rust") {
                continue;
            }
            seen += 1;
            if block.info != "rust" {
                wrong.push(format!(
                    "{}: `{}`: every Rust snippet is compiled; write `rust`",
                    block.at, block.info
                ));
            } else if !compiled
                .iter()
                .any(|source| contains_indented(source, &block.text))
            {
                wrong.push(format!(
                    "{}: not a verbatim part of examples/hello-server.rs, examples/notes.rs, examples/demo-server.rs or tests/in_process.rs:\n{}",
                    block.at, block.text
                ));
            }
        }
    }
    assert!(seen >= 8, "only {seen} Rust snippets found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // The guide's first server is examples/hello-server.rs whole, in 30
    // lines.
    let guide = blocks("docs/server-library.md");
    let first = guide
        .iter()
        .find(|block| block.info == "rust")
        .expect("the guide has Rust");
    assert_eq!(first.text, include_str!("../examples/hello-server.rs"));
    let server_lines = first
        .text
        .lines()
        .skip_while(|line| line.starts_with("//!") || line.is_empty())
        .count();
    assert!(server_lines <= 30, "the server takes {server_lines} lines");
}

/// Every sample of output in README.md and docs/ is what a test produces,
/// and every block that could be one says what it is.
#[test]
fn the_samples_are_output_the_tests_produce() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for path in documents() {
        for block in blocks(&path) {
            let source = block
                .comment
                .as_deref()
                .and_then(|comment| comment.strip_prefix("sample:"))
                .map(str::trim);
            match source {
                Some(source) => {
                    checked += 1;
                    wrong.extend(sample_problem(&block, source));
                }
                None if matches!(block.info.as_str(), "" | "text")
                    && block.comment.as_deref() != Some("figure") =>
                {
                    wrong.push(format!(
                        "{}: a block of output says where it comes from (`<!-- sample: tests/golden/NAME -->`), or `<!-- figure -->`",
                        block.at
                    ));
                }
                None => {}
            }
        }
    }
    assert!(checked >= 7, "only {checked} samples checked");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The pieces the two tests above rest on read what they should.
#[test]
fn blocks_comments_and_times_are_read_as_written() {
    assert_eq!(
        mask_times("PASS t.jsonl  8 exchanges  0.006s\nin 1.250s.\n12.5s 0.12s x0.100s 0.100sx"),
        "PASS t.jsonl  8 exchanges  [ELAPSED]\nin [ELAPSED].\n12.5s 0.12s x0.100s 0.100sx"
    );
    assert!(contains_indented(
        "fn f() {\n    let a = 1;\n\n    let b = 2;\n}\n",
        "let a = 1;\n\nlet b = 2;\n"
    ));
    assert!(!contains_indented(
        "fn f() {\n  let a = 1;\n}\n",
        "let a = 1;\n"
    ));
    assert_eq!(escaped("a `b`:\n/c \"d\""), "a `b`:\\n/c \\\"d\\\"");
    // A sample that this file asserts, and one that nothing does.
    assert_eq!(
        escaped("a sample\nasserted here"),
        "a sample\\nasserted here"
    );
    let block = |text: &str| Block {
        at: "x.md:1".into(),
        info: String::new(),
        text: text.into(),
        comment: None,
    };
    assert!(sample_problem(&block("a sample\nasserted here\n"), "src/doc_tests.rs").is_none());
    let block = block("nothing asserts this\n");
    assert!(sample_problem(&block, "src/doc_tests.rs").is_some());
    assert!(sample_problem(&block, "tests/golden/check.txt").is_some());
    assert!(sample_problem(&block, "docs/laws.md").is_some());
}

/// What `cargo install` ships is the `mcp-replay` command alone: the
/// package's one binary target (docs/packaging.md). A test fixture is an
/// example, and `src/bin/`, whose files cargo would take for binaries, does
/// not exist.
#[test]
fn cargo_install_ships_mcp_replay_alone() {
    let manifest = include_str!("../Cargo.toml");
    let bins: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|entry| {
            entry
                .lines()
                .find_map(|line| line.trim().strip_prefix("name = "))
        })
        .collect();
    assert_eq!(bins, ["\"mcp-replay\""]);
    let auto_bins: Vec<_> = std::fs::read_dir(root().join("src/bin"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    assert!(
        auto_bins.is_empty(),
        "src/bin/ holds binaries that `cargo install` would install: {auto_bins:?}"
    );
    assert!(manifest.contains("[[example]]\nname = \"fixture-server\""));
}

/// The words of one shell command line, as `sh` splits them: quotes and
/// backslashes kept out of the words, each command of a pipeline or list
/// (`|`, `&&`, `||`, `;`) apart, a comment (`#` at a word's start) left
/// out. `None` for a line with a substitution (`$(…)`, `<(…)`, a
/// backquote), whose words are not known before it runs.
#[cfg(feature = "cli")]
fn shell_commands(line: &str) -> Option<Vec<Vec<String>>> {
    let mut commands = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        '$' if chars.peek() == Some(&'(') => return None,
                        c => word.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            '`' => return None,
            '$' | '<' if chars.peek() == Some(&'(') => return None,
            '#' if word.is_none() => break,
            '|' | '&' | ';' => {
                let last = commands.last_mut().expect("one command at least");
                last.extend(word.take());
                if c == '&' && chars.peek() != Some(&'&') {
                    continue;
                }
                if matches!(chars.peek(), Some('|' | '&')) {
                    chars.next();
                }
                commands.push(Vec::new());
            }
            c if c.is_whitespace() => {
                let last = commands.last_mut().expect("one command at least");
                last.extend(word.take());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    commands
        .last_mut()
        .expect("one command at least")
        .extend(word);
    Some(commands)
}

/// The arguments `words` give `mcp-replay`, when they run it: `mcp-replay
/// …`, `cargo run [--release] [--quiet] -- …`, or `npx`/`uvx`/`pipx run`
/// of the package, after any `NAME=value` assignments and redirections.
#[cfg(feature = "cli")]
fn mcp_replay_arguments(words: &[String]) -> Option<Vec<String>> {
    let words: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .skip_while(|word| {
            word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .collect();
    let rest: &[&str] = match words.as_slice() {
        [
            "mcp-replay" | "target/release/mcp-replay" | "./target/release/mcp-replay",
            rest @ ..,
        ] => rest,
        ["npx" | "uvx", "mcp-replay", rest @ ..] | ["pipx", "run", "mcp-replay", rest @ ..] => rest,
        ["cargo", "run", rest @ ..] => {
            let at = rest.iter().position(|word| *word == "--")?;
            if rest[..at].iter().any(|word| !word.starts_with('-')) {
                return None;
            }
            &rest[at + 1..]
        }
        _ => return None,
    };
    // A redirection ends what the command is given.
    let given: Vec<String> = rest
        .iter()
        .take_while(|word| !word.starts_with(['<', '>']) && !word.starts_with("2>"))
        .map(|word| (*word).to_owned())
        .collect();
    Some(given)
}

/// Every `mcp-replay` command line of a shell block of README.md and docs/
/// parses as the command line the build declares: each command and flag
/// it shows exists, takes the value it is given, and is given to a command
/// that has it.
#[cfg(feature = "cli")]
#[test]
fn the_shell_snippets_run_commands_and_flags_that_exist() {
    use clap::Parser as _;

    let mut wrong = Vec::new();
    let mut parsed = 0;
    for path in documents() {
        for block in blocks(&path)
            .into_iter()
            .filter(|block| matches!(block.info.as_str(), "sh" | "bash" | "shell"))
        {
            let text = block.text.replace("\\\n", " ");
            for line in text.lines() {
                let Some(commands) = shell_commands(line) else {
                    continue;
                };
                for words in commands {
                    let Some(arguments) = mcp_replay_arguments(&words) else {
                        continue;
                    };
                    let argv = std::iter::once("mcp-replay".to_owned()).chain(arguments);
                    match crate::cli::args::Cli::try_parse_from(argv) {
                        Ok(_) => parsed += 1,
                        Err(err)
                            if matches!(
                                err.kind(),
                                clap::error::ErrorKind::DisplayHelp
                                    | clap::error::ErrorKind::DisplayVersion
                            ) =>
                        {
                            parsed += 1;
                        }
                        Err(err) => {
                            wrong.push(format!("{}: `{}`: {}", block.at, line.trim(), err.kind()))
                        }
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(parsed >= 30, "only {parsed} command lines were read");
}

#[cfg(feature = "cli")]
#[test]
fn shell_lines_split_as_sh_splits_them() {
    let words = |line: &str| shell_commands(line).expect("no substitution");
    assert_eq!(
        words(r#"A=1 mcp-replay check 'a b' "c\"d" e\ f # note"#),
        vec![vec!["A=1", "mcp-replay", "check", "a b", "c\"d", "e f"]]
    );
    assert_eq!(
        words("echo x | mcp-replay demo-server && mcp-replay laws; true"),
        vec![
            vec!["echo", "x"],
            vec!["mcp-replay", "demo-server"],
            vec!["mcp-replay", "laws"],
            vec!["true"]
        ]
    );
    assert_eq!(shell_commands("mcp-replay check <(cat t.jsonl)"), None);
    let cargo: Vec<String> = ["cargo", "run", "--release", "--", "check", "t/"]
        .map(str::to_owned)
        .to_vec();
    assert_eq!(
        mcp_replay_arguments(&cargo),
        Some(vec!["check".to_owned(), "t/".to_owned()])
    );
    let other: Vec<String> = ["cargo", "run", "--example", "x", "--", "y"]
        .map(str::to_owned)
        .to_vec();
    assert_eq!(mcp_replay_arguments(&other), None);
}
