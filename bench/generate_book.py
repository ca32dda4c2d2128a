"""Generate a realistic nested book from the bundled chapter: N chapters x M sections x every language.

The languages, their titles and the other settings come from the repository's conf.py; the
text comes from the bundled chapter ``async-computation`` in each language. The book is laid
out as d2l is::

    conf.py                                   the repository's settings + bibfile, kernel polybook
                                              (no library: the sections save no code)
    chapters/<lang>/index.md                  title + a :numbered: toc of chapter_NN/index
    chapters/<lang>/chapter_NN/index.md       a labelled heading, a paragraph, a toc of its sections
    chapters/<lang>/chapter_NN/<chapter>-MM.md  the bundled chapter, labels made unique per section
    chapters/<lang>/chapter_references/zreferences.md  the references page (unnumbered, last)
    chapters/<source>/img/*                   the bundled figures (translations fall back to them)
    chapters/<source>/book.bib                the bibliography (translations fall back to it)
    chapters/<lang>/polybook-sync.json        every translation synced with today's source

Each section references a section and a figure of another section (``:numref:``) and cites
keys of ``book.bib``. Its code differs from every other section's (a loop bound and a
constant), and is the same in every language, so ``polybook check`` finds nothing and
``build eval`` shares each program across the languages. One translation carries its own copy
of one figure, the others use the source's. With ``--git`` the book is a git repository whose
sync records name its first commit, as ``polybook sync --write`` leaves a real book.

    .venv/bin/python bench/generate_book.py OUT --chapters 17 --sections 10 [--seed 0] [--git]
"""

from __future__ import annotations

import argparse
import ast
import pprint
import random
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook.book import load_book
from polybook.check.staleness import SyncRecord, write_lock
from polybook.config import BookConfig, load_config
from polybook.files import file_sha256
from polybook.stage.i18n import text as ui_text

ROOT = Path(__file__).resolve().parent.parent
#: The bundled chapter every section is made from (it has figures, labels, both frameworks' cells).
BUNDLED = "async-computation"
BIBFILE = "book.bib"
#: The references page, listed unnumbered after the chapters as in d2l.
REFERENCES = "chapter_references/zreferences"
KERNEL = "polybook"
_HEADING_RE = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)
#: The bundled chapter's code lines that the generator varies per section (same in every language).
_MXNET_LOOP = "for _ in range(10000):"
_RESULT = "z = x * y + 2"
_SURNAMES = ("Smith", "Tanaka", "Silva", "Wang", "Yilmaz", "Garcia", "Kim", "Novak", "Okafor", "Dubois")
_TOPICS = ("asynchronous execution", "dependency graphs", "frontend and backend design", "parallel kernels")


@dataclass(frozen=True, slots=True)
class Bundled:
    """The bundled chapter: its name, its text per language, its labels and figure labels."""

    name: str
    texts: dict[str, str]
    labels: list[str]
    figure_labels: list[str]
    section_label: str


@dataclass(frozen=True, slots=True)
class Section:
    """One generated section: where it is and the suffix that makes its labels unique."""

    chapter: int
    number: int  # within its chapter, from 1
    index: int  # within the book, from 1
    document: str  # chapter_NN/<name>-MM

    @property
    def tag(self) -> str:
        return f"c{self.chapter:02d}_s{self.number:02d}"


def bundled_chapter(config: BookConfig, name: str = BUNDLED) -> Bundled:
    """The repository's chapter ``name`` in every language, and its labels by kind."""
    book = load_book(config, [config.source_language], {name})
    if name not in book.chapters[config.source_language]:
        raise SystemExit(f"{config.path}: the source language has no document {name!r}")
    texts = {code: config.document_path(code, name).read_text(encoding="utf-8") for code in config.languages}
    labels = book.chapters[config.source_language][name].labels  # the parser knows each label's kind
    figure_labels = [label for label, found in labels.items() if found.kind == "figure"]
    section_label = next(label for label, found in labels.items() if found.kind == "heading")
    return Bundled(name, texts, list(labels), figure_labels, section_label)


def unique_labels(text: str, labels: list[str], tag: str) -> str:
    """Every label of ``labels`` (and every reference to one) suffixed with ``_<tag>``."""
    pattern = re.compile(r"(:(?:label|numref|ref|eqref):`)(" + "|".join(map(re.escape, labels)) + r")(`)")
    return pattern.sub(lambda m: f"{m[1]}{m[2]}_{tag}{m[3]}", text)


def vary_code(text: str, section: Section) -> str:
    """The section's own code: a loop bound and a constant that no other section has."""
    if _RESULT not in text:
        raise ValueError(f"the bundled chapter has no {_RESULT!r} to vary per section")
    text = text.replace(_MXNET_LOOP, f"for _ in range({10000 + section.index}):")
    return text.replace(_RESULT, f"z = x * y + {section.index + 1}")


