# Checks, and where the system package manager can, installs what a build needs: JDK 17,
# Maven, a C++ compiler and libclang (for RocksDB's bindgen), plus cargo of at least the
# crate's MSRV (from rustup; Debian's cargo is too old). Sourced by bin/test, bin/demo,
# bin/bench and .ci/run, from the repository root. Stops at once, naming what is missing and
# the command that installs it, when it cannot install something itself.

# Debian package names for what apt-get can install.
_PREREQ_APT_JDK=openjdk-17-jdk-headless
_PREREQ_APT_MAVEN=maven
_PREREQ_APT_CXX=g++
_PREREQ_APT_LIBCLANG=libclang-dev

_prereq_fail() {
  echo "Missing build prerequisite: $1" >&2
  echo "Install it with: $2" >&2
  exit 1
}

# The major version of the JDK's javac, or empty.
_prereq_java_major() {
  command -v javac >/dev/null 2>&1 || return 0
  javac -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p'
}

# bindgen loads libclang.so or libclang-<version>.so; libclang-cpp.so (the C++ library, which
# stays installed without libclang-dev) is not it.
_prereq_have_libclang() {
  local dirs=(/usr/lib/llvm-*/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib)
  [ -n "${LIBCLANG_PATH:-}" ] && dirs=("$LIBCLANG_PATH" "${dirs[@]}")
  ldconfig -p 2>/dev/null | grep -Eq '[[:space:]]libclang(-[0-9.]+)?\.so' && return 0
  local dir
  for dir in "${dirs[@]}"; do
    compgen -G "$dir/libclang.so*" >/dev/null && return 0
    compgen -G "$dir/libclang-[0-9]*.so*" >/dev/null && return 0
  done
  return 1
}

# "1.88" from native/Cargo.toml's rust-version.
_prereq_msrv() {
  sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' native/Cargo.toml
}

_prereq_cargo_ok() {
  command -v cargo >/dev/null 2>&1 || return 1
  local have want
  have="$(cargo --version | sed -n 's/^cargo \([0-9]*\.[0-9]*\).*/\1/p')"
  want="$(_prereq_msrv)"
  [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" = "$want" ]
}

# Installs Debian packages if this shell may (root, or password-less sudo); returns 1 otherwise.
_prereq_apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    sudo -n true 2>/dev/null || return 1
    sudo=(sudo -n)
  fi
  echo "== installing system packages: $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq >&2 && "${sudo[@]}" apt-get install -y -qq "$@" >&2
}

# Checks every prerequisite; installs the missing system packages in one go if it can.
ensure_prerequisites() {
  local missing=()
  local java_major
  java_major="$(_prereq_java_major)"
  [ -n "$java_major" ] && [ "$java_major" -ge 17 ] || missing+=("$_PREREQ_APT_JDK")
  command -v mvn >/dev/null 2>&1 || missing+=("$_PREREQ_APT_MAVEN")
  command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || missing+=("$_PREREQ_APT_CXX")
  _prereq_have_libclang || missing+=("$_PREREQ_APT_LIBCLANG")
  if [ "${#missing[@]}" -gt 0 ] && ! _prereq_apt_install "${missing[@]}"; then
    _prereq_fail "${missing[*]} (JDK 17, Maven, a C++ compiler, libclang)" \
      "sudo apt-get install -y ${missing[*]}   (or your system's packages for them)"
  fi
  if ! _prereq_cargo_ok; then
    _prereq_fail "cargo $(_prereq_msrv) or newer (found: $(cargo --version 2>/dev/null || echo none))" \
      "rustup toolchain install stable   (get rustup from the Rust project first; Debian's cargo is too old)"
  fi
}
