"""Properties of the table over random sessions: a replay of the ledger is the live state, and a
player's view never holds what is hidden from players.

What a player may see is two things, with two rules:
- the snapshot (the state now) holds nothing hidden *now*: a complication hidden again (its reveal
  undone) is gone from it;
- the history (events since seq 0) holds each event as it was when it happened: a reveal that was
  public stays in it even after it is undone (the `undone` event says so), but a hidden complication's
  own `complication_added`, the names of lurking trials and other users' secret rolls never appear.
"""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import feats as feats_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck, ChallengeRemoveComplication
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck
from sidecar.state.ledger import SqliteLedger
from sidecar.state.projection import Projection
from sidecar.state.table import ActionError, Table
from sidecar.state.visibility import Viewer

ACTORS = ["Ayla", "Bram"]
GM = Viewer("gm", "gm-user")
PLAYER = Viewer("player", "p1")
OTHER = Viewer("player", "p2")

rolls = st.one_of(
    st.builds(lambda cl, d: ChallengeCheck(cl=cl, dice=[d]), st.integers(1, 5), st.integers(1, 20)),
    st.builds(lambda d: ChallengeCheck(cl=1, modifier=5, dice=[d]), st.integers(15, 20)),  # epic successes
    st.builds(
        lambda d, k: FacetsCheck(pool=len(d), kind=k, dice=d),
        st.lists(st.integers(1, 6), min_size=1, max_size=4),
        st.sampled_from(["obstacle", "opposition", "mystical"]),
    ),
    st.builds(lambda d: FlairsCheck(rank=len(d), dice=d), st.lists(st.integers(1, 6), min_size=1, max_size=4)),
    st.builds(
        lambda lv, d: FeatsCheck(level=lv, dice=d),
        st.integers(-3, 3),
        st.lists(st.integers(1, 8), min_size=3, max_size=3),
    ),
)
actions = st.one_of(
    st.tuples(
        st.just("roll"),
        rolls,
        st.sampled_from(ACTORS + [None]),
        st.sampled_from(["public", "gm", "blind", "self"]),
        st.sampled_from([PLAYER, OTHER, GM]),
    ),
    st.tuples(
        st.just("op"),
        st.one_of(
            st.builds(
                challenge_t.ComplicationAdd,
                scene=st.just("S"),
                text=st.sampled_from(["secret-a", "secret-b"]),
                hidden=st.booleans(),
            ),
            st.builds(challenge_t.StrainSet, actor=st.sampled_from(ACTORS), strain=st.integers(0, 6)),
            st.builds(t.ConditionAdd, actor=st.sampled_from(ACTORS)),
            st.builds(flairs_t.LurkingSet, trials=st.just(["loud", "slow"]), actor=st.sampled_from(ACTORS)),
            st.builds(feats_t.WyrdGrant, actor=st.sampled_from(ACTORS), amount=st.integers(0, 10)),
            st.builds(t.Undo, count=st.integers(1, 3), events=st.booleans()),
            st.just(t.SceneActivate(scene="S")),
            st.builds(
                facets_t.FacetAdd,
                facet=st.just("Bitter Cold"),
                nature=st.sampled_from(["beneficial", "detrimental"]),
                actor=st.sampled_from(ACTORS + [None]),
            ),
            st.builds(
                facets_t.HarmHeal,
                actor=st.sampled_from(ACTORS),
                harm=st.sampled_from(["wound", "scratch"]),
                count=st.integers(1, 2),
            ),
        ),
    ),
    st.tuples(st.just("reveal")),
    st.tuples(st.just("facet"), st.sampled_from(["rename", "remove"])),
    st.tuples(st.just("condition_remove"), st.sampled_from(ACTORS)),
    st.tuples(st.just("epic_remove")),
)


def _apply(table: Table, action: tuple) -> None:
    try:
        if action[0] == "roll":
            _, check, actor, mode, viewer = action
            pending = table.prepare_roll(m.Roll(id="x", check=check, actor=actor, mode=mode), viewer, viewer.user)
        elif action[0] == "op":
            pending = table.prepare_op(action[1])
        elif action[0] == "facet":
            facets = [
                f for holder in (*table.state.actors.values(), *table.state.scenes.values()) for f in holder.facets
            ]
            if not facets:
                return
            fix = (
                facets_t.FacetRename(facet=facets[0].id, text="Renamed")
                if action[1] == "rename"
                else facets_t.FacetRemove(facet=facets[0].id)
            )
            pending = table.prepare_op(fix)
        elif action[0] == "epic_remove":
            epic = [c for c in table.state.checks.values() if getattr(c.result, "complication", None) == "remove"]
            if not epic or not table.state.part("challenge").complications:
                return
            pending = table.prepare_follow(
                m.Follow(
                    id="x",
                    check=epic[-1].check_id,
                    action=ChallengeRemoveComplication(
                        complication=next(iter(table.state.part("challenge").complications))
                    ),
                ),
                GM,
                GM.user,
            )
        elif action[0] == "condition_remove":
            conditions = table.state.actors.get(action[1], t.ActorState()).conditions
            if not conditions:
                return
            pending = table.prepare_op(t.ConditionRemove(actor=action[1], condition=conditions[0].id))
        else:
            hidden = [c for c in table.state.part("challenge").complications.values() if c.hidden]
            if not hidden:
                return
            pending = table.prepare_op(challenge_t.ComplicationReveal(complication=hidden[0].id))
    except ActionError:
        return  # refused: nothing may have changed
    table.ledger.append_sync(table.id, pending.encoded(), None)
    table.commit(pending)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(actions, min_size=1, max_size=25))
