"""Who hears what: from the table's stored events to the frames each viewer receives.

Everything a socket is told of a table comes from here: the ``rolled``, ``followed``, ``done`` and ``event``
frames of an action, the events and snapshot of a ``welcome``, a ``verified``, the follow-ups open to the
viewer, and the numbers (seqs) they all carry. The hub only queues, appends and sends; the bus (events other
sidecars appended) renders through the same functions.

**Viewers.** A connection is a :class:`Viewer`: its role (fixed by the key) and its user (bound at hello: a
user key's user, or the user a GM connection names; none for the table-wide player key and observers).

- ``gm``: the GM key (any user it names). Sees everything but ``self`` rolls (anyone's, its own too).
- ``player`` with a user: sees what everyone sees, plus their own ``gm`` and ``self`` rolls (and hears that
  their own ``blind`` roll happened).
- ``player`` without a user (the table-wide key) and ``observer``: see what everyone sees, nothing more.

**Roll modes** (``rolled.mode``), and so every follow-up on the roll and every consequence of both:

========  ==========================  =========================================  ===================
mode      the roller                  the GM                                     anyone else
========  ==========================  =========================================  ===================
public    everything                  everything                                 everything
gm        everything                  everything                                 nothing
blind     that it happened: no        everything                                 nothing
          result, no consequence
self      the result; nothing is      nothing (below)                            nothing
          applied at the table
========  ==========================  =========================================  ===================

- *Who follows up a blind roll?* The GM: the follow-ups that would be the roller's (a bargain, a choice) are
  open to the GM, and the GM's are told to the GM alone (not the roller). The roller, who may not see the
  result, gets one refusal (``followup_refused``, one message) for every follow-up they ask on it, whatever
  the result, on their own key or relayed by the GM's connection (a GM connection acting for a user is that
  user here): which follow-ups apply is the result's to say, so none is answered by it.
- A consequence is seen as the roll is, with two exceptions a rule set may make: what its table part hears
  only as the GM's whatever caused it (``TablePart.heard_by``: an item added off-screen), and a consequence it
  shows to other eyes (``Shown``: the removal of an item seen as the item was, public even when a hidden roll
  caused it).
- *A public effect of a hidden action* (an item everyone sees, removed by the GM's follow-up on a blind roll,
  say) reaches every viewer who may see it at once, as an ``event`` frame, and its ``cause`` is its own seq:
  to them it is an action of its own, like a GM's operation.
- ``self``: the roller's private test (docs/architecture/who-hears-what.md). Heard by the roller's player
  sockets (every socket of their user key) and its requester only: no GM socket, not one whose hello names the
  roller, not the GM's own other sockets. The table applies no consequence of it (its events are the roll
  alone), so the GM's ``state``, welcome and numbering, and everyone else's, are as if it never happened.
  No follow-up is open on it: the roller's is refused (``forbidden_followup``), anyone else's is answered as
  for a missing check. The requester's reply always shows the result (a GM socket's: the GM's own test, or a
  player's relayed by the GM's browser), numbered as the requester's last event.
- Gathered checks: each part is seen as its roll is; the whole check (which tells every part's faces) is
  everyone's only when every part was rolled in the open, else the GM's.
- GM operations: each event as its visibility says: what an operation removes, changes or heals is told as
  the thing was (a condition's removal: to whoever saw it added; a rule set's operation: as its
  ``prepare_op`` says, from who heard what it changes, :mod:`.gm_ops`). An ``undone`` names only the seqs the
  viewer was told of; a viewer told of none of them is not told of the undo.
- What a player may see of a rule set's own event is its table part's to say (``TablePart.redact``: how many
  of a secret list, not which); of a check, a result or a follow-up, its rule set's (``RuleSet.redact*``). A
  non-GM viewer always gets the redacted copy of what it may see.
- Refusals and ``verify``: a check the asker may not see does not exist for them. ``verify`` says
  ``found: false``, and a follow-up on it is ``unknown_check`` with the very message a check that never
  existed gets; ``not_your_check`` is for a check the asker may see. The roller of a blind roll is told that
  it exists (and its label), not its result.

**Numbering.** Each viewer numbers only the events it is told of: its ``seq`` 1, 2, 3, … counts the events of
its own stream, so a hidden action moves nobody's count but its viewers'. A frame's seq, an event's ``cause``,
an ``undone``'s ``seqs``, ``welcome.seq``, a snapshot's seq and ``verified.seq`` are all in the receiving
viewer's numbering; ``hello.since`` is too, and a catch-up reads back only from the first event the viewer
missed, and whether it gets them or a snapshot is its own numbering's alone. A frame about an action the viewer is told of but whose events it may not see (a blind roll's roller,
a GM relaying a player's ``self`` roll) carries the number of the viewer's last event before it, which moves
nothing. Check ids are random, so they count nothing either (older ledgers' ``<table>-<seq>`` ids still
work: a check id is whatever its roll event recorded). The numbers are worked out from the ledger alone
(:class:`Numbering`), so they are the same after a restart and on every sidecar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from protocol.v1 import messages as m
from protocol.v1 import table as t
from sidecar.config import RESYNC_LIMIT as RESYNC_LIMIT
from sidecar.engine import registry
from sidecar.engine.ruleset import Seat

from .seqs import Seqs
from .visibility import ROLL_VISIBILITY, Viewer, may_see, view

if TYPE_CHECKING:
    from .stored import Pending, Stored
    from .table import Table

__all__ = [
    "ROLL_VISIBILITY",
    "Numbering",
    "Viewer",
    "audiences",
    "frames",
    "may_see",
    "open_followups",
    "reply",
    "public_view",
    "seen",
    "snapshot",
    "snapshot_read",
    "verified",
    "welcome",
]

RUN_GAP = 64
"""Events hidden from a viewer that its catch-up reads across rather than ask the ledger once more (a query costs
about what reading and skipping this many rows does): a catch-up reads the ledger straight through while fewer
than this many events per event it missed lie in the way, else only the stretches holding its own
(:meth:`Numbering.runs`); either way at most about this many rows per event it is sent."""

K = TypeVar("K")
"""Whatever a caller tells (a connection): :func:`audiences` groups them by what they are told."""

ROLES: dict[str, m.Role] = {"gm": "gm", "player": "player", "observer": "observer"}
"""A role as an event stores it (a string, checked when the action was taken), as the protocol types it."""
MODES: dict[str, m.RollMode] = {"public": "public", "gm": "gm", "blind": "blind", "self": "self"}

PUBLIC = Viewer("player", None)
"""The viewer everyone is at least: what it is told, every connection is told."""
GM = Viewer("gm", None)


# --- what a viewer sees of one stored event ---------------------------------------------------------


Restricted = Mapping[int, tuple[str, str | None]]
"""(visibility, owner) of every event not seen by all, by seq."""


def _may_know(seq: int, restricted: Restricted, viewer: Viewer) -> bool:
    """May ``viewer`` know of the event at ``seq`` (one not seen by all is in ``restricted``)?"""
    got = restricted.get(seq)
    return got is None or may_see(got[0], got[1], viewer)


def seen(st: Stored, restricted: Restricted, viewer: Viewer) -> t.AnyEvent | None:
    """The stored event as ``viewer`` may see it (redacted for a non-GM viewer), or None; an ``undone`` names
    only the seqs ``viewer`` may know of, and is not seen at all when that leaves none. Seqs stay the ledger's."""
    ev = view(st.event, st.vis, st.owner, viewer)
    if isinstance(ev, t.Undone):
        seqs = [s for s in ev.seqs if _may_know(s, restricted, viewer)]
        if not seqs:
            return None
        if len(seqs) != len(ev.seqs):
            ev = msgspec.structs.replace(ev, seqs=seqs)
    return ev


