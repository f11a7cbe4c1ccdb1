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
  const fromSource =
    "build it from source (`cargo install --locked mcp-replay`, or `cargo install --path .` from a clone) and set MCP_REPLAY_BINARY to its path";
  if (!pkg) {
    fail(`no mcp-replay binary is published for ${key}`, fromSource);
  }
  if (process.platform === "linux" && !isGlibc()) {
    // The Linux packages declare `"libc": ["glibc"]`, so npm skips them here.
    fail(`no mcp-replay binary is published for ${key} with musl libc (the Linux builds need glibc)`, fromSource);
  }
  try {
    return require.resolve(`${pkg}/bin/mcp-replay`);
  } catch {
    missing(pkg, key, fromSource);
  }
}

// Whether this Linux process runs on glibc (Node's report names the glibc
// version it runs with, and none on musl).
function isGlibc() {
  try {
    return Boolean(process.report.getReport().header.glibcVersionRuntime);
  } catch {
    return true;
  }
}

// Says why the platform package is not installed, from what npm recorded
// when it installed this one: the lock file of the tree this launcher is in
// (a project's, or npx's own) lists every package npm resolved, installed
// or not. Resolved but absent: optional dependencies were left out. Not
// resolved: npm found no such package (none is published for this
// platform and version) or could not reach the registry. Without a lock
// file (a global install) either is possible, and `npm view` tells them
// apart.
function missing(pkg, key, fromSource) {
  const version = require("../package.json").version;
  const wanted = `${pkg}@${version}`;
  const view = `\`npm view ${wanted} version\` prints the version when it is published`;
  const resolved = resolvedByLockFile(pkg);
  if (resolved === true) {
    fail(
      `${wanted}, which holds the binary for ${key}, was resolved but not installed: optional dependencies were left out (--omit=optional, --no-optional, or \`omit\` in the npm config)`,
      "reinstall with them: `npm install --include=optional`",
    );
  }
  if (resolved === false) {
    fail(
      `npm found no ${wanted}, which holds the binary for ${key}, when it installed mcp-replay ${version}: no build of this version is published for ${key}, or the registry could not be reached`,
      `${view}; meanwhile, ${fromSource}`,
    );
  }
  fail(
    `${wanted}, which holds the binary for ${key}, is not installed: either no build of mcp-replay ${version} is published for ${key}, or optional dependencies were left out`,
    `${view} (then reinstall with \`npm install --include=optional\`); otherwise ${fromSource}`,
  );
}

// `true` when the lock file of the tree that holds this launcher lists
// `pkg`, `false` when it does not, `undefined` when there is no lock file
// that lists a tree of packages.
function resolvedByLockFile(pkg) {
  const fs = require("node:fs");
  const path = require("node:path");
  // This file is <root>/node_modules/mcp-replay/bin/mcp-replay.js, or
  // deeper in a nested node_modules; the lock file is in a <root> above.
  for (let dir = path.dirname(__dirname); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") {
      continue;
    }
    const root = path.dirname(dir);
    for (const name of ["npm-shrinkwrap.json", "package-lock.json"]) {
      let lock;
      try {
        lock = JSON.parse(fs.readFileSync(path.join(root, name), "utf8"));
      } catch {
        continue;
      }
      if (typeof lock.packages !== "object" || lock.packages === null) {
        // A lock file of npm 6 and older lists no tree of packages.
        return undefined;
      }
      return Object.keys(lock.packages).some(
        (entry) => entry === `node_modules/${pkg}` || entry.endsWith(`/node_modules/${pkg}`),
      );
    }
  }
  return undefined;
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
