"""`facets`' part of the table (docs/rules/facets.md): each actor's wounds and scratches, and the facets of
actors and scenes (its ``FacetsActor`` and ``FacetsScene`` fields), with the GM's operations on them.

What an operation changes or heals is told as the thing was: a facet's changes to whoever saw it created (a
blind roll's facet stays the GM's), a heal in parts, each as its harm was (what everyone saw heals first, then
what a player's own ``gm`` rolls dealt, then a blind roll's): a viewer never hears of the end of what it was
never shown.
"""

from __future__ import annotations

from typing import Any

from protocol.v1 import facets as facets_t
from protocol.v1 import limits

from ... import bounds
from ...errors import CheckError, ErrorCode
from ...ruleset import TableView, new_id
from ...table_part import OpView, PartTable, TablePart, Told


def _facet_key(fid: str) -> str:
    return f"facet:{fid}"


def _harm_key(actor: str) -> str:
    return f"harm:{actor}"


def facet(view: TableView | PartTable, fid: str) -> tuple[facets_t.Facet, list[facets_t.Facet]] | None:
    """The open facet with this id and the list that holds it (an actor's or a scene's)."""
    for holder in (*view.actors.values(), *view.scenes.values()):
        for f in holder.facets:
            if f.id == fid:
                return f, holder.facets
    return None


def room_for_facet(view: TableView, actor: str | None, scene: str | None, user: str | None = None) -> None:
    """Room for one more facet, of ``scene`` when named, else of ``actor``."""
    held: Any
    if scene is not None:
        bounds.room_for_scene(view, scene)
        held, where = view.scenes.get(scene), f"scene {scene!r}"
    elif actor is not None:
        bounds.room_for_actor(view, actor, user)
        held, where = view.actors.get(actor), f"actor {actor!r}"
    else:
        return
    if held is not None and len(held.facets) >= limits.FACETS_PER_HOLDER:
        raise CheckError(
            ErrorCode.TOO_MANY_FACETS,
            f"{where} has {limits.FACETS_PER_HOLDER} facets, the most one may (a roll that may create one is "
            "refused): the GM removes one first (`facet_remove`)",
        )
    total = sum(len(a.facets) for a in view.actors.values()) + sum(len(s.facets) for s in view.scenes.values())
    if total >= limits.FACETS:
        raise CheckError(
            ErrorCode.TOO_MANY_FACETS,
            f"this table has {limits.FACETS} facets, the most it may (a roll that may create one is refused): "
            "the GM removes one first (`facet_remove`)",
        )


class FacetsPart(TablePart):
    events = (
        facets_t.HarmTaken,
        facets_t.FacetCreated,
        facets_t.FacetRenamed,
        facets_t.FacetRemoved,
        facets_t.HarmHealed,
    )

    def fold(self, own: None, seq: int, ev: object, table: PartTable) -> None:
        match ev:
            case facets_t.HarmTaken():
                a = table.actor(ev.actor)
                if ev.harm == "wound":
                    a.wounds = min(a.wounds + 1, limits.HARM)
                else:
                    a.scratches = min(a.scratches + 1, limits.HARM)
            case facets_t.FacetCreated():
                f = facets_t.Facet(facet=ev.facet, nature=ev.nature, id=ev.id or f"f{seq}")
                if ev.scene is not None:
                    table.scene_state(ev.scene).facets.append(f)
                elif ev.actor is not None:
                    table.actor(ev.actor).facets.append(f)
            case facets_t.FacetRenamed():
                found = facet(table, ev.facet)
                if found is not None:
                    found[0].facet = ev.text
            case facets_t.FacetRemoved():
                found = facet(table, ev.facet)
                if found is not None:
                    found[1].remove(found[0])
            case facets_t.HarmHealed():
                a = table.actor(ev.actor)
                if ev.harm == "wound":
                    a.wounds = max(0, a.wounds - ev.count)
                else:
                    a.scratches = max(0, a.scratches - ev.count)

    def remembers(self, seq: int, ev: object, vis: str) -> list[str]:
        if isinstance(ev, facets_t.FacetCreated):
            return [_facet_key(ev.id or f"f{seq}")]
        if isinstance(ev, facets_t.HarmTaken) and vis != "all":
            return [_harm_key(ev.actor)]
        return []

    def recap(self, seq: int, ev: Any, memo: dict[str, Any]) -> str | None:
        """Facets named as last written (``memo``: facet id to name)."""
        text = None
        match ev:
            case facets_t.HarmTaken():
                text = f"{ev.actor} takes a {ev.harm}"
            case facets_t.FacetCreated():
                text = f"{ev.nature} facet “{ev.facet}” on {ev.scene or ev.actor}"
                memo[ev.id or f"f{seq}"] = ev.facet
            case facets_t.FacetRenamed():
                text = f"facet “{memo.get(ev.facet, ev.facet)}” renamed “{ev.text}”"
                memo[ev.facet] = ev.text
            case facets_t.FacetRemoved():
                text = f"facet “{memo.get(ev.facet, ev.facet)}” removed"
            case facets_t.HarmHealed():
                text = f"{ev.actor}: {ev.count} {ev.harm}{'s' if ev.count != 1 else ''} healed"
        return text


