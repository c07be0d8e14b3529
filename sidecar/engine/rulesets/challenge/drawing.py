"""How the module draws challenge's part of the table: strain and game changers, taken down, and the scene's
complications (revealed, edited, addressed as a challenge and removed by the GM)."""

from __future__ import annotations

from protocol.v1.limits import STRAIN
from sidecar.engine.drawing import Arg, Badge, Control, Drawing, Flag, Form, Input, Items, Label, Marker, Number, Option

CL_MOST = 20
"""The highest CL the GM's control offers (the tracker's box; the op's own bound is the protocol's)."""

DRAWING = Drawing(
    conditions=True,
    marks=("strain", "condition"),
    parts=(
        Number(
            field="strain",
            label=Label("VERDICT.Sheet.strain", "Strain"),
            badge=Label("VERDICT.Fact.strain", "Strain"),
            tone="resource",
            min=-STRAIN,
            max=STRAIN,
            marker=Marker(kind="badge", id="verdict-strain", label=Label("VERDICT.Status.strain", "Strain")),
        ),
        Number(field="game_changers", label=Label("VERDICT.Sheet.gameChangers", "Game changers"), min=0),
        Flag(
            field="taken_down",
            label=Label("VERDICT.Sheet.takenDown", "Taken down"),
            badge=Label("VERDICT.Status.takenDown", "Taken Down"),
            tone="dire",
            marker=Marker(
                kind="status",
                id="verdict-taken-down",
                label=Label("VERDICT.Status.takenDown", "Taken Down"),
                icon="taken-down.svg",
                defeated=True,
            ),
        ),
        Items(
            field="complications",
            name="complication",
            section="complications",
            heading=Label("VERDICT.Tracker.complications", "Complications"),
            on=("scene",),
            text="text",
            hidden="hidden",
            hidden_badge=Label("VERDICT.Tracker.hiddenBadge", "Hidden from players"),
            badges=(
                Badge(field="cl", label=Label("VERDICT.Tracker.cl", "CL"), css="cl"),
                Badge(
                    field="origin",
                    css="origin",
                    values=(
                        Option("epic_failure", Label("VERDICT.Origin.epic_failure", "epic failure")),
                        Option("taken_down", Label("VERDICT.Origin.taken_down", "taken down")),
                        Option("gm", Label("VERDICT.Origin.gm", "GM")),
                    ),
                ),
            ),
            controls=(
                Control(
                    action="reveal",
                    op="complication_reveal",
                    label=Label("VERDICT.Tracker.reveal", "Reveal"),
                    icon="fa-solid fa-eye",
                    args=(Arg("complication", "item"),),
                    when="hidden",
                    labelled=True,
                ),
                Control(
                    action="edit",
                    op="complication_edit",
                    label=Label("VERDICT.Tracker.edit", "Edit"),
                    icon="fa-solid fa-pen",
                    args=(Arg("complication", "item"), Arg("text", "input", "edit")),
                    edit="text",
                    edit_label=Label("VERDICT.Tracker.editText", "New text"),
                    labelled=True,
                ),
                Control(
                    action="convert",
                    op="complication_convert",
                    label=Label("VERDICT.Tracker.convert", "Make it a challenge"),
                    icon="fa-solid fa-right-left",
                    args=(Arg("complication", "item"), Arg("cl", "input", "cl")),
                    inputs=(
                        Input(
                            name="cl",
                            kind="number",
                            label=Label("VERDICT.Tracker.cl", "CL"),
                            default=2,
                            prefill="cl",
                            min=1,
                            max=CL_MOST,
                        ),
                    ),
                    again=Label("VERDICT.Tracker.convertAgain", "Set the CL"),
                    again_when="cl",
                    choices=True,
                    labelled=True,
                ),
                Control(
                    action="remove",
                    op="complication_remove",
                    label=Label("VERDICT.Tracker.remove", "Remove"),
                    icon="fa-solid fa-trash",
                    args=(Arg("complication", "item"),),
                    labelled=True,
                ),
            ),
            add=Form(
                css="add",
                label=Label("VERDICT.Tracker.newComplication", "A new complication"),
                inputs=(
                    Input(
                        name="text",
                        kind="text",
                        label=Label("VERDICT.Tracker.complicationText", "Complication text"),
                        placeholder=Label("VERDICT.Tracker.newComplication", "A new complication"),
                    ),
                    Input(
                        name="hidden",
                        kind="flag",
                        label=Label("VERDICT.Tracker.hiddenBadge", "Hidden from players"),
                        default=True,
                        keep=True,
                    ),
                ),
                control=Control(
                    action="add",
                    op="complication_add",
                    label=Label("VERDICT.Tracker.add", "Add"),
                    icon="fa-solid fa-plus",
                    args=(Arg("scene", "scene"), Arg("text", "input", "text"), Arg("hidden", "input", "hidden")),
                    labelled=True,
                ),
            ),
            every_world=True,
        ),
    ),
)
