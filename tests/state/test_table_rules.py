"""What the table does with the rules, on a real ledger without sockets: no devil's bargain on a group
check's part, the GM's difficulty for an extended roll, the GM's hand on facets and harm, the complication an
epic success removes."""

from __future__ import annotations

import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.flairs import FlairsBargain, FlairsCheck, FlairsParticipant
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import ActionError, Table
from sidecar.state.visibility import Viewer

GM = Viewer("gm", "gm-user")
P1 = Viewer("player", "p1")
P2 = Viewer("player", "p2")


@pytest.fixture
def table(tmp_path):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    tb = Table(keys.table, ledger)
    tb.load()
    yield tb
    ledger.close()


def _commit(tb: Table, pending):
    tb.ledger.append_sync(tb.id, pending.encoded(), None)
    tb.commit(pending)
    return pending


def roll(tb: Table, check, viewer=P1, **kw):
    return _commit(tb, tb.prepare_roll(m.Roll(id="x", check=check, **kw), viewer, viewer.user))


def follow(tb: Table, check_id, action, viewer=P1):
    return _commit(tb, tb.prepare_follow(m.Follow(id="x", check=check_id, action=action), viewer, viewer.user))


def op(tb: Table, o):
    return _commit(tb, tb.prepare_op(o))


def refused(fn, *args, **kw) -> str:
    with pytest.raises(ActionError) as e:
        fn(*args, **kw)
    return e.value.code


# --- no devil's bargain during group checks ------------------------------------------------------------


def test_no_bargain_on_a_part_of_a_group_check(table):
    op(
        table,
        t.GatherStart(
            check=FlairsCheck(group=[FlairsParticipant(name="A", rank=2), FlairsParticipant(name="B", rank=2)])
        ),
    )
    g = next(iter(table.state.gathers.values()))
    part = roll(table, FlairsCheck(dice=[2, 1]), gather=g.id, part="A")
    assert part.result.outcome == "failure"
    head = table.head
    code = refused(
        table.prepare_follow,
        m.Follow(id="b", check=part.check_id, action=FlairsBargain(trial="loud", dice=[6])),
        P1,
        "p1",
    )
    assert code == "bargain_in_group_check" and table.head == head
    # the same faces outside a group check may take the bargain
    alone = roll(table, FlairsCheck(rank=2, simple=True, dice=[2, 1]))
    assert follow(table, alone.check_id, FlairsBargain(trial="loud", dice=[6])).result.outcome == "success"


# --- the GM's difficulty stands --------------------------------------------------------------------


def _complication(tb: Table, hidden=False, cl=None) -> str:
    cid = (
        op(tb, challenge_t.ComplicationAdd(scene="Dock", text="Locked gate", hidden=hidden))
        .events[0][1]
        .event.complication
    )
    if cl is not None:
        op(tb, challenge_t.ComplicationConvert(complication=cid, cl=cl))
    return cid


def test_a_converted_complication_is_addressed_at_the_gms_cl(table):
    from protocol.v1.challenge import ChallengeCheck

    cid = _complication(table, cl=4)
    head = table.head
    assert refused(roll, table, ChallengeCheck(cl=1, complication=cid, dice=[20])) == "difficulty_mismatch"
    assert table.head == head and cid in table.state.part("challenge").complications
    r = roll(table, ChallengeCheck(cl=4, complication=cid, dice=[20]), actor="Ayla")
    assert (
        r.result.outcome == "success_at_cost" and cid not in table.state.part("challenge").complications
    )  # 20 is level 4


def test_only_a_converted_complication_the_roller_may_see_can_be_addressed(table):
    from protocol.v1.challenge import ChallengeCheck

    hidden = _complication(table, hidden=True)
    plain = _complication(table)
    assert refused(roll, table, ChallengeCheck(cl=1, complication=hidden, dice=[20])) == "unknown_complication"
    assert refused(roll, table, ChallengeCheck(cl=1, complication=plain, dice=[20])) == "complication_not_converted"
    assert (
        refused(roll, table, ChallengeCheck(cl=1, complication=hidden, dice=[20]), viewer=GM)
        == "complication_not_converted"
    )
    assert refused(roll, table, ChallengeCheck(cl=1, complication="k-none", dice=[20])) == "unknown_complication"
    assert {hidden, plain} <= set(table.state.part("challenge").complications)