def _owners(st: Stored, restricted: Restricted) -> set[str]:
    """The users an event may be shown to beyond what their role sees: the owner of a secret, or for an
    ``undone`` the owners of the secrets it names."""
    if isinstance(st.event, t.Undone):
        return {o for s in st.event.seqs if (got := restricted.get(s)) is not None and (o := got[1]) is not None}
    return {st.owner} if st.owner is not None else set()


# --- numbering ------------------------------------------------------------------------------------------


def _holds(seqs: Seqs, seq: int) -> bool:
    return seq in seqs


class Secrets(Mapping[int, tuple[str, str | None]]):
    """Who may know of each event not seen by all (:data:`Restricted`), read from the numbering rather than
    kept beside it: an event the players' base is not told of is a secret; the GMs' base not told of it
    either makes it a ``self`` roll's (``roller``), else a ``gm`` or ``roller_gm`` one as a user is told of
    it beyond the base or not. What :func:`.visibility.may_see` answers from it is what it answers from the
    stored visibility and owner; the owner of a ``gm`` event (a blind roll's roller, told nothing) is not
    kept, since it changes no answer (``verify`` reads the roll's own)."""

    def __init__(self, numbering: Numbering) -> None:
        self.numbering = numbering

    def get(self, seq: int, default: Any = None) -> Any:
        nums = self.numbering
        if not _holds(nums.gaps[False], seq):
            return default
        owner = next((user for (base, user), seqs in nums.own.items() if not base and _holds(seqs, seq)), None)
        if _holds(nums.gaps[True], seq):
            return ("roller", owner)
        return ("roller_gm", owner) if owner is not None else ("gm", None)

    def __getitem__(self, seq: int) -> tuple[str, str | None]:
        got: tuple[str, str | None] | None = self.get(seq)
        if got is None:
            raise KeyError(seq)
        return got

    def __iter__(self) -> Iterator[int]:
        return iter(self.numbering.gaps[False])

    def __len__(self) -> int:
        return len(self.numbering.gaps[False])


