"""Recall of `polybook check` on a real book: drifts injected into its translations, told where?

Copies BOOK_DIR (an imported book: conf.py + chapters/), checks the copy once as it is, then per
seed injects one drift of each kind into each translation, each in another document and at a
random place of a passage the check found nothing at (no finding within 5 lines, glossary and
staleness notes aside), checks again and counts, per kind, the drifts a finding tells within 5
lines of the drifted line that the clean document did not have there (:func:`caught`), and those
a new finding tells anywhere in the document. The documents are restored before the next seed.

Kinds: a code literal changed, a code line deleted, a keyword argument's value changed, a
formula's symbol changed, a formula swapped with another formula of the same chapter (formulas of
small numbers included), a number in prose changed, one framework's cell removed, a cell's
``#@tab`` changed to another framework, a reference moved to another label or a label removed.
Code is drifted only in cells that run for a framework of the source (not zh's paddle-only cells,
which the source cannot tell), as cells are removed and ``#@tab`` changed only for those. Only
documents the source has (today, in the edition the language follows, or as the translation's
``X_origin.md``) are drifted, and only
numbers of prose the source's document says (zh's list of its own contributors is no drift from
the source; ``0,15`` is one number, not a ``15``).

    PYTHONPATH=src .venv/bin/python bench/check_recall.py BOOK_DIR [--seeds 4] [--misses FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from polybook.check.staleness import origin_file
from polybook.config import load_config
from polybook.dialect import parse_file
from polybook.dialect.nodes import CodeCell, DisplayMath, Document, Paragraph, TextTab

WITHIN = 5
QUIET = ("polybook.terms.", "polybook.stale.", "polybook.structure.chapter")  # notes, not about a place
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\w)")
_KWARG = re.compile(r"[(,]\s*([a-z_]\w*)=([^,()=\s][^,()=]*?)\s*(?=[,)])")
_INLINE_MATH = re.compile(r"(?<![$\\])\$([^$\n]+)\$(?!\$)")
_SYMBOL = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z](?![a-zA-Z])")
_REF = re.compile(r":(numref|ref|eqref):`([^`<>]+)`")
_PART_OF_NUMBER = re.compile(r"\d[.,]$")
_PART_OF_NUMBER_AFTER = re.compile(r"[.,]\d")
_MASK = re.compile(r"`[^`]*`|\$[^$]*\$|\]\([^)]*\)|:\w+:|https?://\S+|\[[^\]]*\]")


@dataclass(slots=True)
class Drift:
    kind: str
    lang: str
    path: Path  # the document's file
    line: int  # 1-based line of the document, after the edit, where the drift stands
    what: str
    shift: int = 0  # lines the edit added (negative: removed), after the drift's line


@dataclass(slots=True)
class Place:
    """One way to drift a document: the edited lines and where the drift then stands."""

    line: int  # 1-based, before the edit
    edit: Callable[[list[str]], list[str]]
    at: int  # 1-based, after the edit
    what: str


def _code_lines(cell: CodeCell) -> list[int]:
    """The 1-based lines of a cell's code that hold code (not a comment, a marker or a blank)."""
    out = []
    for i, text in enumerate(cell.code.split("\n")):
        stripped = text.strip()
        if stripped and not stripped.startswith(("#", "%", "!")) and not stripped.startswith(('"""', "'''")):
            out.append(cell.code_line + i)
    return out


def _code_part(text: str) -> str:
    return text.split("  #")[0].split(" # ")[0]


def _cells(doc: Document, frameworks: list[str] | None = None) -> list[CodeCell]:
    """The document's cells; with ``frameworks``, those running for one of them (zh's paddle-only
    cells have nothing in the source to be compared with)."""
    out: list[CodeCell] = []

    def visit(nodes):
        for node in nodes:
            if isinstance(node, CodeCell) and node.frameworks and node.closed:
                if frameworks is not None and not any(fw in frameworks for fw in node.frameworks):
                    continue
                out.append(node)
            elif isinstance(node, TextTab):
                visit(node.children)

    visit(doc.nodes)
    return out


