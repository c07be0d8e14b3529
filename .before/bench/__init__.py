"""Benchmarks of Verdict against their anchors: ``python -m bench [--full]`` (``make bench``).

One module per figure (:mod:`bench.engine`, :mod:`bench.rtt`, :mod:`bench.load`, :mod:`bench.memory`,
and the odds figures of :mod:`bench.odds`); each returns rows that :mod:`bench.__main__` prints as
tables and appends to BENCHMARKS.md with the command, the date and the machine.
"""
