"""`polybook import d2lbook`: two tiny d2lbook projects (tests/fixtures/d2lbook) become one book."""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.check import check_book
from polybook.cli import main
from polybook.config import load_config
from polybook.importer.confpy import edit_conf, read_book_settings
from polybook.importer.ini import read_ini
from polybook.importer.merge import language_name

from conftest import FIXTURES

PROJECTS = FIXTURES / "d2lbook"
EN, JA = PROJECTS / "en", PROJECTS / "ja"


def run(cwd: Path, *args: str) -> tuple[int, str]:
    """``polybook import d2lbook ARGS`` run from the folder ``cwd`` (where conf.py is found or made)."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["import", "d2lbook", *args])
    finally:
        os.chdir(old)
    return result.exit_code, result.output


def import_both(root: Path, order: tuple[str, str]) -> dict[str, str]:
    outputs = {}
    for lang in order:
        code, out = run(root, str(PROJECTS / lang), "--lang", lang)
        assert code == 0, out
        outputs[lang] = out
    return outputs


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def line_of(path: Path, text: str) -> int:
    """The 1-based line of ``path`` that starts with ``text`` (so tests do not hard-code line numbers)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, start=1) if line.lstrip().startswith(text))


def semantics(conf: Path) -> dict[str, Any]:
    """What conf.py means, with list order ignored where it carries no meaning."""
    settings = read_book_settings(conf.read_text(encoding="utf-8"))
    polybook = json.loads(json.dumps(settings.polybook, sort_keys=True))
    polybook["exclusions"] = sorted(polybook["exclusions"])
    top = dict(settings.literals)
    return {"polybook": polybook, "top": top}


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """en then ja imported into an empty folder."""
    import_both(tmp_path, ("en", "ja"))
    return tmp_path


def test_both_orders_make_the_same_book(tmp_path: Path) -> None:
    first, second = tmp_path / "en-ja", tmp_path / "ja-en"
    first.mkdir()
    second.mkdir()
    import_both(first, ("en", "ja"))
    outputs = import_both(second, ("ja", "en"))
    assert semantics(first / "conf.py") == semantics(second / "conf.py")
    for root in (first, second):
        config = load_config(root / "conf.py")
        assert config.source_language == "en"
        assert config.languages["ja"].origin == "en" and config.languages["en"].origin is None
        assert config.frameworks == ("mxnet", "pytorch", "tensorflow")  # the union, first seen first
        assert config.languages["en"].frameworks == ("mxnet", "pytorch")
        assert config.languages["ja"].frameworks == ("mxnet", "pytorch", "tensorflow")
        assert (config.languages["en"].name, config.languages["ja"].name) == ("English", "日本語")
        assert (config.languages["en"].title, config.languages["ja"].title) == ("Counting Things", "数えるということ")
        assert config.sphinx["project"] == "Counting Things"
        assert config.sphinx["html_favicon"] == "chapters/en/img/dot.svg"
        assert "numfig" not in config.sphinx  # a translation's own Sphinx setting stays out
        assert config.library_problems == () and config.library.version_file == "d2l/__init__.py"
        library = read_book_settings((root / "conf.py").read_text(encoding="utf-8")).polybook["library"]  # as written
        assert library["version_file"] == "d2l/__init__.py"
        assert library["frameworks"]["mxnet"]["simple_alias"] == "ones, zeros, arange,\ntensor -> array"  # en's
        assert library["frameworks"]["mxnet"]["reverse_alias"] == r"d2l.size\(([\w]+)\) -> \1.size"
        assert library["frameworks"]["tensorflow"]["lib_name"] == "tf"  # added by ja
    # release follows the source: ja's, written by the first import, gives way to en's, and says so
    assert "release: '0.2.0' -> '0.3.0' (the source" in outputs["en"]
    assert load_config(second / "conf.py").sphinx["release"] == "0.3.0"
    assert "source language: ja -> en" in outputs["en"]


