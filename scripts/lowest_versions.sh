#!/usr/bin/env bash
# The lowest versions pyproject.toml allows, proven: a fresh virtual environment gets
# exactly the lower bound of every direct dependency (base and every extra), then every
# command runs once.  Usage: scripts/lowest_versions.sh [VENV]  (default: a temporary one)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-$(mktemp -d)/venv}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$venv"
# Each "name>=X" of the base and of the extras becomes "name==X" (extras dropped:
# a constraint names the package only); croupier's own extras are left out.
python3 - >"$work/lowest.txt" <<'EOF'
import re
import tomllib

with open("pyproject.toml", "rb") as file:
    project = tomllib.load(file)["project"]
requirements = list(project["dependencies"])
for extra, items in project["optional-dependencies"].items():
    if extra != "test":
        requirements += items
for requirement in requirements:
    match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^]]*\])?>=([0-9.]+)", requirement)
    if match is None:
        if not requirement.startswith("croupier["):
            raise SystemExit(f"no lower bound to pin: {requirement}")
        continue
    print(f"{match[1]}=={match[3]}")
EOF
echo "lowest direct versions:" $(cat "$work/lowest.txt")
"$venv/bin/pip" install -q -c "$work/lowest.txt" -e '.[all]'
"$venv/bin/pip" freeze --exclude-editable | grep -i -f <(sed 's/==.*//' "$work/lowest.txt")

croupier="$venv/bin/croupier"
step() { echo "== croupier $*"; }
step --help && "$croupier" --help >/dev/null
step --version && "$croupier" --version
step rules list && "$croupier" rules list >/dev/null
step rules show && "$croupier" rules show --rules live --json >/dev/null
step schema && for which in commands script protocol; do "$croupier" schema "$which" >/dev/null; done
step round && "$croupier" round tests/golden/live_side_bets_and_blackjack.round.json >/dev/null
step play && printf 'q\n' | "$croupier" play --seed 1 >/dev/null
step strategy && "$croupier" strategy --rules rws-v5 >/dev/null
step edge && "$croupier" edge --rules online-8deck --json >/dev/null
step simulate && "$croupier" simulate --rules rws-v5 --rounds 20000 --workers 1 --json >/dev/null
step serve
port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$croupier" serve --db "sqlite:///$work/smoke.db" --port "$port" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
"$venv/bin/python" - "$port" <<'EOF'
import asyncio
import json
import sys
import time
import urllib.request

import websockets

base = f"127.0.0.1:{sys.argv[1]}"
for _ in range(300):
    try:
        tables = json.load(urllib.request.urlopen(f"http://{base}/api/tables"))
        break
    except OSError:
        time.sleep(0.1)
else:
    raise SystemExit("the server did not answer")


async def welcome() -> str:
    async with websockets.connect(f"ws://{base}/ws/tables/rws-v5") as socket:
        return str(json.loads(await socket.recv())["type"])


assert asyncio.run(welcome()) == "welcome", "no welcome on the table's socket"
print(f"{len(tables)} tables, a welcome on the socket")
EOF
kill "$server"
wait "$server" || true
step ledger check && "$croupier" ledger check --db "sqlite:///$work/smoke.db"
step accounts && printf 'a dealer password\n' | "$croupier" accounts create dee --role dealer --db "sqlite:///$work/smoke.db" \
  && "$croupier" accounts list --db "sqlite:///$work/smoke.db" --json >/dev/null
echo "every command ran at the lowest versions"
