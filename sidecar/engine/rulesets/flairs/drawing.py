"""How the module draws flairs' part of the table: the lurking trials the GM sets on the scene (their names
the GM's alone: a player sees how many wait)."""

from __future__ import annotations

import typing

from protocol.v1.flairs import FlairsTrialName
from sidecar.engine.drawing import Arg, Badge, Control, Drawing, Form, Input, Items, Label, Option

TRIALS = tuple(
    Option(str(trial), Label(f"VERDICT.Trial.{trial}", str(trial).capitalize()))
    for trial in typing.get_args(FlairsTrialName)
)

DRAWING = Drawing(
    parts=(
        Items(
            field="lurking",
            name="lurking-trials",
            section="lurking",
            heading=Label("VERDICT.Tracker.lurking", "Lurking trials"),
            on=("scene",),
            text="trials",
            text_values=TRIALS,
            secret=Label("VERDICT.Tracker.lurkingSecret", "secret trials wait"),
            badges=(Badge(field="count", css="count", lead=True),),
            actor="actor",
            sheet=False,
            add=Form(
                css="lurking-form",
                label=Label("VERDICT.Tracker.trials", "Lurking trials"),
                inputs=(
                    Input(
                        name="trial",
                        kind="choices",
                        label=Label("VERDICT.Tracker.trials", "Lurking trials"),
                        options=TRIALS,
                    ),
                ),
                control=Control(
                    action="lurking",
                    op="lurking_set",
                    label=Label("VERDICT.Tracker.setLurking", "Set lurking trials"),
                    icon="fa-solid fa-ghost",
                    args=(
                        Arg("trials", "input", "trial"),
                        Arg("scene", "scene", nullable=True),
                        Arg("actor", "value", value=None),
                    ),
                    labelled=True,
                ),
            ),
        ),
    ),
)
