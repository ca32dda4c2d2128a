"""The import finds the numbered links a translation has its own of (``localised_links``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from polybook.config import load_config
from polybook.importer.links import documents, family, own_links
from test_import import PROJECTS, run

THREAD = "\n[Discussions](https://forum.example.org/t/{})\n"


def write(folder: Path, chapters: dict[str, str]) -> dict[str, Path]:
    for name, text in chapters.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return documents(folder)


def test_a_numbered_links_family() -> None:
    assert family("https://forum.example.org/t/26") == "https://forum.example.org/t/*"
    assert family("https://forum.example.org/t/26/") == "https://forum.example.org/t/*"
    assert family("https://forum.example.org/latest") is None


def test_threads_of_its_own_in_nearly_every_chapter_are_a_languages_own(tmp_path: Path) -> None:
    source = write(tmp_path / "en", {f"c{i}.md": "Text." + THREAD.format(i) for i in range(4)})
    own = write(tmp_path / "zh", {f"c{i}.md": "文本。" + THREAD.format(1000 + i) for i in range(4)})
    copied = write(tmp_path / "ja", {f"c{i}.md": "テキスト。" + THREAD.format(i) for i in range(4)})
    (found,) = own_links(source, own)
    assert (found.pattern, found.own, found.chapters) == ("https://forum.example.org/t/*", 4, 4)
    assert own_links(source, copied) == []  # the source's threads: compared link by link


def test_one_thread_changed_is_no_habit(tmp_path: Path) -> None:
    source = write(tmp_path / "en", {f"c{i}.md": THREAD.format(i) for i in range(5)})
    slip = write(tmp_path / "pt", {f"c{i}.md": THREAD.format(i if i else 99) for i in range(5)})
    few = write(tmp_path / "tr", {f"c{i}.md": THREAD.format(100 + i) for i in range(2)})
    assert own_links(source, slip) == []
    assert own_links(source, few) == []  # two chapters are too few to tell


def test_an_origin_file_is_not_a_document(tmp_path: Path) -> None:
    found = write(tmp_path, {"a.md": "x", "a_origin.md": "y", "README.md": "z"})
    assert list(found) == ["README.md", "a.md"]
    assert list(documents(tmp_path, ["README.md"])) == ["a.md"]


def _projects(root: Path) -> dict[str, Path]:
    """Copies of the fixture projects whose ja chapters link to ja's own forum threads."""
    out = {}
    for lang in ("en", "ja"):
        out[lang] = shutil.copytree(PROJECTS / lang, root / "projects" / lang)
    for i, name in enumerate(["index.md", "chapter_basics/index.md", "chapter_basics/counting.md"]):
        for lang, number in (("en", i + 1), ("ja", 500 + i)):
            with (out[lang] / name).open("a", encoding="utf-8") as handle:
                handle.write(THREAD.format(number))
    return out


def test_the_import_writes_the_families_in_either_order(tmp_path: Path) -> None:
    projects = _projects(tmp_path)
    for order in (("en", "ja"), ("ja", "en")):
        book = tmp_path / "-".join(order)
        book.mkdir()
        outputs = {}
        for lang in order:
            code, outputs[lang] = run(book, str(projects[lang]), "--lang", lang)
            assert code == 0, outputs[lang]
        assert load_config(book / "conf.py").localised_links == ("https://forum.example.org/t/*",)
        said = outputs[order[1]]  # found once both are in
        assert "links like https://forum.example.org/t/* are ja's own (none of en's in 3 of 3 chapters)" in said
