#!/usr/bin/env node
// The `mcp-replay` command of the npm package: finds the binary that the
// platform package (an optional dependency, one per OS and CPU) installed
// beside this one, and runs it in place of this process as closely as Node
// allows: same arguments, the same stdin, stdout and stderr (inherited, so
// every byte passes untouched), signals passed on, and its exit status or
// the signal it died of handed back.
"use strict";

const { spawn } = require("node:child_process");
const os = require("node:os");

const PLATFORMS = {
  "darwin arm64": "@mcp-replay/darwin-arm64",
  "darwin x64": "@mcp-replay/darwin-x64",
  "linux arm64": "@mcp-replay/linux-arm64",
  "linux x64": "@mcp-replay/linux-x64",
};

function fail(message, hint) {
  process.stderr.write(`mcp-replay: error: ${message}\n`);
  if (hint) {
    process.stderr.write(`hint: ${hint}\n`);
  }
  process.exit(2);
}

function binaryPath() {
  // A binary built elsewhere (a source build, a test) can stand in.
  if (process.env.MCP_REPLAY_BINARY) {
    return process.env.MCP_REPLAY_BINARY;
  }
  const key = `${process.platform} ${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    fail(
      `no mcp-replay binary is published for ${key}`,
      "build it from source with `cargo install mcp-replay`, and set MCP_REPLAY_BINARY to its path",
    );
  }
  try {
    return require.resolve(`${pkg}/bin/mcp-replay`);
  } catch {
    fail(
      `the package ${pkg}, which holds the binary for ${key}, is not installed`,
      "optional dependencies were left out (--omit=optional, --no-optional, or a lock file made on another platform): reinstall mcp-replay with them",
    );
  }
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });

// The binary does its own signal handling (it passes signals on to the
// servers it runs); this process only hands them over and waits.
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"];
for (const signal of SIGNALS) {
  process.on(signal, () => {
    child.kill(signal);
  });
}

child.on("error", (err) => {
  fail(`cannot run ${child.spawnfile}: ${err.message}`);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // End by the same signal, so a caller that asks how its child ended
    // learns what it would without this launcher.
    for (const name of SIGNALS) {
      process.removeAllListeners(name);
    }
    process.kill(process.pid, signal);
    // Still here: Node keeps a use of its own for this signal (SIGUSR1
    // starts its inspector). End as a shell reports a death by signal.
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  }
  process.exit(code ?? 1);
});
