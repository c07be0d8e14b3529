"""Write a data folder as this version's `verdict serve` leaves it, for the upgrade test to open with later code.

    python -m tests.cli.data.make_ledger_fixture tests/cli/data/ledger-0.1.0

A table in play: public and GM-only rolls by a GM and a bound player, a hidden complication and a revealed one
(hidden state for the GM alone), a snapshot, the request window; its keys file; ``facts.json``, what the
test expects of it. Made once per release whose ledger the next must open; never rewritten after.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from sidecar import __version__
from sidecar.client import Client
from tests.serving import Process, free_port


async def _play(sidecar: Process) -> dict[str, object]:
    keys = sidecar.keys()
    gm = await Client.connect(sidecar.url, keys.table, keys.gm, user="gm1")
    alice = await Client.connect(sidecar.url, keys.table, sidecar.user_key("alice"), user="alice")
    public = await gm.request(m.Roll(id="g-open", check=FacetsCheck(pool=2, dice=[6, 3]), actor="Ayla", label="Climb"))
    await alice.request(m.Roll(id="a-1", check=ChallengeCheck(cl=2, dice=[4]), actor="Bren", label="Sneak"))
    await gm.request(
        m.Gm(id="g-door", op=challenge_t.ComplicationAdd(scene="Vault", text="the floor is trapped", hidden=True))
    )
    await gm.request(
        m.Gm(id="g-bell", op=challenge_t.ComplicationAdd(scene="Vault", text="the bell rings", hidden=False))
    )
    await gm.request(m.Roll(id="g-hid", check=FacetsCheck(pool=1, dice=[2]), actor="Ayla", mode="gm", label="Sense"))
    await alice.request(m.Roll(id="a-2", check=FacetsCheck(pool=1, dice=[5]), actor="Bren", label="Hide"))
    await gm.close()
    await alice.close()
    return {"public_check": public.check, "requests": ["g-open", "a-1", "g-door", "g-bell", "g-hid", "a-2"]}


def main(out: Path) -> None:
    work = out.with_name(out.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    sidecar = Process(work, free_port(), extra=("--snapshot-every", "3", "--housekeeping-every", "0.2"))
    sidecar.start()
    try:
        facts = asyncio.run(_play(sidecar))
        ledger = work / "verdict.sqlite3"
        deadline = time.monotonic() + 30
        while True:  # the housekeeping's snapshot, written off the request path
            db = sqlite3.connect(ledger)
            written = db.execute("SELECT count(*) FROM snapshots").fetchone()[0]
            db.close()
            if written:
                break
            if time.monotonic() > deadline:
                raise SystemExit("no snapshot was written")
            time.sleep(0.1)
    finally:
        sidecar.stop()
    db = sqlite3.connect(work / "verdict.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=DELETE")  # one file, as a release's test data is kept
    db.execute("VACUUM")
    db.close()
    out.mkdir(parents=True, exist_ok=False)
    shutil.copy(work / "verdict.sqlite3", out / "verdict.sqlite3")
    shutil.copy(work / "default-table.keys", out / "default-table.keys")
    facts.update(
        version=__version__,
        hidden="the floor is trapped",
        shown="the bell rings",
        user_key_alice=sidecar.user_key("alice"),
    )
    (out / "facts.json").write_text(json.dumps(facts, indent=2) + "\n")
    shutil.rmtree(work)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
