"""Reference checks per chapter: labels, reference targets, figures and links."""

from __future__ import annotations

from collections.abc import Callable

from polybook.check.findings import Finding, Location
from polybook.check.links import check_links
from polybook.config import BookConfig
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document, Figure

_RESOLVABLE = ("numref", "ref", "eqref")
_CITES = ("cite", "citet", "citep")


def _roles(doc: Document) -> list[tuple[str, str, int]]:
    return [
        (inline.name, inline.value, inline.line or node.line)
        for node in doc.walk()
        for inline in getattr(node, "inlines", [])
        if inline.kind == "role" and inline.name in _RESOLVABLE + _CITES
    ]


def resolvable_refs(doc: Document) -> list[tuple[str, str, int]]:
    """``(role, target, line)`` of the references that must resolve to a label of the book."""
    return [(name, value, line) for name, value, line in _roles(doc) if name in _RESOLVABLE]


def unresolved_ref(
    lang: str, chapter: str, path: str, role: str, target: str, line: int, source_lang: str | None = None
) -> Finding:
    """A reference of the translation that resolves to no label of its book (and, with
    ``source_lang``, to none of the source's either: most likely a typo)."""
    where = (
        f"neither the {lang} book nor the {source_lang} source defines"
        if source_lang
        else f"the {lang} book does not define"
    )
    return Finding.make(
        Code.REF_TARGET, f":{role}:`{target}` points at a label {where}", lang, chapter,
        Location(path, line), diff=((f":{role}:`{target}`", ""),), subject=(target, ""),
    )  # fmt: skip


def check_references(
    lang: str,
    chapter: str,
    source: Document,
    target: Document,
    place: Callable[[int], int],
    localised: tuple[str, ...] = (),
    common: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Labels, references, figures and links of one chapter against its source.

    Whether a reference resolves depends on the whole book; :func:`unresolved_ref` is
    applied once every chapter's labels are known. What the translation lacks is reported
    where it belongs (``place`` maps a source line to the translation).
    """
    out: list[Finding] = []

    def here(source_line: int) -> Location:
        return Location(target.path, place(source_line))

    for name in source.labels.keys() - target.labels.keys():
        label = source.labels[name]
        out.append(Finding.make(
            Code.REF_LABEL, f"label {name!r} ({label.kind}) of the source is missing here", lang, chapter,
            here(label.line),
            source=Location(source.path, label.line), diff=(("", f":label:`{name}`"),), subject=("", name),
        ))  # fmt: skip
    for name in target.labels.keys() - source.labels.keys():
        label = target.labels[name]
        out.append(Finding.make(
            Code.REF_LABEL, f"label {name!r} is not in the source chapter", lang, chapter,
            Location(target.path, label.line), diff=((f":label:`{name}`", ""),), subject=(name, ""),
        ))  # fmt: skip
    s_roles, t_roles = _roles(source), _roles(target)
    t_targets = {(n, v) for n, v, _ in t_roles}
    for name, value, line in s_roles:
        if (name, value) not in t_targets:
            t_targets.add((name, value))  # once per target
            out.append(Finding.make(
                Code.REF_TARGET, f":{name}:`{value}` of the source is missing here", lang, chapter, here(line),
                source=Location(source.path, line), diff=(("", f":{name}:`{value}`"),), subject=("", f"{name}:{value}"),
            ))  # fmt: skip
    out.extend(_check_figures(lang, chapter, source, target, here))
    out.extend(check_links(lang, chapter, source, target, here, localised, common))
    return out


def _check_figures(
    lang: str, chapter: str, source: Document, target: Document, here: Callable[[int], Location]
) -> list[Finding]:
    """Figures paired by label, else by image path; their path and size must agree."""
    s_figs = [f for f in source.walk() if isinstance(f, Figure)]
    t_figs = [f for f in target.walk() if isinstance(f, Figure)]
    pairs: list[tuple[Figure, Figure]] = []
    for key in (lambda f: f.label, lambda f: f.src):
        for s in list(s_figs):
            t = next((t for t in t_figs if key(t) and key(t) == key(s)), None)
            if t is not None:
                pairs.append((s, t))
                s_figs.remove(s)
                t_figs.remove(t)
    out = []
    for f in s_figs:
        out.append(Finding.make(
            Code.REF_FIGURE, f"figure {f.src} of the source is missing here", lang, chapter,
            here(f.line), source=Location(source.path, f.line), diff=(("", f.src),),
            subject=("", f.label or f.src),
        ))  # fmt: skip
    for f in t_figs:
        out.append(Finding.make(
            Code.REF_FIGURE, f"figure {f.src} is not in the source", lang, chapter,
            Location(target.path, f.line), diff=((f.src, ""),), subject=(f.label or f.src, ""),
        ))  # fmt: skip
    for s, t in pairs:
        for attr in ("src", "width", "height"):
            a, b = getattr(t, attr), getattr(s, attr)
            if a != b:
                out.append(Finding.make(
                    Code.REF_FIGURE, f"figure {s.label or s.src}: {attr} {a!r} here, {b!r} in the source", lang,
                    chapter, Location(target.path, t.line), source=Location(source.path, s.line),
                    diff=((str(a or ""), str(b or "")),), subject=(f"{attr}={a}", f"{attr}={b}"),
                ))  # fmt: skip
    return out


def _local_files(doc: Document) -> list[tuple[str, int]]:
    """``(path, line)`` of the figures, images and links of ``doc`` that name a local file."""
    found = [(node.src, node.line) for node in doc.walk() if isinstance(node, Figure)]
    found += [
        (inline.value, inline.line or node.line)
        for node in doc.walk()
        for inline in getattr(node, "inlines", [])
        if inline.kind in ("image", "link")
    ]
    out = []
    for ref, line in found:
        path = ref.split("#")[0].split("?")[0]
        if path and ":" not in path and not path.startswith(("/", "data:")):
            out.append((path, line))
    return out


def resource_fallbacks(config: BookConfig, lang: str, chapter: str, target: Document) -> list[Finding]:
    """Files the translation takes from the source language (it has no copy of its own), as
    info; the subject is the file, so the merge keeps one finding per language and file."""
    out = []
    for ref, line in _local_files(target):
        found = config.locate(lang, chapter, ref)
        if found is None or not found[1]:
            continue
        shown = found[0].relative_to(config.chapters_dir.resolve()).as_posix()
        out.append(Finding.make(
            Code.REF_FALLBACK, f"{ref!r} is not in the {lang} book: the source language's {shown} is used",
            lang, chapter, Location(target.path, line), subject=(shown, ""),
        ))  # fmt: skip
    return out
