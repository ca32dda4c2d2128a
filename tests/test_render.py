"""The transpile step, golden: a tiny complete book -> the MyST Sphinx reads.

``tests/fixtures/render/book`` is a book (conf.py, two languages, a figure, a .bib) with
hand-made execution results in ``eval/``; ``expected/`` holds the MyST of each chapter
(all frameworks in tabs, and PyTorch only as the PDF stage will ask). Regenerate with
``pytest tests/test_render.py --regen`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybook.book import load_book
from polybook.config import load_config
from polybook.dialect import parse_text
from polybook.dialect.nodes import Document, Heading
from polybook.render.build import merge_warnings
from polybook.render.stage import stage_language
from polybook.stage.documents import cross_language_anchors
from polybook.stage.inline import convert
from polybook.stage.myst import transpile
from polybook.stage.outputs import ChapterResults, OutputRenderer
from polybook.stage.sphinx_run import SphinxRun, map_warnings

BOOK = Path(__file__).parent / "fixtures" / "render" / "book"
EXPECTED = BOOK / "expected"
LABEL = load_config(BOOK / "conf.py").label_of  # MXNet, PyTorch
SETTINGS = load_config(BOOK / "conf.py").languages["en"].settings


def _results(language: str, chapter: str) -> ChapterResults:
    path = BOOK / "eval" / language / f"{chapter}.json"
    return ChapterResults.from_doc(json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None)


def _check(name: str, actual: str, regen: bool) -> None:
    expected = EXPECTED / name
    if regen or not expected.is_file():
        expected.parent.mkdir(parents=True, exist_ok=True)
        expected.write_text(actual, encoding="utf-8")
    assert actual == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize(("language", "chapter", "framework"), [
    ("en", "tiny", None), ("ja", "tiny", None), ("en", "index", None), ("en", "tiny", "pytorch"),
])  # fmt: skip
def test_golden_myst(language: str, chapter: str, framework: str | None, regen: bool) -> None:
    config = load_config(BOOK / "conf.py")
    doc = load_book(config, [language]).chapters[language][chapter]
    outputs = OutputRenderer(
        language, _results(language, chapter), lambda data, suffix: f"/_outputs/x{suffix}", label=LABEL
    )
    myst = transpile(doc, language, framework=framework, outputs=outputs, label=LABEL)
    suffix = f".{framework}" if framework else ""
    _check(f"{language}/{chapter}{suffix}.md", myst.text, regen)
    assert len(myst.lines) == myst.text.count("\n")


def test_roles_become_myst_roles_but_code_spans_stay() -> None:
    source = "See :numref:`fig_a` and :eqref:`eq_b`, ``:ref:`x` `` and :citet:`K`; ![i](../img/a.png)"
    out = convert(source, image=lambda src: "/_book/img/a.png")
    assert out == "See {numref}`fig_a` and {eq}`eq_b`, ``:ref:`x` `` and {cite:t}`K`; ![i](/_book/img/a.png)"


def _tiny(language: str = "en") -> Document:
    return load_book(load_config(BOOK / "conf.py"), [language]).chapters[language]["tiny"]


def _cell(renderer: OutputRenderer, doc: Document, line: int, framework: str) -> list[str]:
    """The rendered results of the cell whose fence is at ``line``."""
    program = doc.cells(framework)
    return renderer.cell(next(c for c in program if c.line == line), framework, program)


def test_script_in_a_stream_is_a_literal_block_but_text_html_is_raw() -> None:
    results = _results("en", "tiny")
    renderer = OutputRenderer("en", results, lambda data, suffix: "x")
    stream = "\n".join(_cell(renderer, _tiny(), 6, "mxnet"))
    assert "{code-block} none" in stream and "{raw}" not in stream
    rich = "\n".join(_cell(renderer, _tiny(), 28, "mxnet"))
    assert '{raw} html\n<div class="output html"><b class="rich-output">bold</b></div>' in rich


def test_outputs_follow_their_cell_when_prose_moves_it() -> None:
    doc = _tiny()
    moved = parse_text(Path(BOOK / "chapters/en/tiny.md").read_text(encoding="utf-8").replace(
        "## More", "A new paragraph\nof two lines.\n\n## More"
    ), doc.path, SETTINGS)  # fmt: skip
    renderer = OutputRenderer("en", _results("en", "tiny"), lambda data, suffix: "x")
    text = transpile(moved, "en", outputs=renderer).text
    assert "Found no NVIDIA driver" in text and "mxnet says" in text and renderer.missing == {}


def test_outputs_of_changed_code_are_never_shown() -> None:
    source = Path(BOOK / "chapters/en/tiny.md").read_text(encoding="utf-8")
    doc = _tiny()
    # Same lines; the first PyTorch cell's code changed: its outputs and those of every
    # PyTorch cell after it (they ran after the old code) are gone; MXNet's stay.
    changed = parse_text(source.replace('print("torch says hi")', 'print("torch says bye")'), doc.path, SETTINGS)
    renderer = OutputRenderer("en", _results("en", "tiny"), lambda data, suffix: "x")
    text = transpile(changed, "en", outputs=renderer).text
    assert "torch says hi" not in text and "Found no NVIDIA driver" not in text
    assert "mxnet says" in text
    assert list(renderer.missing) == [(12, "pytorch"), (22, "pytorch"), (47, "pytorch"), (52, "pytorch")]
    # A comment or spacing change is not a code change.
    same = parse_text(source.replace('print("torch says hi")', 'print( "torch says hi" )  # hello'), doc.path, SETTINGS)
    assert "torch says hi" in transpile(same, "en", outputs=OutputRenderer("en", _results("en", "tiny"), str)).text


def test_a_cell_without_stored_outputs_is_a_warning_with_no_eval(tmp_path: Path) -> None:
    config = load_config(BOOK / "conf.py")
    doc = _tiny()
    results = {"tiny": json.loads((BOOK / "eval" / "en" / "tiny.json").read_text(encoding="utf-8"))}
    results["tiny"]["cells"] = [c for c in results["tiny"]["cells"] if c["line"] != 22]
    stage = stage_language(config, "en", {"tiny": doc}, {}, results, tmp_path, [], stored=True)
    found = [(d.path, d.line, d.level, d.message) for d in stage.diagnostics if d.code == "output.missing"]
    assert found == [
        (doc.path, 22, "warning", f"no stored output for this cell ({fw}): run polybook build eval")
        for fw in ("mxnet", "pytorch")
    ]
    evaluated = stage_language(config, "en", {"tiny": doc}, {}, results, tmp_path, [])
    assert not [d for d in evaluated.diagnostics if "stored" in d.message]


def test_needs_gpu_is_a_notice_with_where_it_ran() -> None:
    lines = _cell(OutputRenderer("en", _results("en", "tiny"), lambda d, s: "x"), _tiny(), 47, "pytorch")
    text = "\n".join(lines)
    assert "{admonition} Needs a GPU" in text and "CPU: Test CPU (2026-11-22)" in text
    assert "RuntimeError: Found no NVIDIA driver" in text


def test_figure_escaping_the_book_root_is_an_error(tmp_path: Path) -> None:
    config = load_config(BOOK / "conf.py")
    doc = parse_text("# T\n\n![x](../../../../etc/passwd)\n:label:`fig_x`\n", "chapters/en/bad.md")
    stage = stage_language(config, "en", {"bad": doc}, {}, {}, tmp_path / "src", [])
    codes = [(d.code, d.level, d.line) for d in stage.diagnostics]
    assert codes == [("html.figure.outside", "error", 3)]
    assert "passwd" not in stage.docs["bad"].text


def test_inline_image_and_link_escaping_the_book_root_are_errors_shown_as_text(tmp_path: Path) -> None:
    config = load_config(BOOK / "conf.py")
    source = (
        "# T\n\nSee ![the key](../../../../tmp/secret.txt) here.\n\n"
        'Read [the key](../../../../tmp/secret.txt "t") or [this page](tiny.md#sec_tiny), [the box](../img/box.svg),'
        " [the web](https://example.org/a.txt) and [above](#t).\n"
    )
    doc = parse_text(source, "chapters/en/bad.md")
    docs = {"bad": doc, "tiny": load_book(config, ["en"]).chapters["en"]["tiny"]}
    stage = stage_language(config, "en", docs, {}, {}, tmp_path / "src", [])
    found = [(d.path, d.line, d.code, d.level) for d in stage.diagnostics if d.path == doc.path]
    assert found == [(doc.path, 3, "html.figure.outside", "error"), (doc.path, 5, "html.link.outside", "error")]
    text = stage.docs["bad"].text
    assert "secret" not in text
    assert "See the key here." in text and "Read the key or" in text
    assert "[this page](/tiny.md#sec_tiny)" in text and "[the box](/_book/chapters/img/box.svg)" in text
    assert "[the web](https://example.org/a.txt)" in text and "[above](#t)" in text


def test_staging_twice_rewrites_nothing(tmp_path: Path) -> None:
    config = load_config(BOOK / "conf.py")
    docs = load_book(config, ["en"]).chapters["en"]
    first = stage_language(config, "en", docs, {}, {}, tmp_path, [])
    mtimes = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    second = stage_language(config, "en", docs, {}, {}, tmp_path, [])
    assert first.digest == second.digest
    assert mtimes == {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    assert (tmp_path / "_book" / "chapters" / "img" / "box.svg").is_file()


def test_anchors_are_labels_or_the_source_slug() -> None:
    def heads(*specs: tuple[int, str, str | None]) -> list[Heading]:
        return [Heading("x.md", i + 1, i + 1, level, text, label) for i, (level, text, label) in enumerate(specs)]

    source = heads((1, "Async", "sec_async"), (2, "Barriers and Blockers", None))
    same = heads((1, "非同期", "sec_async"), (2, "バリア", None))
    assert cross_language_anchors(same, source) == ["sec_async", "barriers-and-blockers"]
    other_shape = heads((1, "非同期", "sec_async"))
    assert cross_language_anchors(other_shape, source) == ["sec_async"]


def test_sphinx_warnings_map_to_the_chapter_line(tmp_path: Path) -> None:
    config = load_config(BOOK / "conf.py")
    doc = load_book(config, ["en"]).chapters["en"]["tiny"]
    myst = transpile(doc, "en")
    myst_line = myst.text.split("\n").index("## More") + 1
    text = f"{tmp_path}/tiny.md:{myst_line}: WARNING: something odd [myst.x]\nWARNING: global"
    found = map_warnings(text, tmp_path, {"tiny": myst}, {"tiny": doc.path}, "chapters/en/index.md")
    assert [(d.path, d.line, d.message) for d in found] == [
        (doc.path, 40, "something odd [myst.x]"),
        ("chapters/en/index.md", 1, "global"),
    ]


def test_warnings_of_what_sphinx_did_not_redo_are_kept() -> None:
    def w(phase: str, doc: str, message: str) -> dict[str, str]:
        return {"phase": phase, "doc": doc, "message": message}

    stored = [
        w("read", "a", "a: old read"),
        w("read", "b", "b: read"),
        w("write", "b", "b: old write"),
        w("write", "c", "c: write"),
        w("consistency", "c", "c: not in a toctree"),
        w("read", "gone", "gone: read"),
        w("setup", "", "config"),
    ]
    fresh = [w("read", "a", "a: new read"), w("write", "b", "b: new write")]
    done = SphinxRun("en", 0, [], read=["a"], docs_written=["a", "b"], consistency=False)
    merged = merge_warnings(stored, fresh, done, {"a", "b", "c"})
    assert [e["message"] for e in merged] == [
        "b: read",
        "c: write",
        "c: not in a toctree",
        "a: new read",
        "b: new write",
    ]
    done = SphinxRun("en", 0, [], read=["a"], docs_written=["a"], consistency=True)
    assert "c: not in a toctree" not in [e["message"] for e in merge_warnings(stored, [], done, {"a", "b", "c"})]


def test_frozen_gpu_outputs_say_where_they_come_from_once_per_program() -> None:
    doc = _tiny()
    data = json.loads((BOOK / "eval" / "en" / "tiny.json").read_text(encoding="utf-8"))
    provenance = {"device": "GPU: A100 <b>x</b>", "date": "2026-01-02<script>T10:00:00"}
    data["programs"]["mxnet"] |= {"source": "frozen", "provenance": provenance}
    renderer = OutputRenderer("en", ChapterResults.from_doc(data), lambda d, s: "x", label=LABEL)
    text = transpile(doc, "en", outputs=renderer).text
    assert text.count("polybook-frozen") == 1  # three MXNet cells, one notice
    assert "{admonition} Computed on GPU: A100 \\<b\\>x\\</b\\>" in text
    assert "The MXNet outputs of this page were computed on GPU: A100 \\<b\\>x\\</b\\> (2026-01-02\\<script\\>)" in text
    assert text.index("polybook-frozen") < text.index("x = 1 + 1")  # on the first MXNet cell
    assert "Needs a GPU" not in text.split("torch.cuda")[0]
    ja_data = json.loads((BOOK / "eval" / "ja" / "tiny.json").read_text(encoding="utf-8"))
    ja_data["programs"]["mxnet"] |= {"source": "frozen", "provenance": provenance}
    ja = transpile(_tiny("ja"), "ja", outputs=OutputRenderer("ja", ChapterResults.from_doc(ja_data), str)).text
    assert ja.count("{admonition} GPU: A100 \\<b\\>x\\</b\\> で計算") == 1
