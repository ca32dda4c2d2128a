"""The code framework F's reader sees is d2lbook's: the library's aliases of each kind, imports
sorted by isort, a stray ``#@tab`` line deleted -- on the page, in the PDF, in the notebook, and
in the program that runs.

The fixture book (tests/fixtures/readercode/book) never imports ``d2l``: its cells run only once
rewritten, as d2l-en's TensorFlow pooling.md does. ``D2LBOOK`` below is what d2lbook 1.0.3 itself
writes for the same chapter and config.ini (``bench/d2lbook_code.py``'s d2lbook side; the test
that asks it runs where d2lbook's own venv is).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import runpy
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.cli import main
from polybook.config import LibrarySettings, load_config
from polybook.config.library import FrameworkLibrary, parse_mapping
from polybook.dialect import DialectSettings, parse_text
from polybook.execute.programs import build_programs
from polybook.library.reader_code import ReaderCode, drop_tab_lines, reader_code
from polybook.notebooks.build import build_notebooks
from polybook.pdf.stage import stage_framework
from polybook.render.stage import stage_language

from conftest import FIXTURES, ROOT

BOOK = FIXTURES / "readercode" / "book"
D2LBOOK_PYTHON = Path("/work/d2lbook-venv/bin/python")
IMPORTS = "import collections\nimport math\nimport sys"  # isort's order of `import sys, math, collections`
D2LBOOK = {
    "alpha": [
        IMPORTS,
        "name, root = 'ab', math.sqrt(16)\nprint(str(root), name.upper(), round(math.pi, 2))",
    ],
    "beta": [
        IMPORTS,
        "name, root = 'ab', math.isqrt(16)\nprint(repr(root), name.title(), round(math.tau, 2))",
        "print(str.join('-', ['x', 'y']))\nprint('stray')",
    ],
}
#: The fixture's conf.py library as d2lbook's config.ini says it.
CONFIG_INI = """[project]
name = readercode
[build]
tabs = alpha, beta
notebooks = *.md
[library]
[library-alpha]
lib_file = d2l/alpha.py
lib_name = math
simple_alias = sqrt, tau -> pi
fluent_alias = upper
alias = Text = str
reverse_alias = d2l.Text -> str
[library-beta]
lib_file = d2l/beta.py
lib_name = math
simple_alias = sqrt -> isqrt, tau
fluent_alias = upper -> title
args_alias = join(a_x) -> str.join('-', a_x)
reverse_alias = d2l.Text -> repr
"""


def copy_book(tmp_path: Path) -> Path:
    shutil.copytree(BOOK, tmp_path / "book")
    return tmp_path / "book" / "conf.py"


def test_each_framework_reads_its_aliases_sorted_imports_and_no_stray_tab() -> None:
    config = load_config(BOOK / "conf.py")
    doc = load_book(config).chapters["en"]["code"]
    reader = reader_code(config)
    assert {fw: reader.program(doc.cells(fw), fw) for fw in ("alpha", "beta")} == D2LBOOK
    assert "d2l.sqrt(16)" in doc.cells("alpha")[1].code  # the source as written, for the checker


@pytest.mark.skipif(not D2LBOOK_PYTHON.exists(), reason="d2lbook 1.0.3's venv is not here")
def test_d2lbook_writes_the_same_code(tmp_path: Path) -> None:
    d2lbook_code = runpy.run_path(str(ROOT / "bench" / "d2lbook_code.py"))["d2lbook_code"]
    (tmp_path / "config.ini").write_text(CONFIG_INI, encoding="utf-8")
    shutil.copy(BOOK / "chapters" / "en" / "code.md", tmp_path)
    shutil.copy(BOOK / "chapters" / "en" / "index.md", tmp_path)
    assert d2lbook_code(tmp_path, str(D2LBOOK_PYTHON))["code"] == D2LBOOK


def test_the_page_shows_each_framework_its_code_and_the_same_code_once(tmp_path: Path) -> None:
    config = load_config(copy_book(tmp_path))
    docs = load_book(config).chapters["en"]
    stage = stage_language(config, "en", docs, {}, {}, tmp_path / "src", [])
    page = stage.docs["code"].text
    assert page.count(IMPORTS) == 1  # the same for both: shown once, outside tabs
    for code in D2LBOOK["alpha"][1:] + D2LBOOK["beta"][1:]:
        assert code in page
    assert "d2l." not in page and "#@tab" not in page


@pytest.mark.parametrize("framework", ["alpha", "beta"])
def test_each_frameworks_pdf_shows_its_code(tmp_path: Path, framework: str) -> None:
    config = load_config(copy_book(tmp_path))
    docs = load_book(config).chapters["en"]
    stage = stage_framework(config, "en", framework, docs, {}, tmp_path / "src", tmp_path / "figures")
    page = stage.docs["code"].text
    assert all(code in page for code in D2LBOOK[framework])
    assert "d2l." not in page


def test_each_frameworks_notebook_has_its_code(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    build_notebooks(load_config(conf))
    for framework, codes in D2LBOOK.items():
        path = conf.parent / "build" / "notebooks" / "en" / framework / "code.ipynb"
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        assert ["".join(c["source"]) for c in cells if c["cell_type"] == "code"] == codes


def test_a_program_is_the_code_its_reader_sees_and_keyed_by_it(tmp_path: Path) -> None:
    config = load_config(copy_book(tmp_path))
    book = load_book(config)
    fingerprints = {fw: {"kernel": "python3"} for fw in config.frameworks}
    programs = {p.framework: p for p in build_programs(book, fingerprints) if p.name == "code"}
    assert {fw: p.sources for fw, p in programs.items()} == D2LBOOK
    plain = dataclasses.replace(config, library=LibrarySettings())  # no aliases: other code, another key
    again = {p.framework: p for p in build_programs(load_book(plain), fingerprints) if p.name == "code"}
    assert again["alpha"].key != programs["alpha"].key


@pytest.mark.slow
def test_the_rewritten_code_runs_and_its_outputs_are_found_on_page_and_notebook(tmp_path: Path) -> None:
    from polybook.cli import build
    from polybook.execute.commands import eval_command

    build.commands.setdefault("eval", eval_command)
    conf = copy_book(tmp_path)
    with contextlib.chdir(conf.parent):
        result = CliRunner().invoke(main, ["--conf", str(conf), "build", "eval"])
    assert result.exit_code == 0, result.output
    stored = json.loads((conf.parent / "build" / "eval" / "en" / "code.json").read_text(encoding="utf-8"))
    printed = {(c["framework"], c["index"]): "".join(o.get("text", "") for o in c["outputs"]) for c in stored["cells"]}
    assert printed[("alpha", 1)] == "4.0 AB 3.14\n"
    assert printed[("beta", 1)] == "4 Ab 6.28\n"
    assert printed[("beta", 2)] == "x-y\nstray\n"
    config = load_config(conf)
    docs = load_book(config).chapters["en"]
    from polybook.execute.outputs import read_outputs

    page = stage_language(config, "en", docs, {}, read_outputs(config.build_dir, "en"), tmp_path / "src", [])
    assert "4.0 AB 3.14" in page.docs["code"].text and "not been executed" not in page.docs["code"].text
    report = build_notebooks(config)
    assert not [d for d in report.diagnostics if "no stored output" in d.message]


# -- the rules, one by one ------------------------------------------------------------------


def reader(**settings: str) -> ReaderCode:
    mappings = {k: parse_mapping(v, k in ("simple_alias", "fluent_alias")) for k, v in settings.items()}
    return ReaderCode(LibrarySettings({"torch": FrameworkLibrary("torch", "d2l/torch.py", "torch", **mappings)}))


def code_of(text: str, framework: str = "torch") -> str:
    settings = DialectSettings(frameworks=("torch", "tf"), default_tab="torch")
    (cell,) = parse_text(text, "x.md", settings).cells()
    return cell.code_for(framework)


@pytest.mark.parametrize(
    ("settings", "code", "expected"),
    [
        ({"simple_alias": "tensor, concat -> cat"}, "d2l.concat([d2l.tensor(1)])", "torch.cat([torch.tensor(1)])"),
        ({"simple_alias": "exp("}, "d2l.exp(x) + d2l.expand_dims(x)", "torch.exp(x) + d2l.expand_dims(x)"),
        ({"fluent_alias": "reshape"}, "d2l.reshape(d2l.reshape(x, (2, 2)), -1)", "x.reshape((2, 2)).reshape(-1)"),
        ({"fluent_alias": "numpy -> detach().numpy"}, "d2l.numpy(x[0])", "x[0].detach().numpy()"),
        ({"fluent_alias": "upper"}, "d2l.upper('ab')", '"""ab""".upper()'),  # astor's quotes, as d2lbook writes it
        ({"reverse_alias": "d2l.nn_Module -> nn.Module"}, "class A(d2l.nn_Module): pass", "class A(nn.Module): pass"),
        ({"reverse_alias": r"d2l.size\(([\w]+)\) -> \1.size"}, "d2l.size(x)", "d2l.size(x)"),  # text, never a regex
        ({"args_alias": "flat(a_x, dim=None) -> a_x.flatten(dim=dim)"}, "d2l.flat(x, dim=1)", "x.flatten(dim=1)"),
        ({"alias": "nn_Module = nn.Module"}, "d2l.nn_Module", "d2l.nn_Module"),  # the module's line only
        ({"fluent_alias": "reshape"}, "%%time\nd2l.reshape(x, 2)", "%%time\nx.reshape(2)"),
        ({"fluent_alias": "reshape"}, "d2l.reshape(x, 2\n!ls", "d2l.reshape(x, 2\n!ls"),  # does not parse: as written
    ],
)
def test_each_alias_kind_as_d2lbook_applies_it(settings: dict[str, str], code: str, expected: str) -> None:
    if "alias" in settings:
        library = FrameworkLibrary("torch", "d2l/torch.py", "torch", alias=settings["alias"])
        assert ReaderCode(LibrarySettings({"torch": library})).code(code, "torch") == expected
        return
    assert reader(**settings).code(code, "torch") == expected


def test_branches_are_resolved_before_the_aliases() -> None:
    text = "```{.python .input}\n#@tab all\nif tab.selected('torch'):\n    x = d2l.tensor(1)\n```\n"
    assert reader(simple_alias="tensor").code(code_of(text), "torch", tagged=True) == "x = torch.tensor(1)"


def test_imports_are_sorted_as_d2lbook_sorts_them(tmp_path: Path) -> None:
    code = "import torch\nfrom d2l import torch as d2l\nimport os\nfrom torch import nn\nx = 1"
    (tmp_path / "d2l").mkdir()  # the book's own package: first-party, after the others
    expected = "import os\nimport torch\nfrom torch import nn\nfrom d2l import torch as d2l\n\nx = 1"
    assert ReaderCode(root=tmp_path).code(code, "torch") == expected
    assert ReaderCode().code("  x = 1   \ny = 2  \n\n", "torch") == "x = 1\ny = 2"  # trailing spaces, blank lines


@pytest.mark.parametrize(
    ("lines", "tagged", "kept"),
    [
        (["x = 1", "#@tab mxnet", "y = 2"], True, ["x = 1", "y = 2"]),
        (["#@tab mxnet", "y = 2"], True, ["#@tab mxnet", "y = 2"]),  # right after the cell's own tab line
        (["#@tab mxnet", "#@tab tf", "z"], False, ["#@tab tf", "z"]),  # right after a deleted one
        (["x = 1  # @tab all", "%%tab jax", "y"], False, ["%%tab jax", "y"]),  # anywhere in a line
        ([":begin_tab:`mxnet`", "x", ":end_tab:"], False, ["x"]),
    ],
)
def test_a_stray_tab_line_goes_as_d2lbook_deletes_it(lines: list[str], tagged: bool, kept: list[str]) -> None:
    assert drop_tab_lines(lines, tagged) == kept


def test_a_bad_alias_is_a_conf_py_error_at_its_line(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    (tmp_path / "chapters").mkdir()
    conf.write_text(
        'polybook = {"source_language": "en", "languages": {"en": {"name": "English"}},\n'
        '    "frameworks": ["pytorch"],\n'
        '    "library": {"frameworks": {"pytorch": {\n'
        '        "lib_file": "d2l/torch.py", "lib_name": "torch",\n'
        '        "simple_alias": "ones, a -> b -> c, 2x",\n'
        '        "fluent_alias": "numpy -> detach(.numpy",\n'
        '        "reverse_alias": "d2l.nn_Module",\n'
        '        "args_alias": "flat -> x",\n'
        '        "alias": "nn_Module = = nn.Module",\n'
        "    }}},\n}\n",
        encoding="utf-8",
    )
    config = load_config(conf)
    messages = [(d.line, d.message.split(": ", 1)[1]) for d in config.library_problems]
    assert messages == [
        (5, "'a -> b -> c': has more than one '->'"),
        (5, "'2x': its left side must be a name (d2l.<name>)"),
        (6, "'numpy -> detach(.numpy': its right side must be a method, such as detach().numpy"),
        (8, "'flat -> x': its left side must be a call such as name(a_x, key=value)"),
        (7, "'d2l.nn_Module': write 'text -> replacement'"),
        (9, "is not Python (line 1 of it: invalid syntax); the module would not import"),
    ]
    assert config.library.frameworks["pytorch"].simple_alias == (("ones", "ones"),)  # the usable part kept


def test_the_readers_code_is_kept_for_the_next_command_while_its_settings_are_the_same(tmp_path: Path) -> None:
    from polybook.library.reader_code import ReaderCode, _keep

    store = tmp_path / "reader-code.pickle"
    first = ReaderCode()
    write_back = _keep(first, store, "settings A")
    assert first.code("import sys\nimport os\nx = 1", "pytorch") == "import os\nimport sys\n\nx = 1"
    write_back()
    again = ReaderCode()
    _keep(again, store, "settings A")
    assert again._memo == first._memo  # the next command asks isort nothing it asked before
    other = ReaderCode()
    _keep(other, store, "settings B")  # another library, folder or isort: nothing of it is used
    assert other._memo == {}