def test_the_copied_tree(book: Path) -> None:
    en, ja = tree_digest(book / "chapters" / "en"), tree_digest(book / "chapters" / "ja")
    assert sorted(en) == [
        "chapter_basics/counting.md",
        "chapter_basics/index.md",
        "d2l.bib",
        "d2l/__init__.py",
        "img/dot.svg",
        "index.md",
        "setup.py",
    ]  # not README.md, contrib/ (excluded), deep/extra.md (no notebooks pattern), _build/, hidden folders
    assert sorted(ja) == [
        "chapter_basics/counting.md",
        "chapter_basics/counting_origin.md",
        "chapter_basics/index.md",
        "chapter_basics/index_origin.md",
        "d2l.bib",
        "d2l/__init__.py",
        "index.md",
        "index_origin.md",
    ]
    assert en == {name: digest for name, digest in tree_digest(EN).items() if name in en}
    assert ja == {name: digest for name, digest in tree_digest(JA).items() if name in ja}
    assert not any(p.name.startswith(".") for p in (book / "chapters").iterdir())  # no temporary folder left


def test_origin_files_are_kept_but_are_not_documents(book: Path) -> None:
    config = load_config(book / "conf.py")
    assert config.document_names("ja") == ["chapter_basics/counting", "chapter_basics/index", "index"]
    assert config.document_names("en") == ["chapter_basics/counting", "chapter_basics/index", "index"]
    # ja's own `*/*_origin.md` misses the top-level index_origin.md: the import adds the pattern
    assert {"*/*_origin.md", "**/*_origin.md", "README.md", "contrib/*md"} == set(config.exclusions)
    assert config.bibfile == "d2l.bib"


def test_the_summary(tmp_path: Path) -> None:
    outputs = import_both(tmp_path, ("en", "ja"))
    en, ja = outputs["en"], outputs["ja"]
    assert "Markdown: 3 file(s) copied: 3 document(s) + 0 *_origin.md base(s)" in en
    assert "not copied: 2 .md file(s) [build] exclusions exclude, 1 matching no [build] notebooks pattern" in en
    assert "Markdown: 6 file(s) copied: 3 document(s) + 3 *_origin.md base(s)" in ja
    resources = line_of(JA / "config.ini", "resources =")
    missing = "does not exist: skipped [polybook.import.missing]"
    assert f"{JA}/config.ini:{resources}: warning: resource img/ {missing}" in ja
    html_logo = line_of(EN / "config.ini", "html_logo =")
    assert f"{EN}/config.ini:{html_logo}: warning: html_logo file static/logo-with-text.png {missing}" in en
    assert "conf.py: created" in en and "conf.py: updated" in ja
    assert '+ polybook.languages.ja = {"name": "日本語"' in ja


def test_unmapped_settings_name_their_line(tmp_path: Path) -> None:
    out = import_both(tmp_path, ("en", "ja"))
    en, ja = EN / "config.ini", JA / "config.ini"
    expected_en = [
        f"{en}:{line_of(en, 'name =')}: info: not mapped: [project] name = counting-en (",
        f"{en}:{line_of(en, 'notebooks =')}: info: not mapped: [build] notebooks = *.md  */*.md (",
        f"{en}:{line_of(en, 'eval_notebook')}: info: not mapped: [build] eval_notebook = True (",
        f"{en}:{line_of(en, 'header_links')}: info: not mapped: [html] header_links = PDF, https://example.org/counting.pdf",
        f"{en}:{line_of(en, 'main_font')}: info: not mapped: [pdf] main_font = Some Serif (",
        f"{en}:{line_of(en, 'google_analytics')}: info: not mapped: [deploy] google_analytics_tracking_id = "
        "UA-00000000-1 (",
        f"{en}:{line_of(en, 'github_repo')}: info: not mapped: [colab] github_repo = mxnet, example/counting-colab …",
    ]
    expected_ja = [
        f"{ja}:{line_of(ja, 'translator')}: info: not mapped: [translation] translator = aws (",
        f"{ja}:{line_of(ja, 'sphinx_configs')}: info: not mapped: [build] sphinx_configs = numfig_format = "
        "{'figure': '図%s', 'table': '表%s'} (one language's text or layout",
        f"{ja}:{line_of(ja, 'numfig = True')}: info: not mapped: [build] sphinx_configs = numfig = True "
        "(a translation's own Sphinx setting",
        f"{ja}:{line_of(ja, 'html_theme =')}: info: not mapped: [build] sphinx_configs = html_theme = pick_theme() "
        "(not a Python literal) [polybook.import.unmapped]",
    ]
    for line in expected_en:
        assert line in out["en"], line
    for line in expected_ja:
        assert line in out["ja"], line
    assert "not mapped: 8 setting(s)" in out["en"]
    assert "[library" not in out["en"] + out["ja"]  # the library sections are mapped