class _Ahead(Mapping[int, tuple[str, str | None]]):
    """The events of an action not yet committed (``mine``: its secret ones) over the table's."""

    def __init__(self, mine: dict[int, tuple[str, str | None]], table: Restricted) -> None:
        self.mine, self.table = mine, table

    def get(self, seq: int, default: Any = None) -> Any:
        got = self.mine.get(seq)
        return got if got is not None else self.table.get(seq, default)

    def __getitem__(self, seq: int) -> tuple[str, str | None]:
        got: tuple[str, str | None] | None = self.get(seq)
        if got is None:
            raise KeyError(seq)
        return got

    def __iter__(self) -> Iterator[int]:
        return iter(sorted({*self.mine, *self.table}))

    def __len__(self) -> int:
        return len({*self.mine, *self.table})


class Numbering:
    """Each viewer's own numbering of the table's events, kept from the ledger's seqs in ``O(secret events)``.

    A viewer's stream is its *base* (what every non-GM viewer is told, or what every GM connection is told)
    plus the events shown to its user beyond the base (their own secrets). The number of ledger seq ``s`` for
    a viewer is how many events of its stream lie at or before ``s``: ``s`` minus the base's gaps up to ``s``
    plus the user's own events up to ``s``. Both lists only grow (an undone event stays numbered: it was
    told), in seq order, so each number is two bisections."""

    def __init__(self) -> None:
        self.head = 0
        self.gaps: dict[bool, Seqs] = {False: Seqs(), True: Seqs()}
        """Per base (``True``: the GM's), the seqs of the events it is not told of (about a byte each)."""
        self.own: dict[tuple[bool, str], Seqs] = {}
        """Per (base, user), the seqs of the events told to the user that the base is not told of."""
        self.restricted = Secrets(self)
        """Who may know of each event not seen by all, from the two above."""

    def add(self, seq: int, st: Stored, restricted: Restricted) -> None:
        """Number the committed event at ``seq`` (after the last one numbered)."""
        self.head = seq
        if st.vis == "all" and not isinstance(st.event, t.Undone):
            return  # the common case: told to everyone
        for base, viewer in ((False, PUBLIC), (True, GM)):
            if seen(st, restricted, viewer) is not None:
                continue
            self.gaps[base].append(seq)
            for user in _owners(st, restricted):
                if seen(st, restricted, Viewer(viewer.role, user)) is not None:
                    own = self.own.get((base, user))
                    if own is None:
                        own = self.own[base, user] = Seqs()
                    own.append(seq)

    def number(self, seq: int, viewer: Viewer) -> int:
        """How many events of ``viewer``'s stream lie at or before ledger seq ``seq``: the number of the event
        at ``seq`` if the viewer is told of it, else that of the last one before it that it is told of."""
        base = viewer.is_gm
        n = seq - self.gaps[base].bisect_right(seq)
        if viewer.user is not None:
            own = self.own.get((base, viewer.user))
            if own:
                n += own.bisect_right(seq)
        return n

    def count(self, viewer: Viewer) -> int:
        """The number of the last event ``viewer`` is told of: its ``welcome.seq``."""
        return self.number(self.head, viewer)

    def after(self, number: int, viewer: Viewer) -> int:
        """The ledger seq just before the first event ``viewer`` numbers above ``number``: a catch-up from
        ``since=number`` reads the ledger after it (the viewer's events are no further back)."""
        if self.number(self.head, viewer) <= number:
            return self.head  # nothing missed
        lo, hi = number + 1, self.head  # number(s) <= s: the first seq numbered above ``number`` is above it too
        step = 1  # back from the head first: a reconnect has mostly missed little, and old seqs cost a decoding
        while hi - step >= lo:
            if self.number(hi - step, viewer) <= number:
                lo = hi - step + 1
                break
            hi -= step
            step *= 2
        while lo < hi:
            mid = (lo + hi) // 2
            if self.number(mid, viewer) > number:
                hi = mid
            else:
                lo = mid + 1
        return lo - 1

    def runs(self, start: int, viewer: Viewer) -> list[tuple[int, int]]:
        """The ledger ranges ``(after, upto]`` that hold every event ``viewer`` is told of after ledger seq
        ``start``, the events hidden from it between them left out (a stretch of fewer than :data:`RUN_GAP`
        kept in): at most one range per event of the viewer's, whatever was hidden from it meanwhile. Each
        range is found from the gaps (a bisection, then a step per event of the viewer's own among them)."""
        base = viewer.is_gm
        gaps = self.gaps[base]
        own = self.own.get((base, viewer.user)) if viewer.user is not None else None
        head, count = self.head, self.count(viewer)
        n = self.number(start, viewer)
        out: list[tuple[int, int]] = []
        while n < count:
            first = self.after(n, viewer) + 1  # the viewer's next event
            i = gaps.bisect_right(first)
            last = head
            while i < len(gaps):
                g = gaps[i]
                if own is None or g not in own:
                    last = g - 1  # the next event hidden from it ends the run
                    break
                i += 1
            if out and first - 1 - out[-1][1] < RUN_GAP:
                out[-1] = (out[-1][0], last)
            else:
                out.append((first - 1, last))
            n = self.number(last, viewer)
        return out

    def owns_secrets(self, viewer: Viewer) -> bool:
        """Is ``viewer`` numbered apart from the others of its base (a user told of secrets of their own)?"""
        return viewer.user is not None and (viewer.is_gm, viewer.user) in self.own


