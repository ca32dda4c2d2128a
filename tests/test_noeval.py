""" "Run no code" means it (docs/trust.md): a translation that adds ``.. automodule:: evil``
and ``chapters/ja/evil.py`` gets nothing imported by ``build html --no-eval``, a located error
instead, and ``polybook check`` reports both; the book's own library is documented from its
source, as autodoc showed it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.check import check_book
from polybook.cli import main
from polybook.config import load_config
from polybook.dialect import DialectSettings, parse_text
from polybook.render.stage import stage_language
from polybook.stage.api_source import DocOptions, document_module, read_module
from polybook.stage.myst import transpile

from minibook import make_book

SETTINGS = DialectSettings(frameworks=("mxnet", "pytorch"), default_tab="mxnet")
EN = "# Intro\n\nText.\n"
JA = (
    "# 序\n\nテキスト。\n\n"  # lines 1-4
    "```eval_rst\n.. automodule:: evil\n   :members:\n```\n\n"  # the directive at line 6
    "```eval_rst\n.. autofunction:: os.system\n\n.. currentmodule:: evil\n\n.. autoclass:: Thing\n```\n"  # 11, 13, 15
)
LIBRARY = '''"""The book's library."""
import torch
from torch import nn

nn_Module = nn.Module


def add_to_class(Class):
    """Register functions as methods in created class."""
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper


class HyperParameters:
    def __init__(self, lr=0.1, *, epochs: int = 2):
        """Defined in :numref:`sec_oo`"""

    def save_hyperparameters(self, ignore=[]):
        raise NotImplemented

    def save_hyperparameters(self, ignore=[]):
        """Save function arguments into class attributes.

        .. raw:: html

           <script>alert(1)</script>
        """


class Module(nn_Module, HyperParameters):
    """The base class of models."""

    @property
    def depth(self) -> int:
        """How deep."""

    @staticmethod
    def make(n, /, k=1):
        pass

    def _private(self):
        pass


@add_to_class(Module)
def forward(self, X):
    """Defined in :numref:`sec_forward`"""


DATA_URL = 'http://example.org/'
"""Where the data sets are."""

size = lambda x, *args, **kwargs: x.numel(*args, **kwargs)
ones = torch.ones


def try_gpu(i=0) -> 'torch.device':
    """Return GPU `i` if it exists, else the CPU."""