# found on a fresh clone: a hidden complication revealed, then the reveal undone
@example(
    [("op", challenge_t.ComplicationAdd(scene="S", text="secret-a", hidden=True)), ("reveal",), ("op", t.Undo(count=1))]
)
@example(
    [
        ("roll", FacetsCheck(pool=1, dice=[6]), None, "self", PLAYER),
        ("op", t.ConditionAdd(actor="Ayla")),
        ("op", t.Undo(count=2)),
    ]
)
def test_replay_equals_live_and_players_see_no_secrets(tmp_path_factory, session):
    ledger = SqliteLedger(tmp_path_factory.mktemp("replay") / "v.sqlite3")
    keys = ledger.create_table("t")
    live = Table(keys.table, ledger)
    live.load()
    for viewer in (PLAYER, OTHER):
        live.snapshot(viewer)  # from now on the players' projections are kept current, event by event
    for action in session:
        before = msgspec.json.encode(live.snapshot(GM))
        head = live.head
        _apply(live, action)
        if live.head == head:  # a refusal left no trace
            assert msgspec.json.encode(live.snapshot(GM)) == before
    replay = Table(keys.table, ledger)
    replay.load()
    assert msgspec.json.encode(replay.snapshot(GM)) == msgspec.json.encode(live.snapshot(GM))
    hidden = [c for c in live.state.part("challenge").complications.values() if c.hidden]
    for viewer in (PLAYER, OTHER):
        snap = live.snapshot(viewer)
        history = live.visible(0, viewer)
        # the projection kept current equals one folded afresh from what the viewer may see, and a replay's
        rebuilt = Projection.build((s.seq, s.event) for s in history).snapshot()
        rebuilt.seq = snap.seq
        assert msgspec.json.encode(rebuilt) == msgspec.json.encode(snap) == msgspec.json.encode(replay.snapshot(viewer))
        now = msgspec.json.encode(snap).decode()
        for c in hidden:
            assert c.id not in now  # the state now: nothing hidden now
        past = msgspec.json.encode(history).decode()
        for s in history:  # the history: as it was when it happened
            assert not (isinstance(s.event, challenge_t.ComplicationAdded) and s.event.hidden)
        for text in (now, past):
            assert '"trials":["loud","slow"]' not in text and '"lurking_trials":["loud","slow"]' not in text
            for _seq, stored in live.stored():
                ev = stored.event
                if isinstance(ev, t.RollEvent) and ev.mode in ("blind", "gm", "self") and ev.user != viewer.user:
                    assert f'"check_id":"{ev.check_id}"' not in text
        # an `undone` names only seqs of the viewer's own history (its numbering: nothing hidden is counted)
        told = [s.seq for s in history]
        assert told == list(range(1, len(told) + 1))
        for s in history:
            if isinstance(s.event, t.Undone):
                assert all(n in told and n < s.seq for n in s.event.seqs)
    ledger.close()


THIRD = Viewer("player", "p3")  # never rolls: always on the shared view
WATCHER = Viewer("observer", None)
LOOKERS = [PLAYER, OTHER, THIRD, WATCHER, Viewer("player", None)]


def _fresh(table: Table, viewer: Viewer) -> bytes:
    """A viewer's snapshot folded from scratch from the events that viewer may see, as the table stands."""
    snap = Projection.build((s.seq, s.event) for s in table.visible(0, viewer)).snapshot()
    snap.seq = table.numbering.count(viewer)  # the last of the viewer's own events
    return msgspec.json.encode(snap)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(actions, st.tuples(st.just("look"), st.sampled_from(LOOKERS))), min_size=1, max_size=30))
@example(
    [
        ("look", PLAYER),  # p1 on the shared view
        ("roll", FacetsCheck(pool=1, dice=[6]), None, "self", PLAYER),  # now with a secret of their own
        ("look", OTHER),
        ("roll", FacetsCheck(pool=1, dice=[2]), None, "public", OTHER),
        ("look", PLAYER),
        ("op", t.Undo(count=1)),
        ("look", THIRD),
    ]
)
def test_shared_and_own_views_equal_views_built_from_scratch(tmp_path_factory, session):
    """Viewers without secrets of their own share one projection, a user with one gets their own: at every
    point a viewer asks, what it gets equals a projection built afresh from the events it may see."""
    ledger = SqliteLedger(tmp_path_factory.mktemp("views") / "v.sqlite3")
    keys = ledger.create_table("t")
    live = Table(keys.table, ledger)
    live.load()
    for action in session:
        if action[0] == "look":
            assert msgspec.json.encode(live.snapshot(action[1])) == _fresh(live, action[1])
        else:
            _apply(live, action)
    assert len(live.views) <= 1 + len(live.secret_owners)
    for viewer in LOOKERS:
        assert msgspec.json.encode(live.snapshot(viewer)) == _fresh(live, viewer)
    ledger.close()
