"""Links of a chapter against its source: missing, added, changed, and each language's own.

A link the translation writes differently is one finding, not a "missing" and an "added" one:
a link that names its language (``d2l-tr`` for ``d2l-en``) is the translation's own copy; one
that differs only in ``http``/``https`` or a final ``/`` is the same link; one that stands where
the source's stands, or looks like it, is that link changed (a URL a translator damaged). A
link whose target is text, not an address -- ``[**text**](本文)``, which Markdown reads as a
link when a translation writes a slide mark's ``(…)`` right after the ``[**…**]`` -- says so.
Links matching conf.py's ``localised_links`` are each language's own and asked for per section.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable
from fnmatch import fnmatchcase
from urllib.parse import unquote

from cydifflib import SequenceMatcher  # difflib's, compiled: the same results (see pyproject.toml)

from polybook.check.findings import Finding, Location
from polybook.check.segments import by_identity, flatten, inlines_of, walked, written_text
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document, Heading, TextTab

_SIMILAR = 0.75  # a link at least this similar to a missing one of the source is that one, changed
_NEAR = 2  # lines: an added link this close to where a missing one belongs stands for it
_LANGUAGE = re.compile(r"(?<=[-_/.])[a-z]{2,3}(?:[-_][A-Za-z]{2})?(?=[-_/.]|$)|(?<=://)[a-z]{2}(?=\.)")
_ADDRESS = re.compile(r"^(?:[A-Za-z][\w+.-]*:|[#/.]|[\w.~-]+/)|^[\w-]+\.[A-Za-z0-9]{1,5}(?:#.*)?$")


@by_identity  # the source's, for every language
def _links(doc: Document) -> list[tuple[str, int]]:
    return [(inline.value, line) for inline, line in inlines_of(doc) if inline.kind == "link"]


@by_identity  # the source's, for every language
def _common_links(doc: Document, localised: tuple[str, ...]) -> list[tuple[str, int]]:
    """``doc``'s links but the ``localised`` ones (each language's own)."""
    return [(u, n) for u, n in _links(doc) if not _localised(u, localised)]


@by_identity
def _tabbed_lines(doc: Document) -> set[int]:
    """The lines of ``doc``'s links that are inside a text tab (shown to some frameworks only)."""
    return {
        inline.line or node.line
        for tab in walked(doc)
        if isinstance(tab, TextTab)
        for node in tab.children
        for inline in getattr(node, "inlines", [])
        if inline.kind == "link"
    }


def _localised(url: str, patterns: tuple[str, ...]) -> str | None:
    return next((p for p in patterns if fnmatchcase(url, p)), None)


def same_link(url: str) -> str:
    """What makes two links one: ``http://d2l.ai/`` is ``https://d2l.ai``."""
    return re.sub(r"^https?://", "//", url.strip()).rstrip("/")


def _language_named(source: str, target: str, lang: str | None) -> bool:
    """Whether ``target`` is ``source`` with the translation's language named where the source
    names its own (``tr.d2l.ai`` for ``d2l.ai``, ``d2l-tr`` for ``d2l-en``)."""
    if not lang or lang not in target:
        return False
    mine = re.sub(rf"(?<=://){re.escape(lang)}\.", "", target)
    mine = re.sub(rf"(?<=[-_/.]){re.escape(lang)}(?=[-_/.]|$)", "@", mine)
    if same_link(mine) == same_link(source):
        return True
    return any(
        same_link(source[: m.start()] + "@" + source[m.end() :]) == same_link(mine) for m in _LANGUAGE.finditer(source)
    )


def is_address(target: str) -> bool:
    """Whether a link's target can be an address (a URL, a path, an anchor), not words."""
    text = unquote(target)
    return bool(_ADDRESS.match(text)) and not re.search(r"\s|[*~`]{2}|:\w+:`", text) and text.isascii()