class Lens:
    """The table as it is told: its events' visibility and numbering, with an action not yet committed
    (``ahead``: a reply is written before the append that stores it) numbered as it will be."""

    def __init__(self, table: Table, pending: Pending | None = None) -> None:
        self.table = table
        nums = table.numbering
        self.ahead: list[tuple[int, Stored]] = (
            pending.events if pending is not None and pending.events and pending.events[0][0] > nums.head else []
        )
        self.restricted: Restricted = table.restricted
        self.public = True
        """Every event ahead is told to everyone (the common case): each counts for every viewer."""
        if self.ahead:
            mine: dict[int, tuple[str, str | None]] = {}
            undone = False
            for s, st in self.ahead:
                if st.vis != "all":
                    mine[s] = (st.vis, st.owner)
                if isinstance(st.event, t.Undone):
                    undone = True
            if mine:
                self.restricted = _Ahead(mine, table.restricted)
            self.public = not mine and not undone and self.ahead[0][0] == nums.head + 1

    def number(self, seq: int, viewer: Viewer) -> int:
        nums = self.table.numbering
        if seq <= nums.head:
            return nums.number(seq, viewer)
        if self.public:  # the ahead events follow the head in seq order, with no gap
            return nums.count(viewer) + min(seq - nums.head, len(self.ahead))
        return nums.count(viewer) + sum(
            1 for s, st in self.ahead if s <= seq and seen(st, self.restricted, viewer) is not None
        )

    def numbered(self, seq: int, ev: t.AnyEvent, viewer: Viewer) -> t.Sequenced:
        """An event ``viewer`` sees (``seen``), with its seq, its ``cause`` and an ``undone``'s seqs in the
        viewer's numbering. A cause the viewer may not know of becomes the event's own seq: to the viewer it is
        an action of its own."""
        n = self.number(seq, viewer)
        cause = getattr(ev, "cause", None)
        if isinstance(ev, t.Undone):
            seqs = [self.number(s, viewer) for s in ev.seqs]
            if seqs != ev.seqs or cause != n:
                ev = msgspec.structs.replace(ev, seqs=seqs, cause=n)
        elif cause is not None:
            c = self.number(cause, viewer) if cause != seq and _may_know(cause, self.restricted, viewer) else n
            if c != cause:
                ev = msgspec.structs.replace(ev, cause=c)
        return t.Sequenced(seq=n, event=ev)

    def events(
        self, rows: Iterable[tuple[int, Stored]], viewer: Viewer, sight: Viewer | None = None
    ) -> list[t.Sequenced]:
        """The events of ``rows`` ``viewer`` is told of, numbered for it. ``sight``: whose eyes decide what is
        shown, when not the viewer's own (a GM connection relaying a player's request sees what they see)."""
        sight = sight or viewer
        out = []
        for seq, st in rows:
            ev = seen(st, self.restricted, sight)
            if ev is not None:
                out.append(self.numbered(seq, ev, viewer))
        return out