'''


def evil_book(root: Path, marker: Path, api: str = "") -> Path:
    """A book whose ja translation adds ``.. automodule:: evil`` and ``chapters/ja/evil.py``,
    which writes ``marker`` when imported; its library is ``d2l`` (``chapters/en/d2l/torch.py``)
    and ``api`` an en page. conf.py loads autodoc itself, as a d2lbook conf.py may."""
    conf = make_book(root, EN + api, JA, name="index")
    text = conf.read_text(encoding="utf-8").removesuffix("}\n")
    text += '    "library": {"frameworks": {"pytorch": {"lib_file": "d2l/torch.py"}}},\n}\n'
    conf.write_text('extensions = ["sphinx.ext.autodoc"]\n' + text, encoding="utf-8")
    evil = f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n\nclass Thing:\n    pass\n"
    (root / "chapters" / "ja" / "evil.py").write_text(evil, encoding="utf-8")
    (root / "chapters" / "en" / "d2l").mkdir()
    (root / "chapters" / "en" / "d2l" / "__init__.py").write_text("", encoding="utf-8")
    (root / "chapters" / "en" / "d2l" / "torch.py").write_text(LIBRARY, encoding="utf-8")
    return conf


def test_an_api_page_documents_the_books_library_only_and_imports_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "IMPORTED"
    config = load_config(evil_book(tmp_path / "book", marker))
    doc = parse_text(JA, "chapters/ja/index.md", SETTINGS)
    stage = stage_language(config, "ja", {"index": doc}, {}, {}, tmp_path / "src", [])
    found = [(d.line, str(d.code)) for d in stage.diagnostics]
    assert found == [(6, "api.module"), (11, "api.module"), (15, "api.module")]
    assert "'evil' is not the book's library (d2l)" in stage.diagnostics[0].message
    assert "'os' is not the book's library (d2l)" in stage.diagnostics[1].message
    assert "`.. autoclass:: Thing`: 'evil' is not the book's library" in stage.diagnostics[2].message
    text = stage.docs["index"].text
    assert not re.search(r"\.\.\s+auto\w+::", text)  # nothing left for a conf.py's autodoc to import
    assert not marker.exists() and stage.api.modules == []


def test_the_library_is_documented_from_its_source_as_autodoc_showed_it(tmp_path: Path) -> None:
    """Signatures without self, a class's from its __init__ (a base's of the same module), a
    function @add_to_class attaches as the class's method, the last of two definitions, a
    documented data and a lambda; members in source order; a docstring's raw HTML left out."""
    path = tmp_path / "torch.py"
    path.write_text(LIBRARY, encoding="utf-8")
    problems: list[str] = []
    rst = "\n".join(document_module("d2l.torch", read_module(path), DocOptions(members=()), "", problems))
    objects = re.findall(r"^ *\.\. py:(\w+):: (.*)$", rst, re.M)
    assert objects == [
        ("module", "d2l.torch"),
        ("function", "add_to_class(Class)"),
        ("class", "HyperParameters(lr=0.1, *, epochs: int=2)"),
        ("method", "HyperParameters.save_hyperparameters(ignore=[])"),
        ("class", "Module(lr=0.1, *, epochs: int=2)"),
        ("property", "Module.depth"),
        ("method", "Module.make(n, /, k=1)"),
        ("method", "Module.forward(X)"),
        ("data", "DATA_URL"),
        ("function", "size(x, *args, **kwargs)"),
        ("function", "try_gpu(i=0) -> 'torch.device'"),
    ]
    assert "   Bases: :py:class:`~nn.Module`, :py:class:`~d2l.torch.HyperParameters`" in rst
    assert "   :staticmethod:" in rst and "   :type: int" in rst and "   :value: 'http://example.org/'" in rst
    assert "Save function arguments into class attributes." in rst and "<script>" not in rst
    assert problems == [
        "the docstring of d2l.torch.HyperParameters.save_hyperparameters has `.. raw:: html`: left out "
        "(a docstring shows text)"
    ]
    alphabetical = document_module("d2l.torch", read_module(path), DocOptions(members=(), order="alphabetical"), "", [])
    names = [m[1] for m in re.findall(r"^\.\. py:(\w+):: (\w+)", "\n".join(alphabetical), re.M)]
    assert names == ["d2l", "DATA_URL", "HyperParameters", "Module", "add_to_class", "size", "try_gpu"]


def test_an_autodoc_directive_keeps_its_options_and_content(tmp_path: Path) -> None:
    config = load_config(evil_book(tmp_path / "book", tmp_path / "IMPORTED"))
    en = (
        "# Intro\n\n```eval_rst\n.. only:: html\n\n   .. AutoFunction:: d2l.torch.try_gpu\n      :no-index:\n\n"
        "      Extra words.\n\n.. autoclass:: d2l.torch.Module\n   :members: forward\n```\n"
    )
    stage = stage_language(
        config, "en", {"index": parse_text(en, "chapters/en/index.md", SETTINGS)}, {}, {}, tmp_path / "src", []
    )
    assert stage.diagnostics == []
    text = stage.docs["index"].text
    function = "   .. py:function:: try_gpu(i=0) -> 'torch.device'\n      :module: d2l.torch\n      :no-index:\n"
    assert function in text and text.index("Return GPU `i`") < text.index("      Extra words.")
    assert "\n   .. py:method:: Module.forward(X)\n      :module: d2l.torch\n" in text and "Module.make" not in text
    assert stage.docs["index"].lines[text.split("\n").index("      Extra words.")] == 9  # its chapter line


def test_a_directive_that_runs_code_is_left_out_with_its_line(tmp_path: Path) -> None:
    config = load_config(evil_book(tmp_path / "book", tmp_path / "IMPORTED"))
    en = "# Intro\n\n```eval_rst\n.. exec::\n\n   import os\n```\n"
    stage = stage_language(
        config, "en", {"index": parse_text(en, "chapters/en/index.md", SETTINGS)}, {}, {}, tmp_path / "src", []
    )
    assert [(d.line, str(d.code)) for d in stage.diagnostics] == [(4, "rst.code")]
    assert ".. polybook: left out: exec::" in stage.docs["index"].text


def test_check_reports_what_a_translation_adds_that_would_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = evil_book(tmp_path / "book", tmp_path / "IMPORTED")
    monkeypatch.chdir(tmp_path / "book")
    ja = tmp_path / "book" / "chapters" / "ja"
    (ja / "d2l").mkdir()  # the translation's own copy of the library, where the source has it: no finding
    (ja / "d2l" / "torch.py").write_text(LIBRARY, encoding="utf-8")
    (ja / "d2l" / "__pycache__").mkdir()  # what Python writes beside a module it imported: no finding
    (ja / "d2l" / "__pycache__" / "torch.cpython-311.pyc").write_bytes(b"")
    result = check_book(load_book(load_config(conf)))
    found = [(f.code, str(f.location)) for f in result.active if str(f.code).startswith("trust.")]
    assert found == [
        ("trust.module", "chapters/ja/evil.py:1"),
        ("trust.directive", "chapters/ja/index.md:6"),
        ("trust.directive", "chapters/ja/index.md:11"),
        ("trust.directive", "chapters/ja/index.md:13"),
        ("trust.directive", "chapters/ja/index.md:15"),
    ]
    messages = {str(f.location): f.message for f in result.active}
    assert (
        "adds `.. automodule:: evil`, which the source does not have: it documents a module"
        in messages["chapters/ja/index.md:6"]
    )
    assert "evil.py is a Python module the source language does not have" in messages["chapters/ja/evil.py:1"]
    assert not (tmp_path / "IMPORTED").exists()


def test_a_translation_documenting_its_own_framework_of_the_library_is_no_finding(tmp_path: Path) -> None:
    """zh documents ``d2l.paddle``, its own framework's module: the build writes it from the source
    and imports nothing, so it is not the source's to write (a module outside the library is)."""
    own = "\n```eval_rst\n.. currentmodule:: d2l.paddle\n\n.. autofunction:: train\n\n.. automodule:: d2l.paddle\n```\n"
    conf = evil_book(tmp_path / "book", tmp_path / "IMPORTED")
    ja = tmp_path / "book" / "chapters" / "ja" / "index.md"
    ja.write_text(ja.read_text(encoding="utf-8").replace(".. automodule:: evil", ".. automodule:: d2l") + own, "utf-8")
    found = [
        (f.code, f.location.line, f.message.split("`")[1])
        for f in check_book(load_book(load_config(conf))).active
        if f.code == "trust.directive" and f.location
    ]
    assert not [written for _, _, written in found if "d2l" in written or "train" in written], found


def test_a_directive_the_source_has_too_is_no_finding(tmp_path: Path) -> None:
    api = "\n```eval_rst\n.. raw:: html\n\n   <b>hello</b>\n```\n"
    conf = make_book(tmp_path, EN + api, "# 序\n" + api)
    assert not [f for f in check_book(load_book(load_config(conf))).active if f.code.startswith("trust.")]
    changed = api.replace("<b>hello</b>", "<script>steal()</script>")
    conf = make_book(tmp_path, EN + api, "# 序\n" + changed)  # the same directive, other raw HTML
    found = [(f.code, f.location.line) for f in check_book(load_book(load_config(conf))).active if f.location]
    assert ("trust.directive", 4) in found


def test_a_myst_directive_in_a_chapters_own_text_is_shown_as_text() -> None:
    """d2lbook's dialect has no MyST directives: one a list item, a quote or a colon fence opens
    would reach past the eval_rst checks (``{eval-rst}`` with ``.. include::`` of any file)."""
    source = (
        "# T\n\n:::{eval-rst}\n.. include:: /etc/hostname\n:::\n\n"
        "- item\n\n  ```{eval-rst}\n  .. literalinclude:: ../../../etc/os-release\n  ```\n\n"
        "> ~~~ {include} /etc/hostname\n> ~~~\n\nA role {math}`x` and `{code}` stay.\n"
    )
    text = transpile(parse_text(source, "chapters/ja/x.md", SETTINGS), "ja").text
    assert "\\:::{eval-rst}" in text and "  ```text {eval-rst}" in text and "> ~~~text {include}" in text
    assert "A role {math}`x` and `{code}` stay." in text


def test_the_sphinx_process_refuses_to_import_the_books_code(tmp_path: Path) -> None:
    """The last wall (polybook.stage.guard): whatever asks, a module in the book's folders is
    not imported in a Sphinx worker; one elsewhere is."""
    book, elsewhere = tmp_path / "chapters", tmp_path / "site"
    (book / "ja").mkdir(parents=True)
    elsewhere.mkdir()
    (book / "ja" / "evil.py").write_text(f"open({str(tmp_path / 'IMPORTED')!r}, 'w')\n", encoding="utf-8")
    (elsewhere / "fine.py").write_text("", encoding="utf-8")
    script = (
        "import sys; from pathlib import Path; from polybook.stage.guard import refuse_book_code\n"
        f"refuse_book_code([Path({str(book)!r})]); sys.path[:0] = [{str(book / 'ja')!r}, {str(elsewhere)!r}, "
        f"{str(tmp_path)!r}]\n"
        "import fine\n"
        "for name in ('evil', 'chapters.ja.evil'):\n"
        "    try:\n        __import__(name)\n    except ImportError as error:\n        print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("is the book's code: a Sphinx build imports nothing of the book") == 2, done.stdout
    assert not (tmp_path / "IMPORTED").exists()


@pytest.mark.slow
def test_build_html_no_eval_imports_nothing_and_check_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "IMPORTED"
    api = "\n```eval_rst\n.. automodule:: d2l.torch\n   :members:\n```\n"
    conf = evil_book(tmp_path / "book", marker, api)
    monkeypatch.chdir(tmp_path / "book")
    result = CliRunner().invoke(main, ["--conf", str(conf), "build", "html", "--no-eval"])
    assert not marker.exists(), result.output
    assert result.exit_code == 1, result.output
    assert re.search(
        r"chapters/ja/index\.md:6: error: `\.\. automodule:: evil`: 'evil' is not the book's", result.output
    )
    page = (tmp_path / "book" / "build" / "html" / "en" / "index.html").read_text(encoding="utf-8")
    assert 'id="d2l.torch.Module.forward"' in page and "Return GPU <cite>i</cite>" in page  # documented from its source
    checked = CliRunner().invoke(main, ["--conf", str(conf), "check"])
    assert checked.exit_code == 1 and not marker.exists()
    assert "chapters/ja/evil.py:1: error: evil.py is a Python module" in checked.output
    assert "chapters/ja/index.md:6: error: the translation adds `.. automodule:: evil`" in checked.output
