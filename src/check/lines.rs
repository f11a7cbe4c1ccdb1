//! A unified line diff without the `cli` feature's diff crate.
//!
//! The lean build shows a mismatch with this small diff: the common start
//! and end of the two texts are set aside, and what is left is aligned by a
//! longest common subsequence of lines, or shown as removed and added whole
//! when it is too large to align cheaply. The output has the shape of the
//! `cli` build's (headers, `@@` ranges, three lines of context), so a
//! message that differs in one field reads the same in both.

/// The most cells of the alignment table: past it, the differing middle is
/// shown removed and added whole, which bounds time and memory.
const MAX_CELLS: usize = 1 << 22;

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
    if (old_mid.len() + 1).saturating_mul(new_mid.len() + 1) <= MAX_CELLS {
        align(old_mid, new_mid, prefix, &mut ops);
    } else {
        ops.extend((0..old_mid.len()).map(|at| Op::Delete(prefix + at)));
        ops.extend((0..new_mid.len()).map(|at| Op::Insert(prefix + at)));
    }
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    ops.extend((0..suffix).map(|at| Op::Equal(old_end + at, new_end + at)));
    ops
}

/// Appends the script of `old` to `new` that keeps a longest common
/// subsequence, removals before additions; `offset` is where both start.
fn align(old: &[&str], new: &[&str], offset: usize, ops: &mut Vec<Op>) {
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
            ops.push(Op::Equal(offset + i, offset + j));
            i += 1;
            j += 1;
        } else if i < old.len()
            && (j == new.len() || kept[(i + 1) * width + j] >= kept[i * width + j + 1])
        {
            ops.push(Op::Delete(offset + i));
            i += 1;
        } else {
            ops.push(Op::Insert(offset + j));
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

    /// Where one field of a message changes, the lean diff is the `cli`
    /// build's, line for line.
    #[test]
    #[cfg(feature = "cli")]
    fn one_field_reads_as_in_the_cli_build() {
        let message = |text: &str| {
            let value = serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [
                {"type": "text", "text": text}], "isError": false,
                "_meta": {"a": 1, "b": [1, 2, 3], "c": {"d": null}}}});
            crate::check::diff::canonical(&value)
        };
        let (old, new) = (message("Hello, Ada!"), message("Hello, Grace!"));
        assert_eq!(
            unified(&old, &new, 3, ("recorded", "live")),
            crate::check::diff::unified_diff(&old, &new, ("recorded", "live"))
        );
        let gone = old.replace("      \"isError\": false,\n", "");
        assert_eq!(
            unified(&old, &gone, 3, ("recorded", "live")),
            crate::check::diff::unified_diff(&old, &gone, ("recorded", "live"))
        );
    }
}