def _paragraphs(doc: Document) -> list[Paragraph]:
    out: list[Paragraph] = []

    def visit(nodes):
        for node in nodes:
            if isinstance(node, Paragraph):
                out.append(node)
            elif isinstance(node, TextTab):
                visit(node.children)

    visit(doc.nodes)
    return out


def _set(line: int, new: str) -> Callable[[list[str]], list[str]]:
    def edit(lines: list[str]) -> list[str]:
        return [*lines[: line - 1], new, *lines[line:]]

    return edit


def _drop(first: int, last: int) -> Callable[[list[str]], list[str]]:
    def edit(lines: list[str]) -> list[str]:
        return [*lines[: first - 1], *lines[last:]]

    return edit


def _other_number(rng: random.Random, value: str) -> str:
    """Another number than ``value`` (``0.0`` scaled is ``0.0``: it becomes ``1.0``)."""
    if "." in value:
        new = str(round(float(value) * rng.choice([2, 10, 0.5]), 6))
        return new if float(new) != float(value) else "1.0"
    n = int(value)
    return str(rng.choice([n + 1, n * 2, n + 10]) if n else 1)


def code_literal(doc, lines, rng, frameworks) -> list[Place]:
    out = []
    for cell in _cells(doc, frameworks):
        for line in _code_lines(cell):
            text = lines[line - 1]
            for m in _NUMBER.finditer(_code_part(text)):
                if text[max(0, m.start() - 1)] in "[":  # an index: too often same-valued
                    continue
                new = _other_number(rng, m.group())
                out.append(
                    Place(line, _set(line, text[: m.start()] + new + text[m.end() :]), line, f"{m.group()}→{new}")
                )
    return out


def code_line_deleted(doc, lines, rng, frameworks) -> list[Place]:
    out = []
    for cell in _cells(doc, frameworks):
        code = _code_lines(cell)
        if len(code) < 3:
            continue
        for line in code:
            text = lines[line - 1]
            if text.rstrip().endswith((":", "(", "[", "{", ",", "\\")) or text.strip() in (")", "]", "}"):
                continue
            out.append(Place(line, _drop(line, line), line, f"deleted {text.strip()[:40]!r}"))
    return out


def keyword_value(doc, lines, rng, frameworks) -> list[Place]:
    out = []
    for cell in _cells(doc, frameworks):
        for line in _code_lines(cell):
            text = lines[line - 1]
            for m in _KWARG.finditer(_code_part(text)):
                value = m.group(2)
                if _NUMBER.fullmatch(value):
                    new = _other_number(rng, value)
                elif value in ("True", "False"):
                    new = "False" if value == "True" else "True"
                elif value.isidentifier():
                    new = value + "2"
                else:  # a string: a translator may translate it (a plot's label)
                    continue
                edited = text[: m.start(2)] + new + text[m.end(2) :]
                out.append(Place(line, _set(line, edited), line, f"{m.group(1)}={value}→{new}"))
    return out


def _formulas(doc: Document, lines: list[str]) -> list[tuple[int, int, int, str]]:
    """Every formula of ``doc`` as (line, start, end, tex): inline in prose, or a display's line."""
    out = []
    for para in _paragraphs(doc):
        for line in range(para.line, para.end_line + 1):
            for m in _INLINE_MATH.finditer(lines[line - 1]):
                out.append((line, m.start(1), m.end(1), m.group(1)))
    for node in doc.nodes:
        if isinstance(node, DisplayMath):
            for line in range(node.line, node.end_line + 1):
                text = lines[line - 1]
                body = text.strip().strip("$").strip()
                if body and not body.startswith(":") and "\\label" not in body:
                    start = text.index(body)
                    out.append((line, start, start + len(body), body))
    return out


def formula_symbol(doc, lines, rng, frameworks) -> list[Place]:
    out = []
    for line, start, end, tex in _formulas(doc, lines):
        symbols = [m for m in _SYMBOL.finditer(tex)]
        if not symbols:
            continue
        m = rng.choice(symbols)
        unused = [c for c in "abcdeghkmnpqrstuvwxyzABCDGHKMNPQRSTUVWXYZ" if c not in tex]
        new = rng.choice(unused)
        edited_tex = tex[: m.start()] + new + tex[m.end() :]
        text = lines[line - 1]
        out.append(
            Place(line, _set(line, text[:start] + edited_tex + text[end:]), line, f"{tex[:30]}: {m.group()}→{new}")
        )
    return out


