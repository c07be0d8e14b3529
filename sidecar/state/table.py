"""A table: its ledger of events, its projection, and the actions that append to them.

Every action (a roll, a follow-up, a GM operation) turns into one or more events: the roll or op itself first,
then each consequence as its own event (so each can be undone). :meth:`Table.prepare_roll`,
:meth:`Table.prepare_follow` and :meth:`Table.prepare_op` compute the events without changing anything (a
:class:`Pending`). The hub commits each action to the table in memory (:meth:`Table.commit`,
``durable=False``), appends the turn's actions to the ledger in one write, marks what is stored
(:meth:`Table.stored_up_to`) and only then tells anyone (:mod:`.hearing`); should the append fail, the table is
read back from the ledger. Events others appended, already stored, go in through :meth:`Table.commit_read`. A
refused action raises :class:`ActionError` and leaves no trace.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Iterator

import msgspec

from protocol.v1 import messages as m
from protocol.v1 import table as t
from sidecar.config import OLD_CHECKS_KEPT
from sidecar.engine import Dice, registry

from ..config import LABELS_KEPT, RECENT_KEPT, VIEWS_KEPT
from . import actions, gm_ops, hearing
from .errors import ActionError as ActionError
from .hearing import Numbering, seen
from .ledger import Ledger
from .projection import Projection
from .seqs import Seqs
from .stored import SNAPSHOT_FORMAT as SNAPSHOT_FORMAT
from .stored import SNAPSHOT_VERSION as SNAPSHOT_VERSION
from .stored import Check as Check
from .stored import Pending as Pending
from .stored import Runs as Runs
from .stored import Saved, fits, saved_dec, saved_enc, undoes_behind
from .stored import Stored as Stored
from .stored import _dec as _dec
from .stored import _Entropy as _Entropy
from .stored import decode_stored as decode_stored
from .visibility import SECRET, Viewer, may_see, redacted


class Table:
    """One table's state. All methods run on the event loop. What the table does not hold in memory it reads
    from the ledger: the coroutines (:meth:`read`, :meth:`reading`, :meth:`snapshot_read`,
    :meth:`verify_read`, :meth:`commit_read`) read it without blocking the loop, and put it in hand for the
    plain methods they call; called alone (tools, tests), the plain methods read it blocking, and count it
    (:attr:`blocking_reads`: none while serving)."""

    def __init__(self, table_id: str, ledger: Ledger, rng: Dice | None = None) -> None:
        self.id = table_id
        self.ledger = ledger
        self.rng = rng or Dice()
        self.recent_kept = RECENT_KEPT
        self.recent: list[tuple[int, Stored]] = []
        """The last ``2 * recent_kept`` events at most: the table holds its state, not its history."""
        self.state = Projection(self._history_of(None))
        """The GM's projection: the table's state, with the checks still open to follow-ups."""
        self.head = 0
        self.durable = 0
        """The last seq known to be in the ledger: events after it are applied here, not yet stored (a batch)."""
        self.numbering = Numbering()
        """Each viewer's own numbering of the events (:mod:`.hearing`): the seqs a connection is told, and who
        may know of each event not seen by all (:attr:`restricted`)."""
        self._old: OrderedDict[str, Check | None] = OrderedDict()
        """Checks the projection no longer holds, read back from the ledger (None: no such check), the last
        ``OLD_CHECKS_KEPT`` named."""
        self.heard: dict[str, list[tuple[str, str | None]]] = {}
        """(visibility, owner) of the events a rule set's part asked the table to remember, under its keys
        (``TablePart.remembers``): who a later GM operation's change of the same thing is told to."""
        self.condition_seen: dict[str, tuple[str, str | None]] = {}
        """(visibility, owner) of the event that added each condition not seen by all (a hidden roll's): who
        its removal goes to. Every other condition's removal is everyone's."""
        self._undoing: list[tuple[int, Stored]] | None = None
        """The events up to an ``undone`` being committed, read once for every projection's rebuild."""
        self.views: OrderedDict[str | None, Projection] = OrderedDict()
        """Projections of what non-GM viewers see, kept current: ``None`` is the one every viewer shares who
        owns no event hidden from the other players; a user who does (a ``self`` or ``gm`` roll) has their own."""
        self.secret_owners: set[str] = set()
        """Users who own an event some players do not see: only they see more than the shared view."""
        self.gather_secret: set[str] = set()
        """Gathered checks with a part rolled in secret: their whole result is the GM's."""
        self._labels: OrderedDict[int, str | None] = OrderedDict()
        """Labels of roll events older than the recent window, by seq, read back for ``verify``."""
        self._in_hand: tuple[int, int, list[tuple[int, Stored]]] | None = None
        """Stored events read for the operation under way: (after seq, up to seq, the events)."""
        self.blocking_reads = 0
        """Reads of the ledger that blocked the caller (the plain methods called alone): none while serving."""
        self.snapshot_seq = 0
        """The head of the newest snapshot of this table known to be in the ledger (0: none)."""
        self._rebase: tuple[int, bytes] | None = None
        """A snapshot (its head, its data) an undo being committed may rebuild from, with the events after it in
        hand: read with them for the operation under way."""

    @property
    def restricted(self) -> hearing.Restricted:
        """(visibility, owner) of every event not seen by all: what an ``undone`` may show of its seqs."""
        return self.numbering.restricted

    @property
    def roll_seq(self) -> dict[str, int]:
        """The seq of each held check's roll event (an older check's: :meth:`check`)."""
        return self.state.rolls

    def load(self) -> None:
        """Read the table from the ledger, blocking (tools, tests): what it holds is all there is."""
        self.blocking_reads += 1
        self._fold(self.ledger.events(self.id))

    async def read(self, upto: int | None = None) -> None:
        """Read the table from the ledger (up to ``upto``) without blocking the loop: what it holds is all
        there is (what memory held ahead of it goes): its newest snapshot and the events after it, or all its
        events when it has no snapshot of this version. Raises :class:`~.ledger.LedgerUnavailable`."""
        found = await self.ledger.find_snapshot(self.id)
        if found is not None:
            seq, version, data = found
            if version == SNAPSHOT_VERSION and (upto is None or seq <= upto):
                rows = await self.ledger.read_events(self.id, seq, upto)
                # an undo in the tail rebuilds from the snapshot and the tail; one that reaches behind the
                # snapshot, from the whole history: read it now, not blocking later
                before = await self.ledger.read_events(self.id, 0, seq) if undoes_behind(rows, data) else None
                with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                    return self.restore(data, rows, before)
        self._fold(await self.ledger.read_events(self.id, 0, upto))

    def saved(self) -> bytes:
        """The table's state at its head, encoded for a snapshot: only when all it holds is stored."""
        if self.head != self.durable:
            raise ValueError("a snapshot holds only what the ledger holds: the table has events not yet stored")
        nums = self.numbering
        return saved_enc.encode(
            Saved(
                self.head,
                self.heard,
                self.condition_seen,
                sorted(self.secret_owners),
                sorted(self.gather_secret),
                [nums.gaps[False].to_bytes(), nums.gaps[True].to_bytes()],
                [(base, user, seqs.to_bytes()) for (base, user), seqs in nums.own.items()],
                self.state.folded(),
                [(key, view.folded()) for key, view in self.views.items()],
            )
        )

    def restore(
        self, data: bytes, rows: list[tuple[int, bytes]], before: list[tuple[int, bytes]] | None = None
    ) -> None:
        """The table from a snapshot (:meth:`saved`) and the events after it (``rows``). An undo among ``rows``
        rebuilds from the snapshot and the events after it, or, when it undoes what the snapshot holds, from
        the history: ``before``, the events up to the snapshot (else read blocking)."""
        saved = saved_dec.decode(data)
        self.head = self.durable = self.snapshot_seq = saved.head
        self.heard, self.condition_seen, self._old = saved.heard, saved.condition_seen, OrderedDict()
        self.secret_owners, self.gather_secret = set(saved.secret_owners), set(saved.gather_secret)
        self.numbering = Numbering()
        self.numbering.head = saved.head
        for base, raw in zip((False, True), saved.gaps):
            self.numbering.gaps[base] = Seqs.from_bytes(raw)
        self.numbering.own = {(base, user): Seqs.from_bytes(raw) for base, user, raw in saved.own}
        self.state = Projection.unfolded(saved.state, self._history_of(None))
        self.views = OrderedDict(
            (key, Projection.unfolded(view, self._history_of(Viewer("player", key)), holds_checks=False))
            for key, view in saved.views
        )
        self.recent, self._labels = [], OrderedDict()
        tail = [(seq, _dec.decode(raw)) for seq, raw in rows]
        if not tail:
            return
        hand = tail if before is None else [(seq, _dec.decode(raw)) for seq, raw in before] + tail
        self._in_hand = (saved.head if before is None else 0, tail[-1][0], hand)
        self._rebase = (saved.head, data)
        try:
            self.commit(Pending(tail))
        finally:
            self._in_hand = self._rebase = None

    def _fold(self, rows: list[tuple[int, bytes]]) -> None:
        self.head = self.durable = self.snapshot_seq = 0
        self.heard, self.views, self._old = {}, OrderedDict(), OrderedDict()
        self.condition_seen = {}
        self.numbering = Numbering()
        self.secret_owners, self.gather_secret = set(), set()
        self.recent = []
        decoded = [(seq, _dec.decode(data)) for seq, data in rows]

        def indexed() -> Iterable[tuple[int, object]]:
            for seq, st in decoded:
                self._index(seq, st)
                self._keep(seq, st)
                self.head = self.durable = seq  # read from the ledger: stored
                yield seq, st.event

        # an undo's rebuild, on the way, reads what is already in hand
        self._in_hand = (0, decoded[-1][0] if decoded else 0, decoded)
        try:
            self.state = Projection.build(indexed(), self._history_of(None))
        finally:
            self._in_hand = None

    @contextlib.asynccontextmanager
    async def reading(self, since: int | Runs = 0) -> AsyncIterator[None]:
        """The stored events after ``since`` in hand while the block runs, read without blocking the loop
        when memory lacks them: the plain methods called in it read no ledger. ``Runs``: only the events in
        its ranges (a catch-up's, which reads nothing else)."""
        runs = since if isinstance(since, Runs) else None
        after = since.since if isinstance(since, Runs) else since
        if (
            self._in_hand is not None
            or after >= self.durable  # nothing stored after it to read
            or (self.recent and self.recent[0][0] <= after + 1)
        ):
            yield
            return
        upto = self.durable
        if runs is not None:
            rows = []
            for lo, hi in runs.ranges:
                if lo < upto:
                    rows += await self.ledger.read_events(self.id, lo, min(hi, upto))
        else:
            rows = await self.ledger.read_events(self.id, after, upto)
        self._in_hand = (after, upto, [(seq, _dec.decode(data)) for seq, data in rows])
        try:
            yield
        finally:
            self._in_hand = None

    def _older(self, since: int, upto: int) -> list[tuple[int, Stored]]:
        """The stored events in (since, upto]: from what is in hand, else read from the ledger, blocking."""
        if upto <= since:
            return []
        if self._in_hand is not None:
            lo, hi, rows = self._in_hand
            if lo <= since and upto <= hi:
                key: Callable[[tuple[int, Stored]], int] = lambda row: row[0]  # noqa: E731
                return rows[bisect.bisect_right(rows, since, key=key) : bisect.bisect_right(rows, upto, key=key)]
        self.blocking_reads += 1
        return [(seq, _dec.decode(data)) for seq, data in self.ledger.events(self.id, since, upto)]

    def _index(self, seq: int, st: Stored) -> None:
        if st.vis in SECRET and st.owner is not None:
            self.secret_owners.add(st.owner)
        if isinstance(st.event, t.RollEvent):
            if st.event.gather is not None and st.vis != "all":
                self.gather_secret.add(st.event.gather)
        elif isinstance(st.event, t.ConditionAdded):
            if st.vis != "all":
                self.condition_seen[st.event.condition] = (st.vis, st.owner)
        else:
            owned = registry.part_of_event(st.event)
            if owned is not None:
                for key in owned[1].remembers(seq, st.event, st.vis):
                    heard = self.heard.setdefault(key, [])
                    if (st.vis, st.owner) not in heard:
                        heard.append((st.vis, st.owner))
        self.numbering.add(seq, st, self.restricted)

    def _keep(self, seq: int, st: Stored) -> None:
        self.recent.append((seq, st))
        if len(self.recent) > 2 * self.recent_kept:  # trimmed in steps, so appending stays O(1) on average
            # never an event not yet stored: the ledger cannot give it back
            del self.recent[: -max(self.recent_kept, self.head - self.durable + 1)]

    def stored(self, since: int = 0, upto: int | None = None) -> list[tuple[int, Stored]]:
        """The committed events after ``since`` (up to ``upto``): from memory if recent, else from the ledger."""
        upto = self.head if upto is None else upto
        if self.recent and self.recent[0][0] <= since + 1:
            rows = self.recent[bisect.bisect_right(self.recent, since, key=lambda row: row[0]) :]
        else:
            rows = self._older(since, min(upto, self.durable))
            if self.head > self.durable:  # and those of a batch not stored yet, which only memory holds
                last = rows[-1][0] if rows else since
                rows += self.recent[bisect.bisect_right(self.recent, last, key=lambda row: row[0]) :]
        # the ledger may hold an action appended but not yet committed here: not the table's yet
        return [(seq, st) for seq, st in rows if seq <= upto]

    def _history_of(self, viewer: Viewer | None) -> Callable[[int], Iterable[tuple[int, object]]]:
        """The events up to a seq as a projection sees them (``None``: the GM's, all of them), for its rebuild."""

        def events(upto: int) -> Iterable[tuple[int, object]]:
            rows = self._undoing if self._undoing is not None else self.stored(0, upto)
            if viewer is None:
                return [(seq, st.event) for seq, st in rows if seq <= upto]
            return [(seq, ev) for seq, st in rows if seq <= upto and (ev := self._viewed(seq, st, viewer)) is not None]

        return events

    def _viewed(self, seq: int, st: Stored, viewer: Viewer) -> t.AnyEvent | None:
        """A stored event as ``viewer`` may see it (:func:`.hearing.seen`), seqs the ledger's."""
        return seen(st, self.restricted, viewer)

    # --- reading ------------------------------------------------------------------

    def visible(self, since: int, viewer: Viewer) -> list[t.Sequenced]:
        """The events ``viewer`` is told of after its own event ``since``, in its numbering."""
        return hearing.events_for(self, self.stored(self.numbering.after(since, viewer)), viewer)

    async def snapshot_read(self, viewer: Viewer) -> t.Snapshot:
        """:meth:`snapshot`, a player's view built (when it must be) from events read without blocking the loop."""
        if self.view_held(viewer):
            return self.snapshot(viewer)
        async with self.reading(0):
            return self.snapshot(viewer)

    def view_held(self, viewer: Viewer) -> bool:
        """Whether :meth:`snapshot` for ``viewer`` needs no history: the GM's state, or a player's view kept."""
        return viewer.is_gm or (viewer.user if viewer.user in self.secret_owners else None) in self.views

    def welcome_reads(self, viewer: Viewer, since: int | None) -> int | Runs:
        """What a ``welcome`` for ``viewer`` (:func:`.hearing.welcome`) reads of the ledger (for
        :meth:`reading`): for a catch-up, the events after the ledger seq just before the first it missed, or,
        when more than ``RUN_GAP`` events per event it missed lie there (mostly hidden from it), only the
        stretches that hold its own (:class:`Runs`); for a snapshot, its view's whole history when it must be
        built, else nothing. Which of the two it gets is the viewer's numbering's alone
        (:func:`.hearing.catches_up`): what was hidden from it changes what is read, never what it is sent."""
        count = self.numbering.count(viewer)
        if since is not None and hearing.catches_up(count, since):
            start = self.numbering.after(since, viewer)
            if self.head - start <= hearing.RUN_GAP * (count - since + 1):
                return start
            return Runs(start, self.head, self.numbering.runs(start, viewer))
        if viewer.role == "gm" and not self.view_held(hearing.PUBLIC):  # a GM's snapshot carries the players' view
            return 0
        return self.head if self.view_held(viewer) else 0

    def snapshot(self, viewer: Viewer) -> t.Snapshot:
        snap = (self.state if viewer.is_gm else self._view(viewer)).snapshot()
        snap.seq = self.numbering.count(viewer)
        return snap

    def _view(self, viewer: Viewer) -> Projection:
        """The projection a non-GM viewer sees: built once from what it may see, then kept current by commit.

        What a non-GM viewer sees depends only on which events are shown to it, and two viewers are shown
        different events only through a secret one of them owns: every viewer who owns none (a player who
        rolled only in the open, an observer) sees exactly what a viewer without a user sees, and shares
        that one projection. A user's first secret event gives them their own, built afresh when asked."""
        key = viewer.user if viewer.user in self.secret_owners else None
        p = self.views.get(key)
        if p is None:
            p = self.views[key] = Projection.build(
                self._history_of(Viewer("player", key))(self.head),
                self._history_of(Viewer("player", key)),
                holds_checks=False,
            )
            while len(self.views) > VIEWS_KEPT:
                del self.views[next(iter(self.views))]  # the least recently used; rebuilt if asked again
        else:
            self.views.move_to_end(key)
        return p

    def verify(self, msg: m.Verify, viewer: Viewer) -> m.Verified:
        """The ledger's word on a check to ``viewer`` (:func:`.hearing.verified`)."""
        return hearing.verified(self, msg, viewer)

    def label(self, seq: int) -> str | None:
        """The label of the roll event at ``seq``."""
        return self._label(seq)

    async def verify_read(self, msg: m.Verify, viewer: Viewer) -> m.Verified:
        """:meth:`verify`, an old check and its roll's label read without blocking the loop."""
        await self.check_read(msg.check)
        found = self.check(msg.check)
        seq = found.seq if found is not None else None
        kept = self._old.get(msg.check) if found is not None and not found.read_back else found
        if kept is not None and kept.read_back and not self._label_held(kept.seq):
            # its label came with its events: a second read would tell a check (a hidden one too) from an id
            # that never was, which costs the one lookup
            self._hold_label(kept.seq, kept.label)
        elif seq is not None and not self._label_held(seq):
            label = None
            for s, data in await self.ledger.read_events(self.id, seq - 1, seq):
                if s == seq:
                    ev = _dec.decode(data).event
                    label = ev.label if isinstance(ev, t.RollEvent) else None
            self._hold_label(seq, label)
        return self.verify(msg, viewer)

    def _label_held(self, seq: int) -> bool:
        return bool(self.recent and self.recent[0][0] <= seq) or seq in self._labels

    def _hold_label(self, seq: int, label: str | None) -> None:
        self._labels[seq] = label
        while len(self._labels) > LABELS_KEPT:
            del self._labels[next(iter(self._labels))]

    def _label(self, seq: int) -> str | None:
        """The label of the roll event at ``seq``. The table keeps no labels: the recent window has the event,
        else the ledger does (only that event decoded), and the last few read back are kept."""
        if self.recent and self.recent[0][0] <= seq:
            i = bisect.bisect_left(self.recent, seq, key=lambda row: row[0])
            if i < len(self.recent) and self.recent[i][0] == seq:
                ev = self.recent[i][1].event
                return ev.label if isinstance(ev, t.RollEvent) else None
        if seq in self._labels:
            self._labels.move_to_end(seq)
            return self._labels[seq]
        label = None
        for s, st in self._older(seq - 1, seq):
            if s == seq:
                label = st.event.label if isinstance(st.event, t.RollEvent) else None
        self._hold_label(seq, label)
        return label

    # --- checks ---------------------------------------------------------------------

    def check(self, check_id: str) -> Check | None:
        """The check as it stands (None: no such check, or it was undone). The projection holds those still
        open to follow-ups; an older one comes from the last read back, else the recent window, else the
        ledger (what :meth:`check_read` put in hand; called alone, a blocking read)."""
        rec = self.state.checks.get(check_id)
        if rec is not None:
            seq = self.state.rolls[check_id]
            return Check(seq, self.restricted.get(seq, ("all", None))[0], rec.user, rec)
        if check_id in self._old:
            self._old.move_to_end(check_id)
            return self._old[check_id]
        if not check_id.startswith(f"{self.id}-") or len(check_id) <= len(self.id) + 1:
            return None  # no check id this table ever gave: no read for it
        recent = self._recent_check(check_id)
        if recent is not None:
            return recent
        rows = None
        if self._in_hand is not None and self._in_hand[0] == 0 and self._in_hand[1] >= self.durable:
            rows = self._in_hand[2]
        else:
            self.blocking_reads += 1
            rows = [(seq, _dec.decode(data)) for seq, data in self.ledger.check_events(self.id, check_id)]
        found = self._rebuilt(check_id, rows)
        self._hold_old(check_id, found)
        return found

    async def check_read(self, check_id: str) -> None:
        """Put the check in hand for :meth:`check` (a follow-up or ``verify`` naming it), read without blocking
        the loop when the table holds it nowhere: its events found by the ledger, never the history."""
        if check_id in self._old or not check_id.startswith(f"{self.id}-") or len(check_id) <= len(self.id) + 1:
            return
        if not self._guessable(check_id):
            held = self.state.checks.get(check_id)
            if held is not None and held.mode != "blind":
                return  # held: whoever may not see it does not have its random id to name
            if self._recent_check(check_id) is not None:
                return  # in the recent window, whatever became of it
            # A blind roll's roller has its id but not its result, and the table holds it past the recent
            # window only while it is open, which follows from the result: read on its first naming either way.
        # (an id anyone can name is read on its first naming, held or not, as one that never was is: what the
        # table holds follows from outcomes, a blind epic success's open follow-up say)
        rows = await self.ledger.read_check_events(self.id, check_id)
        self._hold_old(check_id, self._rebuilt(check_id, [(seq, _dec.decode(data)) for seq, data in rows]))

    def _guessable(self, check_id: str) -> bool:
        """Whether ``check_id`` is one anyone can name: not a random id (16 hex digits) but one of a table from
        before them, ``<table>-<seq>``."""
        return len(check_id) != len(self.id) + 17

    def reading_for(self, msg: object) -> contextlib.AbstractAsyncContextManager[None] | None:
        """What preparing the request ``msg`` reads from the ledger, read without blocking the loop while the
        block runs: an undo's history, the check a follow-up names; None when it reads nothing (a roll)."""
        if isinstance(msg, m.Gm) and isinstance(msg.op, t.Undo):
            return self._undo_reading(msg.op)
        if isinstance(msg, m.Gm) and self._op_reads_views(msg.op):
            return self.reading(0)
        if isinstance(msg, m.Follow):
            return self._checking(msg.check)
        return None

    @contextlib.asynccontextmanager
    async def _checking(self, check_id: str) -> AsyncIterator[None]:
        await self.check_read(check_id)
        yield

    def _recent_check(self, check_id: str) -> Check | None:
        """The check from the recent window, when its roll is there (its follow-ups then are too)."""
        for i, (_, st) in enumerate(self.recent):
            if isinstance(st.event, t.RollEvent) and st.event.check_id == check_id:
                return self._rebuilt(check_id, self.recent[i:])
        return None

    def _rebuilt(self, check_id: str, rows: Iterable[tuple[int, Stored]]) -> Check | None:
        """The check as the projection would hold it, from its events among ``rows`` (the ledger's, then those
        of a batch not stored yet): its roll, each follow-up's result, what was undone left out."""
        undone = self.state.undone
        tail = [row for row in self.recent if row[0] > self.durable]
        found = None
        for seq, st in [*(row for row in rows if row[0] <= self.durable), *tail]:
            ev = st.event
            if seq > self.head or seq in undone or getattr(ev, "cause", 0) in undone:
                continue  # (beyond the head: another sidecar's, not this table's yet)
            if isinstance(ev, t.RollEvent) and ev.check_id == check_id:
                found = Check(seq, st.vis, st.owner, msgspec.structs.replace(ev, label=None), ev.label, True)
            elif found is not None and isinstance(ev, t.FollowEvent) and ev.check_id == check_id:
                found = dataclasses.replace(found, rec=msgspec.structs.replace(found.rec, result=ev.result))
        return found

    def _hold_old(self, check_id: str, found: Check | None) -> None:
        self._old[check_id] = found
        self._old.move_to_end(check_id)
        while len(self._old) > OLD_CHECKS_KEPT:
            del self._old[next(iter(self._old))]

    def _committed_check(self, seq: int, st: Stored, held: Check | None) -> None:
        """Keep the old checks read back current with an event just applied: a roll's id is a check now (the
        projection's, or one closed at once); a follow-up moves its check's result, and one that closed a
        held check keeps it here, so that telling it reads nothing; an undo may bring back any."""
        ev = st.event
        if isinstance(ev, t.RollEvent):
            self._old.pop(ev.check_id, None)
        elif isinstance(ev, t.FollowEvent):
            # (a held check read back too, named by an id anyone can name, is kept current here)
            old = self._old.get(ev.check_id)
            if old is None and ev.check_id not in self.state.checks:
                old = held
            if old is not None:
                self._hold_old(
                    ev.check_id, dataclasses.replace(old, rec=msgspec.structs.replace(old.rec, result=ev.result))
                )
        elif isinstance(ev, t.Undone):
            self._old.clear()

    # --- undoing ---------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _undo_reading(self, op: t.Undo) -> AsyncIterator[None]:
        """What an undo reads, in hand while the block runs: the events it looks back through for its actions
        (newest first, chunk by chunk, as far as they go), and what it rebuilds from: the newest snapshot and
        the events after it, or, when it undoes what the snapshot holds (or there is none), the history."""
        if self._in_hand is not None:
            yield
            return
        upto = self.durable
        rows = [row for row in self.recent if row[0] <= upto]  # what memory holds of the stored events
        ahead = [row for row in self.recent if row[0] > upto]  # a batch's, not stored yet (only memory has them)
        lo = (rows[0][0] - 1 if rows[0][0] > 1 else 0) if rows else upto
        chunk = max(self.recent_kept, 64)
        while True:
            looked = _Looked(rows + ahead)
            chosen = (
                gm_ops.last_events(looked, self.state.undone, op.count)
                if op.events
                else gm_ops.last_actions(looked, self.state.undone, op.count)
            )
            if not looked.reached or lo == 0:
                break
            since = max(0, lo - chunk)
            rows = [(seq, _dec.decode(data)) for seq, data in await self.ledger.read_events(self.id, since, lo)] + rows
            lo, chunk = since, chunk * 4
        rebase = await self._rebase_for(chosen)
        floor = lo if not chosen else rebase[0] if rebase is not None else 0  # a refused undo rebuilds nothing
        if lo > floor:
            rows = [(seq, _dec.decode(data)) for seq, data in await self.ledger.read_events(self.id, floor, lo)] + rows
            lo = floor
        self._in_hand, self._rebase = (lo, upto, rows), rebase
        try:
            yield
        finally:
            self._in_hand = self._rebase = None

    async def _rebase_for(self, undone: Iterable[int]) -> tuple[int, bytes] | None:
        """The newest snapshot, when an undo of the seqs ``undone`` may rebuild from it (none of them, nor of
        those undone since it was written, is behind it)."""
        undone = list(undone)
        if self.snapshot_seq == 0 or not undone or min(undone) <= self.snapshot_seq:
            return None
        found = await self.ledger.find_snapshot(self.id)
        if found is None or found[1] != SNAPSHOT_VERSION or found[0] > self.durable:
            return None
        try:
            base = saved_dec.decode(found[2]).state
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        if min(undone) <= base.seq or not fits(base, self.state.undone, found[0]):
            return None
        return found[0], found[2]

    def _undo_from_snapshot(self, seq: int, st: Stored) -> bool:
        """Rebuild every projection for the ``undone`` at ``seq`` from the snapshot in hand and the events
        after it, when it may (else False: the caller rebuilds from the history). A players' view the snapshot
        did not hold is let go, and built afresh when next asked for."""
        ev = st.event
        if self._rebase is None or not isinstance(ev, t.Undone):
            return False
        head, data = self._rebase
        saved = saved_dec.decode(data)  # decoded afresh: the projections own what they fold into
        if not fits(saved.state, self.state.undone | set(ev.seqs), head):
            return False
        rows = self.stored(head, seq)
        self.state.rebuild_from(saved.state, [(s, r.event) for s, r in rows], seq, ev)
        bases = dict(saved.views)
        for key in list(self.views):
            viewer = Viewer("player", key)
            shown = self._viewed(seq, st, viewer)
            if not isinstance(shown, t.Undone):
                continue  # told of none of it: its view is as it was
            base = bases.get(key)
            if base is None or not fits(base, self.views[key].undone | set(shown.seqs), head):
                del self.views[key]
                continue
            seen_rows = [(s, e) for s, r in rows if (e := self._viewed(s, r, viewer)) is not None]
            self.views[key].rebuild_from(base, seen_rows, seq, shown)
        return True

    # --- committing ---------------------------------------------------------------

    def stored_up_to(self, seq: int) -> None:
        """The ledger now holds the events up to ``seq`` (those :meth:`commit` applied ahead of it)."""
        self.durable = max(self.durable, seq)

    async def commit_read(self, pending: Pending, durable: bool = True) -> None:
        """:meth:`commit`, what an undo rebuilds from (the snapshot and the events after it, else the history),
        and the old checks follow-ups name (for telling them), read without blocking the loop."""
        for _, st in pending.events:
            if isinstance(st.event, t.FollowEvent):
                await self.check_read(st.event.check_id)
        undone = [s for _, st in pending.events if isinstance(st.event, t.Undone) for s in st.event.seqs]
        if not undone:
            self.commit(pending, durable)
            return
        rebase = await self._rebase_for(undone) if self._in_hand is None else None
        async with self.reading(rebase[0] if rebase is not None else 0):
            self._rebase = rebase
            try:
                self.commit(pending, durable)
            finally:
                self._rebase = None

    def commit(self, pending: Pending, durable: bool = True) -> None:
        """Apply an action's events: durable in the ledger already, or (``durable=False``) about to be, in a
        batch; the table is then read back from the ledger (:meth:`read`) should the batch fail."""
        for seq, st in pending.events:
            self._keep(seq, st)
            self._index(seq, st)
            held = None
            if isinstance(st.event, t.FollowEvent) and st.event.check_id in self.state.checks:
                held = self.check(st.event.check_id)
            rebuilt = self._undo_from_snapshot(seq, st)
            if isinstance(st.event, t.Undone) and not rebuilt:
                # every projection rebuilds: read the history once for them all
                self._undoing = self.stored(0, seq)
            try:
                if not rebuilt:
                    self.state.apply(seq, st.event)
                    if self.views:
                        self._apply_views(seq, st)
            finally:
                self._undoing = None
            self.head = max(self.head, seq)
            self._committed_check(seq, st, held)
        if durable:
            self.durable = self.head

    def _apply_views(self, seq: int, st: Stored) -> None:
        """Apply a committed event to the players' projections that see it, redacted once for all of them."""
        if isinstance(st.event, t.Undone):  # names only the seqs each may know of
            for key, p in self.views.items():
                ev = self._viewed(seq, st, Viewer("player", key))
                if ev is not None:
                    p.apply(seq, ev)
            return
        if st.vis == "gm":
            return
        shown = None
        for key, p in self.views.items():
            # a secret's owner who had no view of their own before it gets one built when asked
            if st.vis == "all" or may_see(st.vis, st.owner, Viewer("player", key)):
                if shown is None:
                    shown = redacted(st.event)
                p.apply(seq, shown)

    def pend(self) -> tuple[Pending, Callable[..., int]]:
        """A new pending action and the function that adds its events with their seqs and causes."""
        pending = Pending()

        def add(ev: t.AnyEvent, vis: str = "all", owner: str | None = None) -> int:
            owned = registry.part_of_event(ev)
            if owned is not None:
                vis = owned[1].heard_by(ev, vis)  # what only the GM hears, whatever caused it
            seq = self.head + len(pending.events) + 1
            if hasattr(ev, "cause") and pending.events:
                ev.cause = pending.first
            elif hasattr(ev, "cause"):
                ev.cause = seq
            pending.events.append((seq, Stored(vis=vis, owner=owner, event=ev)))
            return seq

        return pending, add

    # --- rolls and follow-ups (:mod:`.actions`) ---------------------------------------

    def prepare_roll(self, msg: m.Roll, viewer: Viewer, user: str | None) -> Pending:
        """A roll's events (:func:`.actions.prepare_roll`), numbered after the table's head."""
        return actions.prepare_roll(self, msg, viewer, user)

    def prepare_follow(self, msg: m.Follow, viewer: Viewer, user: str | None) -> Pending:
        """A follow-up's events (:func:`.actions.prepare_follow`), numbered after the table's head."""
        return actions.prepare_follow(self, msg, viewer, user)

    def _new_check_id(self) -> str:
        """A check id that tells nothing (not the seq, not how many checks came before): random, and new."""
        while True:
            check_id = f"{self.id}-{_Entropy.hex16()}"
            if check_id not in self.roll_seq:
                return check_id

    # --- GM operations ------------------------------------------------------------

    def prepare_op(self, op: object) -> Pending:
        """A GM operation's events (:mod:`.gm_ops`), numbered after the table's head."""
        pending, add = self.pend()
        for ev, vis, owner in gm_ops.prepare(op, self.state, self._seen(), self._backwards, self.state.undone):
            add(ev, vis, owner)
        return pending

    def _seen(self) -> gm_ops.Seen:
        return gm_ops.Seen(self.condition_seen, self._heard, self._seen_by)

    def _heard(self, key: str) -> list[tuple[str, str | None]]:
        return list(self.heard.get(key, ()))

    def _seen_by(self, user: str | None) -> Projection:
        """The table as the player ``user`` (``None``: any player) was told of it: their view, built when the
        table does not hold it (what :meth:`reading_for` put in hand for the operation)."""
        return self._view(Viewer("player", user))

    def _op_reads_views(self, op: object) -> bool:
        """Whether preparing a rule set's operation builds a players' view the table does not hold."""
        rules = registry.owns_op(op)
        if rules is None:
            return False
        users = rules.op_reads(op, gm_ops.OpTable(self.state, self._seen()))
        return not all(self.view_held(Viewer("player", u)) for u in users)

    def _backwards(self) -> Iterable[tuple[int, Stored]]:
        """The committed events, newest first: the recent window and what is in hand, then the ledger in growing
        chunks."""
        upto, chunk = self.head, max(self.recent_kept, 64)
        if self._in_hand is not None and self._in_hand[1] >= self.durable:
            since = self._in_hand[0]
            yield from reversed(self.stored(since, upto))
            upto = since
        while upto > 0:
            since = max(0, upto - chunk)
            yield from reversed(self.stored(since, upto))
            upto, chunk = since, chunk * 4


class _Looked:
    """Events newest first, for an undo's look back, saying whether it went through all of them."""

    def __init__(self, rows: list[tuple[int, Stored]]) -> None:
        self.rows, self.reached = rows, False

    def __iter__(self) -> Iterator[tuple[int, Stored]]:
        yield from reversed(self.rows)
        self.reached = True
