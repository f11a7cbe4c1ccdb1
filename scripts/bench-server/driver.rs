//! The benchmark driver: runs MCP stdio servers side by side and prints one
//! table with the ratios the server library is held to.
//!
//! Usage: `driver NAME=COMMAND...`, e.g. `driver "demo=/path/demo-server"
//! "floor=/path/floor"`; a COMMAND is split on spaces. The first server is
//! the one under test; the servers named `floor` and `rmcp` are the
//! references. Sizes come from the environment:
//!
//! - `BENCH_LOCKSTEP` (default 40000): timed lockstep round trips per server;
//! - `BENCH_SLICES` (default 200): slices the lockstep round trips are cut
//!   into; the servers take turns slice by slice, and ratios compare the
//!   slices that ran side by side;
//! - `BENCH_PIPELINED` (default `10000,100000,500000`): pipelined message
//!   counts, one fresh process each;
//! - `BENCH_IDLE` (default 4000): timed round trips per server in the idle
//!   lockstep mode (see [`Pace::Idle`]), in 40 slices taking turns;
//! - `BENCH_IDLE_GAP_US` (default 1000): the pause before each idle round
//!   trip, in microseconds;
//! - `BENCH_SPAWNS` (default 20): spawns timed to the first answer;
//! - `BENCH_ROUNDS` (default 3): rounds of the pipelined and spawn runs;
//!   each figure is the median of the rounds, and the servers take turns
//!   within a round.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// One server: a name and its argv.
struct Server {
    name: String,
    argv: Vec<String>,
}

