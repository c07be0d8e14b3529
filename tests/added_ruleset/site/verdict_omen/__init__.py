"""`omen`: one d6 read against a sign, a rule set shipped as a package of its own.

The rules: the player names a sign from 1 to 6 (4 unless said) and rolls one d6; a face at or above the
sign is a good omen, below it an ill one. Nothing follows from it on the table.

The package is what adding a rule set takes (see ``sidecar/engine/ruleset.py``): its Structs
(``protocol.py``), its rules and :class:`~sidecar.engine.ruleset.RuleSet` (``rules.py``, ``ruleset.py``), how
the module draws it (``card.py``), this page, and two entry points (``verdict.protocol`` and
``verdict.rulesets``, in its distribution's metadata). The tests install it by putting this directory on
the path, then regenerate the schema and the vocabulary.

This ``__init__`` imports nothing: the protocol loads ``protocol.py`` while it builds its unions.
"""
