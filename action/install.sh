#!/usr/bin/env bash
# The install step of the mcp-replay action (action.yml): puts `mcp-replay`
# on the job's PATH, from PyPI (the wheel is the release binary alone) or
# built by cargo from the action's own checkout: with build-from-source, and
# as the fallback when PyPI has no release (none published yet) or not the
# version asked for.
#
# Reads MCP_REPLAY_VERSION, MCP_REPLAY_BUILD_FROM_SOURCE, MCP_REPLAY_SOURCE,
# RUNNER_OS, RUNNER_TEMP and GITHUB_PATH, as the action sets them, and
# CARGO_TARGET_DIR when the job sets one.
set -euo pipefail

# There is no Windows build: mcp-replay is Unix-only (process groups,
# signals), so say so before pip or cargo fail in their own words.
case "${RUNNER_OS:-}:$(uname -s)" in
    Windows:* | *:MINGW* | *:MSYS* | *:CYGWIN*)
        echo "::error title=mcp-replay::mcp-replay runs on Linux and macOS runners only (it has no Windows build); run this job on ubuntu-latest or macos-latest"
        exit 2
        ;;
esac

root="${RUNNER_TEMP:?}/mcp-replay"
source=${MCP_REPLAY_SOURCE:?}

# build_from_source WHY: cargo install from the action's checkout (the ref
# in `uses:`) into $root/bin.
build_from_source() {
    if ! command -v cargo >/dev/null; then
        echo "::error title=mcp-replay::$1, and there is no cargo to build mcp-replay from the action's checkout: add a Rust toolchain step (dtolnay/rust-toolchain@stable) before this one, or ask for a published version"
        exit 2
    fi
    echo "::notice title=mcp-replay::$1: building mcp-replay from the action's checkout ($source) with cargo"
    # A target directory of its own, kept for the job, so a second use of
    # the action in the same job finds the build done.
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" \
        cargo install --locked --quiet --path "$source" --bin mcp-replay --root "$root"
}

case "${MCP_REPLAY_BUILD_FROM_SOURCE:-false}" in
    true)
        build_from_source "build-from-source is true"
        ;;
    false)
        version=${MCP_REPLAY_VERSION:-latest}
        case "$version" in
            latest) requirement=mcp-replay ;;
            [0-9]*) requirement="mcp-replay==$version" ;;
            *) echo "::error title=mcp-replay::version must be \`latest\` or a version such as 0.1.0, not \`$version\`"; exit 2 ;;
        esac
        python3 -m venv "$root"
        log="$root/pip.log"
        if ! "$root/bin/pip" install --quiet --disable-pip-version-check "$requirement" >"$log" 2>&1; then
            cat "$log" >&2
            # PyPI has no release at all, or not this version: the checkout
            # the action runs from is the release it stands for.
            if grep -q "No matching distribution found" "$log"; then
                build_from_source "PyPI has no release of $requirement"
                built=$("$root/bin/mcp-replay" --version | cut -d' ' -f2)
                if [ "$version" != latest ] && [ "$built" != "$version" ]; then
                    echo "::warning title=mcp-replay::version $version was asked for; the action's checkout builds $built"
                fi
            else
                echo "::error title=mcp-replay::pip could not install $requirement (its log is above)"
                exit 2
            fi
        fi
        ;;
    *)
        echo "::error title=mcp-replay::build-from-source must be true or false, not \`$MCP_REPLAY_BUILD_FROM_SOURCE\`"
        exit 2
        ;;
esac
bin="$root/bin"
"$bin/mcp-replay" --version
echo "$bin" >>"${GITHUB_PATH:?}"
