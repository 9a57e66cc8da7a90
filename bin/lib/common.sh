# Shared by the bin/ commands. Source it from the repository root.

# Fails early, with what to do, when a tool the build needs is missing.
require_tools() {
  local missing=()
  for tool in java mvn cargo; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "Missing: ${missing[*]}. Run .ci/run once (it installs what a fresh machine lacks), or install JDK 17, Maven and Rust (rustup)." >&2
    exit 1
  fi
}

# The cargo target directory, outside the clone and keyed by Cargo.lock (see native/build-native.sh).
cargo_target_dir() {
  echo "${STREAMFUSION_CARGO_TARGET_DIR:-$HOME/.cache/streamfusion/cargo-target-$(sha256sum native/Cargo.lock | cut -c1-16)}"
}

# Runs Maven offline once every pom's dependencies were resolved by an earlier run of the same
# command; the first run on a machine (or after a pom changes) goes online.
mvn_run() {
  local purpose="$1"; shift
  local hash marker
  hash="$(cat pom.xml ./*/pom.xml | sha256sum | cut -c1-16)"
  marker="$HOME/.cache/streamfusion/m2-$purpose-$hash"
  mkdir -p "$HOME/.cache/streamfusion"
  if [ -f "$marker" ]; then
    mvn -o -Dstyle.color=never "$@"
  else
    mvn -Dstyle.color=never "$@"
  fi
  touch "$marker"
}

# The JVM flags Flink 2.x needs on Java 17, read from the parent pom so there is one list.
flink_jvm_opens() {
  sed -n 's:.*<flink.jvm.opens>\(.*\)</flink.jvm.opens>.*:\1:p' pom.xml
}

# The plugin jar users put into Flink's lib/, as `mvn package` leaves it.
plugin_jar() {
  ls backend-native/target/streamfusion-backend-native-*-plugin.jar
}

# The benchmarks jar, which carries the demo jobs submitted to a cluster.
benchmarks_jar() {
  ls benchmarks/target/streamfusion-benchmarks-*.jar | grep -v -e '-sources' -e '-tests' | head -1
}