def events_for(
    table: Table, rows: Iterable[tuple[int, Stored]], viewer: Viewer, sight: Viewer | None = None
) -> list[t.Sequenced]:
    """The committed events of ``rows`` ``viewer`` is told of, numbered for it (:meth:`Lens.events`)."""
    return Lens(table).events(rows, viewer, sight)


# --- reading: welcome, snapshot, verify, open follow-ups -------------------------------------------------


def welcome(table: Table, viewer: Viewer, role: m.Role, since: int | None, server: str) -> m.Welcome:
    """The ``welcome`` of a connection that last saw its event ``since``: the events it missed, or a snapshot
    when it is new, ahead of the table (another numbering) or too far behind. Which of the two is decided by
    the viewer's own numbering alone: the events hidden from it, however many, change neither the shape nor
    the contents (:meth:`.table.Table.welcome_reads` reads only the viewer's events when many were hidden)."""
    head = table.numbering.count(viewer)
    if since is not None and catches_up(head, since):
        start = table.numbering.after(since, viewer)
        return m.Welcome(
            protocol=1,
            server=server,
            role=role,
            table=table.id,
            seq=head,
            events=events_for(table, table.stored(start), viewer),
        )
    return m.Welcome(protocol=1, server=server, role=role, table=table.id, seq=head, snapshot=snapshot(table, viewer))


