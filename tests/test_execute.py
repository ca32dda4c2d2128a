"""Execution without kernels: program keys, the cache store, config, error classes."""

from __future__ import annotations

import io
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from polybook.book import Book
from polybook.cli import main
from polybook.config import ConfigError, load_config
from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.normalize import normalize_code
from polybook.execute import environment
from polybook.execute.cache import Store
from polybook.execute.environment import provenance
from polybook.execute.evaluate import Evaluation, Outcome
from polybook.execute.outputs import write_outputs
from polybook.execute.programs import build_programs
from polybook.execute.progress import EvalProgress
from polybook.execute.report import print_table, summary_table, write_report
from polybook.execute.results import CellResult, ProgramResult, RunStatus, Source
from polybook.execute.runner import clean_outputs, needs_gpu

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet", "pytorch"],
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語"}},
    "execution": %s,
}
"""

EN = """\
# Chapter

Some prose.

```{.python .input}
# Make a matrix
x = 1 + 2  # three
```

```{.python .input}
#@tab pytorch
import torch
```

```{.python .input}
def f():
    \"\"\"Add one.\"\"\"
    return x + 1
f()
```
"""

JA = """\
# 章

翻訳された文章。

```{.python .input  n=1}
# 行列を作る
x = 1+2   # 三
```

```{.python .input  n=2}
#@tab pytorch
import torch
```

```{.python .input  n=3}
def f():
    \"\"\"1 を足す。\"\"\"
    return x + 1

f()
```
"""

FP = {
    "mxnet": {"kernel": "python3", "python": "3.11", "packages": {"mxnet": "1.9.1"}},
    "pytorch": {"kernel": "python3", "python": "3.11", "packages": {"torch": "2.2.2"}},
}


def _book(tmp_path: Path, texts: dict[str, str], execution: str = "{}") -> Book:
    (tmp_path / "chapters").mkdir(exist_ok=True)
    (tmp_path / "conf.py").write_text(CONF % execution, encoding="utf-8")
    config = load_config(tmp_path / "conf.py")
    book = Book(config)
    for code, text in texts.items():
        settings = DialectSettings(code, ("mxnet", "pytorch"), "mxnet")
        book.chapters[code] = {"ch": parse_text(text, f"chapters/{code}/ch.md", settings)}
    return book


def _keys(book: Book) -> dict[tuple[str, str], str]:
    return {(lang, p.framework): p.key for p in build_programs(book, FP) for lang in p.languages}


def test_translations_share_programs_whatever_their_comments_and_prose(tmp_path: Path) -> None:
    programs = build_programs(_book(tmp_path, {"en": EN, "ja": JA}), FP)
    assert [(p.framework, p.languages, len(p.sources)) for p in programs] == [
        ("mxnet", ["en", "ja"], 2),
        ("pytorch", ["en", "ja"], 1),
    ]
    mxnet = programs[0]
    assert mxnet.locations(1) == ["chapters/en/ch.md:15", "chapters/ja/ch.md:15"]
    assert mxnet.sources[0] == "# Make a matrix\nx = 1 + 2  # three"  # the source language's code runs
    assert (
        mxnet.cwd == (tmp_path / "build" / "run" / "en" / "mxnet").resolve()
    )  # a mirror of chapters/en, never the sources
    assert programs[1].cwd == (tmp_path / "build" / "run" / "en" / "pytorch").resolve()  # each framework its own


def test_the_key_follows_code_options_and_environment_only(tmp_path: Path) -> None:
    base = _keys(_book(tmp_path, {"ja": JA}))
    assert _keys(_book(tmp_path, {"ja": JA.replace("翻訳された文章。", "別の文章。")})) == base
    changed = _keys(_book(tmp_path, {"ja": JA.replace("return x + 1", "return x + 2")}))
    assert changed[("ja", "mxnet")] != base[("ja", "mxnet")]
    assert changed[("ja", "pytorch")] == base[("ja", "pytorch")]
    allowed = _keys(_book(tmp_path, {"ja": JA.replace("input  n=3}", "input  n=3 allow_errors=true}")}))
    assert allowed[("ja", "mxnet")] != base[("ja", "mxnet")]
    assert _keys(_book(tmp_path, {"ja": JA}, '{"chapters": {"ch": {"allow_errors": True}}}')) != base
    # The chapter timeout is not in the key (a stored timeout is re-run when it is raised).
    assert _keys(_book(tmp_path, {"ja": JA}, '{"timeout": 900}')) == base
    other_env = {**FP, "mxnet": {"kernel": "python3", "python": "3.11", "packages": {"mxnet": "1.9.0"}}}
    assert build_programs(_book(tmp_path, {"ja": JA}), other_env)[0].key != base[("ja", "mxnet")]


def test_each_framework_has_its_own_fingerprint_even_in_a_shared_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bumping mxnet re-runs the mxnet programs only, though one kernel serves both frameworks."""
    versions = {"mxnet": "1.9.1", "torch": "2.2.2", "torchvision": "0.17.2", "d2l": "1.0.3", "numpy": "1.23.5"}

    def probe(kernel: str, packages: tuple[str, ...], store: Path | None = None) -> dict:
        return {"python": "3.11", "packages": {name: versions[name] for name in packages}}

    monkeypatch.setattr(environment, "fingerprint", probe)
    packages = '{"mxnet": ["mxnet"], "pytorch": ["torch", "torchvision"]}'
    book = _book(tmp_path, {"en": EN}, f'{{"kernel": "one", "packages": {packages}}}')
    prints = environment.fingerprints(book.config.execution, book.config.frameworks)
    assert prints["pytorch"] == {
        "kernel": "one",
        "python": "3.11",
        "packages": {"d2l": "1.0.3", "numpy": "1.23.5", "torch": "2.2.2", "torchvision": "0.17.2"},
    }
    assert prints["mxnet"]["packages"] == {"d2l": "1.0.3", "mxnet": "1.9.1", "numpy": "1.23.5"}
    keys = {p.framework: p.key for p in build_programs(book, prints)}
    versions["mxnet"] = "1.9.2"
    bumped = {
        p.framework: p.key
        for p in build_programs(book, environment.fingerprints(book.config.execution, book.config.frameworks))
    }
    assert bumped["mxnet"] != keys["mxnet"] and bumped["pytorch"] == keys["pytorch"]
    assert provenance(prints["pytorch"])["packages"] == prints["pytorch"]["packages"]  # no mxnet in torch's


