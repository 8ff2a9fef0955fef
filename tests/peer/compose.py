"""What the peer harnesses share: project folders generated from a docker-compose file's
containers (GoTrue's `GOTRUE_*` written as config.toml keys, with GoTrue's own defaults where
the Supabase CLI's differ), supagate started from a folder, and the one edit made to a fetched
suite (its URL constants pointed at supagate)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import yaml

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
    **{
        f"GOTRUE_MFA_{kind.upper()}_{op.upper()}_ENABLED": (f"auth.mfa.{kind}", f"{op}_enabled", flag)
        for kind in ("totp", "phone", "web_authn")
        for op in ("enroll", "verify")
    },
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
             "--mail-port", "0", "--studio-port", "0", *shared, "--stop-on-stdin-close", "start", "-o", "json"],
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


def point(files, pattern: str, replacement: str) -> None:
    """Points the suite's URL constants at supagate: the one edit made to the fetched tree."""
    for f in files:
        text = f.read_text()
        new = re.sub(pattern, replacement, text)
        if new != text:
            f.write_text(new)



def start_gotrue_containers(compose_file: Path, work: Path, binary: Path) -> list:
    """One supagate per GoTrue container of `compose_file`, all on one database as the
    containers share theirs (suites sign a user up on one and confirm it on another)."""
    compose = yaml.safe_load(compose_file.read_text())
    gates: list[Supagate] = []
    try:
        for name, service in compose["services"].items():
            if "supabase/auth" not in service.get("image", ""):
                continue
            folder = work / f"projects/auth-{name}"
            shutil.rmtree(folder, ignore_errors=True)
            _, info = gotrue_project(f"auth-{name}", service, folder)
            if info["left out"]:
                print(f"auth-{name}: not carried over: {', '.join(info['left out'])}")
            shared = gates[0].status["DB_URL"] if gates else None
            data = work / f"data/auth-{name}"
            data.parent.mkdir(parents=True, exist_ok=True)
            gates.append(Supagate(binary, folder, data, database_url=shared))
    except BaseException:
        for g in gates:
            g.stop()
        raise
    return gates
