#!/usr/bin/env bash
# Builds the release artefacts of this machine's platform into dist/:
#
#   dist/mcp_replay-VERSION-py3-none-manylinux_2_17_x86_64.whl  pip / uvx
#   dist/mcp-replay-VERSION.tgz                                  npm launcher
#   dist/mcp-replay-linux-x64-VERSION.tgz                        npm platform package
#
# Usage: scripts/package.sh [--target TRIPLE]
#
# The binary is the shipped build, Cargo.toml's `dist` profile (whole-program
# LTO, one codegen unit), built once by maturin for the wheel and packed as
# it is into the npm platform package. A Linux binary is linked by zig
# against glibc 2.17's symbols (maturin's `--zig`), so the wheel is
# manylinux_2_17 and runs on every glibc since 2012 (Debian 8, Ubuntu 14.04,
# RHEL 7), whatever glibc this machine has.
#
# With --target, the binary is built for TRIPLE (on macOS, its toolchain
# must be installed; zig links the Linux ones) and the npm platform package
# is the one of TRIPLE; a release matrix runs this once per platform and
# publishes the launcher from any one of them (see docs/packaging.md).
#
# maturin, auditwheel (which confirms the wheel's glibc floor) and, for
# Linux, zig (the `ziglang` package) come from PyPI into
# target/package-tools/ when they are not on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

target=""
while [ $# -gt 0 ]; do
    case "$1" in
        --target) target=${2:?--target needs a triple}; shift 2 ;;
        *) echo "usage: scripts/package.sh [--target TRIPLE]" >&2; exit 2 ;;
    esac
done
if [ -z "$target" ]; then
    target=$(rustc -vV | sed -n 's/^host: //p')
fi

# The npm platform package of each triple a release builds.
case "$target" in
    x86_64-unknown-linux-gnu) platform=linux-x64 ;;
    aarch64-unknown-linux-gnu) platform=linux-arm64 ;;
    x86_64-apple-darwin) platform=darwin-x64 ;;
    aarch64-apple-darwin) platform=darwin-arm64 ;;
    *) echo "package.sh: no npm platform package for $target (see npm/)" >&2; exit 2 ;;
esac

# One version for every artefact: the crate's.
pkgid=$(cargo pkgid)
version=${pkgid##*[#@]}
node - "$version" <<'JS'
const fs = require("node:fs");
const version = process.argv[2];
const wrong = [];
for (const dir of fs.readdirSync("npm")) {
  const manifest = JSON.parse(fs.readFileSync(`npm/${dir}/package.json`, "utf8"));
  if (manifest.version !== version) wrong.push(`npm/${dir}/package.json: version ${manifest.version}`);
  for (const [name, wanted] of Object.entries(manifest.optionalDependencies ?? {})) {
    if (wanted !== version) wrong.push(`npm/${dir}/package.json: ${name} ${wanted}`);
    if (!fs.existsSync(`npm/${name.replace("@mcp-replay/", "")}/package.json`)) {
      wrong.push(`npm/${dir}/package.json: ${name} has no directory under npm/`);
    }
  }
}
if (wrong.length > 0) {
  console.error(`package.sh: the npm packages must be at the crate's version ${version}:`);
  for (const line of wrong) console.error(`  ${line}`);
  process.exit(2);
}
JS

case "$target" in
    *-linux-gnu) zig=true ;;
    *) zig=false ;;
esac
tools=$PWD/target/package-tools
maturin=$(command -v maturin || true)
auditwheel=$(command -v auditwheel || true)
# maturin finds zig on the PATH, or as `python3 -m ziglang`.
have_zig() { command -v zig >/dev/null || python3 -c 'import ziglang' 2>/dev/null; }
if [ -z "$maturin" ] || [ -z "$auditwheel" ] || { $zig && ! have_zig; }; then
    if [ ! -x "$tools/bin/maturin" ] || [ ! -x "$tools/bin/auditwheel" ] || ! "$tools/bin/python3" -c 'import ziglang' 2>/dev/null; then
        python3 -m venv "$tools"
        "$tools/bin/pip" install --quiet --disable-pip-version-check \
            "maturin>=1.7,<2" "auditwheel>=6" "ziglang==0.17.1"
    fi
    maturin=$tools/bin/maturin
    auditwheel=$tools/bin/auditwheel
    export PATH="$tools/bin:$PATH"
fi

rm -rf dist
mkdir -p dist
target_dir=${CARGO_TARGET_DIR:-target}

# The binary and the wheel, in one build: maturin runs cargo with the
# `dist` profile (pyproject.toml) for TRIPLE, always named, so the binary is
# at target/TRIPLE/dist/ whether zig links it or not.
zig_args=()
if $zig; then
    zig_args=(--zig --compatibility manylinux_2_17)
fi
"$maturin" build --locked --target "$target" ${zig_args[@]+"${zig_args[@]}"} --out dist
binary=$target_dir/$target/dist/mcp-replay
wheel=$(ls dist/*.whl)
case "$target" in
    *-linux-*)
        tag=$("$auditwheel" show "$wheel" | tr -s '\n ' '  ' | grep -o 'platform tag: "[^"]*"' | head -1)
        echo "auditwheel: $wheel is consistent with the $tag"
        ;;
esac

# The npm packages, packed from a staging copy that holds what is built
# (the binary, the README) beside what is committed (package.json).
stage=target/npm-stage
rm -rf "$stage"
mkdir -p "$stage/mcp-replay/bin" "$stage/$platform/bin"
cp npm/mcp-replay/package.json README.md "$stage/mcp-replay/"
cp npm/mcp-replay/bin/mcp-replay.js "$stage/mcp-replay/bin/"
cp "npm/$platform/package.json" "$stage/$platform/"
install -m 0755 "$binary" "$stage/$platform/bin/mcp-replay"
chmod 0755 "$stage/mcp-replay/bin/mcp-replay.js"
for package in mcp-replay "$platform"; do
    npm pack --silent --pack-destination dist "./$stage/$package" >/dev/null
done

ls -l dist
