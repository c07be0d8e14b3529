"""The Foundry module names no rule set outside its generated vocabulary.

What the module must know of a rule set (its fields, dice, facts, follow-ups, how its checks gather) comes
from ``vtt-module/scripts/generated/``, so adding a rule set touches no module file. Every script and
template is read for the rule sets' names: as a word, inside an identifier (``facetsDice``), as a follow-up
tag (``flairs_choose``), as an i18n key's segment (``VERDICT.Field.boons.trial``), a CSS class
(``boons-ability``) or a string (``"feats"``). A name that is also a word of the table's own state (a field of
``protocol/v1/table.py``'s Structs: the table's ``facets``) is allowed where it names that state.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from protocol.v1 import table
from protocol.v1.systems import SYSTEMS

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "vtt-module"

# Known exceptions: lines of files being rewritten in another change (the chat card, the client, the roll
# dialog, the API, the settings) that still name a rule set, each with what it should read from the vocabulary
# instead, and the one export kept for them. Listed exactly (file, the line's text), so any other line that
# names a rule set, there or anywhere, fails; remove an entry when its line goes.
KNOWN: frozenset[tuple[str, str]] = frozenset(
    {
        # the default rule set: SYSTEMS[0]
        ("scripts/api.mjs", 'const system = req.system ?? (setting("system") || "facets");'),
        (
            "scripts/apps/roll-dialog.mjs",
            'this.system = config.system && SYSTEMS.includes(/** @type {any} */ (config.system)) ? config.system : setting("system") || "facets";',
        ),
        ("scripts/settings.mjs", 'default: "facets",'),
        # which checks gather: gatherOf / gathersGroup / sidesOf
        ("scripts/api.mjs", "* `flairs` group check, a `boons` opposed check) is started on the table first."),
        # a roll into an extended check: EXTENDED, extendedOf
        ("scripts/apps/roll-dialog.mjs", "* @property {string|null} [extended]          extended check id (boons)"),
        # the Wyrd cost: a rule set's own dialog extra, to come from the vocabulary (or the odds reply)
        (
            "scripts/apps/roll-dialog.mjs",
            "/** `feats`: what the Wyrd bought in the dialog costs, and what the actor has. */",
        ),
        ("scripts/apps/roll-dialog.mjs", 'if (this.system !== "feats") return null;'),
        # Dice So Nice's die sizes: TYPE_SIZES[result.system] ?? DIE_SIZE[result.system]
        ("scripts/chat.mjs", 'import { BOONS_DIE_SIZE, DIE_SIZE } from "./lib/systems.mjs";'),
        (
            "scripts/chat.mjs",
            'const size = result.system === "boons" ? /** @type {Record<string, number>} */ (BOONS_DIE_SIZE)[types[i]] ?? 6 : /** @type {Record<string, number>} */ (DIE_SIZE)[result.system] ?? 6;',
        ),
        (
            "scripts/lib/systems.mjs",
            "export const BOONS_DIE_SIZE = /** @type {Record<string, number>} */ ({ ...Object.values(TYPE_SIZES)[0] });",
        ),
        # the card's forms: send {action: form.action, [form.field]: ...} (card-model's choose and bargain)
        (
            "scripts/chat.mjs",
            'const flairs = [...root.querySelectorAll(".verdict-choose input[name=flair]:checked")].map((el) => /** @type {HTMLInputElement} */ (el).value);',
        ),
        ("scripts/chat.mjs", 'send({ action: "flairs_choose", flairs });'),
        ("scripts/chat.mjs", 'if (trial) send({ action: "flairs_bargain", trial, dice: null });'),
        (
            "templates/chat-card.hbs",
            '<div class="verdict-row wrap" role="group" aria-label="{{localize "VERDICT.Follow.chooseConfirm"}}">{{#each choose.flairs}}<label class="checkbox"><input type="checkbox" name="flair" value="{{value}}"> {{label}}</label>{{/each}}</div>',
        ),
        # the removal filled from the table: the open follow-up whose offerOf(o).how is "table"
        (
            "scripts/chat.mjs",
            'if (select.value) send({ action: "challenge_remove_complication", complication: select.value });',
        ),
        # the next roll of an extended check: EXTENDED[0] and extendedOf(...).values
        ("scripts/chat.mjs", 'system: "boons",'),
        # results whose effects change the snapshot: the rule sets with an extended entry (EXTENDED)
        (
            "scripts/client.mjs",
            'if (msg.type !== "rolled" || (msg.events ?? []).length || msg.result?.system === "boons") this._scheduleRefresh(source === "own" ? "own" : "relay");',
        ),
    }
)

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
    for path in sorted([*MODULE.joinpath("scripts").rglob("*.mjs"), *MODULE.joinpath("templates").rglob("*.hbs")]):
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
    ):
        assert _names_rule_set(line), line
    for line in ("const facets = scene.facets ?? [];", '{{localize "VERDICT.Tracker.facets"}}', "a facet", "feat-"):
        assert not _names_rule_set(line), line