def _bare(tex: str) -> str:
    return re.sub(r"\s+", "", tex)


def formula_swap(doc, lines, rng, frameworks) -> list[Place]:
    formulas = [f for f in _formulas(doc, lines) if f[0] <= len(lines)]
    out = []
    for line, start, end, tex in formulas:
        others = [f[3] for f in formulas if _bare(f[3]) != _bare(tex) and abs(f[0] - line) > WITHIN]
        if not others:
            continue
        new = rng.choice(others)
        text = lines[line - 1]
        out.append(Place(line, _set(line, text[:start] + new + text[end:]), line, f"{tex[:25]}→{new[:25]}"))
    return out


def prose_number(doc, lines, rng, frameworks, source_text: str = "") -> list[Place]:
    out = []
    for para in _paragraphs(doc):
        for line in range(para.line, para.end_line + 1):
            text = lines[line - 1]
            masked = _MASK.sub(lambda m: "\0" * len(m.group()), text)
            for m in _NUMBER.finditer(masked):
                if "." in m.group() or int(m.group()) <= 12:
                    continue
                if _PART_OF_NUMBER.search(masked[: m.start()]) or _PART_OF_NUMBER_AFTER.match(masked, m.end()):
                    continue  # a decimal's or a grouped number's digits (``0,15``, ``10.000``)
                if not re.search(rf"(?<![\d.,]){m.group()}(?![\d]|[.,]\d)", source_text):
                    continue  # a number the source does not say: changing it is no drift from the source
                new = str(int(m.group()) + rng.choice([1, 2, 10, 100]))
                out.append(
                    Place(line, _set(line, text[: m.start()] + new + text[m.end() :]), line, f"{m.group()}→{new}")
                )
    return out


def cell_removed(doc, lines, rng, frameworks) -> list[Place]:
    """One framework's cell taken out, where the document has cells of other frameworks."""
    cells = _cells(doc)
    tabbed = {fw for cell in cells for fw in cell.frameworks if fw in frameworks}
    out = []
    if len(tabbed) < 2:
        return out
    for cell in cells:
        if len(cell.frameworks) != 1 or cell.frameworks[0] not in frameworks:
            continue
        last = cell.end_line + (1 if cell.end_line < len(lines) and not lines[cell.end_line].strip() else 0)
        out.append(
            Place(cell.line, _drop(cell.line, last), cell.line, f"{cell.frameworks[0]} cell of line {cell.line}")
        )
    return out


def tab_changed(doc, lines, rng, frameworks) -> list[Place]:
    out = []
    for cell in _cells(doc):
        if cell.tab is None or len(cell.frameworks) != 1 or cell.frameworks[0] not in frameworks:
            continue
        line = cell.code_line - 1  # the #@tab line
        text = lines[line - 1]
        if "#@tab" not in text:
            continue
        others = [fw for fw in frameworks if fw != cell.frameworks[0]]
        new = rng.choice(others)
        out.append(Place(line, _set(line, text.replace(cell.tab, new, 1)), line, f"#@tab {cell.tab}→{new}"))
    return out


def reference_moved(doc, lines, rng, frameworks) -> list[Place]:
    out = []
    labels = sorted(doc.labels)
    for para in _paragraphs(doc):
        for line in range(para.line, para.end_line + 1):
            text = lines[line - 1]
            for m in _REF.finditer(text):
                same = [x for x in labels if x != m.group(2) and x.split("_")[0] == m.group(2).split("_")[0]]
                if not same:
                    continue
                new = rng.choice(same)
                edited = text[: m.start(2)] + new + text[m.end(2) :]
                out.append(Place(line, _set(line, edited), line, f"{m.group(2)}→{new}"))
    for name, label in doc.labels.items():
        text = lines[label.line - 1]
        if text.strip() == f":label:`{name}`" and label.kind != "orphan":
            out.append(Place(label.line, _drop(label.line, label.line), label.line, f"label {name} removed"))
        elif f":label:`{name}`" in text or f":eqlabel:`{name}`" in text:
            edited = re.sub(r"\s*:(eq)?label:`" + re.escape(name) + "`", "", text)
            if edited != text:
                out.append(Place(label.line, _set(label.line, edited), label.line, f"label {name} removed"))
    return out


