"""The registry of rule sets: built from the rule sets' contract, in agreement with the protocol's unions,
and the only place the rest of the sidecar learns about rule sets from."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from protocol.v1 import base, boons, challenge, facets, feats, flairs
from protocol.v1 import challenge as challenge_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import table as t
from protocol.v1.systems import ACTION_TYPES, CHECK_TYPES, RESULT_TYPES, SYSTEMS
from sidecar.engine import registry
from sidecar.engine.ruleset import RollContext, RuleSet, Shown
from sidecar.engine.rulesets.challenge import consequences as challenge_consequences
from sidecar.engine.rulesets.challenge import table as challenge_table
from sidecar.engine.rulesets.flairs import table as flairs_table

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_MODULES = {"facets": facets, "challenge": challenge, "flairs": flairs, "feats": feats, "boons": boons}


def _defined(module: object, cls: type) -> list[type]:
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, cls) and v is not cls and v.__module__ == module.__name__  # type: ignore[attr-defined]
    ]


def test_the_registry_and_the_protocol_unions_agree() -> None:
    rulesets = list(registry.RULESETS.values())
    assert tuple(registry.RULESETS) == SYSTEMS
    assert tuple(rs.check_type for rs in rulesets) == CHECK_TYPES
    assert tuple(rs.result_type for rs in rulesets) == RESULT_TYPES
    assert tuple(a for rs in rulesets for a in rs.followups) == ACTION_TYPES


@pytest.mark.parametrize("name", SYSTEMS)
def test_each_rule_set_provides_the_contract(name: str) -> None:
    rs = registry.RULESETS[name]
    assert isinstance(rs, RuleSet) and not inspect.isabstract(type(rs))
    assert rs.name == name == rs.check_type.__struct_config__.tag == rs.result_type.__struct_config__.tag
    assert set(rs.gm_followups) <= set(rs.followups)
    module = PROTOCOL_MODULES[name]
    # every Struct the rule set's protocol module defines is in the registry: none forgotten in a union
    assert _defined(module, base.Check) == [rs.check_type]
    assert _defined(module, base.Result) == [rs.result_type]
    assert _defined(module, base.Action) == list(rs.followups)
    assert type(rs.rules) is type(rs.module.RULES)


def test_gm_followups_are_the_judges() -> None:
    tags = {a.__struct_config__.tag for a in registry.GM_FOLLOWUPS}
    assert tags == {"flairs_reveal", "flairs_set_lurking", "flairs_name_trials", "challenge_remove_complication"}


def test_state_and_server_name_no_rule_set() -> None:
    """The state layer applies events; which events a rule produces is the rule set's to say."""
    words = [*SYSTEMS, *(a.__struct_config__.tag for a in ACTION_TYPES)]
    alternatives = "|".join(map(re.escape, words))
    quoted = re.compile(rf"""["'`]({alternatives})["'`]""")
    for folder in ("sidecar/state", "sidecar/server"):
        for path in (ROOT / folder).glob("*.py"):
            text = path.read_text()
            assert "rulesets" not in text, path
            assert not quoted.search(text), (path, quoted.search(text))
            for tp in (*CHECK_TYPES, *RESULT_TYPES, *ACTION_TYPES):
                assert tp.__name__ not in text, (path, tp.__name__)


class View:
    """A table as a rule set reads it."""

    def __init__(
        self,
        actors: dict[str, t.ActorState] | None = None,
        complications: dict[str, challenge_t.Complication] | None = None,
        scene: str | None = None,
    ) -> None:
        self.actors, self.complications, self._scene = actors or {}, complications or {}, scene
        self.scenes: dict[str, t.SceneState] = {}
        self.lurking: dict[str, flairs_t.Lurking] = {}
        self.parts = {
            "challenge": challenge_table.Held(complications=self.complications),
            "flairs": flairs_table.Held(lurking=self.lurking),
        }
        self.gathers: dict[str, t.GatherState] = {}
        self.extended: dict[str, t.ExtendedState] = {}

    @property
    def scene(self) -> str | None:
        return self._scene

    def actor_state(self, actor: str) -> t.ActorState:
        return self.actors.get(actor, t.ActorState())

    def part(self, name: str) -> object:
        return self.parts.get(name)

    def brought_by(self, user: str) -> int:
        return 0


def _roll(check: object, faces: list[int], actor: str | None = "Ayla", scene: str | None = "Inn") -> t.RollEvent:
    rs = registry.ruleset_of(check)
    return t.RollEvent(
        check_id="T-1",
        check=check,
        result=rs.read(check, faces),
        by="player",
        user="u1",
        actor=actor,
        scene=scene,
        mode="public",
    )


def test_an_epic_failure_is_a_condition_and_a_hidden_complication() -> None:
    roll = _roll(challenge.ChallengeCheck(cl=2), [1])
    events = list(registry.RULESETS["challenge"].consequences(roll, View()))
    assert [type(e) for e in events] == [t.ConditionAdded, challenge_t.ComplicationAdded]
    assert events[0].actor == "Ayla"
    assert events[1].origin == "epic_failure" and events[1].hidden and events[1].scene == "Inn"


def test_a_fourth_condition_takes_the_hero_down() -> None:
    three = t.ActorState(conditions=[t.Condition(id=f"c{i}", text=None) for i in range(3)])
    roll = _roll(challenge.ChallengeCheck(cl=2), [1], scene=None)
    events = list(registry.RULESETS["challenge"].consequences(roll, View({"Ayla": three})))
    assert [type(e) for e in events] == [
        t.ConditionAdded,
        challenge_t.TakenDown,
        challenge_t.ComplicationAdded,
        challenge_t.ComplicationAdded,
    ]
    assert [e.origin for e in events[2:]] == ["taken_down", "epic_failure"]
    assert {e.scene for e in events[2:]} == {""}  # no scene named: kept under the unnamed one
    assert registry.RULESETS["challenge"].rules.taken_down_at == 4


def test_the_gm_removing_a_hidden_complication_is_shown_to_the_gm_alone() -> None:
    rs = registry.RULESETS["challenge"]
    roll = _roll(challenge.ChallengeCheck(cl=1, modifier=5), [20])
    action = challenge.ChallengeRemoveComplication(complication="k1")
    after = rs.follow(roll.check, roll.result, action, None)  # type: ignore[arg-type]
    hidden = challenge_t.Complication(id="k1", scene="Inn", text="Assassins", origin="gm", hidden=True)
    out = list(rs.follow_consequences(roll, action, after, View(complications={"k1": hidden})))
    assert out == [Shown(challenge_t.ComplicationRemoved(complication="k1"), "gm")]


def test_addressing_a_complication_the_gm_did_not_convert_is_refused() -> None:
    c = challenge_t.Complication(id="k1", scene="Inn", text="Fire", origin="gm", hidden=False)
    ctx = RollContext(check_id="T-1", actor="Ayla", scene="Inn", by_gm=False)
    with pytest.raises(Exception) as info:
        challenge_consequences.addressable(
            challenge.ChallengeCheck(cl=2, complication="k1"), ctx, View(complications={"k1": c})
        )
    assert getattr(info.value, "code", None) == "complication_not_converted"


def test_a_check_of_no_rule_set_is_refused_with_a_code() -> None:
    with pytest.raises(Exception) as info:
        registry.ruleset_of(t.Undo())
    assert getattr(info.value, "code", None) == "unsupported_system"
