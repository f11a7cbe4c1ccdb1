//! The line of one stream that has begun and not ended yet, held for the
//! transcript with bounded memory.
//!
//! Forwarding never waits for a line to end: the bytes go on as soon as they
//! are read. The transcript records whole lines, so the start of a line is
//! kept until its newline comes: its first MiB in memory, the rest in an
//! unnamed temporary file, up to `process::MAX_LINE` in all, the longest
//! line `check` takes whole. A longer line is runaway output (a stream of
//! zeros, a progress bar that never ends its line): it is cut to its first
//! KiB, and the rest of it is only counted, so that what a stream
//! does never grows the recorder.

use std::fs::File;
use std::io::{Read, Seek, Write};

/// How much of a line is held in memory before the rest goes to a file.
const IN_MEMORY: usize = 1 << 20;

/// How much of a cut line the transcript keeps.
const CUT_KEEP: usize = 1024;

/// The bounds of an [`OpenLine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Bytes held in memory; past them the line goes to a temporary file.
    pub(crate) in_memory: usize,
    /// The longest line recorded whole.
    pub(crate) max_line: u64,
    /// What a cut line keeps of its start.
    pub(crate) keep: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            in_memory: IN_MEMORY,
            max_line: crate::process::MAX_LINE as u64,
            keep: CUT_KEEP,
        }
    }
}

/// A line taken out of an [`OpenLine`]: its bytes (its start, when cut) and
/// how many bytes of it were cut.
pub(crate) type Taken = (Vec<u8>, Option<u64>);

/// The start of a line whose newline has not come yet.
#[derive(Debug, Default)]
pub(crate) struct OpenLine {
    /// Its first bytes, up to [`Limits::in_memory`].
    head: Vec<u8>,
    /// The bytes past `head`, while the line is recorded whole.
    spill: Option<File>,
    /// How many bytes `spill` holds.
    spilled: u64,
    /// The line is cut: how many of its bytes are not kept.
    cut: Option<u64>,
}

impl OpenLine {
    /// Whether no line is open.
    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_empty() && self.cut.is_none()
    }

    /// The bytes of memory it holds, for tests of its bound.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.head.capacity()
    }

    /// Adds bytes of the line (none of them a newline).
    pub(crate) fn push(&mut self, bytes: &[u8], limits: Limits) {
        if bytes.is_empty() {
            return;
        }
        if let Some(cut) = &mut self.cut {
            *cut += bytes.len() as u64;
            return;
        }
        let len = self.head.len() as u64 + self.spilled;
        if len + bytes.len() as u64 > limits.max_line {
            self.cut_at(bytes, len, limits);
            return;
        }
        let room = limits.in_memory.saturating_sub(self.head.len());
        let (now, rest) = bytes.split_at(room.min(bytes.len()));
        if !now.is_empty() {
            // Grow by doubling, but never past the bound.
            let wanted = self.head.len() + now.len();
            if wanted > self.head.capacity() {
                let target = (self.head.capacity() * 2).clamp(wanted, limits.in_memory);
                self.head.reserve_exact(target - self.head.len());
            }
            self.head.extend_from_slice(now);
        }
        if rest.is_empty() {
            return;
        }
        let spill = match &mut self.spill {
            Some(spill) => Ok(spill),
            None => tempfile::tempfile().map(|file| self.spill.insert(file)),
        };
        match spill.and_then(|spill| spill.write_all(rest)) {
            Ok(()) => self.spilled += rest.len() as u64,
            // No room for the line: it is cut here, as a longer one would be.
            Err(_) => self.cut_at(rest, len + now.len() as u64, limits),
        }
    }

    /// Cuts the line: it had `len` bytes, and `bytes` follow them.
    fn cut_at(&mut self, bytes: &[u8], len: u64, limits: Limits) {
        let wanted = limits.keep.saturating_sub(self.head.len());
        self.head
            .extend_from_slice(&bytes[..wanted.min(bytes.len())]);
        self.head.truncate(limits.keep);
        // A character cut in two would turn a text line into bytes.
        if let Err(err) = std::str::from_utf8(&self.head)
            && err.error_len().is_none()
        {
            self.head.truncate(err.valid_up_to());
        }
        self.head.shrink_to_fit();
        self.spill = None;
        self.spilled = 0;
        self.cut = Some(len + bytes.len() as u64 - self.head.len() as u64);
    }

    /// Takes the whole line out, with `tail` (its bytes up to the newline)
    /// added, and leaves nothing open.
    pub(crate) fn take(&mut self, tail: &[u8], limits: Limits) -> Taken {
        self.push(tail, limits);
        let mut line = std::mem::take(&mut self.head);
        let cut = self.cut.take();
        if let Some(mut spill) = self.spill.take() {
            let spilled = std::mem::take(&mut self.spilled);
            let total = line.len() as u64 + spilled;
            let read_back = usize::try_from(spilled).ok().and_then(|n| {
                line.try_reserve_exact(n).ok()?;
                spill.rewind().ok()?;
                spill.take(spilled).read_to_end(&mut line).ok()
            });
            if read_back != usize::try_from(spilled).ok() {
                // The file failed to give the line back: keep its start.
                line.truncate(limits.keep);
                line.shrink_to_fit();
                let cut = total - line.len() as u64;
                return (line, Some(cut));
            }
        }
        (line, cut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Limits = Limits {
        in_memory: 8,
        max_line: 32,
        keep: 4,
    };

    #[test]
    fn a_line_within_the_limit_comes_back_whole_through_the_file() {
        let mut line = OpenLine::default();
        line.push(b"0123456789", SMALL);
        line.push(b"abcdefghij", SMALL);
        assert!(line.held() <= SMALL.in_memory);
        assert_eq!(
            line.take(b"XY", SMALL),
            (b"0123456789abcdefghijXY".to_vec(), None)
        );
        assert!(line.is_empty());
        assert_eq!(line.take(b"next", SMALL), (b"next".to_vec(), None));
    }

    #[test]
    fn a_line_past_the_limit_keeps_its_start_and_counts_the_rest() {
        let mut line = OpenLine::default();
        for _ in 0..100 {
            line.push(b"0123456789", SMALL);
            assert!(line.held() <= SMALL.in_memory);
        }
        assert_eq!(line.take(b"!", SMALL), (b"0123".to_vec(), Some(997)));
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let mut line = OpenLine::default();
        line.push("abcé".repeat(20).as_bytes(), SMALL);
        assert_eq!(line.take(b"", SMALL), (b"abc".to_vec(), Some(97)));
    }
}
