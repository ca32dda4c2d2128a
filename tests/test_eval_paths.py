"""``polybook build eval PATHS``: some documents' programs, every other result kept; a build whose
results are all stored needs no environment; environments' kernels live in the build folder.

A book of our own: one framework (``alpha``) run by the ``python3`` kernel, two languages, three
documents in two folders -- and, for the environment tests, a framework with an environment of
its own that is never made.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.cli import main
from polybook.config import load_config
from polybook.execute import envs, provision
from polybook.execute.cache import Store
from polybook.execute.evaluate import EvalOptions, evaluate, plan
from polybook.execute.results import CellResult, ProgramResult, RunStatus
from polybook.execute.selection import NotADocument, documents_at

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["alpha"],
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語"}},
    "exclusions": ["README.md"],
    "execution": %s,
}
"""
PYTHON3 = '{"kernel": "python3", "timeout": 60}'
#: A framework with an environment of its own (never made here: six is never installed).
OWN_ENVIRONMENT = '{"kernel": "python3", "timeout": 60, "environments": {"alpha": ["six==1.17.0"]}}'
DOCUMENTS = {"chapter_one/a": "print('a', {n})", "chapter_one/b": "print('b', {n})", "chapter_two/c": "print('c', {n})"}


def write_book(root: Path, execution: str = PYTHON3, n: int = 1) -> Path:
    """The book in ``root``, its cells printing ``n``; returns conf.py."""
    for lang in ("en", "ja"):
        for name, code in DOCUMENTS.items():
            path = root / "chapters" / lang / f"{name}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {name}\n\n```{{.python .input}}\n{code.format(n=n)}\n```\n", encoding="utf-8")
        (root / "chapters" / lang / "README.md").write_text("# Not a document\n", encoding="utf-8")
        (root / "chapters" / lang / "notes.txt").write_text("not Markdown\n", encoding="utf-8")
        (root / "chapters" / lang / "empty").mkdir(exist_ok=True)
    (root / "conf.py").write_text(CONF % execution, encoding="utf-8")
    return root / "conf.py"


def eval_cli(conf: Path, *args: str) -> Any:
    with contextlib.chdir(conf.parent):  # paths as a person types them, relative to the book
        return CliRunner().invoke(main, ["--conf", str(conf), "build", "eval", *args])


def stored(root: Path) -> dict[str, bytes]:
    """Every result file of ``build/eval`` by path, as bytes."""
    folder = root / "build" / "eval"
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.json"))}


# -- which documents a path names --------------------------------------------------------


def test_a_path_names_a_document_or_every_document_below_a_folder(tmp_path: Path) -> None:
    config = load_config(write_book(tmp_path))
    with contextlib.chdir(tmp_path):
        assert documents_at(config, [Path("chapters/ja/chapter_one/a.md")]) == {("ja", "chapter_one/a")}
        assert documents_at(config, [Path("chapters/en/chapter_one/")]) == {
            ("en", "chapter_one/a"),
            ("en", "chapter_one/b"),
        }
        assert documents_at(config, [tmp_path / "chapters" / "en"]) == {("en", name) for name in DOCUMENTS}
        both = documents_at(config, [Path("chapters/en/chapter_two"), Path("chapters/ja/chapter_two/c.md")])
        assert both == {("en", "chapter_two/c"), ("ja", "chapter_two/c")}


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("conf.py", "conf.py: not in the book (its documents are below chapters/en/, chapters/ja/)"),
        ("chapters", "chapters: not in the book"),
        ("chapters/en/notes.txt", "chapters/en/notes.txt: not a document"),
        ("chapters/en/README.md", "chapters/en/README.md: not a document (a Markdown file conf.py does not exclude)"),
        ("chapters/en/chapter_one/z.md", "chapters/en/chapter_one/z.md: no such file"),
        ("chapters/en/empty", "chapters/en/empty: a folder with no document in it"),
    ],
)
def test_a_path_that_names_no_document_is_a_usage_error_naming_it(tmp_path: Path, path: str, said: str) -> None:
    conf = write_book(tmp_path)
    with (
        contextlib.chdir(tmp_path),
        pytest.raises(NotADocument, match="^" + said.replace("(", r"\(").replace(")", r"\)")),
    ):
        documents_at(load_config(conf), [Path(path)])
    result = eval_cli(conf, "chapters/en/chapter_one/a.md", path)
    assert result.exit_code == 2 and said in result.output, result.output
    assert not (tmp_path / "build" / "eval-report.json").exists()  # refused before anything ran


