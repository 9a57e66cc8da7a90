#!/usr/bin/env bash
# Builds the Rust cdylib in release mode and copies it to the folder given as $1.
#
# The cargo target directory lives outside the source tree, so a fresh clone reuses an earlier
# compile of RocksDB instead of spending a quarter of an hour on it again; cargo's own
# fingerprints decide what to rebuild. bin/lib/common.sh names the same directory. Override it
# with STREAMFUSION_CARGO_TARGET_DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: build-native.sh OUTPUT_DIR}"

if ! command -v cargo >/dev/null 2>&1; then
  echo "build-native.sh: cargo not found. Install Rust (rustup) or run .ci/run, which installs what a fresh machine lacks." >&2
  exit 1
fi

export CARGO_TARGET_DIR="${STREAMFUSION_CARGO_TARGET_DIR:-$HOME/.cache/streamfusion/cargo-target}"
mkdir -p "$CARGO_TARGET_DIR"

# A cdylib's file name carries no hash, so two clones sharing the target directory write the same
# release/deps/libstreamfusion.so, while each keeps its own fingerprint. Clone A, then clone B,
# then clone A unchanged would pack B's library. The stamp names the clone that built the file.
stamp="$CARGO_TARGET_DIR/release/libstreamfusion.so.built-from"
if [[ -f "$stamp" && "$(cat "$stamp")" != "$here" ]]; then
  echo "build-native.sh: the cached library was built from $(cat "$stamp"); rebuilding it from $here"
  # A missing output makes cargo's fingerprint stale, so this rebuilds the crate and no dependency.
  rm -f "$CARGO_TARGET_DIR/release/deps/libstreamfusion.so" "$CARGO_TARGET_DIR/release/libstreamfusion.so"
fi
# From native/, so that cargo reads native/.cargo/config.toml (RocksDB's compile flags).
(cd "$here" && cargo build --release --locked)
echo "$here" >"$stamp"

mkdir -p "$out"
cp -f "$CARGO_TARGET_DIR/release/libstreamfusion.so" "$out/libstreamfusion.so"
echo "build-native.sh: packed $(du -h "$out/libstreamfusion.so" | cut -f1) library into $out (target dir $CARGO_TARGET_DIR)"
