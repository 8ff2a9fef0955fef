# /// script
# requires-python = ">=3.9"
# dependencies = ["pyyaml>=6"]
# ///
"""Runs the supabase-py monorepo's own test suites against supagate.

    uv run tests/peer/supabase_py.py [--repo URL_OR_PATH] [--supagate BIN] [PACKAGE ...]

Fetches supabase-py (a shallow clone into target/peer/supabase-py, never into this repository),
then runs each package's pytest suite against supagate:

- where the suite has a project folder of its own (`infra/supabase`: storage, realtime), supagate
  is started from it, as `supabase start --workdir infra` would be;
- where it expects bare PostgREST or GoTrue containers (`infra/docker-compose*`: postgrest, auth),
  a project folder is generated from each container's settings (`PGRST_*` are handed to supagate,
  which reads them as PostgREST does; `GOTRUE_*` are written as config.toml keys) and the suite's
  URL constants are pointed at supagate's /rest/v1 and /auth/v1, nothing else of it changed;
- the packages without server tests (functions, supabase) run as they are.

Prints, per package, passed/failed/skipped and each failing test, then one summary line.
Not part of CI: it needs the fetched tree and PyPI for the suites' dependencies. The suites are
a uv workspace, so uv must be on PATH (`pip install uv` is enough); the script itself runs under
plain `python3` with PyYAML too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from compose import Supagate, host_port, point, run, service_env, start_gotrue_containers, write_config

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "peer" / "supabase-py"
DEFAULT_REPO = "https://github.com/supabase/supabase-py.git"
PACKAGES = ["postgrest", "auth", "storage", "realtime", "functions", "supabase"]
# The uv package name of each folder under src/.
UV_PACKAGE = {
    "postgrest": "postgrest",
    "auth": "supabase_auth",
    "storage": "storage3",
    "realtime": "realtime",
    "functions": "supabase_functions",
    "supabase": "supabase",
}

def pytest(src: Path, package: str, env: dict) -> dict:
    report = WORK / f"{package}.xml"
    report.unlink(missing_ok=True)
    run(["uv", "run", "--package", UV_PACKAGE[package], "pytest", "-q", "-p", "no:cacheprovider",
         f"--junitxml={report}"], cwd=src / "src" / package, env=env, check=False)
    result = {"passed": 0, "failed": 0, "skipped": 0, "failures": []}
    if not report.exists():
        result["failed"] = 1
        result["failures"].append(f"{package}: pytest wrote no report")
        return result
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is not None:
            result["failed"] += 1
            msg = (bad.get("message") or "").splitlines()
            result["failures"].append(f"{name}: {msg[0][:200] if msg else ''}")
        elif case.find("skipped") is not None:
            result["skipped"] += 1
        else:
            result["passed"] += 1
    return result


def suite_postgrest(src: Path, binary: Path) -> dict:
    infra = src / "src/postgrest/infra"
    compose = yaml.safe_load((infra / "docker-compose.yaml").read_text())
    rest = next(s for s in compose["services"].values() if "postgrest" in s["image"])
    env = service_env(rest)
    folder = WORK / "projects/postgrest"
    shutil.rmtree(folder, ignore_errors=True)
    write_config(folder, "postgrest-tests", host_port(rest), {})
    migrations = folder / "supabase/migrations"
    migrations.mkdir(parents=True)
    for i, sql in enumerate(sorted(infra.glob("*.sql"))):
        shutil.copy(sql, migrations / f"{20000101000000 + i}_{sql.stem}.sql")
    pgrst = {k: v for k, v in env.items() if k.startswith("PGRST_") and k != "PGRST_DB_URI"}
    # The containers' PostgREST logs in as the superuser and serves anonymous requests as it;
    # supagate's API login is never a superuser member, so anonymous requests stay `anon`.
    pgrst.pop("PGRST_DB_ANON_ROLE", None)
    point(src.glob("src/postgrest/tests/*/client.py"), r'(REST_URL = "http://127\.0\.0\.1:\d+)"',
          r'\1/rest/v1"')
    gate = Supagate(binary, folder, WORK / "data/postgrest", pgrst)
    try:
        return pytest(src, "postgrest", dict(os.environ))
    finally:
        gate.stop()


def suite_auth(src: Path, binary: Path) -> dict:
    gates = start_gotrue_containers(src / "src/auth/infra/docker-compose.yml", WORK, binary)
    try:
        point(src.glob("src/auth/tests/*/clients.py"), r'f"http://localhost:\{(\w+_PORT)\}"',
              r'f"http://localhost:{\1}/auth/v1"')
        return pytest(src, "auth", dict(os.environ))
    finally:
        for g in gates:
            g.stop()


def suite_own_folder(package: str):
    def suite(src: Path, binary: Path) -> dict:
        gate = Supagate(binary, src / f"src/{package}/infra", WORK / f"data/{package}")
        try:
            return pytest(src, package, dict(os.environ))
        finally:
            gate.stop()

    return suite


def suite_plain(package: str):
    return lambda src, binary: pytest(src, package, dict(os.environ))


SUITES = {
    "postgrest": suite_postgrest,
    "auth": suite_auth,
    "storage": suite_own_folder("storage"),
    "realtime": suite_own_folder("realtime"),
    "functions": suite_plain("functions"),
    "supabase": suite_plain("supabase"),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repo", default=os.environ.get("SUPABASE_PY_REPO", DEFAULT_REPO),
                    help="git URL or local path of supabase-py (env SUPABASE_PY_REPO)")
    ap.add_argument("--supagate", type=Path, default=ROOT / "target/debug/supagate")
    ap.add_argument("packages", nargs="*", help=f"default: all of {', '.join(PACKAGES)}")
    args = ap.parse_args()
    args.packages = args.packages or PACKAGES
    if unknown := [p for p in args.packages if p not in SUITES]:
        ap.error(f"unknown package {unknown[0]!r}; choose from {', '.join(PACKAGES)}")
    if shutil.which("uv") is None:
        ap.error("uv is not on PATH: the suites are a uv workspace (`pip install uv` installs it)")
    if not args.supagate.exists():
        run(["cargo", "build", "--bin", "supagate"], cwd=ROOT)
    WORK.mkdir(parents=True, exist_ok=True)
    src = WORK / "src"
    # Cloned beside the checkout, which is replaced only once the clone has worked: a repo that
    # cannot be reached leaves the last checkout as it was.
    fresh = WORK / "src.new"
    shutil.rmtree(fresh, ignore_errors=True)
    run(["git", "clone", "--quiet", "--depth", "1", args.repo, str(fresh)], cwd=WORK)
    shutil.rmtree(src, ignore_errors=True)
    fresh.rename(src)
    run(["uv", "sync", "--quiet", "--all-packages"], cwd=src)
    (WORK / "data").mkdir(exist_ok=True)
    results = {}
    for package in args.packages:
        print(f"\n==> {package}", flush=True)
        results[package] = SUITES[package](src, args.supagate.resolve())
    print()
    passed = failed = skipped = 0
    for package, r in results.items():
        print(f"{package}: {r['passed']} passed, {r['failed']} failed, {r['skipped']} skipped")
        for f in r["failures"]:
            print(f"  FAIL {f}")
        passed, failed, skipped = passed + r["passed"], failed + r["failed"], skipped + r["skipped"]
    print(f"\n{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
