//! The unified line diff every build draws.
//!
//! The common start and end of the two texts are set aside, and what is
//! left is aligned by the patience method: lines that occur once on each
//! side anchor the alignment (the longest run of them in the same order on
//! both), and the gaps between anchors are aligned the same way, down to
//! gaps with no such line, which a longest common subsequence aligns when
//! it is small enough and which are shown removed and added whole when it
//! is not. Anchoring on unique lines keeps the structure of pretty JSON
//! aligned (a `},` matches the `},` of the same object, not the nearest
//! one), and the bounds keep time and memory linear in practice whatever
//! the messages: a diff of two huge, unrelated answers costs no more than
//! reading them.

use std::collections::HashMap;

/// The most cells of the alignment table: past it, the differing middle is
/// shown removed and added whole, which bounds time and memory.
const MAX_CELLS: usize = 1 << 22;

/// The most lines the search for anchors reads in all, over every gap:
/// past it, the gaps left are shown removed and added whole, so that no
/// pair of texts costs more than a bounded multiple of their length.
const MAX_ANCHOR_WORK: usize = 1 << 23;

/// One line of the edit script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// The line at this index of the expected text, in both.
    Equal(usize, usize),
    /// The line at this index of the expected text, removed.
    Delete(usize),
    /// The line at this index of the actual text, added.
    Insert(usize),
}

/// A plain unified diff of two texts, with `radius` lines of context and
/// the two headers; empty when the texts are equal.
pub(crate) fn unified(
    expected: &str,
    actual: &str,
    radius: usize,
    headers: (&str, &str),
) -> String {
    let old: Vec<&str> = expected.split_inclusive('\n').collect();
    let new: Vec<&str> = actual.split_inclusive('\n').collect();
    let ops = script(&old, &new);
    let mut out = String::new();
    let changed: Vec<usize> = (0..ops.len())
        .filter(|&at| !matches!(ops[at], Op::Equal(..)))
        .collect();
    let mut next = 0;
    while next < changed.len() {
        // A hunk takes every change within twice the context of the last.
        let first = changed[next];
        let mut last = first;
        next += 1;
        while next < changed.len() && changed[next] - last <= 2 * radius + 1 {
            last = changed[next];
            next += 1;
        }
        let start = first.saturating_sub(radius);
        let end = (last + radius + 1).min(ops.len());
        if out.is_empty() {
            out.push_str(&format!("--- {}\n+++ {}\n", headers.0, headers.1));
        }
        let hunk = &ops[start..end];
        let (old_start, new_start) = position(&ops, start);
        let old_len = hunk
            .iter()
            .filter(|op| !matches!(op, Op::Insert(_)))
            .count();
        let new_len = hunk
            .iter()
            .filter(|op| !matches!(op, Op::Delete(_)))
            .count();
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(old_start, old_len),
            range(new_start, new_len)
        ));
        for op in hunk {
            let (sign, line) = match *op {
                Op::Equal(at, _) => (' ', old[at]),
                Op::Delete(at) => ('-', old[at]),
                Op::Insert(at) => ('+', new[at]),
            };
            out.push(sign);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// Where the op at `at` stands in each text, from 0.
fn position(ops: &[Op], at: usize) -> (usize, usize) {
    ops[..at].iter().fold((0, 0), |(old, new), op| match op {
        Op::Equal(..) => (old + 1, new + 1),
        Op::Delete(_) => (old + 1, new),
        Op::Insert(_) => (old, new + 1),
    })
}

/// A hunk range as `diff -u` writes it: `start,len`, the start alone for
/// one line, and the line before for none.
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// The edit script from `old` to `new`.
fn script(old: &[&str], new: &[&str]) -> Vec<Op> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_mid, new_mid) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut ops: Vec<Op> = (0..prefix).map(|at| Op::Equal(at, at)).collect();
    patience(old_mid, new_mid, prefix, &mut ops);
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    ops.extend((0..suffix).map(|at| Op::Equal(old_end + at, new_end + at)));
    ops
}