KINDS: dict[str, Callable[..., list[Place]]] = {
    "code literal": code_literal,
    "code line deleted": code_line_deleted,
    "keyword value": keyword_value,
    "formula symbol": formula_symbol,
    "formula swap": formula_swap,
    "prose number": prose_number,
    "cell removed": cell_removed,
    "#@tab changed": tab_changed,
    "reference moved/label removed": reference_moved,
}


def run_check(book: Path, out: Path) -> list[dict]:
    cmd = [sys.executable, "-c", "from polybook.cli import run; run()", "check", "--format", "json", "-o", str(out)]
    env = dict(os.environ)  # a relative PYTHONPATH (``src``) would be read from the book's folder
    env["PYTHONPATH"] = os.pathsep.join(
        str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p
    )
    subprocess.run(cmd, cwd=book, check=False, stdout=subprocess.DEVNULL, env=env)
    return json.loads(out.read_text(encoding="utf-8"))["findings"]


def _placed(findings: list[dict], root: Path) -> dict[Path, list[dict]]:
    out: dict[Path, list[dict]] = defaultdict(list)
    for f in findings:
        where = f.get("location")
        if where and not f["code"].startswith(QUIET) and not f.get("suppressed"):
            out[(root / where["path"]).resolve()].append(f)
    return out


def _clean(line: int, found: list[dict], size: int) -> bool:
    return 1 < line < size and all(abs(f["location"]["line"] - line) > WITHIN for f in found)


def _source_of(config, lang: str, name: str) -> str | None:
    """The text of the source's documents ``name`` is compared with (today's, the edition's the
    language follows, the ``X_origin.md`` it was made from), None when there is none: a drift
    there is none."""
    paths = [config.document_path(config.source_language, name), origin_file(config.document_path(lang, name))]
    edition = config.languages[lang].base
    if edition is not None:
        paths.append(config.edition_path(edition, name))
    texts = [p.read_text(encoding="utf-8") for p in paths if p.is_file()]
    return "\n".join(texts) if texts else None


def inject(root: Path, config, rng: random.Random, before: dict[Path, list[dict]], langs: list[str]) -> list[Drift]:
    """One drift of each kind in each of ``langs``, each in a document of its own."""
    drifts = []
    used: set[Path] = set()
    for lang in langs:
        offered = config.languages[config.source_language].frameworks  # what there is to compare with
        frameworks = [fw for fw in config.languages[lang].frameworks if fw in offered]
        names = config.document_names(lang)
        for kind, places_of in KINDS.items():
            for name in rng.sample(names, len(names)):
                path = config.document_path(lang, name).resolve()
                source = _source_of(config, lang, name)
                if path in used or not path.exists() or source is None:
                    continue
                text = path.read_text(encoding="utf-8")
                lines = text.split("\n")
                doc = parse_file(path, config.languages[lang].settings)
                found = (
                    places_of(doc, lines, rng, frameworks, source)
                    if places_of is prose_number
                    else places_of(doc, lines, rng, frameworks)
                )
                places = [p for p in found if _clean(p.line, before[path], len(lines))]
                if not places:
                    continue
                place = rng.choice(places)
                edited = place.edit(lines)
                path.write_text("\n".join(edited), encoding="utf-8")
                used.add(path)
                drifts.append(Drift(kind, lang, path, place.at, place.what, len(edited) - len(lines)))
                break
    return drifts


