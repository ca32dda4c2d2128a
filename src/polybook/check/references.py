"""Reference checks per chapter: labels, reference targets, figures and links."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from difflib import get_close_matches

from polybook.check.findings import Finding, Location
from polybook.check.labels import MISSING, check_labels, check_roles
from polybook.check.links import check_links
from polybook.check.segments import by_identity, inlines_of, walked
from polybook.config import BookConfig
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document, Figure

_RESOLVABLE = ("numref", "ref", "eqref")
_CITES = ("cite", "citet", "citep")


@by_identity  # the source's, for every language; the translation's, for check_chunk too
def _roles(doc: Document) -> list[tuple[str, str, int]]:
    """``(role, target, line)`` of the references and citations, each target as it resolves: a
    role the parser recovered from damage (``: numref: ` x```, reported as such) without the
    spaces around its target, a citation's keys without the spaces after their commas."""
    return [
        (inline.name, _target(inline.name, inline.value, inline.damaged), line)
        for inline, line in inlines_of(doc)
        if inline.kind == "role" and inline.name in _RESOLVABLE + _CITES
    ]


def _target(role: str, value: str, damaged: bool) -> str:
    if role in _CITES:
        return ",".join(key.strip() for key in value.split(","))
    return value.strip() if damaged else value


def resolvable_refs(doc: Document) -> list[tuple[str, str, int]]:
    """``(role, target, line)`` of the references that must resolve to a label of the book."""
    return [(name, value, line) for name, value, line in _roles(doc) if name in _RESOLVABLE]


def unresolved_ref(
    lang: str,
    name: str,
    path: str,
    role: str,
    target: str,
    line: int,
    source_lang: str | None = None,
    known: Collection[str] = (),
) -> Finding:
    """A reference of the translation that resolves to no label of its book (and, with
    ``source_lang``, to none of the source's either: most likely a typo, and the label of
    ``known`` it most looks like is named)."""
    if source_lang:
        where = f"neither the {lang} book nor the {source_lang} source defines: {_suggest(target, known)}"
    else:
        where = f"the {lang} book does not define: give the {lang} chapter the source's label it lacks"
    return Finding.make(
        Code.REF_TARGET, f":{role}:`{target}` points at a label {where}", lang, name,
        Location(path, line), diff=((f":{role}:`{target}`", ""),), subject=(target, ""),
    )  # fmt: skip


def not_yet_here(findings: list[Finding], labels: dict[str, set[str]]) -> list[Finding]:
    """``findings`` with each reference of the source missing from a translation whose book has
    no such label yet saying so, for added alone it would point at nothing: the source's
    chapter holding it is not translated (zh's ``calculus`` without :numref:`sec_integral_calculus`
    of the appendix), or it is, without the label (its ``ref.label``, named)."""
    lacking = {(f.lang, f.subject[1]): f.primary for f in findings if f.code is Code.REF_LABEL and f.subject[1]}
    out = []
    for f in findings:
        if f.code is not Code.REF_TARGET or f.subject[0] or not f.message.endswith(MISSING):
            out.append(f)
            continue
        role, _, target = f.subject[1].partition(":")
        if role in _RESOLVABLE and target not in labels.get(f.lang, ()):
            where = lacking.get((f.lang, target))
            if where is not None:  # its chapter is translated, without the label: add both
                message = f":{role}:`{target}` {MISSING}, with the label it points at, which {where} lacks too"
            else:
                message = f":{role}:`{target}` of the source is missing here, and no {f.lang} chapter has its label "
                message += "yet (the chapter holding it is not translated): add it with that chapter"
            f = replace(f, message=message)
        out.append(f)
    return out


def _suggest(target: str, known: Collection[str]) -> str:
    close = get_close_matches(target.strip(), list(known), n=1, cutoff=0.75)
    return f"did you mean {close[0]!r}?" if close else "write a label the book defines"


