# Sourced by the execution benchmarks: the build, and Debian packages the
# benchmark needs beyond the project's own (python3-torch and
# python3-torchvision export the models). Sets root and work.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$root/build/bench-exec"
[ -x "$root/build/bin/placer-run" ] || bash "$root/scripts/build.sh"

# ensure_packages CHECK PACKAGE...: installs the packages unless the shell
# command CHECK already succeeds.
ensure_packages() {
  local check="$1"; shift
  if ! eval "$check" >/dev/null 2>&1; then
    local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@"
  fi
}
mkdir -p "$work"