def caught(drift: Drift, before: dict[Path, list[dict]], after: dict[Path, list[dict]]) -> tuple[bool, bool, bool]:
    """(told within 5 lines, told anywhere in the document, told within 5 lines by a finding
    whose fingerprint the clean document lacks).

    Told within 5 lines: by a finding there that the clean document did not have there -- a new
    fingerprint, or one the clean document had elsewhere (the check's pairing moved it: the
    source's "32" told missing at another paragraph, now "says 32 where this says 132" at the
    drift). Drifts stand where the clean document had no finding within 5 lines, so the test is
    whether a finding there is the drift's; the edit's added or removed lines are accounted for."""

    def was(line: int) -> int:  # a line of the clean document, where it stands after the edit
        return line + drift.shift if line > drift.line else line

    def near(f: dict, line: int | None = None) -> bool:
        return abs((f["location"]["line"] if line is None else line) - drift.line) <= WITHIN

    old = Counter(f["fingerprint"] for f in before[drift.path])
    new = []
    for f in after[drift.path]:
        if old[f["fingerprint"]] > 0:
            old[f["fingerprint"]] -= 1
        else:
            new.append(f)
    there = Counter(f["fingerprint"] for f in before[drift.path] if near(f, was(f["location"]["line"])))
    placed = False
    for f in after[drift.path]:
        if near(f):
            if there[f["fingerprint"]] > 0:
                there[f["fingerprint"]] -= 1
            else:
                placed = True
    strict = any(near(f) for f in new)
    return placed or strict, bool(new) or placed, strict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--langs", nargs="*", default=None)
    parser.add_argument("--work", type=Path, default=None, help="copy the book here (default: a temporary folder)")
    parser.add_argument("--misses", type=Path, default=None, help="write the drifts not told within 5 lines here")
    args = parser.parse_args()
    with work_folder(args.work, "check-recall-") as work:
        _measure(args, work)


@contextmanager
def work_folder(given: Path | None, prefix: str) -> Iterator[Path]:
    """``given`` (``--work``: the book's copy kept there), else a temporary folder, gone after:
    each run copies the book (some hundred megabytes of a d2l book)."""
    if given is not None:
        yield given
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


def _measure(args: argparse.Namespace, work: Path) -> None:
    root = work / args.book.name
    if not root.exists():
        shutil.copytree(args.book, root, symlinks=True)
    config = load_config(root / "conf.py")
    langs = args.langs or [lang for lang in config.languages if lang != config.source_language]
    before = _placed(run_check(root, work / "before.json"), root)
    near: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    strictly: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses = []
    for seed in range(args.seeds):
        rng = random.Random(seed)
        saved: dict[Path, str] = {}
        for lang in langs:  # remember every translation's text to put it back
            for name in config.document_names(lang):
                path = config.document_path(lang, name).resolve()
                saved[path] = path.read_text(encoding="utf-8")
        drifts = inject(root, config, rng, before, langs)
        after = _placed(run_check(root, work / f"seed{seed}.json"), root)
        for drift in drifts:
            is_near, is_any, is_new = caught(drift, before, after)
            total[drift.kind] += 1
            near[drift.kind] += is_near
            anywhere[drift.kind] += is_any
            strictly[drift.kind] += is_new
            if not is_near:
                misses.append(f"seed {seed} {drift.kind} {drift.path.relative_to(root)}:{drift.line} {drift.what}")
        for path, text in saved.items():
            if path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
    print(f"{'kind':32} {'n':>4} {'within 5':>9} {'anywhere':>9} {'new fp':>7}")
    for kind in KINDS:
        n = total[kind]
        if n:
            print(f"{kind:32} {n:4d} {near[kind] / n:9.0%} {anywhere[kind] / n:9.0%} {strictly[kind] / n:7.0%}")
    n = sum(total.values())
    print(
        f"{'all':32} {n:4d} {sum(near.values()) / n:9.1%} {sum(anywhere.values()) / n:9.1%}"
        f" {sum(strictly.values()) / n:7.1%}"
    )
    print("(new fp: within 5 lines by a fingerprint the clean document lacks altogether, the earlier measure)")
    if args.misses:
        args.misses.write_text("\n".join(misses) + "\n", encoding="utf-8")
    else:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