/// A running server, killed and reaped on drop.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Running {
    fn spawn(server: &Server) -> Running {
        let mut child = Command::new(&server.argv[0])
            .args(&server.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {}: {err}", server.argv.join(" ")));
        let stdin = child.stdin.take();
        let stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap());
        Running {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn recv(&mut self, line: &mut String) {
        line.clear();
        let n = self.stdout.read_line(line).unwrap();
        assert!(n > 0, "the server closed stdout");
    }

    fn handshake(&mut self) {
        let mut line = String::new();
        self.send(&initialize(0));
        self.recv(&mut line);
        assert!(line.contains(r#""id":0"#), "initialize answer: {line}");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// The peak resident set size so far (VmHWM), in KiB.
    fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server is alive");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/<pid>/status")
    }

    /// Closes stdin and waits for the exit.
    fn finish(mut self) {
        self.stdin = None;
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stdin = None;
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn initialize(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2024-11-05","capabilities":{{}},"clientInfo":{{"name":"bench","version":"1"}}}}}}"#
    )
}

fn echo_call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello {id}"}}}}}}"#
    )
}

/// How the driver paces lockstep round trips.
#[derive(Clone, Copy)]
enum Pace {
    /// Each request goes out as soon as the previous answer is in, with the
    /// driver and every server pinned to one CPU. The driver and the server
    /// hand that CPU to each other: the one that writes wakes the one
    /// blocked in `read`, which runs as soon as the writer blocks in turn.
    /// A round trip then costs two context switches and the work itself, a
    /// few microseconds: the figure that shows what a server costs per
    /// message. Unpinned, a session now and then settles with the driver
    /// and the server on different CPUs that go idle between messages, and
    /// then every round trip of that session costs tens of microseconds,
    /// whichever server it is: a placement accident, not the server's cost
    /// (the idle mode measures that regime on purpose).
    Hot,
    /// Each request goes out after a pause (the driver sleeps). During the
    /// pause the server sleeps in its `read` long enough for its CPU to go
    /// idle (longer than a guest's idle polling, about 200 µs under Linux's
    /// haltpoll), so a round trip pays for waking a sleeping server, often
    /// on an idle CPU, as when a host sends a request now and then. Only
    /// the round trip itself is timed; its rate is round trips per second of
    /// that time. Where the scheduler places the woken tasks is left to it,
    /// as it is for a real host. Waking an idle virtual CPU takes tens of
    /// microseconds, which this mode meets and the hot one never does.
    Idle { gap: Duration },
}

/// One server answering lockstep calls: spawned once, then driven in
/// slices that take turns with the other servers' slices.
struct LockstepSession {
    running: Running,
    next_id: u64,
    /// Round trips per second of each slice.
    rates: Vec<f64>,
    latencies: Vec<Duration>,
}

impl LockstepSession {
    fn start(server: &Server, warmup: u64) -> LockstepSession {
        let mut running = Running::spawn(server);
        running.handshake();
        let mut line = String::new();
        // The warm-up also checks that the echo tool answers as it should
        // (the floor answers only its id).
        for id in 1..=warmup {
            running.send(&echo_call(id));
            running.recv(&mut line);
            assert!(line.contains(&format!(r#""id":{id}"#)), "{line}");
            if server.name != "floor" {
                assert!(line.contains(&format!("hello {id}")), "{line}");
            }
        }
        LockstepSession {
            running,
            next_id: warmup + 1,
            rates: Vec::new(),
            latencies: Vec::new(),
        }
    }

    fn slice(&mut self, n: u64, pace: Pace) {
        let requests: Vec<String> = (self.next_id..self.next_id + n).map(echo_call).collect();
        self.next_id += n;
        let mut line = String::new();
        let mut busy = Duration::ZERO;
        let start = Instant::now();
        for request in &requests {
            if let Pace::Idle { gap } = pace {
                thread::sleep(gap);
            }
            let sent = Instant::now();
            self.running.send(request);
            self.running.recv(&mut line);
            let latency = sent.elapsed();
            busy += latency;
            self.latencies.push(latency);
        }
        let elapsed = match pace {
            Pace::Hot => start.elapsed(),
            Pace::Idle { .. } => busy,
        };
        self.rates.push(n as f64 / elapsed.as_secs_f64());
    }
}

/// Lockstep figures of one server.
struct Lockstep {
    /// The median over slices of the round trips per second.
    per_sec: f64,
    /// The rate of each slice, to pair with other servers' slices.
    rates: Vec<f64>,
    p50: Duration,
    p99: Duration,
    peak_rss_kib: u64,
}

/// Lockstep round trips for every server at once: all sessions stay alive,
/// and the servers take turns slice by slice, so a change in the machine's
/// load (other processes, CPU power states) falls on all of them alike.
fn lockstep(servers: &[Server], warmup: u64, n: u64, slices: u64, pace: Pace) -> Vec<Lockstep> {
    // Counted before pinning, which the count follows.
    let all = format!("0-{}", cpus() - 1);
    let pinned = matches!(pace, Pace::Hot) && pin_together();
    let mut sessions: Vec<LockstepSession> = servers
        .iter()
        .map(|server| LockstepSession::start(server, warmup))
        .collect();
    for slice in 0..slices {
        // Rotating the order keeps any server from always following the same
        // one.
        for offset in 0..sessions.len() {
            let index = (slice as usize + offset) % sessions.len();
            sessions[index].slice(n / slices, pace);
        }
    }
    if pinned {
        taskset(&["-a", "-p", "-c", &all, &std::process::id().to_string()]);
    }
    sessions
        .into_iter()
        .map(|mut session| {
            let peak_rss_kib = session.running.peak_rss_kib();
            session.running.finish();
            session.latencies.sort();
            let latencies = &session.latencies;
            Lockstep {
                per_sec: median(session.rates.clone()),
                rates: session.rates,
                p50: latencies[latencies.len() / 2],
                p99: latencies[latencies.len() * 99 / 100],
                peak_rss_kib,
            }
        })
        .collect()
}

/// Pins the driver to its last CPU with `taskset`, so that the servers it
/// spawns from now on inherit the pinning; whether it could.
fn pin_together() -> bool {
    let cpu = (cpus() - 1).to_string();
    taskset(&["-a", "-p", "-c", &cpu, &std::process::id().to_string()])
}

/// Runs `taskset` with `args`, quietly; whether it succeeded.
fn taskset(args: &[&str]) -> bool {
    Command::new("taskset")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn cpus() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// Pipelined figures of one round at one size.
struct Pipelined {
    per_sec: f64,
    peak_rss_kib: u64,
}

fn pipelined(server: &Server, n: u64) -> Pipelined {
    let mut running = Running::spawn(server);
    running.handshake();
    let stdin = running.stdin.take().expect("stdin open");
    let (close_tx, close_rx) = mpsc::channel::<()>();
    let start = Instant::now();
    // The writer writes every request as fast as the pipe takes them, while
    // this thread reads the answers; it keeps stdin open until told, so the
    // server is still alive when its peak RSS is read.
    let writer = thread::spawn(move || {
        let mut stdin = BufWriter::with_capacity(64 * 1024, stdin);
        for id in 1..=n {
            stdin.write_all(echo_call(id).as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin.flush().unwrap();
        let _ = close_rx.recv();
    });
    let mut answers = 0;
    let mut buf = vec![0u8; 64 * 1024];
    let stdout = running.stdout.get_mut();
    while answers < n {
        let read = stdout.read(&mut buf).unwrap();
        assert!(read > 0, "the server closed stdout after {answers} answers");
        answers += buf[..read].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    let elapsed = start.elapsed();
    let peak_rss_kib = running.peak_rss_kib();
    let _ = close_tx.send(());
    writer.join().unwrap();
    running.finish();
    Pipelined {
        per_sec: n as f64 / elapsed.as_secs_f64(),
        peak_rss_kib,
    }
}

/// Spawn to the answer of the first request (initialize), median of `k`.
fn first_answer(server: &Server, k: usize) -> Duration {
    let mut times: Vec<Duration> = (0..k)
        .map(|_| {
            let start = Instant::now();
            let mut running = Running::spawn(server);
            let mut line = String::new();
            running.send(&initialize(0));
            running.recv(&mut line);
            let elapsed = start.elapsed();
            running.finish();
            elapsed
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|value| value.parse().unwrap_or_else(|_| panic!("{name} must be a number")))
        .unwrap_or(default)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn median_duration(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// The ratio of two servers' lockstep rates, slice by slice, then the
/// median: the slices that ran under the same conditions are compared.
fn paired_ratio(a: &Lockstep, b: &Lockstep) -> f64 {
    median(
        a.rates
            .iter()
            .zip(&b.rates)
            .map(|(a, b)| a / b)
            .collect(),
    )
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() {
    let servers: Vec<Server> = std::env::args()
        .skip(1)
        .map(|arg| {
            let (name, command) = arg.split_once('=').expect("NAME=COMMAND");
            Server {
                name: name.to_owned(),
                argv: command.split(' ').map(str::to_owned).collect(),
            }
        })
        .collect();
    assert!(!servers.is_empty(), "usage: driver NAME=COMMAND...");
    let n_lockstep = env_u64("BENCH_LOCKSTEP", 40_000);
    let slices = env_u64("BENCH_SLICES", 200).max(1);
    let warmup = (n_lockstep / 10).max(100);
    let sizes: Vec<u64> = std::env::var("BENCH_PIPELINED")
        .unwrap_or_else(|_| "10000,100000,500000".to_owned())
        .split(',')
        .map(|size| size.trim().parse().expect("BENCH_PIPELINED: numbers"))
        .collect();
    let spawns = env_u64("BENCH_SPAWNS", 20) as usize;
    let rounds = env_u64("BENCH_ROUNDS", 3) as usize;
    let n_idle = env_u64("BENCH_IDLE", 4000);
    let gap = Duration::from_micros(env_u64("BENCH_IDLE_GAP_US", 1000));

    eprintln!("lockstep: {} servers taking turns", servers.len());
    let lock = lockstep(&servers, warmup, n_lockstep, slices, Pace::Hot);
    eprintln!("lockstep, idle: {} servers taking turns", servers.len());
    let idle = lockstep(&servers, 100, n_idle, 40, Pace::Idle { gap });
    // Per server: pipelined rounds per size, first answers.
    let mut pipe: Vec<Vec<Vec<Pipelined>>> = servers
        .iter()
        .map(|_| sizes.iter().map(|_| Vec::new()).collect())
        .collect();
    let mut first: Vec<Vec<Duration>> = servers.iter().map(|_| Vec::new()).collect();
    for round in 1..=rounds {
        for (index, server) in servers.iter().enumerate() {
            eprintln!("round {round}/{rounds}: {}", server.name);
            first[index].push(first_answer(server, spawns));
            for (size_index, &size) in sizes.iter().enumerate() {
                pipe[index][size_index].push(pipelined(server, size));
            }
        }
    }

    let lock_rate = |index: usize| lock[index].per_sec;
    // The ratio of two servers' rates, slice by slice, then the median: the
    // slices that ran under the same conditions are compared.
    let lock_ratio = |a: usize, b: usize| paired_ratio(&lock[a], &lock[b]);
    let pipe_rate =
        |index: usize, size: usize| median(pipe[index][size].iter().map(|p| p.per_sec).collect());
    let pipe_rss = |index: usize, size: usize| {
        pipe[index][size]
            .iter()
            .map(|p| p.peak_rss_kib)
            .max()
            .unwrap()
    };

    let cpus = thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "lockstep: {n_lockstep} round trips per server after {warmup} warm-up, in {slices} slices taking turns (rate: median over slices); pipelined: {sizes:?} messages and spawn: median of {spawns}, each the median of {rounds} rounds; {cpus} CPUs"
    );
    println!();
    let size_names: Vec<String> = sizes.iter().map(|size| format!("N={size}")).collect();
    println!(
        "| server | spawn → first answer | lockstep round trips/s | ratio to the floor | p50 | p99 | pipelined msg/s ({}) | peak RSS, lockstep | peak RSS, pipelined ({}) |",
        size_names.join(", "),
        size_names.join(", ")
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let floor = servers.iter().position(|server| server.name == "floor");
    for (index, server) in servers.iter().enumerate() {
        let p50 = lock[index].p50;
        let p99 = lock[index].p99;
        let lock_rss = lock[index].peak_rss_kib;
        let rates: Vec<String> = (0..sizes.len())
            .map(|size| format!("{:.0}", pipe_rate(index, size)))
            .collect();
        let rss: Vec<String> = (0..sizes.len())
            .map(|size| format!("{:.1}", mib(pipe_rss(index, size))))
            .collect();
        let ratio = floor.map_or(String::from("–"), |floor| {
            format!("{:.2}", lock_ratio(index, floor))
        });
        println!(
            "| {} | {:.2} ms | {:.0} | {ratio} | {:.1} µs | {:.1} µs | {} | {:.1} MiB | {} MiB |",
            server.name,
            median_duration(first[index].clone()).as_secs_f64() * 1e3,
            lock_rate(index),
            p50.as_secs_f64() * 1e6,
            p99.as_secs_f64() * 1e6,
            rates.join(" / "),
            mib(lock_rss),
            rss.join(" / "),
        );
    }
    println!();

    let find = |name: &str| servers.iter().position(|server| server.name == name);
    println!(
        "Idle lockstep: {n_idle} round trips per server, each after a pause of {} µs, in 40 slices taking turns (rate: round trips per second of the time the round trips took, median over slices).",
        gap.as_micros()
    );
    println!();
    println!("| server | idle round trips/s | p50 | p99 | ratio to the floor |");
    println!("|---|---|---|---|---|");
    for (index, server) in servers.iter().enumerate() {
        let ratio = find("floor").map_or(String::from("–"), |floor| {
            format!("{:.2}", paired_ratio(&idle[index], &idle[floor]))
        });
        println!(
            "| {} | {:.0} | {:.1} µs | {:.1} µs | {ratio} |",
            server.name,
            idle[index].per_sec,
            micros(idle[index].p50),
            micros(idle[index].p99),
        );
    }
    println!();

    let under_test = 0;
    let name = &servers[under_test].name;
    let p50 = |index: usize| lock[index].p50;
    if let Some(floor) = find("floor") {
        println!(
            "- lockstep, idle: {name} / floor = {:.2}; p50 {:.1} µs against {:.1} µs",
            paired_ratio(&idle[under_test], &idle[floor]),
            micros(idle[under_test].p50),
            micros(idle[floor].p50)
        );
    }
    if let Some(floor) = find("floor") {
        let ratio = lock_ratio(under_test, floor);
        let verdict = if ratio >= 0.9 { "met" } else { "MISSED" };
        println!(
            "- lockstep: {name} / floor = {ratio:.2} (target ≥ 0.90: {verdict}); p50 {:.1} µs against {:.1} µs",
            p50(under_test).as_secs_f64() * 1e6,
            p50(floor).as_secs_f64() * 1e6
        );
    }
    if let (Some(with), Some(without)) = (find("lib-echo"), find("lib-echo-no-capture")) {
        println!(
            "- the capture guard: lib-echo / lib-echo-no-capture lockstep = {:.2}, p50 {:.1} µs against {:.1} µs",
            lock_ratio(with, without),
            p50(with).as_secs_f64() * 1e6,
            p50(without).as_secs_f64() * 1e6
        );
        if let Some(floor) = find("floor") {
            println!(
                "- lib-echo-no-capture / floor lockstep = {:.2}",
                lock_ratio(without, floor)
            );
        }
    }
    if let Some(rmcp) = find("rmcp") {
        let ratios: Vec<f64> = (0..sizes.len())
            .map(|size| pipe_rate(under_test, size) / pipe_rate(rmcp, size))
            .collect();
        let worst = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let verdict = if worst >= 10.0 { "met" } else { "MISSED" };
        let listed: Vec<String> = ratios.iter().map(|ratio| format!("{ratio:.1}")).collect();
        println!(
            "- pipelined: {name} / rmcp = {} at {} (target ≥ 10: {verdict})",
            listed.join(" / "),
            size_names.join(" / ")
        );
    }
    if let Some(floor) = find("floor") {
        let ratios: Vec<String> = (0..sizes.len())
            .map(|size| format!("{:.2}", pipe_rate(under_test, size) / pipe_rate(floor, size)))
            .collect();
        println!("- pipelined: {name} / floor = {}", ratios.join(" / "));
    }
    let rss: Vec<u64> = (0..sizes.len())
        .map(|size| pipe_rss(under_test, size))
        .chain([lock[under_test].peak_rss_kib])
        .collect();
    let max = *rss.iter().max().unwrap();
    let min = *rss.iter().min().unwrap();
    let verdict = if max < 4 * 1024 { "met" } else { "MISSED" };
    println!(
        "- peak RSS: {name} {:.1}–{:.1} MiB over every run (target < 4 MiB and flat: {verdict}; growth from the smallest to the largest run {:.1}%)",
        mib(min),
        mib(max),
        (max - min) as f64 / min as f64 * 100.0
    );
}
