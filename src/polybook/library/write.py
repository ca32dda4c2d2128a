"""The text of one framework's module, as d2lbook 1.0.3 writes it, with where each line comes from.

Layout: whatever the existing file holds above its WARNING line (the hand-written header), the
generated header, the saved blocks joined by a blank line -- a function decorated with
``@d2l.add_to_class(C)`` moved into class ``C``'s block --, then the aliases from conf.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from polybook.config import FrameworkLibrary
from polybook.diagnostics import Code, Diagnostic
from polybook.library.collect import ADD_TO_CLASS, ADD_TO_CLASS_RE, SavedBlock, split_list

#: The line that ends the hand-written header; d2lbook's, so its files are read the same way.
WARNING = "#################   WARNING   ################"
GENERATED = (
    f"{WARNING}\n# The below part is generated automatically through:\n#    polybook build lib\n"
    "# Don't edit it directly\n\n"
)
ALIAS_COMMENT = "# Alias defined in conf.py"
_CLASS_RE = re.compile(r"class +(\w+)")
_ALIAS_COMMENT_RE = re.compile(r"# Alias defined in \S+$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Wording:
    """The words of the generated header and of the alias comment."""

    generated: str = GENERATED
    alias_comment: str = ALIAS_COMMENT


def wording_of(existing: str | None) -> Wording:
    """The generated header and the alias comment as an existing module words them: d2lbook's
    say ``d2lbook build lib`` and ``config.ini``. Kept, so a book that moves to polybook gets no
    change to its library files from comments alone (and ``lib.stale`` compares code)."""
    if existing is None:
        return Wording()
    generated = GENERATED
    lines = existing.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == WARNING), None)
    if start is not None and len(lines) > start + 4:
        head = "".join(lines[start : start + 5])
        if (
            lines[start + 1].startswith("# The below part is generated")
            and lines[start + 2].rstrip().endswith(" build lib")
            and lines[start + 3].startswith("# Don't edit")
            and not lines[start + 4].strip()
        ):
            generated = head
    comment = _ALIAS_COMMENT_RE.search(existing)
    return Wording(generated, comment[0] if comment else ALIAS_COMMENT)


@dataclass(frozen=True, slots=True)
class ModuleText:
    """A module's text, the block each of its lines comes from (None: header, aliases), problems."""

    text: str
    origins: tuple[SavedBlock | None, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


def custom_header(existing: str | None) -> str | None:
    """The lines above the WARNING line of an existing module; None when it has no such line."""
    if existing is None:
        return ""
    lines = existing.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.strip() == WARNING:
            return "".join(lines[:index])
    return None


def module_text(
    header: str, blocks: list[SavedBlock], library: FrameworkLibrary, wording: Wording | None = None
) -> ModuleText:
    """The module: ``header``, the generated header, ``blocks`` merged, the aliases."""
    wording = wording or Wording()
    merged, problems = merge_blocks(blocks)
    generated = wording.generated
    lines: list[tuple[str, SavedBlock | None]] = [(line, None) for line in (header + generated).split("\n")[:-1]]
    body: list[tuple[str, SavedBlock | None]] = []
    for index, block in enumerate(merged):
        if index:
            body.append(("", None))
        body.extend(block)
    text = header + generated + "\n".join(line for line, _ in body)
    lines.extend(body)
    aliases = alias_text(library)
    if aliases:
        text += f"\n\n\n{wording.alias_comment}\n{aliases}\n\n"
    if not text.endswith("\n"):
        text += "\n"  # d2lbook leaves a module without aliases unterminated
    origins = [origin for _, origin in lines]
    origins += [None] * (text.count("\n") - len(origins))
    return ModuleText(text, tuple(origins), tuple(problems))


def merge_blocks(blocks: list[SavedBlock]) -> tuple[list[list[tuple[str, SavedBlock]]], list[Diagnostic]]:
    """The blocks' lines, a function added with ``@d2l.add_to_class(C)`` moved to the end of the
    latest block that starts with ``class C`` (indented, after a blank line), as d2lbook does."""
    merged: list[list[tuple[str, SavedBlock]]] = []
    classes: dict[str, int] = {}
    problems: list[Diagnostic] = []
    for block in blocks:
        lines = block.code.split("\n")
        if lines[0].startswith("class"):
            merged.append([(line, block) for line in lines])
            if m := _CLASS_RE.match(lines[0]):
                classes[m[1]] = len(merged) - 1
            continue
        parts = split_list(lines, lambda line: line.startswith(ADD_TO_CLASS))
        if len(parts) == 1:
            merged.append([(line, block) for line in lines])
            continue
        if parts[0]:
            merged.append([(line, block) for line in parts[0]])
        for part in parts[1:]:
            m = ADD_TO_CLASS_RE.search(part[0])
            owner = m[1].split(".")[-1] if m else None
            if owner is None or owner not in classes:
                what = f"class {owner!r}" if owner else f"{part[0].strip()!r}"
                message = f"{what}: no #@save code before this one defines the class to add the function to"
                problems.append(Diagnostic.make(block.path, block.line, Code.LIB_CLASS, message))
                continue
            target = merged[classes[owner]]
            target.append(("", block))
            target.extend(("    " + line, block) for line in part[1:])
    return merged, problems


def alias_text(library: FrameworkLibrary) -> str:
    """The alias lines d2lbook writes for a framework ('' for none)."""
    text = ""
    if library.alias is not None:
        text += library.alias.strip() + "\n"
    name = library.lib_name
    if name is None:
        return text
    for a, b in library.simple_alias or ():
        text += f"\n{a.removesuffix('(')} = {name}.{b.removesuffix('(')}"
    if library.fluent_alias is not None:
        calls = (f"{a} = lambda x, *args, **kwargs: x.{b}(*args, **kwargs)" for a, b in library.fluent_alias)
        text += "\n" + "\n".join(calls)
    for a, b in library.args_alias or ():
        text += f"\ndef {a}:\n    return {b}"
    return text


def versioned(text: str, release: str) -> tuple[str, bool]:
    """``text`` with every line holding ``__version__`` set to ``release``; whether one did."""
    lines = text.split("\n")
    found = False
    for index, line in enumerate(lines):
        if "__version__" in line:
            lines[index], found = f'__version__ = "{release}"', True
    return "\n".join(lines), found
