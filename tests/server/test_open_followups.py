"""The follow-ups a result offers each viewer are the ones the table accepts from that viewer.

A property over random sessions of every rule set: after each step, for every check on the table and every
kind of viewer (the GM, the roller, another player, an observer, a player on the table-wide key), each
follow-up in the viewer's list is accepted when that viewer sends it (with every choice of the parameters
the entry leaves open), and a follow-up of the check's rule set not in the list is refused, with three
exceptions stated below (a follow-up sent blind, on a result its sender may not see: offering it would tell
the result; a flair choice that would change nothing; another player's roll into an extended check, which
the tracker offers rather than the roller's card). Offers and refusals go through the same checks a request meets in the server
(:func:`sidecar.server.hub._may_act`, then the table); nothing is committed but the steps of the session.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol.v1 import challenge as challenge_t
from protocol.v1 import codec
from protocol.v1 import flairs as flairs_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import (
    FlairsBargain,
    FlairsCheck,
    FlairsChoose,
    FlairsNameTrials,
    FlairsParticipant,
    FlairsResult,
    FlairsReveal,
    FlairsSetLurking,
)
from protocol.v1.systems import ACTION_TYPES
from sidecar.client import Client
from sidecar.engine import registry
from sidecar.engine.rulesets.flairs.rules import FLAIRS
from sidecar.server.hub import Connection, _may_act
from sidecar.state.hearing import open_followups
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import ActionError, Pending, Table
from sidecar.state.visibility import ROLL_VISIBILITY, Viewer, may_see

GM = Viewer("gm", "gm-user")
P1 = Viewer("player", "p1")
P2 = Viewer("player", "p2")
OBSERVER = Viewer("observer", None)
TABLEWIDE = Viewer("player", None)
VIEWERS = (GM, P1, P2, OBSERVER, TABLEWIDE)
ROLLERS = (P1, P2, GM)

faces6 = st.lists(st.integers(1, 6), min_size=1, max_size=5)
checks = st.one_of(
    st.builds(
        lambda cl, mod, d: ChallengeCheck(cl=cl, modifier=mod, dice=[d]),
        st.integers(1, 5),
        st.integers(0, 6),
        st.integers(1, 20),
    ),
    st.builds(lambda d: FacetsCheck(pool=len(d), dice=d), faces6),
    st.builds(
        lambda d, r: FlairsCheck(rank=min(r, len(d)), edges=len(d) - min(r, len(d)), dice=d), faces6, st.integers(0, 3)
    ),
    st.builds(
        lambda d, cuts, dark, lurking: FlairsCheck(rank=len(d), cuts=cuts, darkness=dark, lurking=lurking, dice=d),
        faces6,
        st.integers(0, 2),
        st.booleans(),
        st.integers(0, 2),
    ),
    st.builds(lambda d: FlairsCheck(rank=2, simple=True, dice=d), st.lists(st.integers(1, 6), min_size=2, max_size=2)),
    st.just(FlairsCheck(group=[FlairsParticipant(name="a", rank=1), FlairsParticipant(name="b", rank=2)])),
    st.builds(
        lambda lv, d: FeatsCheck(level=lv, dice=d),
        st.integers(-2, 2),
        st.lists(st.integers(1, 8), min_size=3, max_size=3),
    ),
    st.builds(lambda a: BoonsCheck(ability=a), st.integers(1, 4)),
)
steps = st.one_of(
    st.tuples(st.just("roll"), checks, st.sampled_from(["public", "gm", "blind", "self"]), st.sampled_from(ROLLERS)),
    st.tuples(st.just("extended"), st.integers(1, 6), st.sampled_from(ROLLERS)),
    st.tuples(st.just("lurking"), st.sampled_from(["loud", "slow"])),
    st.tuples(st.just("complication"), st.booleans()),
    st.tuples(st.just("follow"), st.integers(0, 50), st.integers(0, 50)),
    st.tuples(
        st.just("undo"),
    ),
)


def _table(path) -> Table:
    ledger = SqliteLedger(path / "v.sqlite3")
    table = Table(ledger.create_table("t").table, ledger)
    table.load()
    _commit(table, table.prepare_op(t.SceneActivate(scene="S")))  # the scene the players' rolls are in
    return table


def _commit(table: Table, pending: Pending) -> None:
    table.ledger.append_sync(table.id, pending.encoded(), None)
    table.commit(pending)


def _try(table: Table, viewer: Viewer, msg: m.Roll | m.Follow) -> Pending | ActionError:
    """A request from ``viewer`` as the server meets it: who may act, then the table (nothing committed)."""
    conn = Connection(send=None, role=viewer.role, user=viewer.user)  # type: ignore[arg-type]
    try:
        _may_act(conn, msg)
        if isinstance(msg, m.Roll):
            return table.prepare_roll(msg, viewer, viewer.user)
        return table.prepare_follow(msg, viewer, viewer.user)
    except ActionError as exc:
        return exc


def _complications(table: Table, rec: t.RollEvent) -> list[str]:
    return [
        c.id for c in table.state.part("challenge").complications.values() if rec.scene is None or c.scene == rec.scene
    ]


def _requests(table: Table, rec: t.RollEvent, o: m.OpenFollowup) -> Iterator[m.Roll | m.Follow]:
    """Every way of sending an offered follow-up that the entry leaves to the sender."""
    actions: list[object] = []
    match o.action:
        case "challenge_choice":
            assert o.options
            actions = [ChallengeChoice(option=x) for x in o.options]
        case "challenge_remove_complication":
            actions = [ChallengeRemoveComplication(complication=c) for c in _complications(table, rec)]
        case "flairs_bargain":
            assert o.trials
            actions = [FlairsBargain(trial=x) for x in o.trials]
        case "flairs_choose":
            assert o.flairs is not None
            actions = [FlairsChoose(flairs=list(FLAIRS[:k])) for k in range(o.flairs + 1)]  # type: ignore[misc]
        case "flairs_reveal":
            actions = [FlairsReveal()]
        case "flairs_set_lurking":
            assert o.count
            actions = [FlairsSetLurking(), FlairsSetLurking(trials=["chaotic"] * o.count)]
        case "flairs_name_trials":
            assert o.count
            actions = [FlairsNameTrials(), FlairsNameTrials(trials=["costly"] * o.count)]
        case "extended_next":
            assert o.extended
            yield m.Roll(id="next", check=BoonsCheck(ability=2), extended=o.extended)
            return
    for a in actions:
        yield m.Follow(id="f", check=rec.check_id, action=a)  # type: ignore[arg-type]


def _representative(table: Table, rec: t.RollEvent, tag: str) -> m.Roll | m.Follow:
    """One way of sending a follow-up that is not offered."""
    if tag == "extended_next":
        return m.Roll(id="next", check=BoonsCheck(ability=2), extended=rec.extended)
    action = {
        "challenge_choice": ChallengeChoice(option="game_changer"),
        "challenge_remove_complication": ChallengeRemoveComplication(
            complication=(_complications(table, rec) or ["k"])[0]
        ),
        "flairs_bargain": FlairsBargain(trial="costly"),
        "flairs_choose": FlairsChoose(flairs=[]),
        "flairs_reveal": FlairsReveal(),
        "flairs_set_lurking": FlairsSetLurking(),
        "flairs_name_trials": FlairsNameTrials(),
    }[tag]
    return m.Follow(id="f", check=rec.check_id, action=action)  # type: ignore[arg-type]


def _nothing_to_choose(rec: t.RollEvent) -> bool:
    """A flair choice of no flairs where no lurking trial is left secret: accepted, but it changes nothing (no
    flair, nothing to reveal), so no card offers it."""
    r = rec.result
    return isinstance(r, FlairsResult) and r.flairs == 0 and not (r.lurking > 0 and not r.revealed)


def _check_offers(table: Table) -> int:
    """Every offer accepted, every follow-up not offered refused; returns how many offers were tried."""
    tried = 0
    for rec in list(table.state.checks.values()):
        rules = registry.ruleset_of(rec.check)
        tags = [a.__struct_config__.tag for a in rules.followups] + (["extended_next"] if rec.extended else [])
        for viewer in VIEWERS:
            offered = open_followups(table, rec, viewer)
            blind = not may_see(ROLL_VISIBILITY[rec.mode], rec.user, viewer)
            assert not (blind and offered), "nothing is offered on a result the viewer may not see"
            assert len({o.action for o in offered}) == len(offered), offered
            for o in offered:
                assert o.gm == (viewer.is_gm and o.action in {a.__struct_config__.tag for a in rules.gm_followups})
                for req in _requests(table, rec, o):
                    got = _try(table, viewer, req)
                    assert not isinstance(got, ActionError), (viewer, o, req, got)
                    tried += 1
            for tag in set(tags) - {o.action for o in offered}:
                if blind or (tag == "flairs_choose" and _nothing_to_choose(rec)):
                    continue
                if tag == "extended_next" and viewer.user is not None and viewer.role == "player":
                    continue  # any player may roll into an extended check (the tracker offers it); a card, its roller
                got = _try(table, viewer, _representative(table, rec, tag))
                assert isinstance(got, ActionError), (viewer, tag, rec.result)
    return tried


def _step(table: Table, step: tuple) -> None:
    pending: Pending | ActionError | None = None
    match step:
        case ("roll", check, mode, viewer):
            pending = _try(table, viewer, m.Roll(id="r", check=check, actor="Ayla", scene="S", mode=mode))
        case ("extended", threshold, viewer):
            if not table.state.extended:
                _commit(table, table.prepare_op(t.ExtendedStart(name="Climb", threshold=threshold, time_unit="hour")))
            xid = next(iter(table.state.extended))
            pending = _try(table, viewer, m.Roll(id="r", check=BoonsCheck(ability=2), extended=xid, mode="public"))
        case ("lurking", trial):
            pending = table.prepare_op(flairs_t.LurkingSet(trials=[trial], scene="S"))
        case ("complication", hidden):
            pending = table.prepare_op(challenge_t.ComplicationAdd(scene="S", text="Rising water", hidden=hidden))
        case ("follow", i, j):
            # one of the offers, taken: the sessions reach results after a choice, a bargain, a reveal, ...
            recs = list(table.state.checks.values())
            if not recs:
                return
            rec = recs[i % len(recs)]
            options = [
                (v, req) for v in VIEWERS for o in open_followups(table, rec, v) for req in _requests(table, rec, o)
            ]
            if not options:
                return
            viewer, req = options[j % len(options)]
            pending = _try(table, viewer, req)
            assert not isinstance(pending, ActionError), pending
        case ("undo",):
            pending = _try_undo(table)
    if isinstance(pending, Pending):
        _commit(table, pending)


def _try_undo(table: Table) -> Pending | None:
    try:
        return table.prepare_op(t.Undo(count=1))
    except ActionError:
        return None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(steps, min_size=1, max_size=14))
@example(  # a flairs failure with pairs and lurking trials: bargain, choice, the Judge's names, reveal
    [
        ("lurking", "loud"),
        ("roll", FlairsCheck(rank=3, dice=[3, 3, 2], lurking=0), "public", P1),
        ("follow", 0, 0),
        ("follow", 0, 3),
    ]
)
@example(  # lurking counted, read from given faces: unset until the Judge sets them
    [("roll", FlairsCheck(rank=2, lurking=2, dice=[1, 2]), "gm", P1), ("follow", 0, 0), ("follow", 0, 1)]
)
@example(  # an epic success with a complication to remove (one per epic success), and a +2 choice
    [
        ("complication", True),
        ("complication", False),
        ("roll", ChallengeCheck(cl=1, modifier=5, dice=[20]), "public", P1),
        ("roll", ChallengeCheck(cl=1, dice=[12]), "public", GM),
        ("follow", 0, 0),
    ]
)
@example(  # a failure with no skill (rank 0): no bargain; a simple check's failure: none either
    [
        ("roll", FlairsCheck(rank=0, edges=2, dice=[2, 1]), "public", P1),
        ("roll", FlairsCheck(rank=2, simple=True, dice=[2, 2]), "public", P1),
    ]
)
@example([("extended", 1, P1), ("extended", 40, P2), ("extended", 40, P1), ("undo",)])
def test_what_is_offered_is_what_is_accepted(tmp_path_factory, session):
    table = _table(tmp_path_factory.mktemp("open"))
    try:
        for step in session:
            _step(table, step)
            _check_offers(table)
    finally:
        table.ledger.close()


def test_the_examples_reach_every_follow_up(tmp_path):
    """The property is not vacuous: a few sessions offer every follow-up tag there is, to someone."""
    table = _table(tmp_path)
    try:
        seen: set[str] = set()
        session = [
            ("complication", False),
            ("roll", ChallengeCheck(cl=1, modifier=5, dice=[20]), "public", P1),
            ("roll", ChallengeCheck(cl=1, dice=[12]), "public", P1),
            ("roll", FlairsCheck(rank=3, dice=[3, 3, 2]), "public", P1),
            ("roll", FlairsCheck(rank=2, lurking=1, dice=[1, 2]), "public", P1),
            ("roll", FlairsCheck(rank=2, dice=[6, 6]), "public", P1),
            ("lurking", "slow"),
            ("roll", FlairsCheck(rank=1, dice=[2]), "public", P1),
            ("extended", 30, P1),
        ]
        for step in session:
            _step(table, step)
        for rec in table.state.checks.values():
            for viewer in VIEWERS:
                seen |= {o.action for o in open_followups(table, rec, viewer)}
        tags = {a.__struct_config__.tag for a in ACTION_TYPES} | {"extended_next"}
        assert seen == tags
        assert _check_offers(table) > 20
    finally:
        table.ledger.close()


def test_who_is_offered_what(tmp_path):
    """The roller's follow-ups to the roller alone, the Judge's to the GM alone, the next extended roll to both;
    nothing to another player, an observer, or a blind roll's roller (who may not see the result: the GM
    makes the roller's follow-ups on it)."""
    table = _table(tmp_path)
    try:
        _step(table, ("roll", FlairsCheck(rank=3, dice=[3, 3, 2]), "public", P1))
        _step(table, ("roll", ChallengeCheck(cl=1, dice=[12]), "blind", P1))
        _step(table, ("extended", 30, P2))
        flairs, blind, boons = list(table.state.checks.values())
        tags = lambda rec, v: [o.action for o in open_followups(table, rec, v)]  # noqa: E731
        assert tags(flairs, P1) == ["flairs_bargain"]
        assert tags(flairs, GM) == ["flairs_name_trials"]
        assert tags(flairs, P2) == tags(flairs, OBSERVER) == tags(flairs, TABLEWIDE) == []
        # the roller of a blind roll cannot see the result, so the choice that would be theirs is the GM's
        assert tags(blind, P1) == [] and tags(blind, GM) == ["challenge_choice"]
        assert tags(boons, P2) == tags(boons, GM) == ["extended_next"] and tags(boons, P1) == []
        bargain = open_followups(table, flairs, P1)[0]
        assert msgspec.json.encode(bargain) == (
            b'{"action":"flairs_bargain","trials":["costly","slow","loud","harmful","foolish","chaotic"]}'
        )
    finally:
        table.ledger.close()