def test_an_extended_roll_takes_the_gms_difficulty(table):
    from protocol.v1.boons import BoonsCheck

    xid = op(table, t.ExtendedStart(name="Pick the lock", threshold=5, trial=2, crisis=1)).events[0][1].event.extended
    for check in (
        BoonsCheck(ability=1, trial=1),
        BoonsCheck(ability=1, crisis=2),
        BoonsCheck(ability=1, trial=2, upgrade=1),
        BoonsCheck(ability=1, threshold=2),
        BoonsCheck(ability=1, progress=4),
        BoonsCheck(ability=1, limit=9),
    ):
        assert refused(roll, table, check, extended=xid) == "difficulty_mismatch", check
    r = roll(table, BoonsCheck(ability=1, dice=[4, 1, 1, 1]), extended=xid)
    assert r.result.types == ["ability", "trial", "trial", "crisis"]
    r = roll(
        table, BoonsCheck(ability=1, trial=2, crisis=1, threshold=5, dice=[4, 1, 1, 1]), extended=xid
    )  # repeating it is fine
    assert r.result.extended.progress == 4 and r.result.extended.attempts == 2


# --- the GM's hand on facets and harm ----------------------------------------------------------------


def _facets(tb: Table, viewer=GM, actor=None, scene=None):
    snap = tb.snapshot(viewer)
    holder = snap.actors.get(actor) if actor else snap.scenes.get(scene)
    return [(f.facet, f.nature) for f in holder.facets] if holder else []


def test_the_gm_names_renames_and_removes_facets(table):
    from protocol.v1.facets import FacetsCheck

    op(table, t.SceneActivate(scene="Inn"))
    r = roll(table, FacetsCheck(pool=2, kind="opposition", dice=[6, 6]), actor="Ayla", target="Orc")
    assert r.result.outcome == "triumph"
    created = next(st.event for _, st in r.events if isinstance(st.event, facets_t.FacetCreated))
    assert created.id and _facets(table, scene="Inn") == [(r.result.suggestion, "beneficial")]
    op(table, facets_t.FacetRename(facet=created.id, text="The orc's shattered shield"))
    assert _facets(table, scene="Inn") == [("The orc's shattered shield", "beneficial")]
    assert _facets(table, P1, scene="Inn") == [("The orc's shattered shield", "beneficial")]
    mine = op(table, facets_t.FacetAdd(facet="Sprained ankle", nature="detrimental", actor="Ayla")).events[0][1].event
    assert _facets(table, actor="Ayla") == [("Sprained ankle", "detrimental")]
    op(table, facets_t.FacetRemove(facet=mine.id))
    assert _facets(table, actor="Ayla") == []
    op(table, t.Undo())  # the removal undone: the facet is back
    assert _facets(table, actor="Ayla") == [("Sprained ankle", "detrimental")]
    assert refused(table.prepare_op, facets_t.FacetRename(facet="f-none", text="x")) == "unknown_facet"
    assert refused(table.prepare_op, facets_t.FacetRemove(facet="f-none")) == "unknown_facet"
    assert refused(table.prepare_op, facets_t.FacetRename(facet=mine.id, text="  ")) == "invalid_op"
    assert (
        refused(table.prepare_op, facets_t.FacetAdd(facet="x", nature="beneficial", actor="A", scene="S"))
        == "invalid_op"
    )


def test_a_facet_from_a_blind_roll_stays_the_gms_when_renamed(table):
    from protocol.v1.facets import FacetsCheck

    r = roll(table, FacetsCheck(pool=2, dice=[6, 6]), actor="Ayla", mode="blind")
    fid = next(st.event for _, st in r.events if isinstance(st.event, facets_t.FacetCreated)).id
    done = op(table, facets_t.FacetRename(facet=fid, text="Secret passage"))
    assert done.events[0][1].vis == "gm"
    assert "Secret passage" not in str(table.visible(0, P1)) and _facets(table, P1, actor="Ayla") == []


