"""The bundled book executes for both frameworks on CPU, shared across languages, and
rebuilds incrementally. One cold build per session (a copy of the book), several checks.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.cli import build, main
from polybook.config import load_config
from polybook.dialect.normalize import normalize_code
from polybook.execute.commands import cache, eval_command
from polybook.execute.envs import env_spec

from conftest import ROOT, copy_conf

pytestmark = pytest.mark.slow
CHAPTER = "async-computation"


def _eval(conf: Path) -> tuple[int, str, dict[str, Any]]:
    build.commands.setdefault("eval", eval_command)  # a no-op once cli.py mounts them
    main.commands.setdefault("cache", cache)
    with contextlib.chdir(conf.parent):
        result = CliRunner().invoke(main, ["--conf", str(conf), "build", "eval"])
    report = json.loads((conf.parent / "build" / "eval-report.json").read_text(encoding="utf-8"))
    return result.exit_code, result.output, report


def expected_programs(conf: Path) -> int:
    """Distinct programs, computed from the chapters themselves (not from polybook's keys):
    two (language, framework) programs share a run when their normalised cells are equal."""
    book = load_book(load_config(conf))
    distinct = set()
    for chapters in book.chapters.values():
        for doc in chapters.values():
            for framework in doc.frameworks:
                cells = tuple(normalize_code(c.code) for c in doc.cells(framework))
                if cells:
                    distinct.add((framework, cells))
    return len(distinct)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("bundled")
    shutil.copytree(ROOT / "chapters", root / "chapters")
    for path in (root / "chapters").rglob("*"):
        path.chmod(path.stat().st_mode | stat.S_IWUSR)  # the bundled chapters may be read-only
    conf = copy_conf(root)
    code, output, report = _eval(conf)
    return {"conf": conf, "code": code, "output": output, "report": report, "root": root}


def _programs(report: dict[str, Any], framework: str) -> list[dict[str, Any]]:
    return [p for p in report["programs"] if p["framework"] == framework]


def test_the_bundled_chapter_runs_for_both_frameworks_on_cpu(book: dict[str, Any]) -> None:
    report = book["report"]
    assert book["code"] == 0, book["output"]  # needs_gpu is reported, not fatal
    assert {p["status"] for p in _programs(report, "mxnet")} == {"ok"}
    # The section before it only defines the book's library (Benchmark, try_gpu): it runs on a CPU.
    assert {p["status"] for p in _programs(report, "pytorch") if p["chapter"] != CHAPTER} == {"ok"}
    for program in (p for p in _programs(report, "pytorch") if p["chapter"] == CHAPTER):
        # `torch.cuda.synchronize(device)` on a CPU machine: recorded, not hidden, not faked.
        assert program["status"] == "needs_gpu"
        assert program["failure"]["ename"] in {"RuntimeError", "AssertionError"}
        for location in program["failure"]["locations"]:
            path, line = location.rsplit(":", 1)
            source = (book["root"] / path).read_text(encoding="utf-8").split("\n")
            cell = "\n".join(source[int(line) : int(line) + 8])
            assert "torch.cuda.synchronize(device)" in cell.split("```\n")[0]
    assert "needs a GPU" in book["output"]


def test_each_framework_runs_in_its_own_environment(book: dict[str, Any]) -> None:
    """conf.py gives mxnet and pytorch environments of their own: neither sees the other's packages."""
    execution = load_config(book["conf"]).execution
    for framework in ("mxnet", "pytorch"):
        spec = env_spec(execution, framework)
        assert {p["kernel"] for p in _programs(book["report"], framework)} == {spec.kernel}
    mxnet = env_spec(execution, "mxnet").executable
    probe = subprocess.run([str(mxnet), "-c", "import torch"], capture_output=True, text=True, check=False)
    assert probe.returncode == 1 and "No module named 'torch'" in probe.stderr


def test_identical_programs_run_once_for_all_languages(book: dict[str, Any]) -> None:
    summary = book["report"]["summary"]
    assert summary["language_programs"] == 20  # 5 languages x 2 frameworks x 2 sections with code
    assert summary["kernel_runs"] == summary["programs"] == expected_programs(book["conf"])
    assert summary["kernel_runs"] < summary["language_programs"]
    served = sorted(lang for p in book["report"]["programs"] for lang in p["languages"])
    assert served == sorted(["en", "ja", "pt", "zh", "tr"] * 4)


def test_the_mxnet_outputs_carry_the_benchmark_lines_in_every_language(book: dict[str, Any]) -> None:
    for lang in ("en", "ja", "pt", "zh", "tr"):
        doc = json.loads((book["root"] / "build" / "eval" / lang / f"{CHAPTER}.json").read_text(encoding="utf-8"))
        text = "".join(o.get("text", "") for c in doc["cells"] if c["framework"] == "mxnet" for o in c["outputs"])
        for name in ("numpy", "mxnet.np", "waitall", "wait_to_read", "synchronous", "asynchronous"):
            assert re.search(rf"^{re.escape(name)}: \d+\.\d+ sec$", text, re.M), (lang, name)
        provenance = doc["programs"]["mxnet"]["provenance"]
        assert provenance["packages"]["mxnet"] == "1.9.1" and provenance["device"].startswith("CPU")
        assert "torch" not in provenance["packages"]  # the mxnet program's environment is mxnet's
        assert "mxnet" not in doc["programs"]["pytorch"]["provenance"]["packages"]


def test_edits_rerun_only_what_they_change(book: dict[str, Any]) -> None:
    conf, chapters = book["conf"], book["root"] / "chapters"
    code, _, warm = _eval(conf)
    assert code == 0 and warm["summary"]["kernel_runs"] == 0 and warm["summary"]["cache_hits"] > 0

    ja = chapters / "ja" / f"{CHAPTER}.md"
    text = ja.read_text(encoding="utf-8")
    first_prose = next(line for line in text.split("\n")[2:] if line and not line.startswith(("`", "#", ":")))
    ja.write_text(text.replace(first_prose, first_prose + " 追加の文。"), encoding="utf-8")
    assert _eval(conf)[2]["summary"]["kernel_runs"] == 0  # prose never enters a key

    zh = chapters / "zh" / f"{CHAPTER}.md"
    zh_text = zh.read_text(encoding="utf-8")
    zh.write_text(zh_text.replace("npx.waitall()\n", "npx.waitall()  # 等待全部完成\n", 1), encoding="utf-8")
    after_comment = _eval(conf)[2]
    assert after_comment["summary"]["kernel_runs"] == 0  # translated comments: still shared

    tr = chapters / "tr" / f"{CHAPTER}.md"
    tr_text = tr.read_text(encoding="utf-8")
    tr.write_text(tr_text.replace("z = x * y + 2", "z = x * y + 3", 1), encoding="utf-8")
    code, _, changed = _eval(conf)
    runs = [p for p in changed["programs"] if p["source"] == "run"]
    assert [(p["framework"], p["languages"]) for p in runs] == [("mxnet", ["tr"])]
    assert runs[0]["status"] == "ok" and code == 0
