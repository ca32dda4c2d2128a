"""`polybook check` and the book's own library: a translated #@save cell that differs, a
committed module `polybook build lib` would change, a translation's own copy of a module."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config
from polybook.library import collect_library

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["alpha"],
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語"}},
    "library": {"frameworks": {"alpha": {"lib_file": "mylib/alpha.py"}}},
}
"""
INDEX = "# Book\n\n```toc\n:numbered:\nbasics\n```\n"
BASICS = """\
# Basics
:label:`sec_basics`

Some prose.

```{.python .input}
x = 1
```

```{.python .input}
def double(x):  #@save
    return 2 * x
```
"""


def book(tmp_path: Path, ja_basics: str = BASICS) -> Path:
    for lang, text in (("en", BASICS), ("ja", ja_basics)):
        folder = tmp_path / "chapters" / lang
        folder.mkdir(parents=True)
        (folder / "index.md").write_text(INDEX, encoding="utf-8")
        (folder / "basics.md").write_text(text, encoding="utf-8")
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    return tmp_path / "conf.py"


def findings(conf: Path) -> list[tuple[str, str, int]]:
    result = check_book(load_book(load_config(conf)))
    return [(str(f.code), f.primary.path, f.primary.line) for f in result.active if not str(f.code).startswith("stale")]


def committed(conf: Path) -> Path:
    """Write the module the book gives, as `polybook build lib` does; return its path."""
    module = collect_library(load_book(load_config(conf)))["alpha"]
    module.target.parent.mkdir(parents=True, exist_ok=True)
    module.target.write_text(module.text, encoding="utf-8")
    return module.target


def test_a_translated_saved_cell_that_differs_is_its_own_error(tmp_path: Path) -> None:
    conf = book(tmp_path, BASICS.replace("return 2 * x", "return x + x").replace("x = 1", "x = 2"))
    committed(conf)
    found = findings(conf)
    ja = [(code, line) for code, path, line in found if path.endswith("chapters/ja/basics.md")]
    assert ja == [("code.changed", 7), ("code.saved", 12)]  # x = 2 is only code; the saved function, another library


