#!/usr/bin/env bash
# The check step of the mcp-replay action (action.yml): runs
# `mcp-replay check` with the action's inputs, the human report in the log,
# the JUnit file, the SARIF log and the Markdown summary beside it (the
# upload of the SARIF log is action.yml's next step), and ends with its
# exit status (0 all held, 1 findings, 2 unusable input).
#
# Reads the MCP_REPLAY_* inputs that action.yml passes, GITHUB_STEP_SUMMARY
# and GITHUB_OUTPUT; `mcp-replay` itself reads MCP_REPLAY_FILL_ENV, when the
# workflow sets it.
set -euo pipefail

# Paths and extra arguments are shell words, as in a `run:` step; the
# server command too, so `node "my server.js"` keeps its quotes. They come
# from the workflow's own file, which runs what it likes anyway.
paths=() server=() extra=()
eval "paths=(${MCP_REPLAY_PATHS:-})"
eval "server=(${MCP_REPLAY_SERVER:-})"
eval "extra=(${MCP_REPLAY_ARGS:-})"

args=(check)
[ ${#paths[@]} -eq 0 ] || args+=("${paths[@]}")
case "${MCP_REPLAY_NO_REPLAY:-false}" in
    true) args+=(--no-replay) ;;
    false) ;;
    *) echo "::error title=mcp-replay::no-replay must be true or false"; exit 2 ;;
esac
[ -z "${MCP_REPLAY_PROFILE:-}" ] || args+=(--profile "$MCP_REPLAY_PROFILE")
[ -z "${MCP_REPLAY_PARTITION:-}" ] || args+=(--partition "$MCP_REPLAY_PARTITION")
if [ -n "${MCP_REPLAY_JUNIT:-}" ]; then
    args+=(--junit "$MCP_REPLAY_JUNIT")
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        echo "junit=$MCP_REPLAY_JUNIT" >>"$GITHUB_OUTPUT"
    fi
fi
if [ -n "${MCP_REPLAY_SARIF:-}" ]; then
    args+=(--sarif "$MCP_REPLAY_SARIF")
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        echo "sarif=$MCP_REPLAY_SARIF" >>"$GITHUB_OUTPUT"
    fi
fi
case "${MCP_REPLAY_UPLOAD_SARIF:-false}" in
    true)
        if [ -z "${MCP_REPLAY_SARIF:-}" ]; then
            echo "::error title=mcp-replay::upload-sarif needs a sarif path"
            exit 2
        fi
        ;;
    false) ;;
    *) echo "::error title=mcp-replay::upload-sarif must be true or false"; exit 2 ;;
esac
case "${MCP_REPLAY_SUMMARY:-true}" in
    true) [ -z "${GITHUB_STEP_SUMMARY:-}" ] || args+=(--summary "$GITHUB_STEP_SUMMARY") ;;
    false) ;;
    *) echo "::error title=mcp-replay::summary must be true or false"; exit 2 ;;
esac
# Variable names, never values: split at commas and whitespace.
fill=() fill_list=${MCP_REPLAY_FILL:-}
read -r -d '' -a fill <<<"${fill_list//,/ }" || true
for name in "${fill[@]}"; do
    args+=(--fill-env "$name")
done
[ ${#extra[@]} -eq 0 ] || args+=("${extra[@]}")
[ ${#server[@]} -eq 0 ] || args+=(-- "${server[@]}")

echo "mcp-replay ${args[*]}"
exec mcp-replay "${args[@]}"
