"""How the module draws fortune's part of the table: each character's fortune points, a badge in the tracker
and on the token and a row of the sheet, which the GM grants from the tracker. Every word carries its English,
so the module's language file needs no line for it."""

from __future__ import annotations

from sidecar.engine.drawing import Arg, Control, Drawing, Input, Label, Marker, Number

from .protocol import FORTUNE

DRAWING = Drawing(
    parts=(
        Number(
            field="fortune",
            label=Label("VERDICT.Sheet.fortune", "Fortune points"),
            badge=Label("VERDICT.Tracker.fortune", "Fortune"),
            tone="resource",
            data=True,
            min=0,
            max=FORTUNE,
            marker=Marker(
                kind="badge",
                id="verdict-fortune",
                label=Label("VERDICT.Status.fortune", "Fortune"),
                colour="#9be37a",
            ),
            controls=(
                Control(
                    action="fortuneGrant",
                    op="fortune_grant",
                    label=Label("VERDICT.Tracker.grantFortune", "Grant fortune points"),
                    icon="fa-solid fa-clover",
                    args=(Arg("actor", "actor"), Arg("amount", "input", "amount")),
                    inputs=(
                        Input(
                            name="amount",
                            kind="number",
                            label=Label("VERDICT.Tracker.fortuneAmount", "Fortune points to grant"),
                            default=1,
                            min=-FORTUNE,
                            max=FORTUNE,
                        ),
                    ),
                ),
            ),
        ),
    ),
)
