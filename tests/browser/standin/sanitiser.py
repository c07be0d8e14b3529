"""Foundry's server-side cleaning of an ``HTMLField`` (``foundry.utils.cleanHTML``), as the stand-in models it.

A chat message's ``content`` is an ``HTMLField``: the server keeps only the elements of
``CONST.ALLOWED_HTML_TAGS`` and, on each, the attributes of ``CONST.ALLOWED_HTML_ATTRIBUTES`` (the ``*`` list,
``data-*`` and ``aria-*`` on every element, plus the element's own); ``href``, ``src`` and ``cite`` only with a
scheme of ``CONST.ALLOWED_URL_SCHEMES``. An element outside the list is dropped and its content kept (the
sanitiser's default), except for elements whose content is code or a template, which go whole. The lists are
v13's, from its type declarations; ``wbr`` is not on them.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

ALLOWED_HTML_TAGS = frozenset(
    """header main section article aside nav footer div address h1 h2 h3 h4 h5 h6 hr br p blockquote summary
    details span code pre a label abbr cite mark q ruby rp rt small time var kbd samp dfn sub sup strong em b i u
    s del ins ol ul li dl dd dt menu table thead tbody tfoot tr th td col colgroup form input select option
    button datalist fieldset legend meter optgroup progress textarea output figure figcaption caption img video
    map area track picture source audio iframe color-picker code-mirror document-embed document-tags
    enriched-content file-picker hue-slider multi-select multi-checkbox range-picker secret-block string-tags
    prose-mirror formula-input""".split()
)
_EVERY = frozenset(
    """class id title style draggable tabindex dir hidden inert role is lang popover autocapitalize autocorrect
    autofocus contenteditable spellcheck translate""".split()
)
_OWN = {
    "a": "href name target rel",
    "area": "alt coords href rel shape target",
    "audio": "controls loop muted src autoplay",
    "blockquote": "cite",
    "button": "disabled name type value",
    "col": "span",
    "colgroup": "span",
    "details": "name open",
    "fieldset": "disabled",
    "form": "name",
    "iframe": "src srcdoc name height width loading sandbox",
    "img": "height src width usemap sizes srcset alt",
    "input": "checked disabled name value placeholder type alt height list max min readonly size src step width required",
    "label": "for",
    "li": "value",
    "map": "name",
    "meter": "value min max low high optimum",
    "ol": "reversed start type",
    "optgroup": "disabled label",
    "option": "disabled selected label value",
    "output": "for form name",
    "progress": "max value",
    "select": "name disabled multiple size required",
    "source": "media sizes src srcset type",
    "table": "border",
    "td": "colspan headers rowspan",
    "textarea": "rows cols disabled name readonly wrap required",
    "time": "datetime",
    "th": "abbr colspan headers rowspan scope sorted",
    "track": "default kind label src srclang",
    "video": "controls height width loop muted poster src autoplay",
}
ALLOWED_HTML_ATTRIBUTES = {tag: frozenset(names.split()) for tag, names in _OWN.items()}
ALLOWED_URL_SCHEMES = ("http", "https", "data", "mailto", "obsidian", "syrinscape-online")
_URL_ATTRIBUTES = frozenset({"href", "src", "cite"})
_VOID = frozenset("area br col embed hr img input link meta source track wbr".split())
# Elements whose content is code or inert markup: dropped with everything in them.
_DROPPED_WHOLE = frozenset("script style template noscript object embed svg math".split())
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.-]*):")


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    if name.startswith("on"):
        return False
    if not (
        name in _EVERY or name.startswith(("data-", "aria-")) or name in ALLOWED_HTML_ATTRIBUTES.get(tag, frozenset())
    ):
        return False
    if name in _URL_ATTRIBUTES:
        scheme = _SCHEME.match(value)
        return scheme is None or scheme.group(1).lower() in ALLOWED_URL_SCHEMES
    return True


class _Cleaner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.dropping = 0  # depth inside an element dropped whole

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROPPED_WHOLE:
            if tag not in _VOID:
                self.dropping += 1
            return
        if self.dropping or tag not in ALLOWED_HTML_TAGS:
            return
        kept = "".join(
            f' {name}="{html.escape(value or "", quote=True)}"' if value is not None else f" {name}"
            for name, value in attrs
            if _allowed_attribute(tag, name, value or "")
        )
        self.out.append(f"<{tag}{kept}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and tag in ALLOWED_HTML_TAGS and not self.dropping:
            self.out.append(f"</{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED_WHOLE:
            self.dropping = max(0, self.dropping - 1)
            return
        if self.dropping or tag not in ALLOWED_HTML_TAGS or tag in _VOID:
            return
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.dropping:
            self.out.append(html.escape(data, quote=False))


def clean_html(content: str) -> str:
    """The content as Foundry's server stores it: only allowed elements and attributes, text escaped."""
    cleaner = _Cleaner()
    cleaner.feed(content)
    cleaner.close()
    return "".join(cleaner.out)
