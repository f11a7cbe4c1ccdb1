//! `mcp-replay mock`: the binary's side of a mock, as REQ-C-032 has a
//! protocol command start.
//!
//! Flags are parsed first (`serve::usage_error`); then the transcripts are
//! read, and one that cannot be exits 2 with stdout empty and, with
//! `--format json`, the envelope as the last line of stderr: the mock never
//! started. Once serving begins, stdout belongs to the protocol; stdin
//! closing exits 0 with no envelope; a signal exits 128 + N with the
//! envelope in JSON mode (`serve::session`).
#![allow(clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mcp_replay::mock::Mock;

use crate::serve::{chain, fail, session};

/// Serves `transcripts` until stdin closes or a signal ends the session.
pub fn run(
    transcripts: &[PathBuf],
    strict: bool,
    fill: &[String],
    json_mode: bool,
    started: Instant,
) -> ExitCode {
    let mock = match Mock::load(transcripts) {
        Ok(mock) => mock.strict(strict).fill_env(fill),
        Err(err) => {
            let failure = ("TRANSCRIPT_ERROR", "preparation", 2);
            return fail("mock", json_mode, started, failure, &chain(&err));
        }
    };
    session("mock", json_mode, started, move || mock.serve_stdio())
}
