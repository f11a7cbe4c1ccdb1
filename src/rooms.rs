//! The rooms of the crate and what each may lean on, held to the imports of
//! the code: docs/architecture.md draws this map, and this test keeps it
//! true.
//!
//! A room is a top-level module of `src/` (a folder or a file). Each leans
//! only on the rooms its entry names; no room leans on one that leans back
//! on it, however far round. Test code (`#[cfg(test)] mod tests` and
//! `tests/` folders) may reach further, and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each room, and the rooms it may import from, floor by floor from the
/// ground up.
const ROOMS: &[(&str, &[&str])] = &[
    // Ground: frames, revisions, the catalog, JSON Schema, child processes,
    // regular expressions from input.
    ("jsonrpc", &[]),
    ("revision", &[]),
    ("laws", &["revision"]),
    ("schema", &["jsonrpc"]),
    ("process", &["jsonrpc"]),
    ("patterns", &[]),
    // Floor 2: the core library, the model, the format, reports, the
    // comparison, the client.
    ("server", &["jsonrpc", "revision", "schema"]),
    ("model", &["jsonrpc", "revision", "schema"]),
    ("transcript", &["jsonrpc", "patterns", "server"]),
    ("report", &["laws", "revision"]),
    ("compare", &["patterns"]),
    (
        "client",
        &[
            "jsonrpc",
            "laws",
            "model",
            "process",
            "report",
            "revision",
            "schema",
            "server",
            "transcript",
        ],
    ),
    // The host laws' judge, over the frames, the model and the reports.
    (
        "host",
        &[
            "jsonrpc",
            "laws",
            "model",
            "report",
            "revision",
            "server",
            "transcript",
        ],
    ),
    // Floor 3: the replay and the settings, then the commands.
    (
        "config",
        &["client", "compare", "laws", "patterns", "transcript"],
    ),
    (
        "replay",
        &[
            "client",
            "compare",
            "jsonrpc",
            "laws",
            "process",
            "report",
            "revision",
            "transcript",
        ],
    ),
    (
        "testing",
        &[
            "client",
            "compare",
            "laws",
            "replay",
            "report",
            "server",
            "transcript",
        ],
    ),
    ("record", &["jsonrpc", "process", "transcript"]),
    (
        "mock",
        &[
            "compare",
            "config",
            "host",
            "jsonrpc",
            "revision",
            "schema",
            "server",
            "transcript",
        ],
    ),
    (
        "check",
        &[
            "client",
            "compare",
            "config",
            "host",
            "jsonrpc",
            "laws",
            "process",
            "replay",
            "report",
            "revision",
            "schema",
            "transcript",
        ],
    ),
    (
        "fuzz",
        &[
            "client",
            "jsonrpc",
            "laws",
            "process",
            "report",
            "revision",
            "schema",
            "transcript",
        ],
    ),
    // Floor 4: the command line as data, the manifest and `serve`, over
    // the commands.
    ("manifest", &[]),
    (
        "cli",
        &[
            "check",
            "client",
            "fuzz",
            "laws",
            "manifest",
            "report",
            "transcript",
        ],
    ),
    (
        "serve",
        &[
            "check",
            "cli",
            "client",
            "fuzz",
            "jsonrpc",
            "laws",
            "manifest",
            "process",
            "report",
            "server",
            "transcript",
        ],
    ),
];

/// The rooms `src/` holds that the table does not judge: the crate root,
/// the binary and its own modules, and test-only rooms.
const NOT_ROOMS: &[&str] = &["lib", "main", "doc_tests", "official_schemas", "rooms"];

/// Every room each room's non-test code names as `crate::ROOM`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut res: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ reads") {
            let path = entry.expect("src/ reads").path();
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("");
            if path.is_dir() {
                if name != "tests" {
                    stack.push(path);
                }
                continue;
            }
            if !name.ends_with(".rs") || name == "tests.rs" {
                continue;
            }
            let relative = path.strip_prefix(&src).expect("under src/");
            let room = relative
                .components()
                .next()
                .and_then(|first| first.as_os_str().to_str())
                .expect("a path")
                .trim_end_matches(".rs")
                .to_owned();
            let text = std::fs::read_to_string(&path).expect("a source reads");
            let code = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => &text[..at],
                None => &text,
            };
            let named = res.entry(room.clone()).or_default();
            for line in code.lines() {
                let line = line.split("//").next().unwrap_or("");
                for (at, _) in line.match_indices("crate::") {
                    let rest = &line[at + "crate::".len()..];
                    let target: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !target.is_empty() && target != room {
                        named.insert(target);
                    }
                }
            }
        }
    }
    res
}

#[test]
fn every_room_leans_only_on_the_rooms_its_entry_names() {
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ROOMS
        .iter()
        .map(|(room, on)| (*room, on.iter().copied().collect()))
        .collect();
    let mut wrong = Vec::new();
    for (room, named) in imports() {
        if NOT_ROOMS.contains(&room.as_str()) {
            continue;
        }
        let Some(may) = allowed.get(room.as_str()) else {
            wrong.push(format!("`{room}` is no room of the table in src/rooms.rs"));
            continue;
        };
        for target in named {
            if !may.contains(target.as_str()) && !NOT_ROOMS.contains(&target.as_str()) {
                wrong.push(format!(
                    "`{room}` leans on `{target}`, which its entry does not name"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_room_leans_on_a_room_above_it() {
    // The table is in floor order: a room may name only rooms before it,
    // so the rooms' imports can draw no circle.
    for (at, (room, on)) in ROOMS.iter().enumerate() {
        for target in *on {
            let below = ROOMS[..at].iter().any(|(earlier, _)| earlier == target);
            assert!(below, "`{room}` leans on `{target}`, which is not below it");
        }
    }
}

#[test]
fn the_commands_share_the_engine_and_not_the_checker() {
    let named = imports();
    for room in ["fuzz", "mock", "testing", "model"] {
        assert!(
            !named[room].contains("check"),
            "`{room}` imports from `check`: {:?}",
            named[room]
        );
    }
    assert!(!named["model"].contains("server"), "{:?}", named["model"]);
}

#[test]
fn no_room_holds_more_than_22_percent_of_the_code() {
    // Lines of each room's sources, test folders and test files aside.
    fn count(path: &Path, sizes: &mut BTreeMap<String, usize>, room: &str) {
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "tests") {
                return;
            }
            for entry in std::fs::read_dir(path).expect("src/ reads") {
                count(&entry.expect("src/ reads").path(), sizes, room);
            }
        } else if path.extension().is_some_and(|ext| ext == "rs")
            && path.file_name().is_some_and(|name| name != "tests.rs")
        {
            let text = std::fs::read_to_string(path).expect("a source reads");
            *sizes.entry(room.to_owned()).or_default() += text.lines().count();
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sizes = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src/ reads") {
        let path = entry.expect("src/ reads").path();
        let room = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("a name")
            .to_owned();
        count(&path, &mut sizes, &room);
    }
    let all: usize = sizes.values().sum();
    let (room, biggest) = sizes
        .iter()
        .max_by_key(|(_, lines)| **lines)
        .expect("rooms");
    assert!(
        biggest * 100 <= all * 22,
        "`{room}` holds {biggest} of {all} lines, more than 22%"
    );
}