# --- over a real websocket ------------------------------------------------------------------------------


async def _next_of(c, kind: type, check: str):
    while True:
        msg = await c.next()
        if isinstance(msg, kind) and msg.check == check:
            return msg


def _tags(msg) -> list[str]:
    return [o.action for o in msg.open]


async def test_each_socket_hears_its_own_follow_ups(sidecar):
    """The roller's reply, the GM's and another player's broadcasts, an observer's: each with its own list; a
    follow-up's `followed` brings each the list as it now stands; `verify` answers with the asker's."""
    p1 = await sidecar.client("player", user="p1")
    p2 = await sidecar.client("player", user="p2")
    gm = await sidecar.client("gm")
    obs = await sidecar.client("observer")
    mp = await Client.connect(sidecar.url, sidecar.keys.table, sidecar.user_key("p1"), user="p1", msgpack=True)
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="S")))  # a player's roll is in the active scene
    rolled = await p1.request(m.Roll(id="r1", check=FlairsCheck(rank=3, dice=[3, 3, 2]), scene="S"))
    assert rolled.result.outcome == "failure"
    assert _tags(rolled) == ["flairs_bargain"] and rolled.open[0].trials[0] == "costly"
    assert _tags(await _next_of(gm, m.Rolled, rolled.check)) == ["flairs_name_trials"]
    assert _tags(await _next_of(p2, m.Rolled, rolled.check)) == []
    assert _tags(await _next_of(obs, m.Rolled, rolled.check)) == []
    assert _tags(await _next_of(mp, m.Rolled, rolled.check)) == ["flairs_bargain"]  # the roller's other socket
    # the Judge names the trials: the roller still may bargain, the Judge has nothing left to do
    named = await gm.request(m.Follow(id="f1", check=rolled.check, action=FlairsNameTrials(trials=["loud"])))
    assert _tags(named) == []
    assert _tags(await _next_of(p1, m.Followed, rolled.check)) == ["flairs_bargain"]
    assert _tags(await _next_of(p2, m.Followed, rolled.check)) == []
    bargained = await p1.request(m.Follow(id="f2", check=rolled.check, action=FlairsBargain(trial="slow", dice=[3])))
    assert bargained.result.bargain == "slow" and _tags(bargained) == []
    # ask the ledger: each asker's own list (on the wire, the field is there, possibly empty)
    v1 = await p1.request(m.Verify(id="v1", check=rolled.check))
    assert v1.found and v1.open == []
    choice = await p1.request(m.Roll(id="r2", check=ChallengeCheck(cl=1, dice=[12])))
    assert [o.options for o in choice.open] == [["game_changer", "strain"]]
    assert (await gm.request(m.Verify(id="v2", check=choice.check))).open == []
    assert _tags(await p1.request(m.Verify(id="v3", check=choice.check))) == ["challenge_choice"]
    assert (await p2.request(m.Verify(id="v4", check=choice.check))).open == []
    for c in (p1, p2, gm, obs, mp):
        await c.close()


async def test_the_wire_leaves_the_list_out_only_where_it_never_was(sidecar):
    """`open` is always sent on `rolled`, `followed` and a found `verified` (an empty list when nothing is open),
    so a client tells "nothing open" from an older sidecar that sends no list."""
    p1 = await sidecar.client("player", user="p1")
    rolled = await p1.request(m.Roll(id="r1", check=FacetsCheck(pool=2, dice=[6, 2])))
    assert rolled.open == []  # decoded from the wire: a list left out would read as UNSET
    assert msgspec.json.decode(codec.encode(rolled))["open"] == []
    missing = await p1.request(m.Verify(id="v", check="nope"))
    assert missing.open is msgspec.UNSET
    assert "open" not in msgspec.json.decode(codec.encode(missing))
    await p1.close()


def test_the_tags_are_the_protocols_follow_ups():
    """`FollowupTag` names every follow-up action of every rule set, and the next extended roll; no other."""
    from typing import get_args

    actions = {a.__struct_config__.tag for rs in registry.RULESETS.values() for a in rs.followups}
    assert actions == {a.__struct_config__.tag for a in ACTION_TYPES}
    assert set(get_args(m.FollowupTag)) == actions | {"extended_next"}