def test_force_is_needed_to_replace_a_language(book: Path) -> None:
    before = tree_digest(book)
    code, out = run(book, str(EN), "--lang", "en")
    assert code == 2 and "chapters/en exists: pass --force" in out
    assert tree_digest(book) == before
    (book / "chapters" / "en" / "stray.md").write_text("# Stray\n", encoding="utf-8")
    code, out = run(book, str(EN), "--lang", "en", "--force")
    assert code == 0, out
    assert "(replacing the earlier copy)" in out and "0 change(s)" in out  # same project: conf.py unchanged
    assert not (book / "chapters" / "en" / "stray.md").exists()
    assert tree_digest(book) == before


def test_the_project_is_never_changed(tmp_path: Path) -> None:
    before = {lang: tree_digest(PROJECTS / lang) for lang in ("en", "ja")}
    import_both(tmp_path, ("ja", "en"))
    assert run(tmp_path, str(JA), "--lang", "ja", "--force")[0] == 0
    assert {lang: tree_digest(PROJECTS / lang) for lang in ("en", "ja")} == before


def test_nothing_is_written_inside_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.ini").write_text((EN / "config.ini").read_text(encoding="utf-8"), encoding="utf-8")
    code, out = run(project, ".", "--lang", "en")
    assert code == 2 and "lies inside" in out
    assert sorted(p.name for p in project.iterdir()) == ["config.ini"]


def test_a_folder_without_config_ini_is_refused(tmp_path: Path) -> None:
    code, out = run(tmp_path, str(EN / "chapter_basics"), "--lang", "en")
    assert code == 2 and "has no config.ini: not a d2lbook project" in out
    assert list(tmp_path.iterdir()) == []


def test_a_lang_other_than_the_projects_is_a_warning(tmp_path: Path) -> None:
    code, out = run(tmp_path, str(JA), "--lang", "ko")
    assert code == 0, out
    line = line_of(JA / "config.ini", "lang = ja")
    assert (
        f"{JA}/config.ini:{line}: warning: [project] lang = ja but it is imported as ko [polybook.import.setting]"
        in out
    )
    assert load_config(tmp_path / "conf.py").languages["ko"].name == "한국어"


USER_CONF = """\
# My book. Please keep this comment.
project = "My Book"
copyright = "2025, me"  # not the importer's
extensions = ["sphinx.ext.mathjax"]


def setup(app):  # Sphinx runs this; polybook never does
    pass


polybook = {
    "source_language": "en",
    "frameworks": ["mxnet"],  # more come with the import
    "languages": {"en": {"name": "English"}},
    "chapters": "chapters",
    "execution": {
        "timeout": 600,  # slow machine
        # a comment inside
    },
}
"""