/// Appends the script of `old` to `new` (both starting at `offset`) by the
/// patience method: anchors on lines unique to each side, the gaps between
/// them aligned in turn, and a gap with no unique line by [`small_gap`].
/// The work is a stack of gaps, not recursion, so no input can deepen the
/// call stack.
fn patience(old: &[&str], new: &[&str], offset: usize, ops: &mut Vec<Op>) {
    // A gap still to align, or an anchor to emit: in order, last first.
    enum Work {
        Gap(usize, usize, usize, usize),
        Same(usize, usize),
    }
    let mut stack = vec![Work::Gap(0, old.len(), 0, new.len())];
    let mut work_left = MAX_ANCHOR_WORK;
    while let Some(work) = stack.pop() {
        let (mut o0, mut o1, mut n0, mut n1) = match work {
            Work::Same(o, n) => {
                ops.push(Op::Equal(offset + o, offset + n));
                continue;
            }
            Work::Gap(o0, o1, n0, n1) => (o0, o1, n0, n1),
        };
        // The gap's own common start and end.
        let mut tail = Vec::new();
        while o0 < o1 && n0 < n1 && old[o0] == new[n0] {
            ops.push(Op::Equal(offset + o0, offset + n0));
            o0 += 1;
            n0 += 1;
        }
        while o0 < o1 && n0 < n1 && old[o1 - 1] == new[n1 - 1] {
            o1 -= 1;
            n1 -= 1;
            tail.push(Work::Same(o1, n1));
        }
        let size = (o1 - o0) + (n1 - n0);
        let anchors = if size <= work_left {
            work_left -= size;
            unique_anchors(&old[o0..o1], &new[n0..n1])
        } else {
            work_left = 0;
            Vec::new()
        };
        stack.extend(tail);
        if anchors.is_empty() {
            let whole = work_left == 0;
            small_gap(&old[o0..o1], &new[n0..n1], offset, (o0, n0), whole, ops);
            continue;
        }
        // Pushed last first: the gap after the last anchor, the anchor,
        // …, the gap before the first.
        let (mut end_o, mut end_n) = (o1, n1);
        for &(a, b) in anchors.iter().rev() {
            let (a, b) = (o0 + a, n0 + b);
            stack.push(Work::Gap(a + 1, end_o, b + 1, end_n));
            stack.push(Work::Same(a, b));
            (end_o, end_n) = (a, b);
        }
        stack.push(Work::Gap(o0, end_o, n0, end_n));
    }
}

