"""How the module draws facets' part of the table: wounds and scratches (healed by the GM), and the facets
written on the scene or a character (written, renamed and removed by the GM)."""

from __future__ import annotations

from sidecar.engine.drawing import Arg, Badge, Control, Drawing, Form, Input, Items, Label, Marker, Number, Option, Tone

NATURES = (
    Option("beneficial", Label("VERDICT.Facet.beneficial", "beneficial")),
    Option("detrimental", Label("VERDICT.Facet.detrimental", "detrimental")),
)


def _harm(field: str, harm: str, word: str, sheet: str, heal: str, icon: str, tone: Tone) -> Number:
    key = "wound" if harm == "wound" else "scratch"
    return Number(
        field=field,
        label=Label(f"VERDICT.Sheet.{field}", sheet),
        badge=Label(f"VERDICT.Status.{key}", word),
        tone=tone,
        data=True,
        min=0,
        marker=Marker(
            kind="status", id=f"verdict-{key}", label=Label(f"VERDICT.Status.{key}", word), icon=f"{key}.svg"
        ),
        controls=(
            Control(
                action="heal",
                op="harm_heal",
                label=Label(f"VERDICT.Tracker.{heal}", f"Heal a {key}"),
                icon=icon,
                args=(Arg("actor", "actor"), Arg("harm", "value", value=harm), Arg("count", "value", value=1)),
                when=field,
            ),
        ),
    )


DRAWING = Drawing(
    conditions=True,
    marks=("harm",),
    parts=(
        _harm("wounds", "wound", "Wound", "Wounds", "healWound", "fa-solid fa-kit-medical", "bad"),
        _harm("scratches", "scratch", "Scratch", "Scratches", "healScratch", "fa-solid fa-bandage", ""),
        Items(
            field="facets",
            name="facet",
            section="facets",
            heading=Label("VERDICT.Tracker.facets", "Facets"),
            on=("scene", "actor"),
            text="facet",
            badges=(
                Badge(field="nature", values=NATURES, tones={"beneficial": "good", "detrimental": "bad"}, data=True),
            ),
            owner=Label("VERDICT.Tracker.scene", "Scene"),
            controls=(
                Control(
                    action="facetRename",
                    op="facet_rename",
                    label=Label("VERDICT.Tracker.renameFacet", "Rename"),
                    icon="fa-solid fa-pen",
                    args=(Arg("facet", "item"), Arg("text", "input", "edit")),
                    edit="facet",
                    edit_label=Label("VERDICT.Tracker.renameText", "New facet text"),
                ),
                Control(
                    action="facetRemove",
                    op="facet_remove",
                    label=Label("VERDICT.Tracker.removeFacet", "Remove facet"),
                    icon="fa-solid fa-trash",
                    args=(Arg("facet", "item"),),
                ),
            ),
            add=Form(
                css="facet-form",
                label=Label("VERDICT.Tracker.newFacet", "A new facet"),
                inputs=(
                    Input(
                        name="facet",
                        kind="text",
                        label=Label("VERDICT.Tracker.facetText", "Facet text"),
                        placeholder=Label("VERDICT.Tracker.newFacet", "A new facet"),
                    ),
                    Input(
                        name="nature",
                        kind="choice",
                        label=Label("VERDICT.Tracker.facetNature", "Nature"),
                        options=NATURES,
                        default="beneficial",
                        keep=True,
                    ),
                    Input(name="owner", kind="owner", label=Label("VERDICT.Tracker.facetOn", "Facet on"), keep=True),
                ),
                control=Control(
                    action="facetAdd",
                    op="facet_add",
                    label=Label("VERDICT.Tracker.addFacet", "Write facet"),
                    icon="fa-solid fa-feather",
                    args=(
                        Arg("facet", "input", "facet"),
                        Arg("nature", "input", "nature"),
                        Arg("actor", "owner_actor"),
                        Arg("scene", "owner_scene"),
                    ),
                    labelled=True,
                ),
            ),
        ),
    ),
)
