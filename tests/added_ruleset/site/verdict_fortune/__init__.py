"""`fortune`: a pool of d6, successes on 5 and 6, and fortune points an actor holds, granted by the GM and
spent by a roll (one die more each): a rule set with table state of its own, shipped as a package of its own.

The package is what adding such a rule set takes (see ``sidecar/engine/ruleset.py`` and
``sidecar/engine/table_part.py``): its Structs, with its GM operation, its event and the field it adds to
every actor (``protocol.py``); its rules and :class:`~sidecar.engine.ruleset.RuleSet` (``rules.py``,
``ruleset.py``); its part of the table (``table.py``: what it folds, its operation); how the module draws its
card (``card.py``) and its part of the table (``drawing.py``); this page (``README.md``); and two entry points
(``verdict.protocol`` and ``verdict.rulesets``, in its distribution's metadata).

This ``__init__`` imports nothing: the protocol loads ``protocol.py`` while it builds its unions.
"""
