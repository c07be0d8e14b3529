"""The Foundry module names no rule set outside its generated vocabulary.

What the module must know of a rule set (its fields, dice, facts, follow-ups, how its checks gather) comes
from ``vtt-module/scripts/generated/``, so adding a rule set touches no module file. Every script, template
and stylesheet is read for the rule sets' names: as a word, inside an identifier (``facetsDice``), as a follow-up
tag (``flairs_choose``), as an i18n key's segment (``VERDICT.Field.boons.trial``), a CSS class
(``boons-ability``) or a string (``"feats"``). A name that is also a word of the table's own state (a field of
``protocol/v1/table.py``'s Structs: the table's ``facets``) is allowed where it names that state.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from protocol.v1 import table
from protocol.v1.systems import ACTOR_PARTS, SCENE_PARTS, SYSTEMS

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "vtt-module"

# Known exceptions, listed exactly (file, the line's text), so any other line that names a rule set, there or
# anywhere, fails; each says what the vocabulary lacks for it. Remove an entry when its line goes.
KNOWN: frozenset[tuple[str, str]] = frozenset()

TABLE_WORDS = frozenset(
    f.name
    for v in vars(table).values()
    if isinstance(v, type) and issubclass(v, msgspec.Struct)
    for f in msgspec.structs.fields(v)
)
"""The table state's own words: the fields of its Structs."""

_NAMES = "|".join(SYSTEMS)
NAMED = re.compile(rf"(?i)(?<![A-Za-z0-9])({_NAMES})|(?<=[a-z0-9])({'|'.join(s.capitalize() for s in SYSTEMS)})")
IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")


def _names_rule_set(line: str) -> bool:
    for m in NAMED.finditer(line):
        start, end = m.span()
        # the whole run of identifier characters the name sits in
        while start > 0 and IDENTIFIER.fullmatch(line[start - 1]):
            start -= 1
        while end < len(line) and IDENTIFIER.fullmatch(line[end]):
            end += 1
        token = line[start:end]
        quoted = start > 0 and end < len(line) and line[start - 1] in "\"'`" and line[end] == line[start - 1]
        as_key = re.search(r"VERDICT\.(Field|Hint|Outcome|System|Option)\.$", line[:start]) is not None
        if token in TABLE_WORDS and not quoted and not as_key:
            continue  # the table's state (its facets), not a rule set
        return True
    return False


def _lines() -> list[tuple[str, int, str]]:
    found = []
    scripts = [*MODULE.joinpath("scripts").rglob("*.mjs"), *MODULE.joinpath("templates").rglob("*.hbs")]
    for path in sorted([*scripts, *MODULE.joinpath("styles").rglob("*.css")]):
        rel = path.relative_to(MODULE).as_posix()
        if rel.startswith("scripts/generated/"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if _names_rule_set(line):
                found.append((rel, n, line.strip()))
    return found


def test_the_module_names_no_rule_set_outside_the_vocabulary() -> None:
    new = [f"{rel}:{n}: {text}" for rel, n, text in _lines() if (rel, text) not in KNOWN]
    assert not new, "the module names a rule set (read it from the vocabulary instead):\n" + "\n".join(new)


def test_every_known_exception_is_still_there() -> None:
    found = {(rel, text) for rel, _, text in _lines()}
    assert not KNOWN - found, f"lines gone from the module, to remove from KNOWN: {sorted(KNOWN - found)}"


def test_the_check_catches_each_way_of_naming_one() -> None:
    for line in (
        'if (system === "boons") {',
        "function facetsDice(r) {",
        'case "flairs_choose":',
        '<th>{{localize "VERDICT.Field.flairs.rank"}}</th>',
        "cls: `boons-${type}`",
        "export const FLAIRS = [];",
        'facts.push({ key: "chosenFlairs" })',
        "const x = rulesOf('feats');",
        "VERDICT.Field.facets.pool",
        'system: "facets",',
        ".verdict-dice .boons-ability { background: #1f6b42; }",
    ):
        assert _names_rule_set(line), line
    for line in ("const facets = scene.facets ?? [];", '{{localize "VERDICT.Tracker.facets"}}', "a facet", "feat-"):
        assert not _names_rule_set(line), line


STATE_WORDS = frozenset(f.name for _, part in (*ACTOR_PARTS, *SCENE_PARTS) for f in msgspec.structs.fields(part)) - set(
    SYSTEMS
)
"""The fields rule sets add to the table's actors and scenes (strain, wounds, complications, …): the module draws
them from the vocabulary's drawings, so no script, template or stylesheet names one (as a word or an
identifier)."""

KNOWN_STATE: frozenset[tuple[str, str]] = frozenset({})
"""Known exceptions, by file and word; each says what is left to read from the vocabulary."""


def _state_words() -> set[tuple[str, str]]:
    word = re.compile(rf"(?<![A-Za-z0-9_])({'|'.join(sorted(STATE_WORDS))})(?![A-Za-z0-9_])")
    found = set()
    files = [*MODULE.joinpath("scripts").rglob("*.mjs"), *MODULE.joinpath("templates").rglob("*.hbs")]
    for path in sorted([*files, *MODULE.joinpath("styles").rglob("*.css")]):
        rel = path.relative_to(MODULE).as_posix()
        if rel.startswith("scripts/generated/"):
            continue
        found |= {(rel, m.group(1)) for m in word.finditer(path.read_text())}
    return found


def test_the_module_names_no_rule_sets_state_outside_the_vocabulary() -> None:
    assert {"strain", "wyrd", "wounds", "complications", "lurking", "taken_down"} <= STATE_WORDS
    new = sorted(_state_words() - KNOWN_STATE)
    assert not new, (
        "the module names a rule set's state (draw it from the vocabulary's drawing instead):\n"
        + "\n".join(f"{rel}: {w}" for rel, w in new)
    )
