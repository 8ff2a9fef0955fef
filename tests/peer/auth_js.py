# /// script
# requires-python = ">=3.9"
# dependencies = ["pyyaml>=6"]
# ///
"""Runs auth-js's own test suite (from the supabase-js monorepo) against supagate.

    uv run tests/peer/auth_js.py --checkout PATH   # a supabase-js checkout with its packages installed
    uv run tests/peer/auth_js.py --repo URL        # cloned into target/peer/supabase-js, npm ci'd

Two runs, as auth-js's own CI makes them: the suite started from its own project folder
(`packages/core/auth-js/test/supabase`, the Supabase CLI's configuration), and its docker-tests
against project folders generated from `infra/docker-compose.yml`'s GoTrue containers (see
compose.py), with the docker URL constants pointed at supagate's /auth/v1 (restored afterwards).
Where the suite generates its RSA signing keys at test time (`test/generate-signing-keys.js`,
CI's `test:generate-keys` step, written to `test/supabase/signing_keys.json` that config.toml's
`signing_keys_path` names), they are generated before each run, as CI does. A checkout with a
`pnpm-lock.yaml` is installed with pnpm 10 (run through npx; pnpm 11 needs Node 22) and its
`packageManager` version switch turned off; one with a `package-lock.json` with `npm ci`
(without install scripts).
Prints passed/failed per run and each failing test, then one summary line. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from compose import Supagate, point, run, start_gotrue_containers

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "peer" / "supabase-js"
CLIENTS = "test/docker-tests/clients.ts"


def jest(pkg: Path, config: str, report: Path = WORK / "jest.json") -> dict:
    """Runs a package's jest suite with `config` and counts its report (written to `report`)."""
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    cmd = ["npx", "jest", "--runInBand", "--json", f"--outputFile={report}", "-c", config]
    run(cmd, cwd=pkg, check=False)
    result = {"passed": 0, "failed": 0, "failures": []}
    if not report.exists():
        return {"passed": 0, "failed": 1, "failures": ["jest wrote no report"]}
    for suite in json.loads(report.read_text())["testResults"]:
        for case in suite["assertionResults"]:
            if case["status"] == "passed":
                result["passed"] += 1
            elif case["status"] == "failed":
                result["failed"] += 1
                result["failures"].append(case["fullName"])
    return result


def install(src: Path) -> None:
    """Installs the monorepo's packages with the package manager its lockfile belongs to."""
    if (src / "pnpm-lock.yaml").exists():
        run(["npx", "-y", "pnpm@10", "install", "--frozen-lockfile",
             "--config.manage-package-manager-versions=false"], cwd=src)
    else:
        # Without install scripts: puppeteer's and the supabase CLI's download from GitHub,
        # and jest needs neither.
        run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=src)


def generate_signing_keys(pkg: Path) -> None:
    """CI's `test:generate-keys`: the suite's RSA signing keys, when it makes them itself."""
    script = pkg / "test/generate-signing-keys.js"
    if script.exists():
        run(["node", str(script)], cwd=pkg)


def prepare(doc: str, work: Path, default: Path | None = None) -> tuple[Path, Path]:
    """Reads the command line a runner of a supabase-js package's suite takes (`--checkout`,
    `--repo`, `--supagate`) and returns the supagate binary (built when missing) and the
    supabase-js checkout: the one given, the one cloned into `work` and installed, or
    `default` when neither is given (then one of them is required without a default)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    where = ap.add_mutually_exclusive_group(required=default is None)
    where.add_argument("--checkout", type=Path, help="an installed supabase-js checkout")
    where.add_argument("--repo", help="git URL or path to clone supabase-js from")
    ap.add_argument("--supagate", type=Path, default=ROOT / "target/debug/supagate")
    args = ap.parse_args()
    binary = args.supagate.resolve()
    if not binary.exists():
        run(["cargo", "build", "--bin", "supagate"], cwd=ROOT)
    work.mkdir(parents=True, exist_ok=True)
    (work / "data").mkdir(exist_ok=True)
    if args.repo:
        # Cloned beside the checkout, which is replaced only once the clone has worked.
        src, fresh = work / "src", work / "src.new"
        shutil.rmtree(fresh, ignore_errors=True)
        run(["git", "clone", "--quiet", "--depth", "1", args.repo, str(fresh)], cwd=work)
        shutil.rmtree(src, ignore_errors=True)
        fresh.rename(src)
        install(src)
    else:
        src = (args.checkout or default).resolve()
    return binary, src


def main() -> int:
    binary, src = prepare(__doc__, WORK)
    pkg = src / "packages/core/auth-js"

    results = {}
    print("\n==> auth-js, from its own project folder", flush=True)
    generate_signing_keys(pkg)
    gate = Supagate(binary, pkg / "test", WORK / "data/auth-js")
    try:
        results["auth-js"] = jest(pkg, "jest.config.cli.js")
    finally:
        gate.stop()

    print("\n==> auth-js docker-tests, from infra/docker-compose.yml", flush=True)
    clients = pkg / CLIENTS
    original = clients.read_text()
    generate_signing_keys(pkg)
    gates = start_gotrue_containers(pkg / "infra/docker-compose.yml", WORK, binary)
    try:
        point([clients], r"'(http://localhost:\d+)'", r"'\1/auth/v1'")
        results["auth-js docker-tests"] = jest(pkg, "jest.config.docker.js")
    finally:
        clients.write_text(original)
        for g in gates:
            g.stop()

    passed = failed = 0
    print()
    for name, r in results.items():
        print(f"{name}: {r['passed']} passed, {r['failed']} failed")
        for f in r["failures"]:
            print(f"  FAIL {f}")
        passed, failed = passed + r["passed"], failed + r["failed"]
    print(f"\n{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
