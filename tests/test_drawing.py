"""A rule set's drawing (sidecar/engine/drawing.py) is checked against the table when the vocabulary is written:
a field the table's state lacks, an op the protocol lacks, an argument no field of its op, a result field or
a die that is not the rule set's, a colour that is no colour, each fails there (not in a browser)."""

from __future__ import annotations

import msgspec
import pytest

from sidecar import vocabulary
from sidecar.engine.drawing import Arg, Control, DieColour, Drawing, Flag, Items, Label, Number
from sidecar.engine.registry import RULESETS

L = Label("VERDICT.X", "X")


def _written(monkeypatch: pytest.MonkeyPatch, name: str, drawn: Drawing) -> object:
    monkeypatch.setattr(vocabulary, "drawing_of", lambda rs: drawn)
    return vocabulary.drawing(RULESETS[name])


def test_each_shipped_drawing_is_written_as_it_is_declared() -> None:
    for rs in RULESETS.values():
        drawn = vocabulary.drawing_of(rs)
        written = vocabulary.drawing(rs)
        assert written == (None if drawn is None else msgspec.to_builtins(drawn)), rs.name
    drawn_fields = {f for rs in RULESETS.values() for f in (vocabulary.drawing_of(rs) or Drawing()).fields()}
    table = {f.name for part in ("ActorState", "SceneState") for f in msgspec.structs.fields(getattr(vocabulary, part))}
    assert drawn_fields <= table
    assert {"strain", "wounds", "wyrd", "complications", "lurking", "facets"} <= drawn_fields


@pytest.mark.parametrize(
    ("drawn", "says"),
    [
        (Drawing(parts=(Number(field="luck", label=L),)), "'luck' is no int field"),
        (Drawing(parts=(Flag(field="strain", label=L),)), "'strain' is no bool field"),
        (Drawing(parts=(Items(field="strain", name="x", section="x", heading=L),)), "'strain' is no list field"),
        (Drawing(parts=(Items(field="conditions", name="x", section="x", heading=L, on=("scene",)),)), "no list field"),
        (
            Drawing(parts=(Number(field="strain", label=L, controls=(Control("a", "strain_add", L, "i"),)),)),
            "'strain_add', which is no GM op",
        ),
        (
            Drawing(
                parts=(
                    Number(
                        field="strain", label=L, controls=(Control("a", "strain_set", L, "i", (Arg("who", "actor"),)),)
                    ),
                )
            ),
            "binds 'who', no field of 'strain_set'",
        ),
        (Drawing(marks=("harm",)), "marks 'harm'"),
        (Drawing(dice={"ability": DieColour("#fff", "#000")}), "paints 'ability'"),
    ],
)
def test_a_drawing_that_names_what_the_table_lacks_is_refused(monkeypatch, drawn, says) -> None:
    with pytest.raises(TypeError, match=says):
        _written(monkeypatch, "challenge", drawn)


def test_a_die_is_painted_in_colours_only(monkeypatch) -> None:
    with pytest.raises(TypeError, match="colours are #rrggbb"):
        _written(monkeypatch, "boons", Drawing(dice={"ability": DieColour("red; } body { display: none", "#000")}))
    assert _written(monkeypatch, "boons", Drawing(dice={"ability": DieColour("#1f6b42", "#fff")}))