def prepare_op(op: Any, view: OpView) -> list[object]:
    """The events of one of `facets`' GM operations."""
    match op:
        case facets_t.FacetAdd():
            scene = op.scene if op.actor is not None or op.scene is not None else view.scene
            room_for_facet(view, op.actor, scene)
            _need(op.facet.strip(), "a facet needs a name")
            if op.actor is not None and op.scene is not None:
                raise CheckError(ErrorCode.INVALID_OP, "a facet belongs to an actor or a scene, not both: name one")
            if op.actor is None and scene is None:
                raise CheckError(
                    ErrorCode.INVALID_OP, "a facet belongs to an actor or a scene: name one (or activate a scene)"
                )
            return [
                facets_t.FacetCreated(facet=op.facet, nature=op.nature, actor=op.actor, scene=scene, id=new_id("f"))
            ]
        case facets_t.FacetRename():
            _need(op.text.strip(), "a facet needs a name")
            vis, owner = _facet_seen(view, op.facet)
            return [Told(facets_t.FacetRenamed(facet=op.facet, text=op.text), vis, owner)]
        case facets_t.FacetRemove():
            vis, owner = _facet_seen(view, op.facet)
            return [Told(facets_t.FacetRemoved(facet=op.facet), vis, owner)]
        case facets_t.HarmHeal():
            if op.count < 1:
                raise CheckError(ErrorCode.INVALID_OP, "heal at least 1")
            have = _harm_of(view, op.actor, op.harm)
            if have < op.count:
                raise CheckError(
                    ErrorCode.NO_SUCH_HARM,
                    f"{op.actor} has {have} {op.harm}{'s' if have != 1 else ''}; cannot heal {op.count}",
                )
            out: list[object] = []
            left = op.count
            for vis, owner, n in harm_seen(view, op.actor, op.harm):
                take = min(n, left)
                if take > 0:
                    out.append(Told(facets_t.HarmHealed(actor=op.actor, harm=op.harm, count=take), vis, owner))
                    left -= take
            return out
    raise CheckError(ErrorCode.UNKNOWN_OP, f"facets has no GM operation {type(op).__name__}")


def secret_harm_owners(view: OpView, actor: str) -> list[str] | None:
    """The players who saw harm of ``actor`` that not everyone saw (their own ``gm`` rolls'), or ``None`` when
    everyone saw all of it."""
    secret = view.heard(_harm_key(actor))
    if not secret:
        return None
    return sorted({o for _, o in secret if o is not None})


def harm_seen(view: OpView, actor: str, harm: str) -> list[tuple[str, str | None, int]]:
    """The ``harm`` ``actor`` has, in parts by who may see them: what every viewer sees first, then what each
    player sees beyond it (harm of their own ``gm`` rolls), then the GM's alone (harm of blind rolls). A heal
    takes the parts in that order, each told as its harm was."""
    total = _harm_of(view, actor, harm)
    owners = secret_harm_owners(view, actor)
    if owners is None:
        return [("all", None, total)]
    public = min(total, _harm_of(view.seen_by(None), actor, harm))
    parts: list[tuple[str, str | None, int]] = [("all", None, public)]
    rest = total - public
    for owner in owners:
        extra = _harm_of(view.seen_by(owner), actor, harm) - public
        take = max(0, min(extra, rest))
        parts.append(("roller_gm", owner, take))
        rest -= take
    parts.append(("gm", None, rest))
    return parts


def op_reads(op: Any, view: OpView) -> tuple[str | None, ...]:
    """A heal of an actor hurt by a hidden roll reads the players' views of the table."""
    if isinstance(op, facets_t.HarmHeal):
        owners = secret_harm_owners(view, op.actor)
        if owners is not None:
            return (None, *owners)
    return ()


def _harm_of(view: TableView, actor: str, harm: str) -> int:
    a = view.actors.get(actor)
    if a is None:
        return 0
    wounds: int = a.wounds if harm == "wound" else a.scratches
    return wounds


def _facet_seen(view: OpView, fid: str) -> tuple[str, str | None]:
    """Who saw the facet created (a facet from a blind roll stays the GM's): its changes go to them."""
    if facet(view, fid) is None:
        raise CheckError(
            ErrorCode.UNKNOWN_FACET, f"no facet {fid!r} on this table (see the snapshot's facets for their ids)"
        )
    seen = view.heard(_facet_key(fid))
    return seen[-1] if seen else ("all", None)


def _need(value: object, message: str) -> None:
    if not value:
        raise CheckError(ErrorCode.INVALID_OP, message)


PART = FacetsPart()