def test_merging_keeps_what_the_user_wrote(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text(USER_CONF, encoding="utf-8")
    (tmp_path / "chapters").mkdir()
    code, out = run(tmp_path, str(JA), "--lang", "ja")
    assert code == 0, out
    # the book gains ja's frameworks; en, which had the book's, keeps what it had
    assert "en keeps its frameworks ['mxnet'] (they were the book's)" in out
    assert load_config(conf).languages["en"].frameworks == ("mxnet",)
    code, out = run(tmp_path, str(EN), "--lang", "en")
    assert code == 0, out
    text = conf.read_text(encoding="utf-8")
    for line in USER_CONF.splitlines():
        if "#" in line:  # every comment, where it was
            assert line[line.index("#") :] in text, line
        if "frameworks" not in line and "languages" not in line:  # the two values the import changes
            assert line in text, line
    assert 'extensions = ["sphinx.ext.mathjax"]\nauthor = ' in text  # new settings after the user's
    config = load_config(conf)
    # the user's copyright stays; the release ja's import wrote gives way to the source's
    assert config.sphinx["copyright"] == "2025, me" and config.sphinx["release"] == "0.3.0"
    assert config.sphinx["project"] == "My Book"  # the user's, not a title an import wrote
    assert config.execution.timeout == 600
    assert config.frameworks == ("mxnet", "pytorch", "tensorflow")
    assert config.languages["en"].name == "English" and config.languages["ja"].origin == "en"


def test_an_invalid_result_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text(USER_CONF.replace('"timeout": 600', '"timeout": -1'), encoding="utf-8")
    before = conf.read_bytes()
    code, out = run(tmp_path, str(EN), "--lang", "en")
    assert code == 2 and "not valid; nothing was changed" in out
    assert "polybook.execution.timeout: must be a positive whole number" in out
    assert conf.read_bytes() == before and not (tmp_path / "chapters").exists()


def test_check_and_parse_run_on_the_imported_book(book: Path) -> None:
    conf = str(book / "conf.py")
    result = CliRunner().invoke(main, ["--conf", conf, "check"])
    assert result.exit_code == 0, result.output
    # The fixture projects' committed d2l/ files are not what their #@save cells give (they
    # were written by hand): polybook build lib would change them, which check says.
    said = [line for line in result.output.splitlines() if ": warning: " in line or ": error: " in line]
    assert said and all(line.endswith("[polybook.lib.stale]") or "[polybook.lib.copy]" in line for line in said), said
    assert "0 errors" in result.output
    chapter = book / "chapters" / "ja" / "chapter_basics" / "counting.md"
    result = CliRunner().invoke(main, ["--conf", conf, "parse", str(chapter)])
    assert result.exit_code == 0, result.output
    assert "[ja; tabs: mxnet (default), pytorch, tensorflow]" in result.output


def test_the_ini_reader_agrees_with_configparser() -> None:
    for path in (EN / "config.ini", JA / "config.ini"):
        parser = configparser.ConfigParser()
        parser.read(path, encoding="utf-8")
        ini = read_ini(path)
        assert list(ini.sections) == parser.sections()
        for section in parser.sections():
            for key in parser[section]:
                assert ini.value(section, key) == parser.get(section, key, raw=True).strip()
                assert ini.get(section, key).text == parser.get(section, key).strip()  # %% interpolated
    alias = read_ini(EN / "config.ini").get("library-mxnet", "alias")
    assert alias.raw == "size = lambda a: a.size" and alias.line == line_of(EN / "config.ini", "alias =")


def test_a_malformed_config_ini_names_its_line(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "config.ini").write_text("[project]\ntitle = A\n[build]\nthis line has no equals sign\n")
    code, out = run(tmp_path, str(project), "--lang", "en")
    malformed = "error: not a 'key = value' line: 'this line has no equals sign' [polybook.import.ini]"
    assert code == 2 and f"{project}/config.ini:4: {malformed}" in out


@pytest.mark.parametrize(
    ("code", "name"), [("en", "English"), ("pt", "Português"), ("zh", "中文"), ("tr", "Türkçe"), ("qq", "qq")]
)
def test_language_names_come_from_babel(code: str, name: str) -> None:
    assert language_name(code) == name


def test_conf_edits_keep_layout_and_comments() -> None:
    text = (
        'x = 1  # héllo\npolybook = {\n    "a": {"b": 1},  # trailing\n    "c": (\n        "p"\n        "q"\n    )\n}\n'
    )
    new, changes = edit_conf(text, {"y": [1, 2]}, {"a": {"b": 1, "d": "é"}, "c": "pq", "e": "one\ntwo"})
    assert new == (
        'x = 1  # héllo\ny = [1, 2]\npolybook = {\n    "a": {"b": 1, "d": "é"},  # trailing\n'
        '    "c": (\n        "p"\n        "q"\n    ),\n    "e": (\n        "one\\n"\n        "two"\n    ),\n}\n'
    )
    assert [c.format() for c in changes] == [
        "+ y = [1, 2]",
        '+ polybook.a.d = "é"',
        '+ polybook.e = "one\\ntwo"',
    ]


def test_origin_must_be_a_language_code(tmp_path: Path) -> None:
    from polybook.config import ConfigError

    (tmp_path / "chapters").mkdir()
    conf = tmp_path / "conf.py"
    conf.write_text(
        'polybook = {"source_language": "en", "frameworks": ["mxnet"],\n'
        '    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語", "origin": "English"}}}\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as error:
        load_config(conf)
    assert "conf.py:2: error: polybook.languages.ja.origin: 'English' is not a language code" in str(error.value)


def test_a_sixth_language_imports_the_same_way(book: Path) -> None:
    """Nothing assumes the five languages: a translation imported as Korean, a language polybook
    has no catalogue for, gets its name from babel, follows the source, is checked and staged
    (its page's UI strings fall back to English)."""
    from polybook.stage.i18n import text

    code, out = run(book, str(JA), "--lang", "ko")
    assert code == 0, out
    config = load_config(book / "conf.py")
    assert config.languages["ko"].name == "한국어" and config.languages["ko"].origin == "en"
    assert config.source_language == "en" and "ko" in config.translations
    result = CliRunner().invoke(main, ["--conf", str(book / "conf.py"), "check", "--lang", "ko"])
    assert result.exit_code == 0 and "0 errors" in result.output, result.output
    assert text("ko", "references") == text("en", "references")


INSTALL = """\
# Installation

:begin_tab:`alpha`
Without a GPU:

```bash
# CPU
pip install "alphalib[cpu]==2.0" alpha-extras==0.3
```

With one:

```bash
pip install alphalib-cu11==2.0 -f https://example.org/wheels
```
:end_tab:

:begin_tab:`beta`
Beta needs nothing more.
:end_tab:

```bash
pip install d2l==9.9
```
"""


def test_the_import_proposes_an_environment_per_framework(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """setup.py's requirements for every framework, and per framework the last install line of
    its text tabs that installs no CUDA build; a framework no tab installs is said, and so is
    an environment uv cannot install here (offline in this test: no index has ``alphalib``)."""
    monkeypatch.setenv("UV_OFFLINE", "1")
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.ini").write_text("[project]\ntitle = T\n\n[build]\ntabs = alpha, beta\n", encoding="utf-8")
    (project / "setup.py").write_text(
        "from setuptools import setup\nrequirements = [\n    'numpy==1.23.5',\n    'alpha-extras>=0.1',\n]\n"
        "setup(name='d2l', install_requires=requirements)\n",
        encoding="utf-8",
    )
    (project / "index.md").write_text("# T\n\n```toc\ninstall\n```\n", encoding="utf-8")
    (project / "install.md").write_text(INSTALL, encoding="utf-8")
    book = tmp_path / "book"
    book.mkdir()
    code, out = run(book, str(project), "--lang", "en")
    assert code == 0, out
    environments = load_config(book / "conf.py").execution.environments
    assert {fw: list(env.requirements) for fw, env in environments.items()} == {
        "alpha": ["alphalib[cpu]==2.0", "alpha-extras==0.3", "numpy==1.23.5"],  # its own pin wins over setup.py's
        "beta": ["numpy==1.23.5", "alpha-extras>=0.1"],
    }
    cpu_line = line_of(project / "install.md", 'pip install "alphalib')
    assert f"environments proposed from setup.py:2; alpha: install.md:{cpu_line}" in out
    assert "no text tab of beta installs it" in out
    assert "warning: the alpha environment cannot be installed with this Python: " in out
    assert "alphalib" in out.split("warning: the alpha environment")[1].split("\n")[0]


@pytest.mark.parametrize(
    ("line", "requirements"),
    [
        ('pip install "jax[cpu]==0.4.13" flax==0.7.0', ["jax[cpu]==0.4.13", "flax==0.7.0"]),
        ("python -m pip install paddlepaddle==2.3.2 -i https://mirror.example/simple", ["paddlepaddle==2.3.2"]),
        ("!pip install -U d2l  # upgrade", ["d2l"]),
        ("pip install mxnet-cu112==1.9.1 -f https://dist.mxnet.io/python", ["mxnet-cu112==1.9.1"]),
        ("pip list", []),
        ("conda install pytorch", []),
    ],
)
def test_pip_lines_are_read_for_their_requirements(line: str, requirements: list[str]) -> None:
    from polybook.importer.environments import pip_requirements

    assert pip_requirements(line) == requirements


def test_a_conf_py_that_cannot_be_edited_in_place_is_refused_at_its_line(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text('project = "Mine"\npolybook = dict(source_language="en")\n', encoding="utf-8")
    before = tree_digest(tmp_path)
    code, out = run(tmp_path, str(EN), "--lang", "en")
    unliteral = "error: polybook must be a literal dict to be merged into [polybook.import.conf]"
    assert code == 2 and out == f"Error: {conf}:2: {unliteral}\n"
    assert tree_digest(tmp_path) == before


ZH = PROJECTS / "zh"


def test_a_translations_library_is_taken_from_lib_file_whatever_the_resources_say(tmp_path: Path) -> None:
    """d2l-zh's resources line names ``d2lzh/`` (missing) while its ``[library-*] lib_file`` settings
    name its real library, ``d2l/`` with ``paddle.py``: the import copies that; ``build lib``
    writes the framework only it has into its own library, and check takes that file as zh's."""
    import_both(tmp_path, ("en",))
    code, out = run(tmp_path, str(ZH), "--lang", "zh")
    assert code == 0, out
    assert "resource d2lzh/ does not exist" in out
    assert "library: d2l/ copied, as [library-*] lib_file names it" in out
    own = tmp_path / "chapters/zh/d2l"
    assert sorted(p.name for p in own.iterdir()) == ["__init__.py", "mxnet.py", "paddle.py", "torch.py"]
    assert (own / "paddle.py").read_bytes() == (ZH / "d2l/paddle.py").read_bytes()
    assert '__version__ = "2.0.0"' in (own / "__init__.py").read_text(encoding="utf-8")
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        built = CliRunner().invoke(main, ["build", "lib"])
        checked = CliRunner().invoke(main, ["check", "--lang", "zh"])
    finally:
        os.chdir(old)
    assert built.exit_code == 0, built.output
    paddle = next(line for line in built.output.splitlines() if "paddle" in line)
    assert "zh" in paddle and "unchanged" in paddle  # zh's paddle.py is what its #@save code gives
    assert not (tmp_path / "chapters/en/d2l/paddle.py").exists()
    assert "trust.module" not in checked.output and "paddle.py" not in checked.output, checked.output
    # zh's kernels import zh's own library, its paddle module included
    from polybook.book import load_book
    from polybook.execute.library import prepare_library
    from polybook.execute.workdir import mirror

    config = load_config(tmp_path / "conf.py")
    library = prepare_library(load_book(config, ["en"]))
    for framework in ("paddle", "mxnet"):
        root = mirror(config, "zh", framework, library.overrides("zh"))
        for module in ("__init__.py", "paddle.py", "mxnet.py"):
            assert (root / "d2l" / module).resolve() == (own / module).resolve(), (framework, module)


FRONT = PROJECTS / "front"


def test_a_front_page_is_carried_with_its_images_and_trusted_in_the_source(tmp_path: Path) -> None:
    """index.md names ``frontpage.html`` (eval_rst raw :file:) while the project keeps it in
    ``static/frontpage/`` with its ``_images/``: it is copied beside index.md with what it loads,
    as d2l's build script copies them, and the source language's front page is trusted."""
    code, out = run(tmp_path, str(FRONT), "--lang", "en")
    assert code == 0, out
    assert "front page: index.md's raw HTML file, static/frontpage/frontpage.html, copied beside it" in out
    folder = tmp_path / "chapters/en"
    assert (folder / "frontpage.html").read_bytes() == (FRONT / "static/frontpage/frontpage.html").read_bytes()
    assert (folder / "_images/dot.png").read_bytes() == (FRONT / "static/frontpage/_images/dot.png").read_bytes()
    assert not (folder / "static").exists()
    assert load_config(tmp_path / "conf.py").trusted_html == ("index",)
    assert '+ polybook.trusted_html = ["index"]' in out


def test_a_translations_front_page_is_carried_and_said_to_be_cleaned(tmp_path: Path) -> None:
    import_both(tmp_path, ("en",))
    code, out = run(tmp_path, str(FRONT), "--lang", "fr")
    assert code == 0, out  # (en is the source: the first language imported)
    assert (tmp_path / "chapters/fr/_images/dot.png").is_file()
    assert "a translation's raw HTML is cleaned by the allow-list" in out
    assert load_config(tmp_path / "conf.py").trusted_html == ()


def test_a_new_book_ignores_what_polybook_builds_and_a_users_gitignore_is_kept(tmp_path: Path) -> None:
    new, own, merged = tmp_path / "new", tmp_path / "own", tmp_path / "merged"
    for folder in (new, own, merged):
        folder.mkdir()
    assert run(new, str(EN), "--lang", "en")[0] == 0
    assert "build/" in (new / ".gitignore").read_text(encoding="utf-8").splitlines()
    (own / ".gitignore").write_text("*.pyc\n", encoding="utf-8")
    assert run(own, str(EN), "--lang", "en")[0] == 0
    assert (own / ".gitignore").read_text(encoding="utf-8") == "*.pyc\n"  # the user's file, as written
    (merged / "conf.py").write_text(USER_CONF, encoding="utf-8")
    (merged / "chapters").mkdir()
    assert run(merged, str(JA), "--lang", "ja")[0] == 0
    assert not (merged / ".gitignore").exists()  # a book that was there: its files are its author's


def test_translators_notes_outside_every_toc_are_copied_but_are_not_chapters(tmp_path: Path) -> None:
    """d2l-tr's Translator_notes.md and TERMINOLOGY.md sit at the project's root in no toc (d2lbook
    builds them as pages outside the book): copied, excluded, so the check does not ask to remove them."""
    projects = tmp_path / "projects"
    shutil.copytree(PROJECTS, projects, ignore=shutil.ignore_patterns("_build"))
    notes = "# Notas do tradutor\n\nTraduzimos *tensor* como tensor.\n"
    (projects / "ja" / "Translator_notes.md").write_text(notes, encoding="utf-8")
    root = tmp_path / "book"
    root.mkdir()
    for lang in ("en", "ja"):
        code, out = run(root, str(projects / lang), "--lang", lang)
        assert code == 0, out
    assert "outside every toc: Translator_notes.md copied as the project's notes, not documents" in out
    assert (root / "chapters" / "ja" / "Translator_notes.md").read_text(encoding="utf-8") == notes
    config = load_config(root / "conf.py")
    assert "Translator_notes.md" in config.exclusions
    assert "Translator_notes" not in config.document_names("ja")
    result = check_book(load_book(config))
    assert not [f for f in result.active if "Translator_notes" in str(f.primary.path)]
