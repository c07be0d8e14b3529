"""How the module draws feats' part of the table: each character's Wyrd Points, granted by the GM; and its
dice by colour on a card."""

from __future__ import annotations

from protocol.v1.limits import WYRD
from sidecar.engine.drawing import Arg, Control, DieColour, Drawing, Input, Label, Number

DRAWING = Drawing(
    dice={
        "white": DieColour("#f4f1ea", "#222"),
        "red": DieColour("#b5442b", "#fff"),
        "blue": DieColour("#2f5d9e", "#fff"),
    },
    parts=(
        Number(
            field="wyrd",
            label=Label("VERDICT.Sheet.wyrd", "Wyrd Points"),
            badge=Label("VERDICT.Tracker.wyrd", "Wyrd"),
            tone="resource",
            min=0,
            controls=(
                Control(
                    action="wyrdGrant",
                    op="wyrd_grant",
                    label=Label("VERDICT.Tracker.grantWyrd", "Grant Wyrd Points"),
                    icon="fa-solid fa-star",
                    args=(Arg("actor", "actor"), Arg("amount", "input", "amount")),
                    inputs=(
                        Input(
                            name="amount",
                            kind="number",
                            label=Label("VERDICT.Tracker.wyrdAmount", "Wyrd Points to grant"),
                            default=1,
                            min=-WYRD,
                            max=WYRD,
                        ),
                    ),
                ),
            ),
        ),
    ),
)
