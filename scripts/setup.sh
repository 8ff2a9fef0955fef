# Installs what a fresh Debian/Ubuntu machine with Rust and Node lacks. Sourced by start and test.

apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "Please install these packages first: $*" >&2
      exit 1
    fi
  fi
  echo "Installing $* with apt-get…" >&2
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

ensure_postgres() {
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || apt_install postgresql
}

ensure_chromium() {
  [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || apt_install chromium
}

ensure_node_modules() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "Installing npm packages…" >&2
    # The lockfile pins every version; Playwright uses Debian's Chromium, not its own download.
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error >&2
  fi
}