def first_paragraph(text: str) -> tuple[int, int]:
    """(start, end) offsets of the first paragraph after the title and its label."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("# "))
    at += 1
    while at < len(lines) and (not lines[at].strip() or lines[at].startswith(":label:")):
        at += 1
    end = at
    while end < len(lines) and lines[end].strip():
        end += 1
    start = sum(len(line) + 1 for line in lines[:at])
    return start, sum(len(line) + 1 for line in lines[:end]) - 1


def append_to_first_paragraph(text: str, addition: str) -> str:
    _, end = first_paragraph(text)
    return text[:end].rstrip() + addition + text[end:]


def section_text(
    text: str, bundled: Bundled, section: Section, others: list[Section], keys: list[str], rng: random.Random
) -> str:
    """The bundled chapter as ``section``: unique labels, its own code, references out."""
    text = vary_code(unique_labels(text, bundled.labels, section.tag), section)
    if not others:
        return text
    refs = [f":numref:`{bundled.section_label}_{rng.choice(others).tag}`"]
    if bundled.figure_labels:
        refs.append(f":numref:`{rng.choice(bundled.figure_labels)}_{rng.choice(others).tag}`")
    cited = ",".join(sorted(rng.sample(keys, min(len(keys), rng.randint(1, 2)))))
    return append_to_first_paragraph(text, " " + " ".join(refs) + f" :cite:`{cited}`")


def chapter_index(text: str, bundled: Bundled, chapter: int, sections: list[Section]) -> str:
    """A chapter's index: a heading of the bundled chapter (cycled), its first paragraph, a toc."""
    titles = _HEADING_RE.findall(text) or [text.split("\n", 1)[0].lstrip("# ")]
    start, end = first_paragraph(text)
    paragraph = text[start:end].rstrip()
    paragraph += f" :numref:`{bundled.section_label}_{sections[0].tag}`"
    entries = "\n".join(s.document.split("/", 1)[1] for s in sections)
    return (
        f"# {titles[(chapter - 1) % len(titles)]}\n:label:`chap_{chapter:02d}`\n\n{paragraph}\n\n"
        f"```toc\n:maxdepth: 2\n\n{entries}\n```\n"
    )


def root_index(title: str, chapters: int) -> str:
    """The numbered chapters, then the unnumbered references page, as d2l's index has them."""
    entries = "\n".join(f"chapter_{c:02d}/index" for c in range(1, chapters + 1))
    numbered = f"```toc\n:maxdepth: 2\n:numbered:\n\n{entries}\n```\n"
    return f"# {title}\n\n{numbered}\n```toc\n:maxdepth: 1\n\n{REFERENCES}\n```\n"


def references_page(language: str) -> str:
    """d2l's ``zreferences``: a heading and ``:bibliography:`` (the page listing every cited work)."""
    depth = REFERENCES.count("/")
    return f"# {ui_text(language, 'references')}\n\n:bibliography:`{'../' * depth}{BIBFILE}`\n"


def bibliography(count: int, rng: random.Random) -> tuple[str, list[str]]:
    """A BibTeX file of ``count`` invented articles, and their keys."""
    entries, keys = [], []
    for number in range(1, count + 1):
        first, second = rng.sample(_SURNAMES, 2)
        year = 2000 + rng.randrange(25)
        key = f"{first.lower()}.{second.lower()}.{year}.{number}"
        keys.append(key)
        entries.append(
            f"@article{{{key},\n  author = {{{first}, A. and {second}, B.}},\n"
            f"  title = {{Notes on {rng.choice(_TOPICS)}, part {number}}},\n"
            f"  journal = {{Journal of Generated Examples}},\n  volume = {{{1 + number % 9}}},\n"
            f"  pages = {{{number}--{number + 12}}},\n  year = {{{year}}}\n}}\n"
        )
    return "\n".join(entries), keys


def conf_text(repo_conf: Path) -> str:
    """The repository's conf.py settings, with the bibliography, the kernel and folders of the book."""
    tree = ast.parse(repo_conf.read_text(encoding="utf-8"))
    values: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                values[stmt.targets[0].id] = ast.literal_eval(stmt.value)
            except ValueError:
                continue
    settings = values.setdefault("polybook", {})
    settings.pop("library", None)  # the sections save no code (#@save): the installed d2l serves them
    settings.update({"chapters": "chapters", "build_dir": "build", "bibfile": BIBFILE})
    execution = settings.setdefault("execution", {})
    execution.update({"kernel": KERNEL, "cache_dir": "build/cache"})
    lines = ["# A generated book (bench/generate_book.py): the repository's conf.py settings.", ""]
    lines += [f"{name} = {pprint.pformat(value, sort_dicts=False, width=100)}" for name, value in values.items()]
    return "\n".join(lines) + "\n"


