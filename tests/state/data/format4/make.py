"""A ledger whose table holds a format-4 snapshot, as the code before the rule sets owned their table state
wrote it (commit ebf6b51): a table in play with every shipped rule set's state, secrets among it, the snapshot at
its head, and what each viewer's snapshot was then (``facts.json``). Run from a tree of that commit, once:

    git archive ebf6b51 | tar -x -C OLD && cd OLD && PYTHONPATH=. python THIS_FILE OUT

Never rewritten after: the test reads it with today's code."""

import json
import sys
from pathlib import Path

import msgspec

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import SNAPSHOT_VERSION, Table
from sidecar.state.visibility import Viewer

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
path = out / "verdict.sqlite3"
ledger = SqliteLedger(path)
keys = ledger.create_table("format4")
table = Table(keys.table, ledger)
table.load()
GM = Viewer("gm", "gm")
ANN = Viewer("player", "ann")
BO = Viewer("player", "bo")


def act(p):
    ledger.append_sync(keys.table, p.encoded(), None)
    table.commit(p)


def op(o):
    act(table.prepare_op(o))


def roll(check, viewer, mode="public", actor=None, scene=None):
    act(table.prepare_roll(m.Roll(id="x", check=check, mode=mode, actor=actor, scene=scene), viewer, viewer.user))


op(t.SceneActivate(scene="Vault"))
roll(FacetsCheck(pool=2, kind="opposition", dice=[1, 2]), GM, actor="Ayla")
roll(FacetsCheck(pool=2, kind="opposition", dice=[1, 1]), ANN, mode="gm", actor="Bren")
roll(FacetsCheck(pool=2, dice=[6, 6]), ANN, mode="blind", actor="Bren")
roll(FacetsCheck(pool=2, dice=[6, 6]), BO, actor="Cass")
roll(ChallengeCheck(cl=2, dice=[1]), ANN, mode="blind", actor="Ayla")
roll(ChallengeCheck(cl=3, dice=[2]), BO, actor="Cass")
op(t.StrainSet(actor="Bren", strain=2))
op(t.WyrdGrant(actor="Ayla", amount=3))
roll(FeatsCheck(ability=5, difficulty=5, dice=[3, 4, 5]), ANN, actor="Ayla")
op(t.LurkingSet(trials=["slow"], scene="Vault"))
op(t.LurkingSet(trials=["loud", "costly"], actor="Dara"))
op(t.ComplicationAdd(scene="Vault", text="the floor is trapped", hidden=True))
op(t.ComplicationAdd(scene="Vault", text="the bell rings", hidden=False))
op(t.FacetAdd(facet="Slick stones", nature="detrimental", scene="Vault"))
for _ in range(4):
    op(t.ConditionAdd(actor="Cass"))
roll(FlairsCheck(rank=2, dice=[3, 5]), BO, actor="Dara")
viewers = {"gm": GM, "ann": ANN, "bo": BO, "anyone": Viewer("player", None)}
seen = {name: json.loads(msgspec.json.encode(table.snapshot(v))) for name, v in viewers.items()}
ledger.store_snapshot_sync(keys.table, table.head, SNAPSHOT_VERSION, table.saved())
(out / "facts.json").write_text(
    json.dumps(
        {"table": keys.table, "head": table.head, "version": SNAPSHOT_VERSION, "snapshots": seen},
        indent=1,
        sort_keys=True,
    )
    + "\n"
)
ledger.close()
print(SNAPSHOT_VERSION, table.head)
