"""How the module draws boons: its five die types, each painted in its own colours on a card (boons keeps no
table state of its own; its extended checks are the table's)."""

from __future__ import annotations

from sidecar.engine.drawing import DieColour, Drawing

DRAWING = Drawing(
    dice={
        "ability": DieColour("#1f6b42", "#fff"),
        "boon": DieColour("#7fb3e6", "#102030"),
        "bane": DieColour("#222", "#eee"),
        "trial": DieColour("#6b3fa0", "#fff"),
        "crisis": DieColour("#a0202a", "#fff"),
    },
)
