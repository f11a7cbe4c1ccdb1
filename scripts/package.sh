#!/usr/bin/env bash
# Builds the release artefacts of this machine's platform into dist/:
#
#   dist/mcp_replay-VERSION-py3-none-manylinux_X_Y_x86_64.whl   pip / uvx
#   dist/mcp-replay-VERSION.tgz                                  npm launcher
#   dist/mcp-replay-linux-x64-VERSION.tgz                        npm platform package
#
# Usage: scripts/package.sh [--target TRIPLE]
#
# With --target, the binary is built for TRIPLE (its toolchain and linker
# must be installed) and the npm platform package is the one of TRIPLE; a
# release matrix runs this once per platform and publishes the launcher
# from any one of them (see docs/packaging.md).
#
# maturin (and auditwheel, to name the wheel's glibc floor) come from PyPI
# into target/package-tools/ when they are not on the PATH.
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

tools=$PWD/target/package-tools
maturin=$(command -v maturin || true)
auditwheel=$(command -v auditwheel || true)
if [ -z "$maturin" ] || [ -z "$auditwheel" ]; then
    if [ ! -x "$tools/bin/maturin" ] || [ ! -x "$tools/bin/auditwheel" ]; then
        python3 -m venv "$tools"
        "$tools/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.7,<2" "auditwheel>=6"
    fi
    maturin=$tools/bin/maturin
    auditwheel=$tools/bin/auditwheel
fi

rm -rf dist
mkdir -p dist
target_dir=${CARGO_TARGET_DIR:-target}

# The binary. A host build goes to target/release/, where `cargo build
# --release` (CI's main job) already put it, so nothing is built twice.
if [ "$target" = "$(rustc -vV | sed -n 's/^host: //p')" ]; then
    cargo build --release --locked --bin mcp-replay
    binary=$target_dir/release/mcp-replay
    target_args=()
else
    cargo build --release --locked --bin mcp-replay --target "$target"
    binary=$target_dir/$target/release/mcp-replay
    target_args=(--target "$target")
fi

# The wheel: maturin takes the binary cargo just built (the same profile,
# so cargo finds nothing to do) and tags it with the oldest manylinux
# policy its symbols allow.
"$maturin" build --release --locked "${target_args[@]}" --out dist
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
