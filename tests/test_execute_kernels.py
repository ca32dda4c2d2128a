"""Execution with real kernels: failures as data, the cache under crashes and concurrency,
frozen results, the Dask backend. The bundled book has its own file (test_execute_book.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.cli import build, main
from polybook.config import load_config
from polybook.execute.cache import Store
from polybook.execute.commands import cache, eval_command

from conftest import FIXTURES

pytestmark = pytest.mark.slow
BOOK = FIXTURES / "execute" / "book"
# `polybook build eval` in a subprocess, with the execution commands mounted as cli.py does.
CLI = [
    sys.executable,
    "-c",
    "from polybook.cli import build, main\n"
    "from polybook.execute.commands import cache, eval_command\n"
    "build.commands.setdefault('eval', eval_command)\nmain.commands.setdefault('cache', cache)\nmain()",
]


def mount() -> None:
    """Mount the execution commands on the CLI (a no-op once cli.py does it)."""
    build.commands.setdefault("eval", eval_command)
    main.commands.setdefault("cache", cache)


def copy_book(dest: Path, chapters: list[str] | None = None, execution: str | None = None) -> Path:
    """A copy of the fixture book in ``dest`` (optionally some chapters, other settings)."""
    shutil.copytree(BOOK, dest)
    if chapters is not None:
        for md in (dest / "chapters").rglob("*.md"):
            if md.stem not in chapters:
                md.unlink()
    if execution is not None:
        conf = dest / "conf.py"
        text = conf.read_text(encoding="utf-8")
        start = text.index('    "execution"')
        conf.write_text(text[:start] + f'    "execution": {execution},\n}}\n', encoding="utf-8")
    return dest / "conf.py"


def eval_cli(conf: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    mount()
    with contextlib.chdir(conf.parent):  # diagnostics show paths relative to the book
        # -v: every warning in full (the tests look for them), not the table by code
        result = CliRunner().invoke(main, ["--conf", str(conf), "build", "eval", "-v", *args])
    report = conf.parent / "build" / "eval-report.json"
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    return result.exit_code, result.output, data


def by_chapter(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{p['chapter']}/{p['framework']}": p for p in report["programs"]}


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str, dict[str, Any]]:
    conf = copy_book(tmp_path_factory.mktemp("failing") / "book")
    return (conf, *eval_cli(conf, "-j", "2"))


def test_every_failure_is_recorded_and_the_others_run(failing: tuple) -> None:
    _, code, output, report = failing
    programs = by_chapter(report)
    assert code == 1  # unallowed failures happened; all programs still ran
    assert {k: p["status"] for k, p in programs.items()} == {
        "ok/alpha": "ok",
        "ok/beta": "ok",
        "raising/alpha": "error",
        "hang/alpha": "timeout",
        "exit/alpha": "kernel_died",
        "killed/alpha": "kernel_died",
        "allowed/alpha": "ok",
        "tolerant/alpha": "ok",
        "gpu/alpha": "needs_gpu",
    }
    assert report["summary"]["kernel_runs"] == 9 and report["summary"]["language_programs"] == 12
    assert report["summary"]["fatal"] == 4  # needs_gpu is reported, not fatal, by default
    for name in ("program", "languages", "cells", "time", "status", "needs a GPU", "kernel died", "timeout"):
        assert name in output


def test_a_raising_cell_is_reported_at_its_line_in_every_language(failing: tuple) -> None:
    _, _, output, report = failing
    raising = by_chapter(report)["raising/alpha"]
    assert raising["languages"] == ["en", "ja"]  # translated comments: still one program
    assert raising["failure"]["ename"] == "ZeroDivisionError"
    assert raising["failure"]["locations"] == ["chapters/en/raising.md:9", "chapters/ja/raising.md:10"]
    assert "----> 1 1 / 0" in "\n".join(raising["failure"]["traceback"])
    assert raising["cells_run"] == 2 and raising["cells"] == 3  # like a notebook: stops there
    assert (
        "chapters/ja/raising.md:10: error: alpha cell raised: ZeroDivisionError: division by zero "
        "(program shared by en, ja) [polybook.exec.error]"
    ) in output


def test_timeouts_and_dead_kernels_are_data(failing: tuple) -> None:
    programs = by_chapter(failing[3])
    hang = programs["hang/alpha"]
    assert hang["failure"]["evalue"] == "cell did not finish within 3 s; kernel stopped"
    assert 3 <= hang["cell_durations"][0] < 10 and hang["cell_durations"][1] is None
    assert programs["exit/alpha"]["failure"]["evalue"].endswith("(exit status 3)")
    assert programs["exit/alpha"]["failure"]["locations"] == ["chapters/en/exit.md:7"]
    assert programs["killed/alpha"]["failure"]["evalue"].endswith(f"(exit status -{signal.SIGKILL.value})")


def test_allowed_errors_keep_the_program_running(failing: tuple) -> None:
    conf, _, output, report = failing
    for name in ("allowed/alpha", "tolerant/alpha"):
        assert by_chapter(report)[name]["allowed_errors"] == 1
        assert by_chapter(report)[name]["cells_run"] == 2
    assert "chapters/en/tolerant.md:3: info: alpha cell raised (allowed): ValueError: shown on purpose" in output
    cells = json.loads((conf.parent / "build" / "eval" / "en" / "allowed.json").read_text(encoding="utf-8"))["cells"]
    assert [c["status"] for c in cells] == ["error", "ok"]
    assert cells[1]["outputs"][0]["text"] == "after the error\n"


def test_a_cell_can_refuse_errors_its_chapter_allows(tmp_path: Path) -> None:
    conf = copy_book(tmp_path / "book", [], '{"kernel": "python3", "chapters": {"strict": {"allow_errors": True}}}')
    (tmp_path / "book" / "chapters" / "en" / "strict.md").write_text(
        "# Strict\n\n```{.python .input allow_errors=false}\nraise ValueError('not allowed here')\n```\n\n"
        "```{.python .input}\nprint('must not run')\n```\n",
        encoding="utf-8",
    )
    code, output, report = eval_cli(conf)
    strict = by_chapter(report)["strict/alpha"]
    assert code == 1 and strict["status"] == "error" and strict["allowed_errors"] == 0
    assert strict["cells_run"] == 1 and strict["failure"]["locations"] == ["chapters/en/strict.md:3"]
    assert "chapters/en/strict.md:3: error: alpha cell raised: ValueError: not allowed here" in output


def test_needs_gpu_is_visible_but_not_fatal(failing: tuple) -> None:
    _, _, output, report = failing
    gpu = by_chapter(report)["gpu/alpha"]
    assert gpu["status"] == "needs_gpu" and gpu["wants_gpu"]
    assert "chapters/en/gpu.md:7: warning: alpha cell needs a GPU: RuntimeError: Found no NVIDIA driver" in output


def test_outputs_are_attached_to_every_language(failing: tuple) -> None:
    conf = failing[0]
    for lang in ("en", "ja"):
        doc = json.loads((conf.parent / "build" / "eval" / lang / "ok.json").read_text(encoding="utf-8"))
        alpha = [c for c in doc["cells"] if c["framework"] == "alpha"]
        assert alpha[0]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "hello from alpha\n"}]
        assert "image/png" in alpha[1]["outputs"][0]["data"]  # a matplotlib figure
        assert alpha[2]["outputs"][0]["data"]["text/plain"] == "42"
        assert doc["programs"]["alpha"]["provenance"]["device"].startswith(("CPU", "GPU"))
        assert doc["programs"]["alpha"]["languages"] == ["en", "ja"]
    ja = json.loads((conf.parent / "build" / "eval" / "ja" / "ok.json").read_text(encoding="utf-8"))
    assert [c["line"] for c in ja["cells"]] == [3, 8, 14, 18]


def test_stored_failures_are_served_as_failures_and_rerun_on_request(failing: tuple) -> None:
    conf = failing[0]
    code, _, warm = eval_cli(conf)
    assert code == 1 and warm["summary"]["kernel_runs"] == 0
    assert by_chapter(warm)["raising/alpha"] | {"wall": 0} == by_chapter(failing[3])["raising/alpha"] | {
        "wall": 0,
        "source": "cache",
    }
    code, _, rerun = eval_cli(conf, "--rerun-failed")
    sources = {k: p["source"] for k, p in by_chapter(rerun).items()}
    assert sources["raising/alpha"] == sources["killed/alpha"] == sources["gpu/alpha"] == "run"
    assert sources["ok/alpha"] == sources["allowed/alpha"] == "cache"


def test_a_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    conf = copy_book(tmp_path / "book", ["ok"])
    assert eval_cli(conf)[0] == 0
    store = Store(load_config(conf).execution.cache_dir)
    keys = list(store.keys())
    assert len(keys) == 2
    store.path(keys[0]).write_bytes(store.path(keys[0]).read_bytes()[:-30])
    code, _, report = eval_cli(conf)
    assert code == 0
    notes = {p["key"]: (p["source"], p["note"]) for p in report["programs"]}
    assert notes == {keys[0]: ("run", "corrupt entry discarded"), keys[1]: ("cache", "")}


def _wait_for(predicate: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.1)


SLOW = """# Slow

