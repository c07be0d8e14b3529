"""A check id's random part: 16 hex digits from the kernel, read in blocks, never the same twice, not even
across a block's end or in a forked child (which would otherwise hand out its parent's next ids)."""

from __future__ import annotations

import os
import re

import pytest

from sidecar.state.table import _Entropy


def test_ids_are_16_hex_digits_and_never_repeat_across_blocks() -> None:
    ids = [_Entropy.hex16() for _ in range(3 * 512 + 7)]  # over three blocks' ends
    assert all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids)
    assert len(set(ids)) == len(ids)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_draws_its_own_ids_not_its_parents_next() -> None:
    _Entropy.hex16()  # the parent holds a block
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, to the parent
        try:
            os.write(write, _Entropy.hex16().encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    assert child != _Entropy.hex16()