def snapshot(table: Table, viewer: Viewer) -> t.Snapshot:
    """The table's snapshot as ``viewer`` may see it; a GM's carries the players' view beside it
    (:func:`public_view`), the only state its client may write into the world every player loads."""
    snap = table.snapshot(viewer)
    if viewer.is_gm:
        snap.public = public_view(table)
    return snap


async def snapshot_read(table: Table, viewer: Viewer) -> t.Snapshot:
    """:func:`snapshot` (a ``state`` reply's), the players' view built (when the table does not hold it) from events
    read without blocking the loop."""
    snap = await table.snapshot_read(viewer)
    if viewer.is_gm:
        if table.view_held(PUBLIC):
            snap.public = public_view(table)
        else:
            async with table.reading(0):
                snap.public = public_view(table)
    return snap


def public_view(table: Table) -> t.PublicView:
    """What every player sees of the table's actors: the projection of a viewer who owns no secret (:data:`PUBLIC`),
    folded from the events it may see, redacted as any player's (never the GM's state filtered afresh)."""
    return t.PublicView(actors=table.snapshot(PUBLIC).actors)


def catches_up(count: int, since: int) -> bool:
    """Whether a viewer whose last event is its ``count``-th, reconnecting with ``since``, is sent the events it
    missed (else a snapshot): from the viewer's own numbering only."""
    return 0 <= since <= count and count - since <= RESYNC_LIMIT


def open_followups(table: Table, rec: t.RollEvent, viewer: Viewer) -> list[m.OpenFollowup]:
    """The follow-ups open to ``viewer`` on a check as the table records it (``rec.result`` as it now stands).

    Which are open, and whose, is the check's rule set's to say (``RuleSet.open_to``); here, who the viewer
    is to the check: the GM, the one who rolled it (as :meth:`Table.prepare_follow` compares them), or
    neither. Nothing for an observer, nor for a viewer who may not see the result (a blind roll's roller)."""
    rules = registry.ruleset_of(rec.check)
    if not rules.offers or viewer.role == "observer" or rec.mode == "self":  # a private test: none, for anyone
        return []
    if not may_see(ROLL_VISIBILITY.get(rec.mode, "all"), rec.user, viewer):
        return []
    gm = viewer.role == "gm"
    # a blind roll's roller may not see its result: what would be theirs to follow up is the GM's
    roller = (viewer.user == rec.user and (gm or viewer.user is not None)) or (gm and rec.mode == "blind")
    return rules.open_to(rec, Seat(gm, roller), table.state)


def verified(table: Table, msg: m.Verify, viewer: Viewer) -> m.Verified:
    """The ledger's word on a check to ``viewer``: ``found: false`` for one it may not see (as for one that
    does not exist), the roller of a blind roll told only that it exists, with its label; else the result as it
    now stands, its label and the follow-ups open to the viewer."""
    found = table.check(msg.check)
    if found is None:
        return m.Verified(id=msg.id, check=msg.check, found=False)
    seq, rec, vis, owner = found.seq, found.rec, found.vis, found.owner
    ev = view(rec, vis, owner, viewer)
    if ev is None and (vis != "gm" or owner is None or owner != viewer.user):  # (a blind roll's roller: found)
        return m.Verified(id=msg.id, check=msg.check, found=False)
    number = table.numbering.number(seq, viewer)
    label = table.label(seq)
    if ev is None:  # the roller of a blind roll: that it exists and the label they gave, nothing of it
        return m.Verified(id=msg.id, check=msg.check, found=True, seq=number, label=label)
    return m.Verified(
        id=msg.id,
        check=msg.check,
        found=True,
        seq=number,
        result=ev.result,
        label=label,
        open=open_followups(table, rec, viewer),
    )


