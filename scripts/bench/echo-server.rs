//! A fast echo-style stdio server for benchmarks: every line it reads is
//! written back at once, flushed whenever no more input is already buffered
//! (so pipelined input is answered in batches and lockstep input at once).
//! Exits 0 at end of input.

use std::io::{self, BufRead, Write};

fn main() {
    let mut input = io::BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let stdout = io::stdout();
    let mut output = io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if output.write_all(&line).is_err() {
            return;
        }
        if input.buffer().is_empty() && output.flush().is_err() {
            return;
        }
    }
    let _ = output.flush();
}
