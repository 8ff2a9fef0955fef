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
Not part of CI: it needs the fetched tree and PyPI for the suites' dependencies.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

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

# GoTrue's environment → config.toml (section, key, conversion), as the Supabase CLI maps them.
TRUE = ("true", "1", "yes")


def flag(v: str) -> bool:
    return v.strip().lower() in TRUE


GOTRUE_KEYS = {
    "GOTRUE_JWT_SECRET": ("auth", "jwt_secret", str),
    "GOTRUE_JWT_EXP": ("auth", "jwt_expiry", int),
    "GOTRUE_SITE_URL": ("auth", "site_url", str),
    "GOTRUE_URI_ALLOW_LIST": ("auth", "additional_redirect_urls", lambda v: v.split(",")),
    "GOTRUE_DISABLE_SIGNUP": ("auth", "enable_signup", lambda v: not flag(v)),
    "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": ("auth", "enable_anonymous_sign_ins", flag),
    "GOTRUE_EXTERNAL_EMAIL_ENABLED": ("auth.email", "enable_signup", flag),
    "GOTRUE_MAILER_AUTOCONFIRM": ("auth.email", "enable_confirmations", lambda v: not flag(v)),
    "GOTRUE_EXTERNAL_PHONE_ENABLED": ("auth.sms", "enable_signup", flag),
    "GOTRUE_SMS_AUTOCONFIRM": ("auth.sms", "enable_confirmations", lambda v: not flag(v)),
    "GOTRUE_MAILER_SUBJECTS_CONFIRMATION": ("auth.email.template.confirmation", "subject", str),
    "GOTRUE_OAUTH_SERVER_ENABLED": ("auth.oauth_server", "enabled", flag),
    "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": (
        "auth.oauth_server",
        "allow_dynamic_registration",
        flag,
    ),
}
# What a GoTrue container does when its environment is silent and the Supabase CLI's defaults
# (which config.toml starts from) differ: TOTP factors are on, a number gets one text a minute,
# and the per-client limits apply only when GOTRUE_RATE_LIMIT_HEADER names the header that
# identifies a client.
PER_CLIENT_LIMITS = ["sign_in_sign_ups", "token_refresh", "anonymous_users", "token_verifications"]


def gotrue_defaults(env: dict) -> dict:
    sections = {
        "auth.sms": {"max_frequency": "1m"},
        "auth.mfa.totp": {"enroll_enabled": True, "verify_enabled": True},
        "auth.rate_limit": {"email_sent": 30},
    }
    if not env.get("GOTRUE_RATE_LIMIT_HEADER"):
        sections["auth.rate_limit"].update({k: 2**31 - 1 for k in PER_CLIENT_LIMITS})
    return sections


PROVIDER = re.compile(r"^GOTRUE_EXTERNAL_([A-Z0-9]+)_(ENABLED|CLIENT_ID|SECRET|REDIRECT_URI|URL)$")
# What the harness deliberately leaves out, and why (printed, so figures are read with it).
NOT_CARRIED = {
    "GOTRUE_SMTP_": "mail goes to supagate's own catcher",
    "GOTRUE_LOG_LEVEL": "logging",
    "GOTRUE_OPERATOR_TOKEN": "not read by the suites",
    "GOTRUE_COOKIE_KEY": "cookies are not used by API clients",
    "GOTRUE_MAILER_URLPATHS_": "supagate's links follow the CLI",
}


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(str(v))


def write_config(folder: Path, project_id: str, port: int, sections: dict) -> None:
    lines = [f'project_id = "{project_id}"', "", "[api]", f"port = {port}"]
    for name, values in sections.items():
        if name == "api":
            lines += [f"{k} = {toml_value(v)}" for k, v in values.items()]
    for name, values in sections.items():
        if name == "api" or not values:
            continue
        lines += ["", f"[{name}]"] + [f"{k} = {toml_value(v)}" for k, v in values.items()]
    (folder / "supabase").mkdir(parents=True, exist_ok=True)
    (folder / "supabase" / "config.toml").write_text("\n".join(lines) + "\n")


def service_env(service: dict) -> dict:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    # Compose substitutes ${VAR} from the caller's environment; unset ones become empty.
    return {
        k: re.sub(r"\$\{(\w+)\}", lambda m: os.environ.get(m.group(1), ""), str(v))
        for k, v in env.items()
    }