def test_a_path_of_a_language_left_out_is_refused(tmp_path: Path) -> None:
    result = eval_cli(write_book(tmp_path), "-l", "en", "chapters/ja/chapter_one/a.md")
    assert result.exit_code == 2
    assert "chapters/ja/chapter_one/a.md: a document of language 'ja', which -l/--lang leaves out" in result.output


# -- one path's programs, every other result kept ------------------------------------------


@pytest.mark.slow
def test_eval_of_one_path_runs_its_programs_and_keeps_every_other_result(tmp_path: Path) -> None:
    conf = write_book(tmp_path)
    first = eval_cli(conf)
    assert first.exit_code == 0, first.output
    before, entries = stored(tmp_path), {key for key, *_ in Store(tmp_path / "build" / "cache").entries()}
    assert len(before) == 6 and len(entries) == 3  # en and ja share each document's program

    write_book(tmp_path, n=2)  # every document's code changes; only one is evaluated
    one = eval_cli(conf, "chapters/ja/chapter_one/a.md")
    assert one.exit_code == 0, one.output
    after = stored(tmp_path)
    assert {path for path in before if after[path] != before[path]} == {"ja/chapter_one/a.json"}
    cells = json.loads(after["ja/chapter_one/a.json"])["cells"]
    assert [o["text"] for c in cells for o in c["outputs"]] == ["a 2\n"]
    now = {key for key, *_ in Store(tmp_path / "build" / "cache").entries()}
    assert entries < now and len(now - entries) == 1  # the cache keeps what it held, plus the one run

    report = json.loads((tmp_path / "build" / "eval-report.json").read_text(encoding="utf-8"))
    served = {(u["language"], u["chapter"]): p["source"] for p in report["programs"] for u in p["served"]}
    assert served[("ja", "chapter_one/a")] == "run"
    assert {source for doc, source in served.items() if doc != ("ja", "chapter_one/a")} == {"earlier build"}
    assert len(served) == 6 and report["summary"]["kernel_runs"] == 1

    folder = eval_cli(conf, "chapters/en/chapter_one/")  # a folder: its two documents, en's copy only
    assert folder.exit_code == 0, folder.output
    again = stored(tmp_path)
    changed = {path for path in after if again[path] != after[path]}
    assert changed == {"en/chapter_one/a.json", "en/chapter_one/b.json"}
    assert again["ja/chapter_two/c.json"] == before["ja/chapter_two/c.json"]


# -- all results stored: no environment ---------------------------------------------------


def _store_every_result(conf: Path) -> list[Any]:
    """Put a result for each of the book's programs into its cache, as an earlier build would have."""
    config = load_config(conf)
    programs = plan(load_book(config))
    cache = Store(config.execution.cache_dir)
    for program in programs:
        cells = [CellResult(RunStatus.OK, [{"output_type": "stream", "name": "stdout", "text": "stored\n"}], 0.1, 60)]
        cache.put(program.key, ProgramResult(program.key, program.label(), RunStatus.OK, cells).to_json())
    return programs


