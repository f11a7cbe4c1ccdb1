#!/usr/bin/env bash
# The install step of the mcp-replay action (action.yml): puts `mcp-replay`
# on the job's PATH, from PyPI (the wheel is the release binary alone) or,
# with build-from-source, built by cargo from the action's checkout.
#
# Reads MCP_REPLAY_VERSION, MCP_REPLAY_BUILD_FROM_SOURCE, MCP_REPLAY_SOURCE,
# RUNNER_TEMP and GITHUB_PATH, as the action sets them.
set -euo pipefail

root="${RUNNER_TEMP:?}/mcp-replay"
case "${MCP_REPLAY_BUILD_FROM_SOURCE:-false}" in
    true)
        # A target directory of its own, kept for the job, so a second use
        # of the action in the same job finds the build done.
        CARGO_TARGET_DIR="$root/target" \
            cargo install --locked --quiet --path "${MCP_REPLAY_SOURCE:?}" --bin mcp-replay --root "$root"
        bin="$root/bin"
        ;;
    false)
        version=${MCP_REPLAY_VERSION:-latest}
        case "$version" in
            latest) requirement=mcp-replay ;;
            [0-9]*) requirement="mcp-replay==$version" ;;
            *) echo "::error title=mcp-replay::version must be \`latest\` or a version such as 0.1.0, not \`$version\`"; exit 2 ;;
        esac
        python3 -m venv "$root"
        "$root/bin/pip" install --quiet --disable-pip-version-check "$requirement"
        bin="$root/bin"
        ;;
    *)
        echo "::error title=mcp-replay::build-from-source must be true or false, not \`$MCP_REPLAY_BUILD_FROM_SOURCE\`"
        exit 2
        ;;
esac
"$bin/mcp-replay" --version
echo "$bin" >>"${GITHUB_PATH:?}"