def test_the_gm_heals_wounds_and_scratches_and_removes_conditions(table):
    from protocol.v1.facets import FacetsCheck

    for dice in ([1, 1], [3, 2], [5, 2]):  # catastrophe: wound + condition; failure: wound; costly: scratch
        roll(table, FacetsCheck(pool=2, kind="opposition", dice=dice), actor="Ayla")
    a = table.state.actors["Ayla"]
    assert (a.wounds, a.scratches, len(a.conditions)) == (2, 1, 1)
    op(table, facets_t.HarmHeal(actor="Ayla", harm="wound"))
    op(table, facets_t.HarmHeal(actor="Ayla", harm="scratch", count=1))
    op(table, t.ConditionRemove(actor="Ayla", condition=a.conditions[0].id))
    a = table.state.actors["Ayla"]
    assert (a.wounds, a.scratches, a.conditions) == (1, 0, [])
    assert refused(table.prepare_op, facets_t.HarmHeal(actor="Ayla", harm="wound", count=2)) == "no_such_harm"
    assert refused(table.prepare_op, facets_t.HarmHeal(actor="Ayla", harm="scratch")) == "no_such_harm"
    assert refused(table.prepare_op, facets_t.HarmHeal(actor="Ayla", harm="wound", count=0)) == "invalid_op"
    op(table, t.Undo(count=2))  # the condition and the scratch come back
    a = table.state.actors["Ayla"]
    assert (a.wounds, a.scratches, len(a.conditions)) == (1, 1, 1)
    snap = table.snapshot(P1).actors["Ayla"]
    assert (snap.wounds, snap.scratches, len(snap.conditions)) == (1, 1, 1)


def test_the_gms_facet_and_harm_operations_are_exported(table):
    from protocol.v1.facets import FacetsCheck
    from sidecar.export import export_table

    roll(table, FacetsCheck(pool=2, kind="opposition", dice=[3, 2]), actor="Ayla")
    fid = op(table, facets_t.FacetAdd(facet="Bitter Cold", nature="detrimental", scene="Pass")).events[0][1].event.id
    op(table, facets_t.FacetRename(facet=fid, text="Biting Wind"))
    op(table, facets_t.FacetRemove(facet=fid))
    op(table, facets_t.HarmHeal(actor="Ayla", harm="wound"))
    md = export_table(table.ledger, table.id, "markdown")
    assert "facet “Bitter Cold” on Pass" in md and "facet “Bitter Cold” renamed “Biting Wind”" in md
    assert "facet “Biting Wind” removed" in md
    assert "Ayla: 1 wound healed" in md
    kinds = [
        line.split('"kind":"')[1].split('"')[0] for line in export_table(table.ledger, table.id, "jsonl").splitlines()
    ]
    assert {"facet_renamed", "facet_removed", "harm_healed"} <= set(kinds)


# --- an epic success: the GM removes a complication -----------------------------------------------------


def test_the_gm_removes_a_chosen_complication_after_an_epic_success(table):
    from protocol.v1.challenge import ChallengeCheck, ChallengeRemoveComplication

    op(table, t.SceneActivate(scene="Dock"))
    gate = _complication(table)
    secret = _complication(table, hidden=True)
    elsewhere = (
        op(table, challenge_t.ComplicationAdd(scene="Keep", text="Archers", hidden=False))
        .events[0][1]
        .event.complication
    )
    plain = roll(table, ChallengeCheck(cl=1, dice=[12]), actor="Ayla")  # a success, not epic
    assert (
        refused(
            table.prepare_follow,
            m.Follow(id="f", check=plain.check_id, action=ChallengeRemoveComplication(complication=gate)),
            GM,
            GM.user,
        )
        == "no_complication_to_remove"
    )
    epic = roll(table, ChallengeCheck(cl=1, modifier=5, dice=[20]), actor="Ayla")  # total 25: level 5, +4
    assert epic.result.complication == "remove"
    act = m.Follow(id="f", check=epic.check_id, action=ChallengeRemoveComplication(complication=secret))
    assert refused(table.prepare_follow, act, P1, P1.user) == "forbidden"
    wrong = m.Follow(id="f", check=epic.check_id, action=ChallengeRemoveComplication(complication=elsewhere))
    assert refused(table.prepare_follow, wrong, GM, GM.user) == "unknown_complication"
    done = follow(table, epic.check_id, ChallengeRemoveComplication(complication=secret), viewer=GM)
    assert done.result.complication == "removed"
    assert secret not in table.state.part("challenge").complications and {gate, elsewhere} <= set(
        table.state.part("challenge").complications
    )
    assert [st.vis for _, st in done.events] == ["all", "gm"]  # the off-screen one's removal is the GM's
    player_text = str(table.visible(0, P1))
    assert secret not in player_text
    assert (
        refused(
            table.prepare_follow,
            m.Follow(id="g", check=epic.check_id, action=ChallengeRemoveComplication(complication=gate)),
            GM,
            GM.user,
        )
        == "complication_already_removed"
    )
    op(table, t.Undo())
    assert (
        secret in table.state.part("challenge").complications
        and table.state.checks[epic.check_id].result.complication == "remove"
    )
