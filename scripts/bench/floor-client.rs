//! The floor of scripts/bench-check.sh: the least a client can do to replay
//! a session. It spawns the server, writes each client line, reads as many
//! stdout lines as the recording has before the next client line, closes
//! stdin, reads to the end and waits for a clean exit. No parsing, no
//! checking, no threads.
//!
//! floor-client SCRIPT -- CMD...
//!
//! SCRIPT holds one client line per line, prefixed by the number of server
//! lines to read after it and a tab (scripts/bench-check.sh writes it from a
//! transcript).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let split = args.iter().position(|arg| arg == "--").expect("floor-client SCRIPT -- CMD...");
    let script = std::fs::read_to_string(&args[1]).expect("the script reads");
    let cmd = &args[split + 1..];
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap());
    let mut line = Vec::new();
    for entry in script.lines() {
        let (count, message) = entry.split_once('\t').expect("COUNT<TAB>LINE");
        line.clear();
        line.extend_from_slice(message.as_bytes());
        line.push(b'\n');
        stdin.write_all(&line).unwrap();
        for _ in 0..count.parse::<usize>().unwrap() {
            line.clear();
            assert!(stdout.read_until(b'\n', &mut line).unwrap() > 0, "the server ended early");
        }
    }
    drop(stdin);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "the server failed: {status}");
}
