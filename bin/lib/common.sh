# Shared by the bin/ commands. Source it from the repository root.

source bin/lib/prerequisites.sh

# The cargo target directory, outside the clone so that a fresh clone reuses an earlier compile
# of RocksDB (see native/build-native.sh, which uses the same one).
cargo_target_dir() {
  echo "${STREAMFUSION_CARGO_TARGET_DIR:-$HOME/.cache/streamfusion/cargo-target}"
}

# Runs Maven offline once the same command, with the same poms and the same local repository,
# succeeded online: that run resolved every plugin and dependency this one needs. Any other
# command (or a changed pom, or another repository) goes online first.
mvn_run() {
  local key marker
  key="$(printf '%s\n' "$*" "${MAVEN_OPTS:-}" | cat - pom.xml ./*/pom.xml | sha256sum | cut -c1-16)"
  marker="$HOME/.cache/streamfusion/m2-resolved-$key"
  mkdir -p "$HOME/.cache/streamfusion"
  if [ -f "$marker" ]; then
    local log status
    log="$(mktemp)"
    set +e
    mvn -o -Dstyle.color=never "$@" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    if [ "$status" -eq 0 ] || ! grep -q -e 'in offline mode' -e 'No plugin found for prefix' "$log"; then
      rm -f "$log"
      return "$status"
    fi
    rm -f "$log" "$marker"
    echo "== an offline Maven run could not resolve everything (the local repository changed?); going online" >&2
  fi
  mvn -Dstyle.color=never "$@"
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
