"""Labels the source renamed or dropped since a translation's base, for its references.

A translation refers to the labels of the text it was made from. When the source relabels a
section (d2l 1.0: ``sec_language_model`` -> ``sec_language-model``), every reference to the old
name, in any document of any language that follows the source, must take the new one; a
reference to a label the source dropped (``chap_linear``) can only be mended by a translator,
so the port says where it is, ``file:line``. A rename is known, in order of trust:

1. from the labelled block itself, paired with its base by content
   (:func:`.port_document.book_renamed_labels`);
2. from the source's own references: a block paired with its base whose references changed one
   for one to a label of the same kind (the source wrote ``:numref:`sec_mlp``` where its base
   had ``sec_mlp_concise``);
3. from the spelling: the one label of the source that is the old one but for case, ``-`` and
   ``_`` (``subsec_activation_functions`` -> ``subsec_activation-functions``).

Each is taken only when it names one new label (two documents relabelling one label differently
rename nothing) and only for an old label the source defines nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from polybook.dialect.nodes import Document, Node
from polybook.sync.port_document import book_renamed_labels

#: The roles that name a label.
REFERENCE_ROLES = ("numref", "ref", "eqref")
#: A reference role and its target, in a document's text (as :mod:`.source_parts` reads them).
_REFERENCE = re.compile(r":(numref|eqref|ref):`([^`<>]+)`")
_COMMENT_START, _COMMENT_END = "<!--", "-->"


def label_renames(
    carried: Iterable[tuple[Mapping[int, tuple[Node, bool]], Document]],
    sources: Iterable[Document],
    referred: Iterable[str] = (),
) -> dict[str, str]:
    """``old label -> new label`` over the whole book: ``carried``, each source document with its
    blocks' bases (:func:`.port_document.base_to_source`); ``referred``, labels the translations
    refer to (their spelling may be all that says what became of them)."""
    sources = list(sources)
    carried = list(carried)
    defined = {label for source in sources for label in source.labels}
    renamed = book_renamed_labels(carried, sources)
    for old, new in _by_references(carried, defined).items():
        renamed.setdefault(old, new)
    spelled: dict[str, list[str]] = {}
    for label in defined:
        spelled.setdefault(_spelling(label), []).append(label)
    for old in referred:
        same = spelled.get(_spelling(old), [])
        if old not in defined and old not in renamed and len(same) == 1:
            renamed[old] = same[0]
    return renamed


_Carried = list[tuple[Mapping[int, tuple[Node, bool]], Document]]


def _by_references(carried: _Carried, defined: set[str]) -> dict[str, str]:
    """Renames the source's own references show: a block whose references, one for one, name the
    same labels as its base's but where the base's is gone and the source's is defined."""
    found: dict[str, set[str]] = {}
    for bases, source in carried:
        for node in source.walk():
            base_node, _ = bases.get(id(node), (None, False))
            if base_node is None:
                continue
            old, new = _references(base_node), _references(node)
            if len(old) != len(new):
                continue
            for before, after in zip(old, new, strict=True):
                if before != after and before not in defined and after in defined and _same_kind(before, after):
                    found.setdefault(before, set()).add(after)
    return {old: next(iter(new)) for old, new in found.items() if len(new) == 1}


def _same_kind(old: str, new: str) -> bool:
    """Whether two labels name the same kind of thing by their prefix (``sec_``, ``chap_``,
    ``fig_``, ``eq_``...): where the source now refers to a section instead of a chapter
    (``chap_linear`` -> ``sec_linear_scratch``) it rewrote what it says, which a translation
    that still says "chapter" does not follow."""
    return re.split(r"[-_]", old, maxsplit=1)[0] == re.split(r"[-_]", new, maxsplit=1)[0]


def _references(node: Node) -> list[str]:
    return [i.value for i in getattr(node, "inlines", ()) if i.kind == "role" and i.name in REFERENCE_ROLES]


def _spelling(label: str) -> str:
    """A label as it reads whatever its case and separators."""
    return re.sub(r"[-_\s]+", "_", label.lower())


def referred_labels(documents: Iterable[Document]) -> set[str]:
    """The labels ``documents`` refer to (their :data:`REFERENCE_ROLES`)."""
    return {target for document in documents for node in document.walk() for target in _references(node)}


def dangling(text: str, shown: Path | str, defined: set[str]) -> list[str]:
    """``file:line: :role:`label``` for each reference of ``text`` -- not in an HTML comment (a
    port's mark, an aside: no reader sees it) -- to a label none of ``defined`` is (a reference
    the source makes itself: pass its target in ``defined``, the source's fault is not the
    translation's)."""
    out: list[str] = []
    in_comment = False
    for number, line in enumerate(text.split("\n"), 1):
        visible, in_comment = _visible(line, in_comment)
        for match in _REFERENCE.finditer(visible):
            said = f"{shown}:{number}: {match.group(0)} names a label the source no longer has"
            if match.group(2) not in defined and said not in out:
                out.append(said)
    return out


def _visible(line: str, in_comment: bool) -> tuple[str, bool]:
    """What of ``line`` is outside HTML comments, and whether a comment is open after it."""
    out = []
    rest = line
    while rest:
        if in_comment:
            end = rest.find(_COMMENT_END)
            if end < 0:
                return "".join(out), True
            rest, in_comment = rest[end + len(_COMMENT_END) :], False
        else:
            start = rest.find(_COMMENT_START)
            if start < 0:
                out.append(rest)
                break
            out.append(rest[:start])
            rest, in_comment = rest[start + len(_COMMENT_START) :], True
    return "".join(out), in_comment
