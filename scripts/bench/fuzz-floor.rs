//! The floor of scripts/bench-fuzz.sh: the least a client can do to send a
//! fuzz run's calls. It spawns the server, writes each client line of a
//! recorded session (at most WINDOW requests unanswered at once, as fuzz
//! keeps them), reads one stdout line per request, closes stdin and waits
//! for a clean exit. No parsing beyond telling requests from notifications,
//! no checking.
//!
//! fuzz-floor SCRIPT WINDOW -- CMD...
//!
//! SCRIPT holds one client line per line, prefixed by `R` (a request, one
//! answer) or `N` (a notification) and a tab.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let split = args.iter().position(|arg| arg == "--").expect("fuzz-floor SCRIPT WINDOW -- CMD...");
    let script = std::fs::read_to_string(&args[1]).expect("the script reads");
    let window: usize = args[2].parse().expect("WINDOW is a number");
    let cmd = &args[split + 1..];
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let lines: Vec<(bool, String)> = script
        .lines()
        .map(|entry| {
            let (kind, line) = entry.split_once('\t').expect("KIND<TAB>LINE");
            (kind == "R", line.to_owned())
        })
        .collect();
    let requests = lines.iter().filter(|(request, _)| *request).count();
    // Answers read so far, and a bell for the writer.
    let answered = Arc::new((Mutex::new(0usize), Condvar::new()));
    let reader = {
        let answered = Arc::clone(&answered);
        std::thread::spawn(move || {
            let mut stdout = BufReader::with_capacity(64 * 1024, stdout);
            let mut line = Vec::new();
            for _ in 0..requests {
                line.clear();
                assert!(stdout.read_until(b'\n', &mut line).unwrap() > 0, "the server ended early");
                let (count, bell) = &*answered;
                *count.lock().unwrap() += 1;
                bell.notify_one();
            }
            let mut rest = Vec::new();
            std::io::Read::read_to_end(&mut stdout, &mut rest).unwrap();
        })
    };
    let mut sent = 0;
    for (request, line) in &lines {
        if *request {
            let (count, bell) = &*answered;
            let mut done = count.lock().unwrap();
            while sent - *done >= window {
                done = bell.wait(done).unwrap();
            }
            drop(done);
            sent += 1;
        }
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }
    let (count, bell) = &*answered;
    let mut done = count.lock().unwrap();
    while *done < requests {
        done = bell.wait(done).unwrap();
    }
    drop(done);
    drop(stdin);
    reader.join().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "the server failed: {status}");
}