def host_port(service: dict) -> int:
    return int(str(service["ports"][0]).split(":")[0])


def gotrue_project(name: str, service: dict, folder: Path) -> tuple[int, dict]:
    env = service_env(service)
    port = int(env.get("PORT") or host_port(service))
    sections: dict[str, dict] = {"auth": {}, "auth.email": {}, "auth.sms": {}}
    sections.update(gotrue_defaults(env))
    left = []
    for key, value in env.items():
        if key in GOTRUE_KEYS:
            section, k, conv = GOTRUE_KEYS[key]
            sections.setdefault(section, {})[k] = conv(value)
        elif m := PROVIDER.match(key):
            provider, field = m.group(1).lower(), m.group(2).lower()
            section = f"auth.external.{provider}"
            sections.setdefault(section, {})[field] = flag(value) if field == "enabled" else value
        elif key.startswith("GOTRUE_SMS_TWILIO_") or key == "GOTRUE_SMS_PROVIDER":
            if env.get("GOTRUE_SMS_PROVIDER") == "twilio":
                field = key.removeprefix("GOTRUE_SMS_TWILIO_").lower()
                twilio = sections.setdefault("auth.sms.twilio", {"enabled": True})
                if key != "GOTRUE_SMS_PROVIDER":
                    twilio[field] = value
        elif key == "GOTRUE_JWT_KEYS":
            (folder / "supabase").mkdir(parents=True, exist_ok=True)
            (folder / "supabase" / "signing_keys.json").write_text(value)
            sections["auth"]["signing_keys_path"] = "./signing_keys.json"
        elif key.startswith("GOTRUE_") and not any(key.startswith(p) for p in NOT_CARRIED):
            left.append(key)
    write_config(folder, name, port, sections)
    return port, {"left out": left}


def run(cmd, cwd, env=None, check=True):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run(cmd, cwd=cwd, env=env, check=check)


class Supagate:
    """One supagate started from a project folder; stopped when its stdin closes."""

    def __init__(self, binary: Path, workdir: Path, data: Path, extra_env: dict | None = None,
                 database_url: str | None = None):
        if data.exists():
            shutil.rmtree(data)
        env = dict(os.environ, **(extra_env or {}))
        self.log = open(data.parent / f"{data.name}.log", "w")
        shared = ["--database-url", database_url] if database_url else []
        self.proc = subprocess.Popen(
            [binary, "--workdir", workdir, "--data-dir", data, "--db-port", "0",
             "--mail-port", "0", *shared, "--stop-on-stdin-close", "start", "-o", "json"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env, text=True,
        )
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"supagate did not start from {workdir}: see {self.log.name}")
        self.status = json.loads(line)

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGKILL)
        self.log.close()


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


def point(files, pattern: str, replacement: str) -> None:
    """Points the suite's URL constants at supagate: the one edit made to the fetched tree."""
    for f in files:
        text = f.read_text()
        new = re.sub(pattern, replacement, text)
        if new != text:
            f.write_text(new)


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
    """One supagate per GoTrue container, all on one database as the containers share theirs
    (the suite signs a user up on one and confirms it on another)."""
    compose = yaml.safe_load((src / "src/auth/infra/docker-compose.yml").read_text())
    gates: list[Supagate] = []
    try:
        for name, service in compose["services"].items():
            if "supabase/auth" not in service.get("image", ""):
                continue
            folder = WORK / f"projects/auth-{name}"
            shutil.rmtree(folder, ignore_errors=True)
            port, info = gotrue_project(f"auth-{name}", service, folder)
            if info["left out"]:
                print(f"auth-{name}: not carried over: {', '.join(info['left out'])}")
            shared = gates[0].status["DB_URL"] if gates else None
            gates.append(Supagate(binary, folder, WORK / f"data/auth-{name}", database_url=shared))
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
    if not args.supagate.exists():
        run(["cargo", "build", "--bin", "supagate"], cwd=ROOT)
    WORK.mkdir(parents=True, exist_ok=True)
    src = WORK / "src"
    shutil.rmtree(src, ignore_errors=True)
    run(["git", "clone", "--quiet", "--depth", "1", args.repo, str(src)], cwd=WORK)
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
