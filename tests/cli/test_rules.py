"""`verdict rules NAME`: the shipped rules pages, which the rule sets' help points to."""

from __future__ import annotations

from tests.serving import ROOT

from .running import verdict

RULES = ROOT / "docs" / "rules"


def test_each_rule_set_has_its_page_and_the_index_lists_them() -> None:
    for page in RULES.glob("*.md"):
        if page.name == "README.md":
            continue
        r = verdict("rules", page.stem)
        assert r.returncode == 0 and r.stdout == page.read_text(), page.stem
    index = verdict("rules")
    assert index.returncode == 0 and index.stdout.startswith(RULES.joinpath("README.md").read_text())
    assert index.stdout.rstrip().endswith("pages: boons, challenge, facets, feats, flairs (verdict rules NAME)")


def test_an_unknown_page_names_the_pages() -> None:
    r = verdict("rules", "dragons")
    assert r.returncode == 2
    assert r.stderr == "verdict: no rules page 'dragons'; the pages: boons, challenge, facets, feats, flairs\n"


def test_the_roll_help_points_to_the_command_not_to_a_checkout_path() -> None:
    helped = " ".join(verdict("roll", "--help").stdout.split())
    assert "(verdict rules boons)" in helped and "docs/rules/" not in helped
