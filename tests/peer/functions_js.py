# /// script
# requires-python = ">=3.9"
# dependencies = ["pyyaml>=6"]
# ///
"""Runs functions-js's own test suite (from the supabase-js monorepo) against supagate's
/functions/v1.

    uv run tests/peer/functions_js.py                    # the checkout auth_js.py installed
    uv run tests/peer/functions_js.py --checkout PATH    # a supabase-js checkout with its packages installed
    uv run tests/peer/functions_js.py --repo URL         # cloned into target/peer/supabase-js, installed

The suite starts a Docker container per spec (`supabase/deno-relay`) serving one of its four test
functions (`test/functions/{hello,hijack,mirror,slow}`). Here one supagate serves them all from a
project folder made under target/peer/functions-js (`[api] port = 0`: the folder's own ports):
the functions copied into `supabase/functions/`, each with a `deno.json` whose import map sends
`https://deno.land/std/http/server.ts` (which the functions import and this machine cannot
fetch) to a local `serve` on `Deno.serve`, and `verify_jwt = false` (each spec signs its tokens
with a secret of its own, which only its relay knows). The suite's `test/relay/container.ts` is
replaced by one that names supagate's API port, and the specs' URLs get `/functions/v1`; both
are restored afterwards. Tests that assert the relay's own answers (its JWT check's "Relay
Error", `Deno.upgradeHttp`) cannot pass against any Supabase stack but the relay.
Needs Deno (DENO_BIN or `deno` on PATH). Prints passed/failed and each failing test. Not part of
CI.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from auth_js import jest, prepare
from compose import Supagate, point, run

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "peer" / "functions-js"
DEFAULT_CHECKOUT = ROOT / "target" / "peer" / "supabase-js" / "src"
STD_SERVE = "https://deno.land/std/http/server.ts"

SHIM_SERVE = """// std's `serve` (https://deno.land/std/http/server.ts) on Deno.serve, for a machine that
// cannot fetch deno.land.
export function serve(handler: (req: Request) => Response | Promise<Response>) {
  return Deno.serve(handler)
}
"""

SHIM_RELAY = """// supagate's stand-in for the suite's Docker relay (tests/peer/functions_js.py): every
// function is served by one supagate, whose API port this names.
export class Relay {
  container = { getMappedPort: (_port: number) => Number(process.env.SUPAGATE_FUNCTIONS_PORT) }
  async stop(): Promise<void> {}
}

export async function runRelay(
  _slug: string,
  _jwtSecret: string,
  _denoOrigin?: string,
  _env?: Map<string, string>
): Promise<Relay> {
  return new Relay()
}
"""


def project(pkg: Path) -> Path:
    """The project folder serving the suite's functions."""
    folder = WORK / "project"
    shutil.rmtree(folder, ignore_errors=True)
    functions = folder / "supabase/functions"
    names = sorted(d.name for d in (pkg / "test/functions").iterdir() if d.is_dir())
    config = ['project_id = "functions-js"', "[api]", "port = 0"]
    for name in names:
        shutil.copytree(pkg / "test/functions" / name, functions / name)
        (functions / name / "std_http_server.ts").write_text(SHIM_SERVE)
        (functions / name / "deno.json").write_text(
            '{ "imports": { "%s": "./std_http_server.ts" } }\n' % STD_SERVE)
        config += [f"[functions.{name}]", "verify_jwt = false"]
    (folder / "supabase/config.toml").write_text("\n".join(config) + "\n")
    return folder


def main() -> int:
    binary, src = prepare(__doc__, WORK, DEFAULT_CHECKOUT)
    pkg = src / "packages/core/functions-js"

    relay = pkg / "test/relay/container.ts"
    specs = sorted((pkg / "test/spec").glob("*.spec.ts"))
    originals = {f: f.read_text() for f in [relay, *specs]}
    gate = Supagate(binary, project(pkg), WORK / "data/functions-js")
    try:
        port = gate.status["API_URL"].rsplit(":", 1)[1].strip("/")
        os.environ["SUPAGATE_FUNCTIONS_PORT"] = port
        relay.write_text(SHIM_RELAY)
        point(specs, r"(`http://localhost:\$\{relay\.container\.getMappedPort\(8081\)\})",
              r"\1/functions/v1")
        # The report in this runner's own folder (the checkout may not be auth_js.py's).
        result = jest(pkg, "jest.config.ts", WORK / "jest.json")
    finally:
        for f, text in originals.items():
            f.write_text(text)
        gate.stop()

    print(f"\nfunctions-js: {result['passed']} passed, {result['failed']} failed")
    for f in result["failures"]:
        print(f"  FAIL {f}")
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