@pytest.fixture
def no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Making, finding or checking an environment fails the test."""

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("an environment was made, looked up or checked with uv")

    monkeypatch.setattr(provision, "ensure_environments", refuse)
    monkeypatch.setattr(envs, "ensure_environment", refuse)
    monkeypatch.setattr(envs, "run_uv", refuse)
    monkeypatch.setattr(envs, "run_dated", refuse)


def test_an_evaluation_whose_results_are_all_stored_makes_no_environment(tmp_path: Path, no_environment: None) -> None:
    conf = write_book(tmp_path, OWN_ENVIRONMENT)
    programs = _store_every_result(conf)
    config = load_config(conf)
    spec = envs.env_spec(config.execution, "alpha")
    assert {p.kernel for p in programs} == {spec.kernel} and not spec.folder.exists()
    evaluation = evaluate(load_book(config), EvalOptions(jobs=1))
    assert [o.source for o in evaluation.outcomes] == ["cache"] * 3 and not evaluation.problems
    assert not spec.folder.exists() and not (config.build_dir / "kernels").exists()


def test_html_with_every_result_stored_renders_them_and_makes_no_environment(
    tmp_path: Path, no_environment: None
) -> None:
    from polybook.execute.site_outputs import site_outputs

    conf = write_book(tmp_path, OWN_ENVIRONMENT)
    _store_every_result(conf)
    config = load_config(conf)
    out = site_outputs(config, load_book(config), ["en", "ja"], evaluate=True)  # what `build html` evaluates
    assert (out.kernel_runs, out.cache_hits) == (0, 3) and not out.diagnostics
    shown = out.results[("ja", "chapter_two/c")]["cells"][0]["outputs"]
    assert shown == [{"output_type": "stream", "name": "stdout", "text": "stored\n"}]
    assert not envs.env_spec(config.execution, "alpha").folder.exists()


def test_eval_of_a_path_makes_only_the_environments_its_programs_need(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A book of two frameworks with environments, none made: evaluating a document that only one
    of them runs asks for that one's environment only."""
    conf = write_book(
        tmp_path, OWN_ENVIRONMENT.replace('"alpha": ["six==1.17.0"]', '"alpha": ["six"], "beta": ["six"]')
    )
    text = conf.read_text(encoding="utf-8").replace('["alpha"]', '["alpha", "beta"]')
    conf.write_text(text, encoding="utf-8")
    beta = tmp_path / "chapters" / "en" / "chapter_two" / "c.md"
    beta.write_text("# c\n\n```{.python .input}\n#@tab beta\nprint('c')\n```\n", encoding="utf-8")
    asked: list[Any] = []

    def record(config: Any, wanted: Any, *_: Any, **__: Any) -> dict[Any, Any]:
        asked.extend(wanted)
        failed = envs.EnvState.FAILED
        return {want: envs.Environment(envs.env_spec(config.execution, *want), failed, reason="no") for want in wanted}

    monkeypatch.setattr(provision, "ensure_environments", record)
    result = eval_cli(conf, "chapters/en/chapter_two/c.md")
    assert result.exit_code == 0, result.output
    assert asked == [("beta", ())]


# -- where kernels are registered ----------------------------------------------------------


def test_an_environments_kernel_spec_is_written_in_the_build_folder(tmp_path: Path) -> None:
    config = load_config(write_book(tmp_path, OWN_ENVIRONMENT))
    spec = envs.env_spec(config.execution, "alpha")
    written = envs.register_kernel(spec, envs.kernel_dir(config))
    assert written == tmp_path / "build" / "kernels" / spec.kernel / "kernel.json"
    assert json.loads(written.read_text(encoding="utf-8"))["argv"][0] == str(spec.executable)
    assert not (Path(sys.prefix) / "share" / "jupyter" / "kernels" / spec.kernel).exists()


def test_disk_usage_counts_a_file_linked_twice_once(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "big").write_bytes(b"x" * 100_000)
    os.link(one / "big", two / "big")
    (two / "own").write_bytes(b"y" * 10_000)
    usage = envs.disk_usage([one, two])
    assert usage.apparent == 210_000
    assert 110_000 <= usage.real < 130_000  # blocks: the linked file once
    assert envs.disk_usage([two]).shared >= 100_000  # linked from outside the folders asked about


@pytest.mark.slow
def test_build_html_with_every_result_stored_makes_no_environment(tmp_path: Path, no_environment: None) -> None:
    """``build html`` (evaluating) of a book whose environment was never made, every result stored."""
    from polybook.site.build import HtmlOptions, build_html

    conf = write_book(tmp_path, OWN_ENVIRONMENT)
    for lang in ("en", "ja"):
        toc = "\n".join(DOCUMENTS)
        (tmp_path / "chapters" / lang / "index.md").write_text(f"# Book\n\n```toc\n{toc}\n```\n", encoding="utf-8")
    _store_every_result(conf)
    config = load_config(conf)
    built = build_html(config, HtmlOptions())
    assert [b.sphinx for b in built.languages] == ["built", "built"], built.to_dict()
    assert (built.kernel_runs, built.cache_hits) == (0, 3)
    page = (tmp_path / "build" / "html" / "ja" / "chapter_two" / "c.html").read_text(encoding="utf-8")
    assert "stored" in page
    assert (
        not envs.env_spec(config.execution, "alpha").folder.exists() and not (tmp_path / "build" / "kernels").exists()
    )