def check_references(
    lang: str,
    name: str,
    source: Document,
    translation: Document,
    place: Callable[[int], int],
    localised: tuple[str, ...] = (),
    common: frozenset[str] = frozenset(),
    at: Callable[[int], float] | None = None,
) -> list[Finding]:
    """Labels, references, figures and links of one chapter against its source.

    Whether a reference resolves depends on the whole book; :func:`unresolved_ref` is
    applied once every chapter's labels are known. What the translation lacks is reported
    where it belongs (``place`` maps a source line to the translation).
    """
    out: list[Finding] = []

    def here(source_line: int) -> Location:
        return Location(translation.path, place(source_line))

    out += check_labels(lang, name, source, translation, here)
    out += check_roles(lang, name, _roles(source), _roles(translation), source, translation, here, at)
    out.extend(_check_figures(lang, name, source, translation, here))
    out.extend(check_links(lang, name, source, translation, here, localised, common))
    return out


@by_identity
def _figures(doc: Document) -> list[Figure]:
    return [f for f in walked(doc) if isinstance(f, Figure)]


def _check_figures(
    lang: str, name: str, source: Document, translation: Document, here: Callable[[int], Location]
) -> list[Finding]:
    """Figures paired by label, else by image path; their path and size must agree."""
    s_figs, t_figs = list(_figures(source)), list(_figures(translation))
    pairs: list[tuple[Figure, Figure]] = []
    for key in (lambda f: f.label, lambda f: f.src):
        for s in list(s_figs):
            t = next((t for t in t_figs if key(t) and key(t) == key(s)), None)
            if t is not None:
                pairs.append((s, t))
                s_figs.remove(s)
                t_figs.remove(t)
    inline = {i.value: line for i, line in inlines_of(translation) if i.kind == "image"}
    out = []
    for f in s_figs:
        message = f"figure {f.src} of the source is missing here: add it"
        where = here(f.line)
        if f.src in inline:  # an image inside a paragraph: the figure's line holds more than the figure
            message = f"figure {f.src} of the source is here inside a paragraph, not a figure of its own: put "
            message += f"`![…]({f.src})` on a line of its own" + (", and its :label: on the next" if f.label else "")
            where = Location(translation.path, inline[f.src])
        out.append(Finding.make(
            Code.REF_FIGURE, message, lang, name, where, source=Location(source.path, f.line),
            diff=(("", f.src),), subject=("", f.label or f.src),
        ))  # fmt: skip
    for f in t_figs:
        out.append(Finding.make(
            Code.REF_FIGURE, f"figure {f.src} is not in the source: remove it, unless the translation adds it on "
            "purpose", lang, name, Location(translation.path, f.line), diff=((f.src, ""),),
            subject=(f.label or f.src, ""),
        ))  # fmt: skip
    for s, t in pairs:
        for attr in ("src", "width", "height"):
            a, b = getattr(t, attr), getattr(s, attr)
            if a != b:
                out.append(Finding.make(
                    Code.REF_FIGURE,
                    f"figure {s.label or s.src}: {attr} {a!r} here, {b!r} in the source: write the source's", lang,
                    name, Location(translation.path, t.line), source=Location(source.path, s.line),
                    diff=((str(a or ""), str(b or "")),), subject=(f"{attr}={a}", f"{attr}={b}"),
                ))  # fmt: skip
    return out


def _local_files(doc: Document) -> list[tuple[str, int]]:
    """``(path, line)`` of the figures, images and links of ``doc`` that name a local file."""
    found = [(node.src, node.line) for node in _figures(doc)]
    found += [(inline.value, line) for inline, line in inlines_of(doc) if inline.kind in ("image", "link")]
    out = []
    for ref, line in found:
        path = ref.split("#")[0].split("?")[0]
        if path and ":" not in path and not path.startswith(("/", "data:")):
            out.append((path, line))
    return out


def resource_fallbacks(config: BookConfig, lang: str, name: str, translation: Document) -> list[Finding]:
    """Files the translation takes from the source language (it has no copy of its own), as
    info; the subject is the file, so the merge keeps one finding per language and file."""
    out = []
    folder = config.document_path(lang, name).parent
    for ref, line in _local_files(translation):
        if (folder / ref).is_file():
            continue  # the translation's own file (what config.locate finds first, resolving the path)
        found = config.locate(lang, name, ref)
        if found is None or not found[1]:
            continue
        shown = found[0].relative_to(config.chapters_dir.resolve()).as_posix()
        out.append(Finding.make(
            Code.REF_FALLBACK,
            f"{ref!r} is not in the {lang} book: the source language's {shown} is used; copy it into the {lang} "
            "folder only to translate its words",
            lang, name, Location(translation.path, line), subject=(shown, ""),
        ))  # fmt: skip
    return out
