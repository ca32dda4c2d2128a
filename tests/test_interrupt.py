"""A build stopped halfway, an edit saved while a build runs: the next build shows the book as a
cold build would (issue 42; STYLE.md §9: state is written after the work it describes).

The stopped builds are real: ``bench/fault_kill.py`` kills ``build html``, ``build eval`` and
``build pdf`` of the fixture book at seeded points (a random delay, or the k-th page Sphinx writes)
with SIGKILL or SIGINT, builds again and compares with a cold build. The benchmark runs many more
points on the bundled book.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from polybook.config import load_config
from polybook.render import build as render_build
from polybook.site.build import HtmlOptions, build_html
from polybook.stage import interrupted

from conftest import FIXTURES, ROOT
from minibook import make_book


def test_a_job_found_marked_starts_again_from_nothing(tmp_path: Path) -> None:
    work, stamp = tmp_path / "work", tmp_path / "out" / "stamp.json"
    kept = [stamp, work / "doctrees", work / "warnings.json"]
    (work / "doctrees").mkdir(parents=True)
    (work / "doctrees" / "environment.pickle").write_bytes(b"x")
    (work / "warnings.json").write_text("[]", encoding="utf-8")
    stamp.parent.mkdir()
    stamp.write_text("{}", encoding="utf-8")
    assert not interrupted.restart(work, kept)  # not marked: nothing is forgotten
    assert all(path.exists() for path in kept)
    interrupted.begin(work)  # its Sphinx starts ... and the build is stopped
    assert interrupted.restart(work, kept)
    assert not any(path.exists() for path in kept)
    assert interrupted.running(work)  # until a build of it ends: stopped again, it starts again
    interrupted.end(work)
    assert not interrupted.restart(work, kept)


@pytest.mark.slow
def test_an_edit_saved_while_the_code_runs_is_built_by_the_next_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = make_book(tmp_path, "# Book\n\nFirst words.\n", "# 本\n\n序文。\n", name="index")
    chapter = tmp_path / "chapters" / "en" / "index.md"
    page = tmp_path / "build" / "html" / "en" / "index.html"

    def build() -> dict[str, str]:
        result = build_html(load_config(conf), HtmlOptions(evaluate=False))
        return {b.language: str(b.sphinx) for b in result.languages}

    assert build() == {"en": "built", "ja": "built"}
    chapter.write_text("# Book\n\nSecond words here.\n", encoding="utf-8")  # what the next build reads
    outputs = render_build.site_outputs

    def evaluating(*args: Any, **kwargs: Any) -> Any:  # the book is read; the code runs
        chapter.write_text("# Book\n\nThird words, saved while the code ran.\n", encoding="utf-8")
        return outputs(*args, **kwargs)

    monkeypatch.setattr(render_build, "site_outputs", evaluating)
    assert build()["en"] == "built"
    text = page.read_text(encoding="utf-8")
    assert "Second words here." in text and "Third words" not in text  # the book as it was read
    monkeypatch.undo()
    assert build() == {"en": "built", "ja": "up to date"}  # not "up to date": the edit is not on the page
    assert "Third words, saved while the code ran." in page.read_text(encoding="utf-8")
    assert build() == {"en": "up to date", "ja": "up to date"}


def _fault_kill() -> ModuleType:
    """bench/fault_kill.py (bench/ is not a package)."""
    name = "bench_fault_kill"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "fault_kill.py")
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)  # its dataclasses look their module up
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


@pytest.mark.slow
def test_after_a_build_stopped_anywhere_the_next_build_equals_a_cold_one() -> None:
    """html: a title in every language, a section and a new word changed, the build stopped after a
    random delay or at a page Sphinx writes; eval: stopped while the kernels run; pdf: while LaTeX
    runs. Then built again: the same site, results and PDF as a cold build's."""
    fault_kill = _fault_kill()
    counts = {"html": 4, "eval": 1, "pdf": 2}
    outcomes = fault_kill.kill_points(FIXTURES / "render" / "book", counts, seed=42, say=print)
    different = {str(o.point): o.differences for done in outcomes.values() for o in done if not o.equal}
    assert different == {}
    assert sum(o.stopped for o in outcomes["html"]) >= 2  # stopped while it ran, not after it ended