/// The lines that occur exactly once in `old` and once in `new`, as pairs
/// of their indexes, the longest run of them in the same order on both
/// sides (by patience sorting, in n log n).
fn unique_anchors(old: &[&str], new: &[&str]) -> Vec<(usize, usize)> {
    // For each line: how often in `old`, its index there, how often in
    // `new`, its index there.
    let mut seen: HashMap<&str, (u32, usize, u32, usize)> = HashMap::new();
    for (at, line) in old.iter().enumerate() {
        let entry = seen.entry(line).or_insert((0, at, 0, 0));
        entry.0 += 1;
    }
    for (at, line) in new.iter().enumerate() {
        if let Some(entry) = seen.get_mut(line) {
            entry.2 += 1;
            entry.3 = at;
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen
        .into_values()
        .filter(|&(in_old, _, in_new, _)| in_old == 1 && in_new == 1)
        .map(|(_, a, _, b)| (a, b))
        .collect();
    pairs.sort_unstable();
    // The longest increasing run of `new` indexes: `tops[k]` is the pair
    // index ending the best run of length k + 1, `back` the run's links.
    let mut tops: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for at in 0..pairs.len() {
        let pile = tops.partition_point(|&top| pairs[top].1 < pairs[at].1);
        back[at] = pile.checked_sub(1).map(|before| tops[before]);
        if pile == tops.len() {
            tops.push(at);
        } else {
            tops[pile] = at;
        }
    }
    let mut res = Vec::with_capacity(tops.len());
    let mut next = tops.last().copied();
    while let Some(at) = next {
        res.push(pairs[at]);
        next = back[at];
    }
    res.reverse();
    res
}

/// Appends the script of a gap with no unique line: a longest common
/// subsequence when the table fits [`MAX_CELLS`], else removed and added
/// whole (as every gap is once the anchor search has spent its work:
/// `whole`). `(o0, n0)` is where the gap starts in each text.
fn small_gap(
    old: &[&str],
    new: &[&str],
    offset: usize,
    (o0, n0): (usize, usize),
    whole: bool,
    ops: &mut Vec<Op>,
) {
    if !whole && (old.len() + 1).saturating_mul(new.len() + 1) <= MAX_CELLS {
        align(old, new, (offset + o0, offset + n0), ops);
    } else {
        ops.extend((0..old.len()).map(|at| Op::Delete(offset + o0 + at)));
        ops.extend((0..new.len()).map(|at| Op::Insert(offset + n0 + at)));
    }
}

/// Appends the script of `old` to `new` that keeps a longest common
/// subsequence, removals before additions; `offset` is where each starts.
fn align(old: &[&str], new: &[&str], offset: (usize, usize), ops: &mut Vec<Op>) {
    let width = new.len() + 1;
    // `kept[i * width + j]`: the longest common subsequence of `old[i..]`
    // and `new[j..]`.
    let mut kept = vec![0u32; (old.len() + 1) * width];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            kept[i * width + j] = if old[i] == new[j] {
                kept[(i + 1) * width + j + 1] + 1
            } else {
                kept[(i + 1) * width + j].max(kept[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            ops.push(Op::Equal(offset.0 + i, offset.1 + j));
            i += 1;
            j += 1;
        } else if i < old.len()
            && (j == new.len() || kept[(i + 1) * width + j] >= kept[i * width + j + 1])
        {
            ops.push(Op::Delete(offset.0 + i));
            i += 1;
        } else {
            ops.push(Op::Insert(offset.1 + j));
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a\nb\n", "a\nb\n", 3, ("x", "y")), "");
    }

    #[test]
    fn one_changed_line_shows_with_its_context() {
        let old = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4,\n  \"e\": 5\n}\n";
        let new = old.replace("\"c\": 3", "\"c\": 30");
        assert_eq!(
            unified(old, &new, 3, ("expected", "actual")),
            "--- expected\n+++ actual\n@@ -1,7 +1,7 @@\n {\n   \"a\": 1,\n   \"b\": 2,\n-  \"c\": 3,\n+  \"c\": 30,\n   \"d\": 4,\n   \"e\": 5\n }\n"
        );
    }

    #[test]
    fn distant_changes_make_separate_hunks() {
        let text = |two: &str, seventeen: &str| -> String {
            (0..20)
                .map(|n| match n {
                    2 => format!("{two}\n"),
                    17 => format!("{seventeen}\n"),
                    _ => format!("{n}\n"),
                })
                .collect()
        };
        let (old, new) = (text("2", "17"), text("two", "seventeen"));
        let diff = unified(&old, &new, 1, ("e", "a"));
        assert_eq!(
            diff,
            "--- e\n+++ a\n@@ -2,3 +2,3 @@\n 1\n-2\n+two\n 3\n@@ -17,3 +17,3 @@\n 16\n-17\n+seventeen\n 18\n"
        );
    }

    #[test]
    fn added_and_removed_lines_keep_what_both_share() {
        let diff = unified("a\nb\nc\n", "a\nc\nd\n", 3, ("e", "a"));
        assert_eq!(diff, "--- e\n+++ a\n@@ -1,3 +1,3 @@\n a\n-b\n c\n+d\n");
        let added = unified("", "x\n", 3, ("e", "a"));
        assert_eq!(added, "--- e\n+++ a\n@@ -0,0 +1 @@\n+x\n");
    }

    /// A removed object of an array is one block, its braces with it: the
    /// unique lines around it anchor the alignment, so the `},` and `{`
    /// lines every element shares are not matched across elements.
    #[test]
    fn a_removed_element_is_one_block() {
        let items = |names: &[&str]| {
            let value = serde_json::json!({"tools": names.iter().map(|name| serde_json::json!(
                {"name": name, "inputSchema": {"type": "object"}})).collect::<Vec<_>>()});
            serde_json::to_string_pretty(&value).expect("JSON") + "\n"
        };
        let diff = unified(&items(&["a", "b", "c"]), &items(&["a", "c"]), 0, ("e", "a"));
        let removed: Vec<&str> = diff
            .lines()
            .filter(|line| line.starts_with('-'))
            .skip(1)
            .collect();
        let added: Vec<&str> = diff
            .lines()
            .filter(|line| line.starts_with('+'))
            .skip(1)
            .collect();
        assert!(added.is_empty(), "{diff}");
        assert_eq!(removed.len(), 6, "{diff}");
        assert!(removed.iter().any(|line| line.contains("\"b\"")), "{diff}");
    }

    /// Two large texts with nothing in common cost a bounded amount, and
    /// the diff still says every line.
    #[test]
    fn huge_unrelated_texts_are_shown_whole() {
        let old: String = (0..5000).map(|n| format!("a{}\n", n % 7)).collect();
        let new: String = (0..5000).map(|n| format!("b{}\n", n % 11)).collect();
        let diff = unified(&old, &new, 3, ("e", "a"));
        assert_eq!(
            diff.lines().filter(|line| line.starts_with('-')).count(),
            5001
        );
        assert_eq!(
            diff.lines().filter(|line| line.starts_with('+')).count(),
            5001
        );
    }

    /// Lines repeated on both sides with unique lines between them are
    /// aligned on the unique ones first.
    #[test]
    fn unique_lines_anchor_repeated_ones() {
        let diff = unified("x\n}\nA\n}\nB\n", "}\nA\n}\nC\nB\n", 0, ("e", "a"));
        assert_eq!(diff, "--- e\n+++ a\n@@ -1 +0,0 @@\n-x\n@@ -4,0 +4 @@\n+C\n");
    }
}
