"""`polybook build lib`: the book's own library from its #@save code, as d2lbook builds it.

The book is a tiny one written here: frameworks alpha (the default tab) and beta in English,
gamma only in the Chinese translation; helpers saved in chapter_basics, used in chapter_uses.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.cli import main
from polybook.config import ConfigError, load_config
from polybook.files import display_path
from polybook.library import SavedLibrary, collect_library, library_status
from polybook.library.collect import save_lines
from polybook.library.write import WARNING

CONF = """\
project = "Tiny"
release = "1.2.3"

polybook = {
    "source_language": "en",
    "frameworks": ["alpha", "beta", "gamma"],
    "default_tab": "alpha",
    "languages": {"en": {"name": "English", "frameworks": ["alpha", "beta"]}, "zh": {"name": "中文"}},
    "library": {
        "version_file": "tiny/__init__.py",
        "frameworks": {
            "alpha": {
                "lib_file": "tiny/alpha.py",
                "lib_name": "math",
                "simple_alias": "sqrt, power -> pow",
                "fluent_alias": "upper, lower -> casefold",
                "alias": "half = lambda x: x / 2",
            },
            "beta": {"lib_file": "tiny/beta.py"},
            "gamma": {"lib_file": "tiny/gamma.py"},
        },
    },
}
"""

INDEX = """\
# Tiny

```toc
:numbered:
chapter_basics/helpers
chapter_basics/more
chapter_uses
```
"""

HELPERS = '''\
# Helpers
:label:`sec_helpers`

Every framework imports these.

```{.python .input}
#@tab all
#@save
import sys
import collections
from os import path
d2l = sys.modules[__name__]
```

Alpha's double (an untagged cell is alpha's, the default tab).

```{.python .input}
def double(x):  #@save
    """Twice x."""
    return 2 * x

print(double(2))
```

```{.python .input}
#@tab beta
#@save
def double(x):
    return x + x
```
GAMMA
## Counting
:label:`subsec_counting`

The label right above a cell is not the one its note names: d2lbook skips the cell before.

```{.python .input}
#@tab alpha, beta
class Counter:  #@save
    """Counts."""
    def __init__(self):
        self.n = 0
```

```{.python .input}
#@tab all
#@save
def count_all(items):
    return len(items)
```
'''

MORE = """\
# More
:label:`sec_more`

A counter counts up.

```{.python .input}
#@tab all
c = Counter()
```

```{.python .input}
#@tab all
@d2l.add_to_class(Counter)  #@save
def bump(self):
    self.n += 1
```
"""

USES = """\
# Uses

```{.python .input}
#@tab all
print(double(3), count_all([1, 2]))
```
"""

GAMMA_CELL = """
```{.python .input}
#@tab gamma
#@save
def double(x):
    return x * 2
```
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def book_root(tmp_path: Path) -> Path:
    chapters = {"index.md": INDEX, "chapter_basics/more.md": MORE, "chapter_uses.md": USES}
    for lang in ("en", "zh"):
        gamma = GAMMA_CELL if lang == "zh" else ""
        write(tmp_path / "chapters" / lang, {**chapters, "chapter_basics/helpers.md": HELPERS.replace("GAMMA", gamma)})
    write(tmp_path, {"conf.py": CONF, "chapters/en/tiny/__init__.py": '"""Tiny."""\n__version__ = "0.0.0"\n'})
    return tmp_path


def libraries(root: Path) -> dict[str, SavedLibrary]:
    return collect_library(load_book(load_config(root / "conf.py")))