# --- telling an action -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """An action the table has just committed, as it is told: its events and the id its requester chose."""

    pending: Pending
    request: str = ""
    """The client's request id, echoed in ``rolled`` and ``followed`` to everyone who hears of them."""

    @property
    def first(self) -> t.AnyEvent:
        return self.pending.events[0][1].event

    @property
    def owner(self) -> str | None:
        """Whose action's visibility every event follows: the roller (for a roll and a follow-up)."""
        return self.pending.events[0][1].owner

    @property
    def actor(self) -> str | None:
        """The user who acted (a follow-up's may be the GM, not the roller); None for a GM operation."""
        ev = self.first
        return ev.user if isinstance(ev, (t.RollEvent, t.FollowEvent)) else None


def audiences(table: Table, action: Action, viewers: Iterable[tuple[K, Viewer]]) -> list[tuple[list[Any], list[K]]]:
    """What each of ``viewers`` (anything, keyed ``K``, with its viewer) is told of a committed action, worked
    out once per kind of viewer (:func:`_kinds`: viewers of one kind are told exactly the same of the action): the frames, and who is told them, each list of frames once
    (kinds told the very same, as the GM and the players are of a public roll with nothing open, are one
    group). Those told nothing are left out."""
    sort, lens = _kinds(action, table), Lens(table, action.pending)
    groups: dict[tuple[object, ...], tuple[list[Any], list[K]]] = {}
    distinct: list[tuple[list[Any], list[K]]] = []
    for key, viewer in viewers:
        of = sort(viewer)
        group = groups.get(of)
        if group is None:
            told = frames(table, action, viewer, lens=lens)
            # the same frames as another kind's: that kind's group (Structs compare by value, in C)
            for other in distinct:
                if other[0] == told:
                    group = other
                    break
            else:
                group = (told, [])
                distinct.append(group)
            groups[of] = group
        group[1].append(key)
    return [group for group in distinct if group[0]]


def _kinds(action: Action, table: Table) -> Callable[[Viewer], tuple[object, ...]]:
    """The kind of each viewer of one action: viewers of the same kind are told exactly the same of it (the hub
    encodes it once for them): the role, the user when it is numbered apart or is the action's owner or actor,
    and those two facts. What it asks of the action is worked out once for all its viewers."""
    own = table.numbering.own  # who is numbered apart (:meth:`Numbering.owns_secrets`)
    first = action.first
    if not isinstance(first, (t.RollEvent, t.FollowEvent)):  # a GM op: an `undone` is per user

        def of_op(viewer: Viewer) -> tuple[object, ...]:
            user = viewer.user
            return (viewer.role, user if user is not None and (viewer.is_gm, user) in own else None)

        return of_op
    owner_user, actor_user = action.owner, first.user

    def of(viewer: Viewer) -> tuple[object, ...]:
        user = viewer.user
        if user is None:
            return (viewer.role, None, False, False)
        owner, actor = user == owner_user, user == actor_user
        apart = user if (owner or actor or (viewer.is_gm, user) in own) else None
        return (viewer.role, apart, owner, actor)

    return of


def _sight(viewer: Viewer, acting: str | None, requester: bool) -> Viewer:
    """Whose eyes an action is shown to ``viewer`` with: its own; for its requester, the user it acted as (a
    GM connection acting on behalf of a player carries that player's requests: what is open to the player on
    the result; a ``self`` roll, which no GM socket sees, :func:`_rolled` shows its requester as it is). The
    numbers stay the connection's own."""
    return Viewer(viewer.role, acting) if requester and acting != viewer.user else viewer


def frames(
    table: Table, action: Action, viewer: Viewer, requester: bool = False, lens: Lens | None = None
) -> list[Any]:
    """What ``viewer`` is told of a committed action: for a roll or a follow-up, one ``rolled`` or
    ``followed`` to whoever may see it or made it (and the roller's other sockets); to everyone else the events
    of it they may see, each as an ``event`` (a public effect of a hidden action); for a GM operation, each
    visible event as an ``event`` (the requester gets :func:`reply`'s ``done`` instead). ``lens``: the
    table's as it now is, when the caller has it (one for every viewer of the action)."""
    first = action.first
    if lens is None:
        lens = Lens(table, action.pending)
    if isinstance(first, t.RollEvent):
        return _rolled(lens, action, first, viewer, requester)
    if isinstance(first, t.FollowEvent):
        return _followed(lens, action, first, viewer, requester)
    return [m.EventBroadcast(seq=s.seq, event=s.event) for s in lens.events(action.pending.events, viewer)]