```{.python .input}
import time
time.sleep(%s)
print("slept")
```
"""


def test_a_build_killed_with_sigkill_leaves_the_next_build_correct(tmp_path: Path) -> None:
    conf = copy_book(tmp_path / "book", ["ok"], '{"kernel": "python3"}')
    (tmp_path / "book" / "chapters" / "en" / "slow.md").write_text(SLOW % 4, encoding="utf-8")
    entries = tmp_path / "book" / "build" / "cache"
    proc = subprocess.Popen([*CLI, "--conf", str(conf), "build", "eval", "-j", "3"], start_new_session=True)
    try:
        # Kill it once the quick programs are stored and the slow one is running.
        _wait_for(lambda: len(list(entries.glob("*/*.json"))) >= 2, 60)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not (tmp_path / "book" / "build" / "eval-report.json").exists()
    # What a writer killed mid-write leaves: an orphaned temporary file next to the entries.
    orphan = next(entries.glob("*/")) / ".deadbeef0000.1234.tmp"
    orphan.write_text('{"format": 1, "payl', encoding="utf-8")
    code, output, report = eval_cli(conf)
    assert code == 0, output
    sources = {f"{p['chapter']}/{p['framework']}": (p["source"], p["status"]) for p in report["programs"]}
    assert sources == {"ok/alpha": ("cache", "ok"), "ok/beta": ("cache", "ok"), "slow/alpha": ("run", "ok")}
    assert len(list(Store(entries).keys())) == 3


def test_two_concurrent_builds_share_the_cache_without_running_twice(tmp_path: Path) -> None:
    shared = tmp_path / "shared-cache"
    confs = []
    for name in ("one", "two"):
        conf = copy_book(tmp_path / name, ["ok"], f'{{"kernel": "python3", "cache_dir": {str(shared)!r}}}')
        for i in (1, 2):
            (tmp_path / name / "chapters" / "en" / f"slow{i}.md").write_text(SLOW % f"1.{i}", encoding="utf-8")
        confs.append(conf)
    procs = [
        subprocess.Popen([*CLI, "--conf", str(c), "build", "eval", "-j", "2"], stderr=subprocess.PIPE) for c in confs
    ]
    for proc in procs:
        assert proc.wait(timeout=180) == 0, proc.stderr.read().decode() if proc.stderr else ""
    reports = [json.loads((c.parent / "build" / "eval-report.json").read_text(encoding="utf-8")) for c in confs]
    runs: dict[str, list[str]] = {}
    for report in reports:
        assert {p["status"] for p in report["programs"]} == {"ok"}
        for p in report["programs"]:
            runs.setdefault(p["key"], []).append(p["source"])
    assert len(runs) == 4
    assert all(sorted(sources) == ["cache", "run"] for sources in runs.values()), runs
    assert len(list(Store(shared).keys())) == 4


def test_frozen_results_are_reused_by_key_with_their_provenance(tmp_path: Path) -> None:
    conf = copy_book(tmp_path / "book", ["ok", "gpu"])
    code, _, report = eval_cli(conf, "--freeze")
    assert code == 0 and report["summary"]["frozen_written"] == 2  # the two ok programs, not the failure
    frozen = Store(tmp_path / "book" / "frozen", fanout=False)
    assert len(list(frozen.keys())) == 2
    mount()
    assert CliRunner().invoke(main, ["--conf", str(conf), "cache", "clear"]).output.startswith("removed 3 entries")
    # As if a GPU machine had computed the GPU program and committed it with --freeze.
    gpu = by_chapter(report)["gpu/alpha"]
    assert gpu["status"] == "needs_gpu"
    frozen.put(
        gpu["key"],
        {
            "key": gpu["key"],
            "label": "gpu/alpha",
            "status": "ok",
            "failure": None,
            "allowed_errors": 0,
            "cells": [{"status": "ok", "outputs": [], "duration": 0.1, "timeout": 60} for _ in range(2)],
            "duration": 0.2,
            "provenance": {"device": "GPU: NVIDIA A100-SXM4-40GB", "host": "gpu-box", "date": "2026-11-01"},
        },
    )
    code, _, report = eval_cli(conf)
    assert code == 0 and report["summary"]["kernel_runs"] == 0 and report["summary"]["frozen_hits"] == 3
    assert by_chapter(report)["gpu/alpha"]["provenance"]["device"] == "GPU: NVIDIA A100-SXM4-40GB"


def test_a_corrupt_frozen_result_is_a_miss_and_stays(tmp_path: Path) -> None:
    conf = copy_book(tmp_path / "book", ["ok"])
    assert eval_cli(conf, "--freeze")[0] == 0
    frozen = Store(tmp_path / "book" / "frozen", fanout=False)
    broken, kept = list(frozen.keys())
    damaged = frozen.path(broken).read_bytes()[:-30]  # a bad merge or a truncated commit
    frozen.path(broken).write_bytes(damaged)
    code, output, report = eval_cli(conf)
    assert code == 0
    sources = {p["key"]: (p["source"], p["note"]) for p in report["programs"]}
    assert sources == {broken: ("cache", "corrupt frozen result ignored"), kept: ("frozen", "")}
    assert frozen.path(broken).read_bytes() == damaged  # committed: reported, never deleted
    assert (
        f"frozen/{broken}.json:1: warning: frozen result is corrupt (checksum, key or format does not match): "
        "ignored and left in place [polybook.read]"
    ) in output


def test_a_cuda_error_allowed_to_fail_still_needs_a_gpu(tmp_path: Path) -> None:
    conf = copy_book(tmp_path / "book", [], '{"kernel": "python3"}')
    (tmp_path / "book" / "chapters" / "en" / "cuda.md").write_text(
        "# CUDA\n\n```{.python .input allow_errors=true}\n"
        "raise RuntimeError('Found no NVIDIA driver on your system.')\n```\n\n"
        "```{.python .input}\nprint('after')\n```\n",
        encoding="utf-8",
    )
    code, output, report = eval_cli(conf)
    program = by_chapter(report)["cuda/alpha"]
    assert code == 0 and program["status"] == "ok" and program["allowed_errors"] == 1
    cells = json.loads((conf.parent / "build" / "eval" / "en" / "cuda.json").read_text(encoding="utf-8"))["cells"]
    assert [c["status"] for c in cells] == ["needs_gpu", "ok"]  # the page shows its "needs a GPU" notice
    assert (
        "chapters/en/cuda.md:3: warning: alpha cell needs a GPU (allowed): RuntimeError: Found no NVIDIA driver "
        "on your system. [polybook.exec.needs_gpu]"
    ) in output


def test_cache_info_counts_programs_per_language(failing: tuple) -> None:
    mount()
    result = CliRunner().invoke(main, ["--conf", str(failing[0]), "cache", "info", "--json"])
    info = json.loads(result.output)
    assert info["entries"] == 9 and info["book_programs_cached"] == 9
    assert info["languages"]["en"] == {"programs": 9, "cached": 9}
    assert info["languages"]["ja"] == {"programs": 3, "cached": 3}
    assert info["statuses"]["ok"] == 4


def _dask_book(tmp_path: Path) -> Any:
    """The ok chapter (two CPU programs) and a chapter whose code asks for a GPU but runs anywhere."""
    conf = copy_book(tmp_path / "book", ["ok"], '{"kernel": "python3"}')
    (tmp_path / "book" / "chapters" / "en" / "gpu.md").write_text(
        "# GPU if any\n\n```{.python .input}\nprint('prepare')\n```\n\n"
        "```{.python .input}\ndevice = 'cuda' if False else 'cpu'\nprint(device)\n```\n",
        encoding="utf-8",
    )
    with contextlib.chdir(conf.parent):  # diagnostics show paths relative to the book
        return load_book(load_config(conf))


def test_the_dask_backend_sends_gpu_programs_to_gpu_workers_only(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster, Worker

    from polybook.execute.evaluate import EvalOptions, evaluate
    from polybook.execute.report import build_report

    book = _dask_book(tmp_path)
    # One CPU-only worker, then one that declares a GPU: a routing failure would show.
    with LocalCluster(n_workers=1, threads_per_worker=3, processes=False, dashboard_address=None) as cluster:
        cluster.worker_spec["gpu"] = {"cls": Worker, "options": {"nthreads": 1, "resources": {"GPU": 1}}}
        cluster.scale(2)
        with Client(cluster) as client:
            client.wait_for_workers(2, timeout=60)
            workers = client.scheduler_info(n_workers=-1)["workers"]
        (gpu_worker,) = [a for a, w in workers.items() if w.get("resources", {}).get("GPU")]
        (cpu_worker,) = set(workers) - {gpu_worker}
        ran_on: dict[str, set[str]] = {}
        for _ in range(3):  # unconstrained programs may land anywhere: look at a few builds
            report = build_report(evaluate(book, EvalOptions(scheduler=cluster, rerun_failed=True)))
            Store(book.config.execution.cache_dir).clear()
            assert report["executor"] == "dask" and report["summary"]["kernel_runs"] == 3
            for name, program in by_chapter(report).items():
                assert program["status"] == "ok"
                ran_on.setdefault(name, set()).add(program["provenance"]["worker"])
            assert by_chapter(report)["gpu/alpha"]["provenance"]["resources"] == {"GPU": 1}
            assert by_chapter(report)["ok/alpha"]["provenance"]["resources"] == {}
    assert ran_on["gpu/alpha"] == {gpu_worker}
    assert cpu_worker in ran_on["ok/alpha"] | ran_on["ok/beta"]  # the CPU programs are not tied to the GPU worker


def test_without_a_gpu_worker_gpu_programs_are_not_run(tmp_path: Path) -> None:
    from distributed import LocalCluster

    from polybook.execute.evaluate import EvalOptions, evaluate
    from polybook.execute.report import build_report, diagnostics

    book = _dask_book(tmp_path)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        evaluation = evaluate(book, EvalOptions(scheduler=cluster))
    report = build_report(evaluation)
    programs = by_chapter(report)
    assert programs["ok/alpha"]["status"] == programs["ok/beta"]["status"] == "ok"
    gpu = programs["gpu/alpha"]
    assert (gpu["status"], gpu["source"], gpu["note"], gpu["cells_run"]) == ("needs_gpu", "skipped", "no GPU worker", 0)
    assert gpu["failure"]["locations"] == ["chapters/en/gpu.md:7"]  # the cell that asks for a GPU
    assert report["summary"]["kernel_runs"] == 2 and report["summary"]["not_run"] == 1 and not evaluation.fatal()
    assert gpu["key"] not in set(Store(book.config.execution.cache_dir).keys())  # a GPU worker may run it later
    assert [d.format() for d in diagnostics(evaluation)] == [
        "chapters/en/gpu.md:7: warning: alpha cell needs a GPU: NoGPUWorker: no Dask worker declares a GPU "
        "resource (start one with `dask worker ADDRESS --resources GPU=1`); not run [polybook.exec.needs_gpu]"
    ]


def test_book_code_runs_in_a_mirror_under_build_and_never_writes_into_the_sources(tmp_path: Path) -> None:
    """A nested chapter reads a figure by its relative path (a translation without its own copy
    reads the source's) and writes files beside itself and in ``../data``, as d2l's code does:
    everything it writes lands in build/run/, the chapters are left exactly as they were."""
    conf = copy_book(tmp_path / "book", ["ok"])
    chapters = tmp_path / "book" / "chapters"
    code = (
        "```{.python .input}\nimport os\nprint(open('../img/note.txt').read().strip())\n"
        "open('my_mlp-0000.params', 'w').write('weights')\nos.makedirs(os.path.join('..', 'data'), exist_ok=True)\n"
        "open(os.path.join('..', 'data', 'set.csv'), 'w').write('1,2')\n```\n"
    )
    for lang in ("en", "ja"):
        (chapters / lang / "chapter_io").mkdir()
        (chapters / lang / "chapter_io" / "files.md").write_text(f"# Files {lang}\n\n" + code, encoding="utf-8")
    (chapters / "en" / "img").mkdir()
    (chapters / "en" / "img" / "note.txt").write_text("read through the mirror\n", encoding="utf-8")
    before = sorted(str(p.relative_to(chapters)) for p in chapters.rglob("*"))
    exit_code, output, _ = eval_cli(conf, "-l", "ja")
    assert exit_code == 0, output
    assert sorted(str(p.relative_to(chapters)) for p in chapters.rglob("*")) == before
    run = tmp_path / "book" / "build" / "run" / "ja" / "alpha"  # the mirror of ja's alpha programs
    assert (run / "chapter_io" / "my_mlp-0000.params").read_text() == "weights"
    assert (run / "data" / "set.csv").read_text() == "1,2"
    assert (run / "img" / "note.txt").is_symlink()  # ja has no img/: the source's file, read-only
    outputs = json.loads((tmp_path / "book" / "build" / "eval" / "ja" / "chapter_io" / "files.json").read_text())
    streams = [o["text"] for c in outputs["cells"] for o in c["outputs"] if o["output_type"] == "stream"]
    assert streams == ["read through the mirror\n"]


def test_each_framework_writes_in_a_mirror_of_its_own(tmp_path: Path) -> None:
    """One framework saves a file ``my_mlp``, another a folder of that name (PyTorch's
    ``net.save`` and TensorFlow's ``saved_model.save`` in d2l's hybridize section): each runs in
    its own mirror, as d2l builds each framework on a machine of its own, so both succeed."""
    conf = copy_book(tmp_path / "book", ["ok"])
    text = (
        "# Save\n\n```{.python .input}\n#@tab alpha\nopen('my_mlp', 'w').write('weights')\n```\n\n"
        "```{.python .input}\n#@tab beta\nimport os\nos.makedirs('my_mlp')\nprint(os.path.isdir('my_mlp'))\n```\n"
    )
    (tmp_path / "book" / "chapters" / "en" / "save.md").write_text(text, encoding="utf-8")
    exit_code, output, report = eval_cli(conf, "-l", "en")
    assert exit_code == 0, output
    assert {p["framework"]: p["status"] for p in report["programs"] if p["chapter"] == "save"} == {
        "alpha": "ok",
        "beta": "ok",
    }
    run = tmp_path / "book" / "build" / "run" / "en"
    assert (run / "alpha" / "my_mlp").is_file() and (run / "beta" / "my_mlp").is_dir()


LIBRARY_CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["alpha", "beta"],
    "languages": {"en": {"name": "English"}},
    "execution": {"kernel": "python3", "timeout": 60},
    "library": {"frameworks": {"alpha": {"lib_file": "mylib/alpha.py"}, "beta": {"lib_file": "mylib/beta.py"}}},
}
"""
SAVING = """\
# Basics
:label:`sec_basics`

```{.python .input}
def double(x):  #@save
    return 2 * x
```

```{.python .input}
#@tab beta
def double(x):  #@save
    return x + x
```
"""
USING = """\
# Uses

```{.python .input}
#@tab alpha
from mylib import alpha as lib
print(lib.double(21))
```

```{.python .input}
#@tab beta
from mylib import beta as lib
print(lib.double(21))
```
"""


def test_kernels_import_the_books_own_library_and_a_saved_edit_reruns_only_its_framework(tmp_path: Path) -> None:
    """The library is built from the #@save code into build/ (the sources are not written)
    and imported ahead of anything installed; editing alpha's saved function reruns the alpha
    programs from its chapter on, and nothing of beta; a prose edit reruns nothing."""
    en = tmp_path / "chapters" / "en"
    (en / "mylib").mkdir(parents=True)
    (en / "mylib" / "__init__.py").write_text("", encoding="utf-8")
    (en / "index.md").write_text("# Book\n\n```toc\n:numbered:\nbasics\nuses\n```\n", encoding="utf-8")
    (en / "basics.md").write_text(SAVING, encoding="utf-8")
    (en / "uses.md").write_text(USING, encoding="utf-8")
    conf = tmp_path / "conf.py"
    conf.write_text(LIBRARY_CONF, encoding="utf-8")

    def run() -> tuple[dict[str, Any], list[str]]:
        exit_code, output, report = eval_cli(conf)
        assert exit_code == 0, output
        uses = json.loads((tmp_path / "build" / "eval" / "en" / "uses.json").read_text(encoding="utf-8"))
        streams = [o["text"] for c in uses["cells"] for o in c["outputs"] if o["output_type"] == "stream"]
        return report, streams

    report, streams = run()
    assert streams == ["42\n", "42\n"]
    assert report["summary"]["kernel_runs"] == 4
    assert not (en / "mylib" / "alpha.py").exists()  # built into build/lib/, not into the sources
    assert "def double" in (tmp_path / "build" / "lib" / "mylib" / "alpha.py").read_text(encoding="utf-8")

    (en / "basics.md").write_text(SAVING.replace("return 2 * x", "return 2 * x + 1"), encoding="utf-8")
    report, streams = run()
    assert streams == ["43\n", "42\n"]
    ran = sorted(f"{p['chapter']}/{p['framework']}" for p in report["programs"] if p["source"] == "run")
    assert ran == ["basics/alpha", "uses/alpha"]

    (en / "uses.md").write_text(USING.replace("# Uses", "# Uses\n\nSome prose."), encoding="utf-8")
    report, _ = run()
    assert report["summary"]["kernel_runs"] == 0
