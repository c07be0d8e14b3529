"""A readable table of an odds answer, for the terminal (``verdict odds SYSTEM ...``)."""

from __future__ import annotations

import msgspec

from protocol.v1.base import Probability
from protocol.v1.odds import Chance, CheckOdds, Expectation

BAR = 24


def _percent(p: float) -> str:
    if p == 0 or p >= 0.0001:
        return f"{p * 100:.2f}%"
    return f"{p * 100:.1e}%"


def _words(name: str) -> str:
    return name.replace("_", " ")


def _scalar(value: object) -> str | None:
    if isinstance(value, Probability):
        return f"{_percent(value.p)} ({value.num}/{value.den})"
    if isinstance(value, Expectation):
        exact = f"{value.num}/{value.den}" if value.den != 1 else f"{value.num}"
        return f"{value.value:.4g} ({exact})"
    if isinstance(value, msgspec.Struct):
        parts = [f"{n} {getattr(value, n)}" for n in value.__struct_fields__ if getattr(value, n)]
        return ", ".join(parts) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def describe(answer: CheckOdds) -> str:
    """Every distribution as rows of value, percentage, bar and exact fraction; then the single figures."""
    tag = type(answer).__struct_config__.tag
    head: list[str] = []
    tables: list[str] = []
    for name in answer.__struct_fields__:
        value = getattr(answer, name)
        if value is None:
            continue
        if isinstance(value, list):
            if not value or not isinstance(value[0], Chance):
                continue
            labels = [_words(str(c.value)) for c in value]
            width = max(len(label) for label in labels)
            tables.append(f"{_words(name)}:")
            for label, c in zip(labels, value):
                bar = "█" * round(c.chance.p * BAR)
                tables.append(
                    f"  {label:<{width}}  {_percent(c.chance.p):>9}  {bar:<{BAR}}  {c.chance.num}/{c.chance.den}"
                )
            continue
        text = _scalar(value)
        if text is not None:
            head.append(f"{_words(name)}: {text}")
    return "\n".join([f"{tag} odds", *("  " + h for h in head), *tables])