def generate_book(out: Path, chapters: int, sections: int, seed: int = 0, *, git: bool = False) -> Path:
    """Write the book into ``out`` (replacing its chapters and conf.py); return its conf.py.

    ``git``: make ``out`` a git repository whose translations are synced with its first
    commit, as ``polybook sync --write`` leaves a real book (the status page then asks git)."""
    if chapters < 1 or sections < 1:
        raise ValueError("a book needs at least one chapter of one section")
    repo = load_config(ROOT / "conf.py")
    bundled = bundled_chapter(repo)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "chapters", ignore_errors=True)
    conf = out / "conf.py"
    conf.write_text(conf_text(repo.path), encoding="utf-8")
    book_sections = [
        Section(c, s, (c - 1) * sections + s, f"chapter_{c:02d}/{bundled.name}-{s:02d}")
        for c in range(1, chapters + 1)
        for s in range(1, sections + 1)
    ]
    bib, keys = bibliography(max(4, 2 * chapters), random.Random(seed))
    for code, language in repo.languages.items():
        write_language(out / "chapters" / code, language.title, bundled.texts[code], bundled, book_sections, keys, seed)
    copy_figures(repo, out / "chapters")
    (out / "chapters" / repo.source_language / BIBFILE).write_text(bib, encoding="utf-8")
    config = load_config(conf)
    write_locks(config, commit_all(out, "A generated book") if git else None)
    if git:
        commit_all(out, "Translations synced with the source")
    return conf


def write_language(
    folder: Path, title: str, text: str, bundled: Bundled, book_sections: list[Section], keys: list[str], seed: int
) -> None:
    """One language's documents: the root index, the chapters' indexes, the sections."""
    folder.mkdir(parents=True)
    chapters = sorted({s.chapter for s in book_sections})
    (folder / "index.md").write_text(root_index(title, len(chapters)), encoding="utf-8")
    (folder / REFERENCES).parent.mkdir(parents=True)
    (folder / f"{REFERENCES}.md").write_text(references_page(folder.name), encoding="utf-8")  # folder: lang
    for chapter in chapters:
        own = [s for s in book_sections if s.chapter == chapter]
        (folder / f"chapter_{chapter:02d}").mkdir()
        index = chapter_index(text, bundled, chapter, own)
        (folder / f"chapter_{chapter:02d}" / "index.md").write_text(index, encoding="utf-8")
        for section in own:
            others = [s for s in book_sections if s is not section]
            draw = random.Random(f"{seed}:{section.document}")  # the same draws in every language
            page = section_text(text, bundled, section, others, keys, draw)
            (folder / f"{section.document}.md").write_text(page, encoding="utf-8")


def copy_figures(repo: BookConfig, chapters: Path) -> None:
    """The bundled figures into the source language's img/; the first translation gets its
    own copy of one of them (the others fall back to the source's)."""
    figures = chapters / repo.source_language / "img"
    shutil.copytree(repo.chapters_dir / "img", figures)
    if repo.translations:
        own = chapters / repo.translations[0] / "img"
        own.mkdir()
        for figure in sorted(p for p in figures.iterdir() if p.suffix == ".svg")[-1:]:
            shutil.copy2(figure, own / figure.name)


def write_locks(config: BookConfig, commit: str | None) -> None:
    """Every translation synced with today's source (at ``commit``, when there is one)."""
    source = config.source_language
    names = config.document_names(source)
    for code in config.translations:
        records = {name: SyncRecord(commit, file_sha256(config.document_path(source, name))) for name in names}
        write_lock(config.chapters_dir / code, source, records)


def commit_all(folder: Path, message: str) -> str:
    """Commit everything in ``folder`` (a repository, made if needed); the new commit's hash."""
    identity = ["-c", "user.name=generate_book", "-c", "user.email=generate_book@example.invalid"]

    def git(*args: str) -> str:
        return subprocess.run(["git", *identity, *args], cwd=folder, check=True, capture_output=True, text=True).stdout

    if not (folder / ".git").exists():
        git("init", "-q")
    (folder / ".gitignore").write_text("build/\n", encoding="utf-8")
    git("add", "-A")
    git("commit", "-q", "-m", message)
    return git("rev-parse", "HEAD").strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="folder of the new book (its chapters and conf.py are replaced)")
    parser.add_argument("--chapters", type=int, default=17)
    parser.add_argument("--sections", type=int, default=10, help="sections per chapter")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--git", action="store_true", help="a git repository, translations synced with a commit")
    args = parser.parse_args()
    conf = generate_book(args.out, args.chapters, args.sections, args.seed, git=args.git)
    config = load_config(conf)
    documents = sum(len(config.document_names(code)) for code in config.languages)
    print(f"{conf}: {args.chapters} chapters x {args.sections} sections x {len(config.languages)} languages")
    print(f"{documents} documents ({', '.join(config.languages)}), source {config.source_language}")


if __name__ == "__main__":
    main()