def check_links(
    lang: str,
    name: str,
    source: Document,
    translation: Document,
    here: Callable[[int], Location],
    localised: tuple[str, ...] = (),
    common: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Links of the source missing here, links here the source lacks, and links changed (see
    the module's text); links matching ``localised`` are asked for per section."""
    s_all, t_all = list(_common_links(source, localised)), list(_common_links(translation, localised))
    missing, extra = _unpaired(s_all, t_all, here)
    out: list[Finding] = []
    said = written_text(source)
    for url, line in extra:
        if url in said and is_address(url):
            continue  # the source says the address as text (``<http://localhost:8888>`` for it): the same
        found = next((m for m in missing if _language_named(m[0], url, lang)), None)
        if found is not None:
            missing.remove(found)
            continue
        found = _counterpart(url, line, missing, here) if missing else None
        if found is not None:
            missing.remove(found)
            out.append(Finding.make(
                Code.REF_LINK, _changed(url, found[0]), lang, name, Location(translation.path, line),
                source=Location(source.path, found[1]), diff=((unquote(url), found[0]),), subject=(url, found[0]),
            ))  # fmt: skip
        elif not is_address(url):
            text = unquote(url)
            out.append(Finding.make(
                Code.REF_LINK,
                f"`[…]({text})` makes a link of words: Markdown reads `(…)` right after `[…]` as a link's address; "
                "put a space between `]` and `(`",
                lang, name, Location(translation.path, line), diff=((text, ""),), subject=(url, ""),
            ))  # fmt: skip
        else:
            out.append(Finding.make(
                Code.REF_LINK, f"link {url} is not in the source: remove it, unless the translation adds it on purpose",
                lang, name, Location(translation.path, line), diff=((url, ""),), subject=(url, ""),
            ))  # fmt: skip
    written = Counter[str]()
    in_tabs, said_here = _tabbed_lines(source), {same_link(u) for u, _ in t_all}
    for url, line in missing:
        text = _as_text(translation, url, written[url])
        written[url] += text is not None
        if text is None and line in in_tabs and same_link(url) in said_here:
            continue  # given in several frameworks' text tabs there, here once for all of them
        message = f"link {url} of the source is missing here: add it"
        if text is not None:
            message = f"link {url} of the source is written here as text, not as a link: {text[1]}"
        where = text[0] if text is not None else here(line)
        out.append(Finding.make(
            Code.REF_LINK, message, lang, name, where, source=Location(source.path, line), diff=(("", url),),
            subject=("", url),
        ))  # fmt: skip
    return out + _localised_links(lang, name, source, translation, here, localised, common)


def _as_text(doc: Document, url: str, skip: int = 0) -> tuple[Location, str] | None:
    """Where ``doc``'s prose has ``url`` (its ``skip``-th such place) but Markdown reads no link
    there, and what to do: ``] (`` with a space, ``]（`` with a full-width parenthesis, a ``(``
    inside the address not closed."""
    for node in doc.walk():
        text = getattr(node, "source", None)
        if not isinstance(text, str) or getattr(node, "kind", "") == "html":
            continue  # (an HTML block -- a comment, a port's mark -- is no Markdown: no link is read there)
        spaced = url not in text  # a translation tool's spaces inside it: ``wikipedia. org / wiki``
        if spaced and (url[:8] not in text or url not in "".join(text.split())):
            continue
        if any(i.kind == "link" and same_link(i.value) == same_link(url) for i in getattr(node, "inlines", ())):
            continue
        pattern = r"\s*".join(map(re.escape, url)) if spaced else re.escape(url)
        for found in re.finditer(pattern, text):
            if skip:
                skip -= 1
                continue
            before, after = text[: found.start()].rstrip("<"), text[found.end() :]
            if re.search(r"\]\s+[(（]$", before):
                fix = "remove the space between `]` and `(`"
            elif before.endswith("]（") or after.startswith("）"):
                fix = "write `(` and `)` around the address, not the full-width `（` `）`"
            elif before.endswith("](") and spaced:
                fix = "remove the spaces inside the address"
            elif before.endswith("]("):
                fix = "close the address with a `)` for every `(` inside it"
            else:
                continue  # the address said in words, not a link gone wrong
            fix += ", and the spaces inside the address" if spaced and not fix.endswith("address") else ""
            return Location(doc.path, node.line + before.count("\n")), fix
    return None


def _changed(url: str, source: str) -> str:
    """The message for a link written differently from the source's ``source``."""
    text = unquote(url)
    if text.startswith(source) and not text[len(source) :].isascii():
        rest = text[len(source) :]
        return (
            f"link {source} runs on into the words after it ({rest[:20]}…): end its address with `)` "
            "(a full-width `）` does not)"
        )
    return f"link {text} here is {source} in the source: write the source's address"


def _unpaired(
    s_all: list[tuple[str, int]], t_all: list[tuple[str, int]], here: Callable[[int], Location]
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The links of each side the other lacks. A link written more often on one side pairs each
    occurrence with the nearest of the other's to where it belongs; the farthest are left."""
    s_by: dict[str, list[tuple[str, int]]] = {}
    t_by: dict[str, list[tuple[str, int]]] = {}
    for url, line in s_all:
        s_by.setdefault(same_link(url), []).append((url, line))
    for url, line in t_all:
        t_by.setdefault(same_link(url), []).append((url, line))
    missing, extra = [], []
    for key in dict.fromkeys([*s_by, *t_by]):
        mine, theirs = s_by.get(key, []), t_by.get(key, [])
        if len(mine) != len(theirs):
            placed = [here(line).line for _, line in mine]
            options = sorted((abs(placed[i] - t[1]), i, j) for i in range(len(mine)) for j, t in enumerate(theirs))
            s_used: set[int] = set()
            t_used: set[int] = set()
            for _, i, j in options:
                if i not in s_used and j not in t_used:
                    s_used.add(i)
                    t_used.add(j)
            missing += [s for i, s in enumerate(mine) if i not in s_used]
            extra += [t for j, t in enumerate(theirs) if j not in t_used]
    return sorted(missing, key=lambda m: m[1]), sorted(extra, key=lambda m: m[1])


def _counterpart(
    url: str, line: int, missing: list[tuple[str, int]], here: Callable[[int], Location]
) -> tuple[str, int] | None:
    """The missing link of the source that ``url`` (at ``line``) stands for: the most similar
    one, if similar enough; else one that belongs within :data:`_NEAR` lines of it."""
    scored = [(SequenceMatcher(None, same_link(url), same_link(m[0])).ratio(), m) for m in missing]
    best = max(scored, default=None, key=lambda found: found[0])
    if best is not None and best[0] >= _SIMILAR:
        return best[1]
    near = [(abs(here(m[1]).line - line), m) for m in missing]
    close = min(near, default=None, key=lambda found: found[0])
    return close[1] if close is not None and close[0] <= _NEAR else None


@by_identity
def _sections(doc: Document) -> list[int]:
    """The first line of each section: 1, then every heading's line."""
    return [1, *(node.line for node in walked(doc) if isinstance(node, Heading))]


@by_identity  # the source's, for every language
def _tabbed_links(
    doc: Document, patterns: tuple[str, ...], common: frozenset[str]
) -> list[tuple[str, str, int, frozenset[str] | None]]:
    """``(pattern, url, line, frameworks of its text tab)`` of the links matching ``patterns``;
    a link in a tab for frameworks outside ``common`` is left out (coverage)."""
    out = []
    for item in flatten(doc):
        links = [i for i in getattr(item.node, "inlines", ()) if i.kind == "link"]
        if not links:
            continue
        tab = None if item.tab is None else frozenset(item.tab) & common if common else frozenset(item.tab)
        if tab is not None and not tab:
            continue
        for inline in links:
            if pattern := _localised(inline.value, patterns):
                out.append((pattern, inline.value, inline.line or item.node.line, tab))
    return out


def _localised_links(
    lang: str,
    name: str,
    source: Document,
    translation: Document,
    here: Callable[[int], Location],
    patterns: tuple[str, ...],
    common: frozenset[str],
) -> list[Finding]:
    """Each section of the source with a localised link (for a framework both offer) must have
    one here, in the section where the source's belongs, for that framework or for all."""
    if not patterns:
        return []
    s_starts, t_starts = _sections(source), _sections(translation)
    t_found = _tabbed_links(translation, patterns, common)
    out = []
    seen: set[tuple[str, int, frozenset[str] | None]] = set()
    for pattern, url, line, tab in _tabbed_links(source, patterns, common):
        where = here(line)
        section = bisect.bisect_right(t_starts, where.line) - 1
        key = (pattern, bisect.bisect_right(s_starts, line), tab)
        if key in seen:
            continue
        seen.add(key)
        start, end = t_starts[section], t_starts[section + 1] if section + 1 < len(t_starts) else 1 << 30
        if any(p == pattern and start <= n < end and (t is None or tab is None or t & tab) for p, _, n, t in t_found):
            continue
        shown = f" for [{', '.join(sorted(tab))}]" if tab else ""
        wrapped = f" in a `:begin_tab:`{', '.join(sorted(tab))}`` text tab" if tab else ""
        out.append(Finding.make(
            Code.REF_LINK,
            f"no link like {pattern}{shown} in this section: add this language's own{wrapped} "
            f"(the source's is {url})",
            lang, name, where, source=Location(source.path, line), diff=(("", url),),
            subject=("", f"{pattern}{shown}"),
        ))  # fmt: skip
    return out