def test_a_displayed_string_is_code_not_a_docstring(tmp_path: Path) -> None:
    """A cell that is just a string shows it: a translated one must not share the run."""
    en, ja = "# Hi\n\n```{.python .input}\n%s\n```\n", "# 挨拶\n\n```{.python .input}\n%s\n```\n"
    greet = _keys(_book(tmp_path, {"en": en % '"Hello, world"', "ja": ja % '"こんにちは世界"'}))
    assert greet[("en", "mxnet")] != greet[("ja", "mxnet")]
    # A docstring (first statement of the cell, of a def or a class, followed by more) still does not count.
    documented = _keys(
        _book(tmp_path, {"en": en % '"""Make x."""\nx = 1', "ja": ja % '"""x を作る。"""\nx = 1'}),
    )
    assert documented[("en", "mxnet")] == documented[("ja", "mxnet")]


@pytest.mark.parametrize(
    ("code", "normalised"),
    [
        ('"Hello, world"', '"Hello, world"'),  # the cell's result
        ('"""Module doc."""\nx=1', "x = 1"),
        ('x = 1\n"done"', 'x = 1\n"done"'),  # not the first statement: shown
        ('def f():\n    """Doc."""\n    "kept"\n    return 1', 'def f ( ) :\n    "kept"\n    return 1'),
        ('@dec\nasync def f():\n    "doc"\n    pass', "@ dec\nasync def f ( ) :\n    pass"),
        ('class A:\n    "doc"\n    x = "v"', 'class A :\n    x = "v"'),
        ('f"{x}"\nx = 1', 'f"{x}"\nx = 1'),  # an f-string is never a docstring
        ('"a" "b"  # joined\n', '"a" "b"'),
    ],
)
def test_docstrings_are_lone_strings_opening_a_body(code: str, normalised: str) -> None:
    assert normalize_code(code) == normalised