def reply(table: Table, action: Action, viewer: Viewer) -> Any:
    """The requester's reply: a roll's ``rolled``, a follow-up's ``followed``, a GM operation's ``done``."""
    if isinstance(action.first, (t.RollEvent, t.FollowEvent)):
        told = frames(table, action, viewer, requester=True)
        assert len(told) == 1  # the requester always hears of its own action, in one frame
        return told[0]
    lens = Lens(table, action.pending)
    last = lens.number(action.pending.events[-1][0], viewer)
    return m.Done(id=action.request, seq=last, events=lens.events(action.pending.events, viewer))


def _told(first_seen: object, viewer: Viewer, acting: str | None, requester: bool, mode: str) -> bool:
    """Is ``viewer`` told of the action as such: it sees it, made it, or is the user who made it (the roller
    of a blind roll hears that it happened, on every socket of theirs). Of a ``self`` roll, only those who see
    it and its requester hear: not a GM socket whose hello names the roller."""
    if first_seen is not None or requester:
        return True
    return mode != "self" and viewer.user is not None and viewer.user == acting


def _rolled(lens: Lens, action: Action, ev: t.RollEvent, viewer: Viewer, requester: bool) -> list[Any]:
    seq0, st0 = action.pending.events[0]
    sight = _sight(viewer, ev.user, requester)
    shown = seen(st0, lens.restricted, sight)
    if shown is None and requester and ev.mode == "self":
        # a GM connection's private test, or a player's relayed by the GM's browser: read as the roller reads it
        shown = view(st0.event, "all", None, sight)
    rest = action.pending.events[1:]
    if not _told(shown, viewer, ev.user, requester, ev.mode):
        return [m.EventBroadcast(seq=s.seq, event=s.event) for s in lens.events(rest, viewer)]
    table = lens.table
    return [
        m.Rolled(
            id=action.request,
            check=ev.check_id,
            seq=lens.number(seq0, viewer),
            result=shown.result if isinstance(shown, t.RollEvent) else None,
            by=ROLES.get(ev.by, "player"),
            user=ev.user,
            actor=ev.actor,
            target=ev.target,
            scene=ev.scene,
            mode=MODES.get(ev.mode, "public"),
            label=ev.label,
            extended=ev.extended,
            gather=ev.gather,
            part=ev.part,
            events=lens.events(rest, viewer, sight),
            open=open_followups(table, ev, sight),
        )
    ]


def _followed(lens: Lens, action: Action, ev: t.FollowEvent, viewer: Viewer, requester: bool) -> list[Any]:
    seq0, st0 = action.pending.events[0]
    sight = _sight(viewer, ev.user, requester)
    shown = seen(st0, lens.restricted, sight)
    rest = action.pending.events[1:]
    table = lens.table
    found = table.check(ev.check_id)
    rec = found.rec if found is not None else None
    if not _told(shown, viewer, ev.user, requester, rec.mode if rec is not None else "public"):
        return [m.EventBroadcast(seq=s.seq, event=s.event) for s in lens.events(rest, viewer)]
    return [
        m.Followed(
            id=action.request,
            check=ev.check_id,
            seq=lens.number(seq0, viewer),
            # the one who made it knows what they asked; nothing of the result unless they may see it
            action=shown.action if isinstance(shown, t.FollowEvent) else ev.action,
            result=shown.result if isinstance(shown, t.FollowEvent) else None,
            by=ROLES.get(ev.by, "player"),
            user=ev.user,
            events=lens.events(rest, viewer, sight),
            open=[] if rec is None else open_followups(table, msgspec.structs.replace(rec, result=ev.result), sight),
        )
    ]
