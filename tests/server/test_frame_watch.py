"""What :class:`FrameWatch` reads of a peer's bytes, however they are split into reads: when something is
unfinished (a header, a frame, a message of fragments, with pings between them) and since which read, and how
many payload bytes of an unfinished message it holds against the process's bound. The stream is checked after
every read against what the frames say, for random frames (every length form, masked, fragmented) and
random splits."""

from __future__ import annotations

import random
import time

import pytest

from sidecar.server.transport import FrameWatch, Unfinished


class Parser:
    def __init__(self) -> None:
        self.fed = b""

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        self.fed += data
        return False, b""

    def feed_eof(self) -> None:
        pass


class Peer:
    """What the watch tells: each frame charged (``budget`` of them, then over), and a cut for bytes."""

    def __init__(self, budget: float = float("inf")) -> None:
        self.budget, self.charged, self.over = budget, 0, False

    def frame_read(self) -> bool:
        self.charged += 1
        return self.charged <= self.budget

    def unfinished_over(self) -> None:
        self.over = True


def frame(opcode: int, fin: bool, payload: bytes) -> bytes:
    n = len(payload)
    first = (0x80 if fin else 0) | opcode
    if n < 126:
        head = bytes((first, 0x80 | n))
    elif n < 65536:
        head = bytes((first, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((first, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + b"mask" + payload


def stream(rng: random.Random) -> tuple[bytes, list[tuple[int, bool, int]]]:
    """Frames of whole and fragmented messages with pings between fragments; per byte boundary after each
    frame: (its end, whether a message is open there, payload bytes of that open message)."""
    out, marks = b"", []
    for _ in range(rng.randint(1, 12)):
        parts = rng.choice([1, 1, 2, 3])
        held = 0
        for k in range(parts):
            size = rng.choice([0, 1, 70, 125, 126, 127, 300, 65535, 65536, 70000])
            last = k == parts - 1
            out += frame(0x1 if k == 0 else 0x0, last, bytes(size))
            held = 0 if last else held + size
            marks.append((len(out), not last, held))
            if not last and rng.random() < 0.5:  # a ping between fragments
                out += frame(0x9, True, b"p" * rng.randint(0, 5))
                marks.append((len(out), True, held))
    return out, marks


def expected(at: int, data: bytes, marks: list[tuple[int, bool, int]]) -> tuple[bool, int]:
    """After ``at`` bytes: is anything unfinished, and the payload bytes of the unfinished message held."""
    done = [mark for mark in marks if mark[0] <= at]
    end, open_, held = done[-1] if done else (0, False, 0)
    if end == at:
        return open_, held
    part = data[end:at]  # inside a frame: its header and as much of its payload as came
    if len(part) < 2 or part[0] & 0x0F >= 0x8:  # a header not yet whole, or a control frame's
        return True, held
    short = part[1] & 0x7F
    header = 2 + (2 if short == 126 else 8 if short == 127 else 0) + 4
    return True, held + max(0, len(part) - header)


@pytest.mark.parametrize("seed", range(40))
def test_what_is_unfinished_and_held_after_every_read_whatever_the_split(seed: int) -> None:
    rng = random.Random(seed)
    data, marks = stream(rng)
    unfinished = Unfinished(1 << 40)
    parser = Parser()
    peer = Peer()
    watch = FrameWatch(parser, unfinished, peer)
    at = 0
    began: float | None = None
    while at < len(data):
        step = rng.choice([1, 2, 3, 7, 14, 100, 4096, 70000])
        before, read_from = time.monotonic(), at
        watch.feed_data(data[at : at + step])
        at = min(len(data), at + step)
        busy, held = expected(at, data, marks)
        assert (watch.since is not None) == busy, at
        if busy:
            # where what is unfinished began: after the last point at which nothing was
            start = max([end for end, open_, _ in marks if end < at and not open_], default=0)
            if start >= read_from:  # in this read: its time runs from this read
                assert watch.since is not None and before <= watch.since <= time.monotonic()
                began = watch.since
            else:  # in an earlier one: not reset since, by pings between its fragments or anything else
                assert watch.since == began
        # a message that ends in this read is held no more; one still open holds what came of it
        assert watch.held == unfinished.held == held, at
    assert parser.fed == data and not peer.over
    assert watch.since is None and watch.held == 0 and unfinished.held == 0
    # every frame but a message's last is charged as it is read: fragments before it, pings
    assert peer.charged == sum(open_ for _, open_, _ in marks)


def test_a_peer_over_the_process_bound_is_cut_before_the_parser_holds_its_bytes() -> None:
    unfinished = Unfinished(1000)
    parser, peer = Parser(), Peer()
    watch = FrameWatch(parser, unfinished, peer)
    first = frame(0x1, False, bytes(600))
    watch.feed_data(first)
    assert watch.held == 600 and not peer.over
    second = frame(0x0, False, bytes(600))
    watch.feed_data(second)
    assert peer.over and watch.cut and unfinished.held == 0
    assert parser.fed == first  # the bytes over the bound never reached the parser


def test_a_peer_over_its_frame_budget_is_cut_before_the_parser_reads_the_read() -> None:
    """Empty continuation frames, which aiohttp's parser folds into a message out of sight, are charged one
    by one; the read that takes the peer over its budget never reaches the parser, nor anything after it."""
    unfinished = Unfinished(1 << 20)
    parser, peer = Parser(), Peer(budget=50)
    watch = FrameWatch(parser, unfinished, peer)
    begun = frame(0x1, False, b"{") + frame(0x0, False, b"") * 20 + frame(0x0, True, b"}")
    watch.feed_data(begun)
    assert peer.charged == 21 and parser.fed == begun  # the last frame is the message's, charged when handled
    flood = frame(0x1, False, b"") + frame(0x0, False, b"") * 1000
    watch.feed_data(flood)
    assert watch.cut and peer.charged == 51 and parser.fed == begun and unfinished.held == 0
    watch.feed_data(frame(0x9, True, b"after"))
    assert peer.charged == 51 and parser.fed == begun  # cut: nothing more is read
