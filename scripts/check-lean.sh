#!/usr/bin/env bash
# Holds the library build (`default-features = false`) to what a server
# author should pull: none of the command line's crates in its dependency
# tree, and no library code that ends the process.
#
# Prints the lean set's crate count, so a new dependency shows up in the CI
# log. The tree comes from Cargo.lock: nothing is built or downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

# The command line's own crates: argument parsing, regular expressions (and
# the matcher under them), text diffs, signal handling.
cli_only=(clap regex aho-corasick similar signal-hook)

tree=$(cargo tree --locked --no-default-features -e normal --prefix none |
    sed -e 's/ (\*)$//' -e 's/ (proc-macro)$//' | sort -u)
crates=$(printf '%s\n' "$tree" | grep -cv '^mcp-replay ' || true)
printf 'lean dependency set: %s crates\n%s\n' "$crates" "$tree"

status=0
for name in "${cli_only[@]}"; do
    if printf '%s\n' "$tree" | grep -q "^$name "; then
        printf 'error: %s is in the lean dependency tree; it belongs behind the cli feature\n' "$name" >&2
        status=1
    fi
done

# The binaries (src/main.rs with its modules in src/main/, src/bin/) decide
# the exit status; the library (src/cli/ too) returns errors.
if exits=$(grep -rn --include='*.rs' 'process::exit' src \
    --exclude=main.rs --exclude-dir=main --exclude-dir=bin); then
    printf 'error: library code ends the process:\n%s\n' "$exits" >&2
    status=1
fi
exit "$status"
