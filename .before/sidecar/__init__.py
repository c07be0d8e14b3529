"""Verdict sidecar: resolves checks, keeps the table's state, serves the Foundry module."""

__version__ = "0.1.0"
