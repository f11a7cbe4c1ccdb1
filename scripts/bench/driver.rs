//! The benchmark driver of scripts/bench-record.sh: plays a host against a
//! server command and prints one result line per measurement.
//!
//! driver lockstep N -- CMD...    N round trips, one message in flight:
//!                                prints p50, p99 and mean in microseconds
//! driver pipelined N -- CMD...   N messages written as fast as possible while
//!                                the answers are read: prints messages/s and
//!                                the command's own CPU time per message
//! driver session R -- CMD...     R sessions of one message each: prints the
//!                                median time to the first answer and to exit
//!                                (`{n}` in CMD becomes the session's number)
//! driver rss N -- CMD...         N pipelined messages, then the peak RSS of
//!                                the command's process (VmHWM) in KiB

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

fn message(id: usize) -> String {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"hello\"}}}}}}\n")
}

fn spawn(cmd: &[String]) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the command starts");
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap());
    (child, stdin, stdout)
}

fn finish(mut child: Child, stdin: ChildStdin) {
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "the command failed: {status}");
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn lockstep(n: usize, cmd: &[String]) {
    let (child, mut stdin, mut stdout) = spawn(cmd);
    let mut line = String::new();
    let warmup = n / 10;
    let mut samples = Vec::with_capacity(n);
    for id in 0..n + warmup {
        let msg = message(id);
        let start = Instant::now();
        stdin.write_all(msg.as_bytes()).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        let rtt = start.elapsed();
        assert!(
            line.contains(&format!("\"id\":{id},")) || line.contains(&format!("\"id\":{id}}}")),
            "not the answer to {id}: {line}"
        );
        if id >= warmup {
            samples.push(micros(rtt));
        }
    }
    finish(child, stdin);
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    println!("lockstep n={n} p50_us={:.1} p99_us={:.1} mean_us={mean:.1}", at(0.5), at(0.99));
}

/// Writes `n` messages from a thread of its own while reading the `n`
/// answers; returns the stdin (still open) once every answer has arrived.
fn exchange(n: usize, stdin: ChildStdin, stdout: &mut BufReader<ChildStdout>) -> ChildStdin {
    let writer = std::thread::spawn(move || {
        let mut out = BufWriter::with_capacity(64 * 1024, stdin);
        for id in 0..n {
            out.write_all(message(id).as_bytes()).unwrap();
        }
        out.flush().unwrap();
        out.into_inner().unwrap()
    });
    let mut line = String::new();
    for _ in 0..n {
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    writer.join().unwrap()
}

/// The CPU time the process `pid` has used so far (its own threads, not its
/// children), in milliseconds.
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // USER_HZ is 100 on every Linux this runs on.
    ticks * 10.0
}

fn pipelined(n: usize, cmd: &[String]) {
    let (child, stdin, mut stdout) = spawn(cmd);
    let start = Instant::now();
    let stdin = exchange(n, stdin, &mut stdout);
    let elapsed = start.elapsed();
    // Read before closing stdin: the process is still alive, all traffic done.
    let cpu = cpu_ms(child.id());
    println!(
        "pipelined n={n} secs={:.3} msgs_per_s={:.0} cpu_us_per_msg={:.3}",
        elapsed.as_secs_f64(),
        n as f64 / elapsed.as_secs_f64(),
        cpu * 1000.0 / n as f64
    );
    finish(child, stdin);
}

fn session(rounds: usize, cmd: &[String]) {
    let mut first = Vec::new();
    let mut total = Vec::new();
    for round in 0..rounds {
        // `{n}` in an argument becomes the round's number, for a fresh
        // transcript per session.
        let cmd: Vec<String> = cmd.iter().map(|a| a.replace("{n}", &round.to_string())).collect();
        let start = Instant::now();
        let (child, mut stdin, mut stdout) = spawn(&cmd);
        stdin.write_all(message(1).as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        first.push(micros(start.elapsed()));
        finish(child, stdin);
        total.push(micros(start.elapsed()));
    }
    first.sort_by(f64::total_cmp);
    total.sort_by(f64::total_cmp);
    println!(
        "session rounds={rounds} first_answer_us={:.0} whole_session_us={:.0}",
        first[rounds / 2],
        total[rounds / 2]
    );
}

fn rss(n: usize, cmd: &[String]) {
    let (child, stdin, mut stdout) = spawn(cmd);
    let stdin = exchange(n, stdin, &mut stdout);
    // Read before closing stdin: the process is still alive, all traffic done.
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .unwrap()
        .trim()
        .trim_end_matches(" kB")
        .to_owned();
    println!("rss n={n} vmhwm_kib={hwm}");
    finish(child, stdin);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sep = args.iter().position(|a| a == "--").expect("usage: driver MODE N -- CMD...");
    let (mode, n) = (&args[0], args[1].parse::<usize>().unwrap());
    let cmd = &args[sep + 1..];
    match mode.as_str() {
        "lockstep" => lockstep(n, cmd),
        "pipelined" => pipelined(n, cmd),
        "session" => session(n, cmd),
        "rss" => rss(n, cmd),
        other => panic!("unknown mode {other}"),
    }
}
