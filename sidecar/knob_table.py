"""The operator's guide's table of limits, timeouts and growth knobs (its Security section), made from
:mod:`sidecar.config`.

``python -m sidecar.knob_table`` (run by ``make schema``) rewrites the table between its two markers in
docs/operating.md; a test says when the copy there is out of date. A checkout's tool: not in the wheel.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sidecar import config

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "operating.md"
BEGIN = "<!-- knobs: made from sidecar/config.py by `make schema`; edit the knobs there, not this table -->"
END = "<!-- /knobs -->"
GROUPS = (config.LIMITS, config.TIMEOUTS, config.GROWTH)
"""The groups the Security section lists (where the sidecar listens is the command line's section)."""


def table() -> str:
    """The markdown table: one row per knob of :data:`GROUPS`, its option, its default and its help."""
    rows = ["| | option | default | what it is |", "|---|---|---|---|"]
    for group in GROUPS:
        for knob in config.KNOBS:
            if knob.group == group:
                said, what = (text.replace("|", "\\|") for text in (knob.said(knob.default), knob.help))
                rows.append(f"| {group} | `{knob.option}` | {said} | {what} |")
    return "\n".join(rows)


def rewrite(text: str) -> str:
    """``text`` with the table between its markers made anew."""
    head, begin, rest = text.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"{GUIDE.name} has no {BEGIN!r} ... {END!r} block")
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main() -> int:
    text = GUIDE.read_text()
    made = rewrite(text)
    if made != text:
        GUIDE.write_text(made)
        print(f"rewrote the table of knobs in {GUIDE.relative_to(GUIDE.parents[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