def test_bad_cell_options_are_warnings_at_the_cells_line(tmp_path: Path) -> None:
    problems: list = []
    book = _book(tmp_path, {"ja": JA.replace("input  n=1}", "input  n=1 timeout=soon}")})
    (program, _) = build_programs(book, FP, problems)
    assert [d.format() for d in problems] == [
        "chapters/ja/ch.md:5: warning: cell option timeout='soon' is not a positive number of seconds; "
        "ignored [polybook.exec.option]"
    ]
    assert program.options[0].timeout == 300


def test_execution_settings_are_validated_with_key_and_line(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    conf = tmp_path / "conf.py"
    conf.write_text(
        CONF
        % """{
        "timeout": 0,
        "kernal": "x",
        "kernel": {"jax": "k"},
        "allow_errors": "yes",
        "chapters": {"ch": {"timeout": -1, "retries": 2}},
    }""",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as info:
        load_config(conf)
    found = sorted((d.line, d.message.split(":")[0]) for d in info.value.diagnostics)
    assert found == [
        (6, "polybook.execution.timeout"),
        (7, "polybook.execution.kernal"),
        (8, "polybook.execution.kernel"),
        (9, "polybook.execution.allow_errors"),
        (10, "polybook.execution.chapters.ch.retries"),
        (10, "polybook.execution.chapters.ch.timeout"),
    ]
    assert "did you mean 'kernel'?" in str(info.value)


def test_execution_defaults(tmp_path: Path) -> None:
    config = _book(tmp_path, {}, '{"kernel": "k", "chapters": {"slow": {"timeout": 900}}}').config
    ex = config.execution
    assert ex.cache_dir == (tmp_path / "build" / "cache").resolve()
    assert ex.frozen_dir == (tmp_path / "frozen").resolve()
    assert ex.kernel_for("pytorch") == "k"
    # Nothing names frameworks by hand: without an environment or a packages setting, a
    # framework is keyed by the distribution of its own name.
    assert ex.packages_for("pytorch") == ("pytorch", "d2l", "numpy")
    assert ex.chapter("slow").timeout == 900 and ex.chapter("other").timeout == 300
    assert ex.chapter("slow").allow_errors is False


def _evaluation(book: Book) -> Evaluation:
    """As if every program of ``book`` had run and succeeded (no kernel)."""
    outcomes = []
    for program in build_programs(book, FP):
        cells = [CellResult(RunStatus.OK, [], 0.1, 300) for _ in program.sources]
        result = ProgramResult(program.key, program.label(), RunStatus.OK, cells, duration=0.2)
        outcomes.append(Outcome(program, result, Source.RUN, 0.2))
    return Evaluation(book, outcomes, "local", 1, 0.2, time.time())


def test_the_summary_table_is_whole_in_a_ci_log(tmp_path: Path) -> None:
    """Off a terminal rich falls back to 80 columns; the table gets the width it needs."""
    evaluation = _evaluation(_book(tmp_path, {"en": EN, "ja": JA}))
    evaluation.outcomes[0].note = "corrupt frozen result ignored"
    log = io.StringIO()
    console = Console(file=log)  # not a terminal, as in CI
    print_table(console, summary_table(evaluation))
    text = log.getvalue()
    assert "…" not in text
    assert "en,ja" in text and "run (corrupt frozen result ignored)" in text
    assert all(line.count("│") == 8 for line in text.split("\n") if line.startswith("│"))  # one line per program
    log = io.StringIO()
    print_table(Console(file=log), summary_table(_evaluation(_book(tmp_path, {"en": EN}))))  # a narrow table
    assert log.getvalue().split("\n")[0].strip().endswith("2 kernel runs, 0 cached, 0 frozen")  # a title on one line


def test_identical_code_under_other_timeouts_runs_with_its_own(tmp_path: Path) -> None:
    """Same key (the cache is shared), but not merged: each chapter's timeout applies to its run."""
    book = _book(tmp_path, {"en": EN}, '{"chapters": {"slow": {"timeout": 900}}}')
    book.chapters["en"]["slow"] = parse_text(
        EN, "chapters/en/slow.md", DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
    )
    book.chapters["en"]["same"] = parse_text(
        EN, "chapters/en/same.md", DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
    )
    mxnet = [p for p in build_programs(book, FP) if p.framework == "mxnet"]
    assert [([u.name for u in p.uses], [o.timeout for o in p.options]) for p in mxnet] == [
        (["ch", "same"], [300, 300]),
        (["slow"], [900, 900]),
    ]
    assert mxnet[0].key == mxnet[1].key and mxnet[0].languages == ["en"]
    progress = EvalProgress(Console(file=io.StringIO()), enabled=False)
    progress.plan(mxnet)
    for _ in mxnet:  # two programs, one key: each event finishes one of them
        progress.event("hit", mxnet[0].key, -1)
    assert [(t.completed, t.total) for t in progress.progress.tasks] == [(2, 2), (2, 2), (2, 2)]  # overall, each


def test_two_builds_write_their_report_and_outputs_into_one_build_dir_at_once(tmp_path: Path) -> None:
    """Each writer has its own temporary file: no FileNotFoundError, no torn file."""
    evaluation = _evaluation(_book(tmp_path, {"en": EN, "ja": JA}))

    def build(_: int) -> None:
        for _ in range(60):
            write_report(evaluation)
            write_outputs(evaluation)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(build, range(4)))  # re-raises what a writer raised
    assert json.loads((tmp_path / "build" / "eval-report.json").read_text(encoding="utf-8"))["summary"]["programs"] == 2
    for lang in ("en", "ja"):
        assert (
            len(json.loads((tmp_path / "build" / "eval" / lang / "ch.json").read_text(encoding="utf-8"))["cells"]) == 3
        )
    assert sorted(p.name for p in (tmp_path / "build").rglob("*")) == [
        "ch.json",
        "ch.json",
        "en",
        "eval",
        "eval-report.json",
        "ja",
    ]


def test_cache_info_works_without_the_kernel(tmp_path: Path) -> None:
    """Entries are counted; which ones the book uses cannot be known without the environment."""
    _book(tmp_path, {}, '{"kernel": "no-such-kernel"}')
    for code, text in (("en", EN), ("ja", JA)):
        (tmp_path / "chapters" / code).mkdir(parents=True)
        (tmp_path / "chapters" / code / "ch.md").write_text(text, encoding="utf-8")
    Store(tmp_path / "build" / "cache").put("ab" * 32, {"status": "ok", "cells": []})
    result = CliRunner().invoke(main, ["--conf", str(tmp_path / "conf.py"), "cache", "info", "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert (info["entries"], info["statuses"], info["book_programs"]) == (1, {"ok": 1}, 2)
    assert info["book_programs_cached"] is None and info["languages"]["ja"] == {"programs": 2, "cached": None}
    assert "'no-such-kernel' is not installed" in info["kernel_problem"]
    text = CliRunner().invoke(main, ["--conf", str(tmp_path / "conf.py"), "cache", "info"])
    assert text.exit_code == 0 and "which ones the book uses: unknown" in text.output


def test_store_round_trip_and_corruption(tmp_path: Path) -> None:
    store = Store(tmp_path / "cache")
    key = "ab" * 32
    payload = {"status": "ok", "cells": [{"outputs": [{"text": "héllo"}]}]}
    assert store.get(key).reason == "missing"
    path = store.put(key, payload)
    assert path == tmp_path / "cache" / "ab" / f"{key}.json"
    assert store.get(key).payload == payload and list(store.keys()) == [key]
    # A flipped value keeps the JSON valid but breaks the checksum: a miss, and the entry goes.
    path.write_text(path.read_text(encoding="utf-8").replace("héllo", "hello"), encoding="utf-8")
    assert store.get(key).reason == "corrupt" and not path.exists()
    store.put(key, payload)
    path.write_bytes(path.read_bytes()[:40])  # truncated, as by a crash without atomic writes
    assert store.get(key).reason == "corrupt"


def test_store_sweeps_orphaned_temporary_files_and_clears(tmp_path: Path) -> None:
    store = Store(tmp_path / "cache")
    store.put("cd" * 32, {"status": "error"})
    orphan = tmp_path / "cache" / "cd" / ".cdcdcdcdcdcd.x.tmp"
    orphan.write_text("{", encoding="utf-8")
    fresh = tmp_path / "cache" / "cd" / ".cdcdcdcdcdcd.y.tmp"
    fresh.write_text("{", encoding="utf-8")
    old = time.time() - 3600
    os.utime(orphan, (old, old))
    assert store.sweep() == 1 and not orphan.exists() and fresh.exists()
    assert list(store.keys()) == ["cd" * 32]
    assert store.clear() == 1 and list(store.keys()) == [] and not fresh.exists()


def test_frozen_store_is_flat(tmp_path: Path) -> None:
    store = Store(tmp_path / "frozen", fanout=False)
    store.put("ef" * 32, {"status": "ok"})
    assert json.loads((tmp_path / "frozen" / f"{'ef' * 32}.json").read_text())["payload"] == {"status": "ok"}


@pytest.mark.parametrize(
    ("ename", "evalue", "expected"),
    [
        ("RuntimeError", "Found no NVIDIA driver on your system. Please check ...", True),
        ("AssertionError", "Torch not compiled with CUDA enabled", True),
        ("RuntimeError", "No CUDA GPUs are available", True),
        ("MXNetError", "[12:00:00] src/storage/storage.cc:199: Compile with USE_CUDA=1 to enable GPU usage", True),
        ("RuntimeError", "shape mismatch", False),
        ("ZeroDivisionError", "division by zero", False),
    ],
)
def test_needs_gpu_recognises_cuda_only_failures(ename: str, evalue: str, expected: bool) -> None:
    assert needs_gpu(ename, evalue) is expected


def test_outputs_keep_only_what_a_page_shows() -> None:
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "hi\n"},
        {"output_type": "display_data", "data": {"application/vnd.jupyter.widget-view+json": {}}, "metadata": {}},
        {
            "output_type": "execute_result",
            "execution_count": 3,
            "data": {"text/plain": "1", "text/latex": "$1$", "image/svg+xml": "<svg/>"},
            "metadata": {},
        },
        {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["t"]},
    ]
    kept = clean_outputs(outputs)
    assert [o["output_type"] for o in kept] == ["stream", "execute_result", "error"]
    assert set(kept[1]["data"]) == {"text/plain", "image/svg+xml"}


def test_the_kernel_probe_is_kept_while_its_import_folders_do_not_change(tmp_path: Path) -> None:
    """Starting the kernel's Python to read package versions costs most of a no-op build: the
    answer is kept with the modification times of the kernel's import folders."""
    from polybook.execute import environment

    probe = environment.fingerprint.__wrapped__  # without the in-process memo
    store = tmp_path / "environment.json"
    first = probe("python3", ("pip",), store)
    kept = json.loads(store.read_text(encoding="utf-8"))["python3"]
    assert kept["result"] == first and kept["folders"]
    kept["result"] = {"python": "9.9", "packages": {"pip": "from the store"}}
    store.write_text(json.dumps({"python3": kept}), encoding="utf-8")
    assert probe("python3", ("pip",), store)["packages"] == {"pip": "from the store"}  # folders unchanged: kept
    folder = next(iter(kept["folders"]))
    kept["folders"][folder] = -1  # as if a package had been installed there since
    store.write_text(json.dumps({"python3": kept}), encoding="utf-8")
    assert probe("python3", ("pip",), store) == first
