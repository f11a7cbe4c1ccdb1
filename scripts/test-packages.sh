#!/usr/bin/env bash
# Installs each artefact of dist/ (scripts/package.sh) into a fresh scratch
# environment and gates the demo server and the bundled transcripts through
# the command it installed:
#
#   wheel   a new venv, `pip install dist/*.whl`; on Linux, the wheel's tag
#           and the installed binary's glibc floor (manylinux_2_28 at most,
#           and no symbol newer than the tag names)
#   npm     a new global prefix, `npm install -g` of the launcher and the
#           platform package; a new project, `npm install --no-save` and
#           `npx mcp-replay` in it, its package.json left as it was; and the
#           launcher's word when the platform package is missing, told
#           apart: none to be found, or optional dependencies left out
#   uvx     `uvx --from dist/*.whl mcp-replay`, with uv from PyPI, the server
#           under test run through uvx too
#   action  the GitHub Action's install and check steps (action/*.sh), as a
#           runner runs them, with pip pointed at dist/ instead of PyPI
#
# Usage: scripts/test-packages.sh [wheel|npm|uvx|action]...   (all when none is given)
#
# Nothing is fetched but uv itself: the wheel has no dependencies, and the
# npm launcher's platform package is installed from dist/ beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

halves=("$@")
[ ${#halves[@]} -gt 0 ] || halves=(wheel npm uvx action)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail() {
    echo "test-packages: FAIL: $*" >&2
    exit 1
}

only() {
    local pattern=$1 found
    found=$(find dist -maxdepth 1 -name "$pattern" | sort)
    [ "$(printf '%s\n' "$found" | grep -c .)" = 1 ] \
        || fail "expected one dist/$pattern (run scripts/package.sh), found: ${found:-none}"
    echo "$root/$found"
}

# glibc_floor NAME BINARY GLIBC: on Linux, BINARY needs no glibc symbol
# version newer than GLIBC (2.17 for manylinux_2_17), and GLIBC is at most
# 2.28, so the binary runs on Debian 10, Ubuntu 20.04, RHEL 8 and newer.
glibc_floor() {
    local name=$1 binary=$2 floor=$3 versions highest
    [ "$(uname -s)" = Linux ] || return 0
    if command -v objdump >/dev/null; then
        versions=$(objdump -T "$binary")
    else
        versions=$(readelf --wide -V "$binary")
    fi
    highest=$(printf '%s\n' "$versions" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -uV | tail -1)
    [ -n "$highest" ] || fail "$name: $binary names no glibc symbol version"
    [ "$(printf '%s\n%s\n' "$floor" 2.28 | sort -V | tail -1)" = 2.28 ] \
        || fail "$name: a glibc floor of $floor is newer than 2.28 (manylinux_2_28)"
    [ "$(printf '%s\n%s\n' "$highest" "$floor" | sort -V | tail -1)" = "$floor" ] \
        || fail "$name: $binary needs glibc $highest, newer than its floor $floor"
    echo "--- $name: $binary needs glibc $highest at most (floor $floor)"
}

# documented_size NAME FILE WHAT: docs/packaging.md says "WHAT N.N MB" of
# FILE's size on Linux x86_64, the platform it describes; it must be within
# 10% of the artefact, or the page is stale.
documented_size() {
    local name=$1 file=$2 what=$3 documented actual
    [ "$(uname -sm)" = "Linux x86_64" ] || return 0
    documented=$(grep -o "$what [0-9.]* MB" docs/packaging.md | grep -o '[0-9.]*' | head -1)
    [ -n "$documented" ] || fail "$name: docs/packaging.md gives no size as \`$what N MB\`"
    actual=$(wc -c <"$file")
    python3 - "$documented" "$actual" <<'PY' || fail "$name: docs/packaging.md says $what $documented MB; $file is $actual bytes"
import sys
documented, actual = float(sys.argv[1]) * 1e6, int(sys.argv[2])
sys.exit(abs(documented - actual) > 0.1 * actual)
PY
}

# gate NAME: runs the installed `mcp-replay`, which must be the first on
# PATH and not the build tree's, against the demo server and transcripts/.
gate() {
    local name=$1 found
    found=$(command -v mcp-replay) || fail "$name: no mcp-replay on PATH"
    case "$found" in
        "$scratch"/*) ;;
        *) fail "$name: mcp-replay on PATH is $found, not the one installed in $scratch" ;;
    esac
    echo "--- $name: $found"
    mcp-replay --version | grep -q "^mcp-replay [0-9]" || fail "$name: --version"
    mcp-replay --version
    mcp-replay check --no-replay -- mcp-replay demo-server || fail "$name: the probes of the demo server"
    # The transcripts' server command is `mcp-replay demo-server`: the
    # installed binary serves the demo server too.
    mcp-replay check transcripts/ || fail "$name: the bundled transcripts"
    # A gate that cannot fail proves nothing: `cat` echoes every request
    # back instead of answering it, and must fail with status 1.
    local status=0
    mcp-replay check --no-replay --format json -- cat >"$scratch/cat.jsonl" || status=$?
    [ "$status" = 1 ] || fail "$name: \`cat\` as a server exited $status, not 1"
}

for half in "${halves[@]}"; do
    case "$half" in
        wheel)
            wheel=$(only 'mcp_replay-*.whl')
            python3 -m venv "$scratch/venv"
            "$scratch/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
            case "$(basename "$wheel")" in
                *-linux_*) fail "wheel: $wheel has no manylinux tag, so PyPI would refuse it" ;;
                *manylinux_2_*)
                    # The oldest glibc any tag of the name claims.
                    floor=$(basename "$wheel" | grep -o 'manylinux_2_[0-9]*' | sed 's/^manylinux_2_/2./' | sort -V | head -1)
                    glibc_floor "wheel" "$scratch/venv/bin/mcp-replay" "$floor"
                    ;;
            esac
            documented_size "wheel" "$wheel" "The wheel is"
            PATH="$scratch/venv/bin:$PATH" gate "wheel (venv)"
            ;;
        npm)
            launcher=$(only 'mcp-replay-[0-9]*.tgz')
            platform=$(only 'mcp-replay-*-*-[0-9]*.tgz')
            export npm_config_cache="$scratch/npm-cache" npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
            package=$(basename "$platform" | sed 's/^mcp-replay-\(.*\)-[0-9][^-]*\.tgz$/\1/')
            npm install --silent --global --prefix "$scratch/npm-global" "$launcher" "$platform"
            PATH="$scratch/npm-global/bin:$PATH" gate "npm (global prefix)"
            installed="$scratch/npm-global/lib/node_modules/@mcp-replay/$package/bin/mcp-replay"
            [ -x "$installed" ] || fail "npm: no binary at $installed"
            case "$package" in linux-*) glibc_floor "npm" "$installed" 2.17 ;; esac
            documented_size "npm" "$platform" "the npm platform package"
            # A project tries the packages without recording them: --no-save
            # leaves its package.json as it was, with no file: paths in it.
            mkdir "$scratch/project"
            (cd "$scratch/project" && npm init --yes >/dev/null && cp package.json package.json.before \
                && npm install --silent --no-save "$launcher" "$platform")
            cmp -s "$scratch/project/package.json" "$scratch/project/package.json.before" \
                || fail "npm: \`npm install --no-save\` changed the project's package.json"
            # npx from the project, as a package.json script would run it.
            PATH="$scratch/project/node_modules/.bin:$PATH" gate "npm (project, npx)"
            npx --prefix "$scratch/project" --no-install mcp-replay --version >/dev/null \
                || fail "npx mcp-replay --version"
            # The launcher without its platform package, two ways: npm finds
            # none (here the registry is a closed port on the loopback, as
            # for a version with no build published), or optional
            # dependencies were left out. It says which, exits 2 and runs
            # nothing.
            missing_binary() {
                local dir=$1 status=0
                "$dir/node_modules/.bin/mcp-replay" --version >"$dir.out" 2>"$dir.err" || status=$?
                [ "$status" = 2 ] || fail "npm: the launcher without its binary exited $status, not 2"
                [ ! -s "$dir.out" ] || fail "npm: the launcher without its binary wrote on stdout"
                cat "$dir.err"
            }
            mkdir "$scratch/unpublished"
            (cd "$scratch/unpublished" && npm init --yes >/dev/null \
                && npm_config_registry=http://127.0.0.1:9/ npm_config_fetch_retries=0 npm install --silent "$launcher")
            missing_binary "$scratch/unpublished"
            grep -q "npm found no @mcp-replay/$package@" "$scratch/unpublished.err" \
                || fail "npm: the launcher does not say that no platform package was found"
            ! grep -q "left out" "$scratch/unpublished.err" \
                || fail "npm: the launcher blames omitted optional dependencies for a package npm never found"
            mkdir "$scratch/omitted"
            printf '{"name":"omitted","version":"1.0.0","dependencies":{"mcp-replay":"file:%s"},"optionalDependencies":{"@mcp-replay/%s":"file:%s"}}\n' \
                "$launcher" "$package" "$platform" >"$scratch/omitted/package.json"
            (cd "$scratch/omitted" && npm install --silent --omit=optional)
            missing_binary "$scratch/omitted"
            grep -q "optional dependencies were left out" "$scratch/omitted.err" \
                || fail "npm: the launcher does not say that optional dependencies were left out"
            ;;
        uvx)
            wheel=$(only 'mcp_replay-*.whl')
            python3 -m venv "$scratch/uv"
            "$scratch/uv/bin/pip" install --quiet --disable-pip-version-check "uv>=0.4"
            export UV_CACHE_DIR="$scratch/uv-cache" UV_TOOL_DIR="$scratch/uv-tools" UV_OFFLINE=1
            uvx=("$scratch/uv/bin/uvx" --quiet --from "$wheel" mcp-replay)
            echo "--- uvx: ${uvx[*]}"
            "${uvx[@]}" --version | grep -q "^mcp-replay [0-9]" || fail "uvx: --version"
            "${uvx[@]}" check --no-replay -- "${uvx[@]}" demo-server || fail "uvx: the probes of the demo server"
            # The demo server's transcripts, replayed against the demo server
            # started through uvx too (the others record `mcp-replay serve`).
            "${uvx[@]}" check transcripts/*-demo.jsonl -- "${uvx[@]}" demo-server \
                || fail "uvx: the bundled transcripts"
            ;;
        action)
            only 'mcp_replay-*.whl' >/dev/null
            version=$(cargo pkgid)
            version=${version##*[#@]}
            runner="$scratch/runner"
            mkdir -p "$runner/temp"
            : >"$runner/path"
            : >"$runner/summary.md"
            : >"$runner/output"
            PIP_NO_INDEX=1 PIP_FIND_LINKS="$root/dist" RUNNER_TEMP="$runner/temp" GITHUB_PATH="$runner/path" \
                MCP_REPLAY_VERSION="$version" MCP_REPLAY_BUILD_FROM_SOURCE=false MCP_REPLAY_SOURCE="$root" \
                bash action/install.sh
            action_path=$(cat "$runner/path")
            [ "$action_path" = "$runner/temp/mcp-replay/bin" ] || fail "action: GITHUB_PATH holds \`$action_path\`"
            # No release on the index (an empty one here): the action builds
            # from its own checkout instead (with the main job's target
            # directory, so cargo finds the release build done).
            echo "--- action: no release on PyPI, built from the checkout"
            mkdir -p "$runner/empty-index" "$runner/fallback/temp"
            : >"$runner/fallback/path"
            PIP_NO_INDEX=1 PIP_FIND_LINKS="$runner/empty-index" RUNNER_TEMP="$runner/fallback/temp" \
                GITHUB_PATH="$runner/fallback/path" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" \
                MCP_REPLAY_VERSION=latest MCP_REPLAY_BUILD_FROM_SOURCE=false MCP_REPLAY_SOURCE="$root" \
                bash action/install.sh >"$runner/fallback.out" 2>&1 || { cat "$runner/fallback.out"; fail "action: no fallback to a build from source"; }
            grep -q '^::notice title=mcp-replay::PyPI has no release of mcp-replay: building mcp-replay from the action' "$runner/fallback.out" \
                || fail "action: the fallback does not say why it builds"
            "$(cat "$runner/fallback/path")/mcp-replay" --version | grep -q "^mcp-replay $version " \
                || fail "action: the fallback installed no mcp-replay $version"
            # A Windows runner is refused by name, before pip or cargo run.
            local_status=0
            RUNNER_OS=Windows RUNNER_TEMP="$runner/windows" GITHUB_PATH="$runner/windows-path" MCP_REPLAY_SOURCE="$root" \
                bash action/install.sh >"$runner/windows.out" 2>&1 || local_status=$?
            [ "$local_status" = 2 ] || fail "action: a Windows runner exited $local_status, not 2"
            grep -q '^::error title=mcp-replay::mcp-replay runs on Linux and macOS runners only' "$runner/windows.out" \
                || fail "action: a Windows runner is not told that there is no Windows build"
            [ ! -e "$runner/windows" ] || fail "action: a Windows runner got an install"
            # The action's defaults for everything but the inputs given here.
            action_check() {
                PATH="$action_path:$PATH" GITHUB_STEP_SUMMARY="$runner/summary.md" GITHUB_OUTPUT="$runner/output" \
                    MCP_REPLAY_NO_REPLAY=false MCP_REPLAY_PROFILE="" MCP_REPLAY_PARTITION="" MCP_REPLAY_SUMMARY=true \
                    MCP_REPLAY_ARGS="--jobs 2" "$@" bash action/check.sh
            }
            echo "--- action: transcripts/ and the demo server"
            action_check env MCP_REPLAY_PATHS="transcripts/" MCP_REPLAY_SERVER="" MCP_REPLAY_JUNIT="$runner/junit.xml" \
                || fail "action: the bundled transcripts"
            grep -q '<testsuites' "$runner/junit.xml" || fail "action: no JUnit report"
            grep -q "^junit=$runner/junit.xml$" "$runner/output" || fail "action: no junit output"
            grep -q '^| ✅ PASS | <code>transcripts/python-sdk-demo.jsonl</code>' "$runner/summary.md" \
                || fail "action: the summary has no row for a transcript"
            echo "--- action: the probes of \`cat\`, which must fail"
            local_status=0
            action_check env MCP_REPLAY_PATHS="" MCP_REPLAY_SERVER="cat" MCP_REPLAY_NO_REPLAY=true MCP_REPLAY_JUNIT="" \
                >"$scratch/action-cat.txt" || local_status=$?
            [ "$local_status" = 1 ] || fail "action: \`cat\` as a server exited $local_status, not 1"
            grep -q '^<details><summary><b>error\[initialize\]</b>' "$runner/summary.md" \
                || fail "action: the summary folds no finding of \`cat\`"
            [ "$(grep -c '^## mcp-replay check' "$runner/summary.md")" = 2 ] \
                || fail "action: two runs did not append two summaries"
            ;;
        *) fail "unknown half \`$half\` (wheel, npm, uvx or action)" ;;
    esac
done
echo "test-packages: all installed artefacts gated the demo server and transcripts/"