def build(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--conf", str(root / "conf.py"), "build", "lib", *args])
    return result.exit_code, result.output


def generated(text: str) -> str:
    """The part below the generated header."""
    return text.split("# Don't edit it directly\n\n", 1)[1]


def test_blocks_per_framework_in_toc_order(book_root: Path) -> None:
    saved = libraries(book_root)
    assert list(saved) == ["alpha", "beta", "gamma"]
    where = {fw: [(b.document, b.line, b.definitions) for b in lib.blocks] for fw, lib in saved.items()}
    assert where["alpha"] == [
        ("chapter_basics/helpers", 8, ()),
        ("chapter_basics/helpers", 18, ("double",)),
        ("chapter_basics/helpers", 39, ("Counter",)),
        ("chapter_basics/helpers", 47, ("count_all",)),
        ("chapter_basics/more", 13, ("Counter.bump",)),
    ]
    assert [line for _, line, _ in where["beta"]] == [8, 27, 39, 47]
    assert saved["alpha"].blocks[0].location.endswith(f"chapters{os.sep}en{os.sep}chapter_basics{os.sep}helpers.md:8")


def test_a_tab_cell_is_saved_only_for_its_frameworks(book_root: Path) -> None:
    saved = libraries(book_root)
    assert "return 2 * x" in saved["alpha"].text and "return x + x" not in saved["alpha"].text
    assert "return x + x" in saved["beta"].text and "return 2 * x" not in saved["beta"].text
    assert "Counter" in saved["beta"].text and "print(" not in saved["beta"].text


def test_imports_are_sorted_and_come_first(book_root: Path) -> None:
    text = generated(libraries(book_root)["alpha"].text)
    assert text.startswith("import collections\nimport sys\nfrom os import path\n\nd2l = sys.modules[__name__]\n\n")


def test_docstring_notes_name_the_latest_section_label_before_the_previous_cell(book_root: Path) -> None:
    text = libraries(book_root)["alpha"].text
    assert 'def double(x):\n    """Twice x.\n\n    Defined in :numref:`sec_helpers`"""\n    return 2 * x\n' in text
    # the cell right before Counter holds subsec_counting: d2lbook does not look there; and the
    # note goes after the first line holding "):", here __init__'s
    assert (
        'class Counter:\n    """Counts."""\n    def __init__(self):\n        """Defined in :numref:`sec_helpers`"""'
        in text
    )
    assert 'def count_all(items):\n    """Defined in :numref:`subsec_counting`"""' in text


def test_add_to_class_moves_the_function_into_its_class(book_root: Path) -> None:
    text = libraries(book_root)["alpha"].text
    expected = (
        '        self.n = 0\n\n    def bump(self):\n        """Defined in :numref:`sec_more`"""\n        self.n += 1\n'
    )
    assert expected in text
    assert "add_to_class" not in text


def test_aliases_are_written_at_the_end(book_root: Path) -> None:
    assert libraries(book_root)["alpha"].text.endswith(
        "    return len(items)\n\n\n# Alias defined in conf.py\n"
        "half = lambda x: x / 2\n\n"
        "sqrt = math.sqrt\n"
        "power = math.pow\n"
        "upper = lambda x, *args, **kwargs: x.upper(*args, **kwargs)\n"
        "lower = lambda x, *args, **kwargs: x.casefold(*args, **kwargs)\n\n"
    )
    assert "# Alias" not in libraries(book_root)["beta"].text


def test_build_writes_once_and_keeps_the_header(book_root: Path) -> None:
    target = book_root / "chapters/en/tiny/alpha.py"
    target.write_text(f"# my own header\nimport math\n\n{WARNING}\nold generated code\n", encoding="utf-8")
    code, out = build(book_root)
    assert code == 0, out
    first = {p.name: p.read_bytes() for p in (book_root / "chapters/en/tiny").iterdir()}
    text = first["alpha.py"].decode()
    assert text.startswith(f"# my own header\nimport math\n\n{WARNING}\n# The below part is generated")
    assert "old generated code" not in text
    assert out.count("│ written") == 3 and "version file: written" in out
    assert '__version__ = "1.2.3"' in first["__init__.py"].decode()
    stamps = {p.name: p.stat().st_mtime_ns for p in (book_root / "chapters/en/tiny").iterdir()}

    code, out = build(book_root)
    assert code == 0, out
    assert "written" not in out and out.count("│ unchanged") == 3 and "version file: unchanged" in out
    assert {p.name: p.read_bytes() for p in (book_root / "chapters/en/tiny").iterdir()} == first
    assert {p.name: p.stat().st_mtime_ns for p in (book_root / "chapters/en/tiny").iterdir()} == stamps
    assert build(book_root, "--check")[0] == 0


def test_a_module_d2lbook_wrote_keeps_its_comments(book_root: Path) -> None:
    """A book moving from d2lbook: its committed module names d2lbook and config.ini in two
    comments; a rebuild keeps those words, so the only changes are code changes."""
    target = book_root / "chapters/en/tiny/alpha.py"
    assert build(book_root)[0] == 0
    ours = target.read_text(encoding="utf-8")
    assert "#    polybook build lib\n" in ours and "# Alias defined in conf.py\n" in ours
    theirs = ours.replace("#    polybook build lib", "#    d2lbook build lib").replace("in conf.py", "in config.ini")
    target.write_text(theirs, encoding="utf-8")
    code, out = build(book_root)
    assert code == 0 and "│ unchanged" in out, out
    assert target.read_text(encoding="utf-8") == theirs
    assert build(book_root, "--check")[0] == 0


def test_a_framework_only_a_translation_has_comes_from_it(book_root: Path) -> None:
    gamma = libraries(book_root)["gamma"]
    assert gamma.language == "zh"
    assert [b.document for b in gamma.blocks] == ["chapter_basics/helpers"] * 3
    assert gamma.blocks[1].path.endswith(f"zh{os.sep}chapter_basics{os.sep}helpers.md")
    assert "return x * 2" in gamma.text
    assert gamma.target == book_root / "chapters/en/tiny/gamma.py"


def test_saved_code_that_does_not_parse_is_an_error_at_its_line(book_root: Path) -> None:
    helpers = book_root / "chapters/en/chapter_basics/helpers.md"
    helpers.write_text(helpers.read_text().replace("    return x + x", "    return x +"), encoding="utf-8")
    code, out = build(book_root)
    assert code == 1
    shown = display_path(book_root / "chapters/en/chapter_basics/helpers.md")
    assert f"{shown}:29: error: saved code does not parse: invalid syntax" in out
    assert "[polybook.lib.syntax]" in out
    assert not (book_root / "chapters/en/tiny/beta.py").exists()  # a broken module is not written
    assert (book_root / "chapters/en/tiny/alpha.py").exists()


def test_status_names_the_first_differing_definition_and_where_it_is_defined(book_root: Path) -> None:
    assert build(book_root)[0] == 0
    target = book_root / "chapters/en/tiny/alpha.py"
    target.write_text(target.read_text().replace("return len(items)", "return 0"), encoding="utf-8")
    status = library_status(load_book(load_config(book_root / "conf.py")))
    assert not status["beta"].stale
    alpha = status["alpha"]
    assert alpha.stale and alpha.definition == "count_all"
    assert alpha.block is not None and alpha.block.line == 47
    diagnostic = alpha.diagnostic()
    assert diagnostic is not None and diagnostic.code == "lib.stale"
    assert "helpers.md:47" in diagnostic.message
    assert build(book_root, "--check")[0] == 1


def test_a_document_no_toc_reaches_is_not_collected(book_root: Path) -> None:
    write(book_root / "chapters/en", {"stray.md": "# Stray\n\n```{.python .input}\n#@save\nx = 1\n```\n"})
    saved = libraries(book_root)["alpha"]
    assert "x = 1" not in saved.text
    assert [d.code for d in saved.diagnostics] == ["lib.unreached"]
    assert saved.diagnostics[0].line == 4


def test_settings_problems_are_reported_at_their_key(book_root: Path) -> None:
    conf = book_root / "conf.py"
    conf.write_text(CONF.replace('"lib_name": "math"', '"lib_nmae": "math"'), encoding="utf-8")
    config = load_config(conf)  # the library's problems stop only the commands that need it
    settings, problems = config.library, config.library_problems
    messages = [(d.line, d.message) for d in problems]
    assert (14, "polybook.library.frameworks.alpha.lib_nmae: unknown setting; did you mean 'lib_name'?") in messages
    assert any("simple_alias: needs lib_name" in m for _, m in messages)
    assert "alpha" in settings.frameworks
    with pytest.raises(ConfigError):
        libraries(book_root)
    code, out = build(book_root)
    assert code == 2 and "lib_nmae" in out


@pytest.mark.parametrize(
    ("code", "saved"),
    [
        ("def f():  #@save\n    return 1\n\nprint(f())", "def f():\n    return 1\n"),
        ("#@save\nimport a\nimport b\n\nx = 1", "import a\nimport b\n"),
        ("x = 0\n#@save\ny = 1\nz = 2\nif y:\n    pass\nw = 3", "y = 1\nz = 2\nif y:\n    pass"),
        ("print(1)", ""),
    ],
)
def test_save_lines_follows_d2lbooks_line_rule(code: str, saved: str) -> None:
    lines = [(text, n) for n, text in enumerate(code.split("\n"), 1)]
    assert "\n".join(text for text, _ in save_lines(lines)) == saved


def test_the_module_text_is_deterministic(book_root: Path) -> None:
    first, second = libraries(book_root), libraries(book_root)
    assert {fw: lib.digest for fw, lib in first.items()} == {fw: lib.digest for fw, lib in second.items()}
    assert first["beta"].text.count(WARNING) == 1


def test_a_library_collected_with_the_parses_memoised_is_the_one_collected_without(book_root: Path) -> None:
    """Each block's parse is memoised by its text (a ``#@tab all`` block is read for every
    framework): collected again with nothing memoised, the modules are the same."""
    from polybook.library.collect import _parsed

    first = libraries(book_root)
    _parsed.cache_clear()
    again = libraries(book_root)
    assert _parsed.cache_info().hits > 0  # the same block in two modules, or parsed twice
    _parsed.cache_clear()
    assert first == again