def test_a_stale_committed_module_names_the_definition_and_its_chapter_line(tmp_path: Path) -> None:
    conf = book(tmp_path)
    target = committed(conf)
    assert findings(conf) == []
    target.write_text(target.read_text(encoding="utf-8").replace("return 2 * x", "return 3 * x"), encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    (stale,) = [f for f in result.active if str(f.code) == "lib.stale"]
    assert stale.primary.path.endswith("chapters/en/mylib/alpha.py") and "'double'" in stale.message
    assert stale.source is not None and stale.source.path.endswith("chapters/en/basics.md") and stale.source.line == 11


def own_copy(tmp_path: Path, target: Path) -> Path:
    """ja's own copy of the module, as a translation's project carries one; return its path."""
    copy = tmp_path / "chapters" / "ja" / "mylib" / "alpha.py"
    copy.parent.mkdir()
    copy.write_text(target.read_text(encoding="utf-8"), encoding="utf-8")
    return copy


def test_a_translations_own_copy_that_differs_is_reported(tmp_path: Path) -> None:
    conf = book(tmp_path)
    copy = own_copy(tmp_path, committed(conf))
    assert findings(conf) == []  # the same as the book's: fine
    copy.write_text(copy.read_text(encoding="utf-8").replace("2 * x", "x * 2"), encoding="utf-8")
    (found,) = [f for f in check_book(load_book(load_config(conf))).active if str(f.code) == "lib.copy"]
    assert found.lang == "ja" and found.primary.path.endswith("chapters/ja/mylib/alpha.py")


def test_kept_library_findings_follow_the_module_the_copy_and_the_saved_code(tmp_path: Path) -> None:
    conf = book(tmp_path)
    target = committed(conf)
    copy = own_copy(tmp_path, target)

    def kept_codes() -> list[str]:
        result = check_book(load_book(load_config(conf), cached=True), cached=True)
        return sorted(str(f.code) for f in result.active if str(f.code).startswith("lib."))

    assert kept_codes() == [] and kept_codes() == []
    store = tmp_path / "build" / ".polybook" / "findings" / "library"
    assert len(list(store.glob("*.pickle"))) == 1  # the second check read the first's
    target.write_text(target.read_text(encoding="utf-8").replace("return 2 * x", "return 3 * x"), encoding="utf-8")
    assert kept_codes() == ["lib.stale"]  # the committed module changed: checked again
    target.write_text(target.read_text(encoding="utf-8").replace("return 3 * x", "return 2 * x"), encoding="utf-8")
    assert kept_codes() == []
    copy.write_text(copy.read_text(encoding="utf-8").replace("2 * x", "x * 2"), encoding="utf-8")
    assert kept_codes() == ["lib.copy"]
    source = tmp_path / "chapters" / "en" / "basics.md"
    source.write_text(source.read_text(encoding="utf-8").replace("return 2 * x", "return 4 * x"), encoding="utf-8")
    assert kept_codes() == ["lib.copy", "lib.stale"]  # the #@save code changed: the module is stale


def test_a_module_is_compared_as_code_not_as_text(tmp_path: Path) -> None:
    """What d2lbook wrote differently from polybook -- its header's wording, blank lines, where a
    comment sits -- and docstrings a translation translated are no difference."""
    conf = book(tmp_path)
    target = committed(conf)
    text = target.read_text(encoding="utf-8")
    assert "polybook build lib" in text and "return 2 * x" in text
    target.write_text(text.replace("polybook build lib", "d2lbook build lib").replace("\n\n\n", "\n"), encoding="utf-8")
    copy = own_copy(tmp_path, target)
    translated = text.replace('"""Defined in', '"""二倍にする。\n\n    定義').replace("2 * x", "2 * x  # 説明")
    copy.write_text(translated, encoding="utf-8")
    assert findings(conf) == []


def test_a_copy_that_differs_in_code_names_the_definition_and_its_line(tmp_path: Path) -> None:
    conf = book(tmp_path)
    copy = own_copy(tmp_path, committed(conf))
    text = copy.read_text(encoding="utf-8")
    copy.write_text(text.replace("return 2 * x", "return x + x  # 同じ"), encoding="utf-8")
    (found,) = [f for f in check_book(load_book(load_config(conf))).active if str(f.code) == "lib.copy"]
    line = text.split("\n").index("def double(x):") + 1
    assert found.primary.line == line
    assert found.message.startswith(f"ja's own alpha module differs from the book's library in code at line {line}: ")
    assert "'double' differs, defined at " in found.message and "chapters/en/basics.md:11; " in found.message
    assert found.message.endswith("remove it to use the book's (polybook build lib)")


def test_a_change_to_lines_a_saved_cell_does_not_save_is_no_library_change(tmp_path: Path) -> None:
    """``#@save`` on a function saves the function; a line after it, at the margin, is the
    notebook's own (d2lbook saves only what the mark reaches)."""
    en = BASICS.replace("    return 2 * x\n", "    return 2 * x\n\ndouble(1)\n")
    conf = book(tmp_path, en.replace("double(1)", "double(2)"))
    (tmp_path / "chapters" / "en" / "basics.md").write_text(en, encoding="utf-8")
    committed(conf)
    ja = [(code, line) for code, path, line in findings(conf) if path.endswith("chapters/ja/basics.md")]
    assert ja == [("code.changed", 14)]


def test_a_module_only_a_translation_has_is_checked_from_that_language_alone(tmp_path: Path) -> None:
    """A check of only the modules a translation gives (d2l-zh's PaddlePaddle) loads that
    language, not the source language beside it: the same findings as from the whole book."""
    from polybook.check.library import kept_library_findings

    conf = book(tmp_path, BASICS + "\n```{.python .input}\n#@tab beta\ndef triple(x):  #@save\n    return 3 * x\n```\n")
    conf.write_text(
        CONF.replace('"frameworks": ["alpha"]', '"frameworks": ["alpha", "beta"]')
        .replace('"English"}', '"English", "frameworks": ["alpha"]}')
        .replace('"mylib/alpha.py"}}', '"mylib/alpha.py"}, "beta": {"lib_file": "mylib/beta.py"}}'),
        encoding="utf-8",
    )
    config = load_config(conf)
    assert list(config.languages["ja"].frameworks) == ["alpha", "beta"]
    whole = kept_library_findings(config, ["ja"], tmp_path / "a", lambda: load_book(config, cached=True), ("beta",))
    alone = kept_library_findings(config, ["ja"], tmp_path / "b", None, ("beta",))
    assert alone == whole and [str(f.code) for f in alone] == ["lib.stale"]
    assert "beta.py" in alone[0].primary.path


def test_the_library_reads_only_the_documents_that_can_give_it_code_and_the_same_modules(tmp_path: Path) -> None:
    """:func:`library_book` leaves out the documents with no ``@save`` and no toc: the same toc,
    the same modules (and the same report of a document no toc reaches) as the whole language."""
    from polybook.library.build import library_book

    conf = book(tmp_path)
    en = tmp_path / "chapters" / "en"
    (en / "prose.md").write_text("# Prose\n\nNo code.\n", encoding="utf-8")
    (en / "lost.md").write_text(BASICS.replace("double", "lost").replace("sec_basics", "sec_lost"), encoding="utf-8")
    (en / "index.md").write_text(INDEX.replace("basics\n", "basics\nprose\n"), encoding="utf-8")
    config = load_config(conf)
    whole, alone = load_book(config, ["en"], cached=True), library_book(config, ["en"])
    assert sorted(alone.chapters["en"]) == ["basics", "index", "lost"]
    assert alone.tocs["en"].order == whole.tocs["en"].order == ["index", "basics", "prose"]
    assert alone.names == whole.names
    assert collect_library(alone) == collect_library(whole)
    assert [d.code for d in collect_library(alone)["alpha"].diagnostics].count("lib.unreached") == 1


def test_a_copy_that_only_moves_a_statement_lacks_nothing(tmp_path: Path) -> None:
    """pt's torch.py defines DATA_HUB further down than the book's: not "missing here"."""
    double = "def double(x):  #@save\n    return 2 * x"
    conf = book(tmp_path, BASICS.replace(double, "HUB = {}  #@save\n\n" + double))
    en = tmp_path / "chapters" / "en" / "basics.md"
    en.write_text(en.read_text(encoding="utf-8").replace(double, "HUB = {}  #@save\n\n" + double), encoding="utf-8")
    copy = own_copy(tmp_path, committed(conf))
    text = copy.read_text(encoding="utf-8")
    assert text.index("HUB = {}") < text.index("def double")
    moved = text.replace("HUB = {}\n", "") + "\nHUB = {}\n"
    copy.write_text(moved, encoding="utf-8")
    (found,) = [f for f in check_book(load_book(load_config(conf))).active if str(f.code) == "lib.copy"]
    assert "the same code in another order ('HUB' stands elsewhere here)" in found.message
    copy.write_text(moved.replace("return 2 * x", "return x + x"), encoding="utf-8")
    (found,) = [f for f in check_book(load_book(load_config(conf))).active if str(f.code) == "lib.copy"]
    assert "'double' differs" in found.message and "missing" not in found.message


def test_a_copy_that_is_another_version_of_the_library_is_told_so_once(tmp_path: Path) -> None:
    """pt's d2l copy differs from the book's in over a hundred definitions: what to do is about the
    file, not a list of 141 more places."""
    conf = book(tmp_path)
    copy = own_copy(tmp_path, committed(conf))
    extra = "".join(f"\n\ndef old_{k}(x):\n    return x + {k}\n" for k in range(5))
    copy.write_text(copy.read_text(encoding="utf-8") + extra, encoding="utf-8")
    (found,) = [f for f in check_book(load_book(load_config(conf))).active if str(f.code) == "lib.copy"]
    assert found.message.startswith("ja's own alpha module is another version of the book's library (5 top-level ")
    assert "more place" not in found.message
    assert found.message.endswith("remove it to use the book's (polybook build lib)")


def test_the_copy_of_a_language_that_follows_an_older_edition_is_not_compared_with_todays(tmp_path: Path) -> None:
    """ja follows an edition whose library its chapters call (d2l.train_ch3, which the source has
    dropped since): removing its copy for today's library would break them."""
    conf = book(tmp_path)
    copy = own_copy(tmp_path, committed(conf))
    copy.write_text(copy.read_text(encoding="utf-8").replace("return 2 * x", "return x + x"), encoding="utf-8")
    edition = tmp_path / "editions" / "en-0.1"
    edition.mkdir(parents=True)
    (edition / "basics.md").write_text(BASICS, encoding="utf-8")
    text = CONF.replace('"name": "日本語"}', '"name": "日本語", "base": "0.1"}')
    text = text.replace('"library":', '"editions": {"0.1": {"folder": "editions/en-0.1"}},\n    "library":')
    conf.write_text(text, encoding="utf-8")
    assert [f for f in check_book(load_book(load_config(conf))).active if str(f.code) == "lib.copy"] == []
