"""One environment per framework (polybook.execution.environments): the conf.py schema, the
identity an environment is kept by, what an environment that cannot be made does to a build,
and -- slow -- real environments made by uv, whose kernels see nothing of polybook's own.

The fast tests never reach the network: an environment that must fail is asked of uv offline.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook import uvtool
from polybook.book import Book
from polybook.cli import main
from polybook.config import ConfigError, load_config
from polybook.dialect import DialectSettings, parse_text
from polybook.execute import envs
from polybook.execute.cache import Store
from polybook.execute.environment import fingerprints
from polybook.execute.envs import EnvState, ensure_environment, env_spec, look_up
from polybook.execute.evaluate import plan
from polybook.execute.programs import build_programs

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet", "pytorch"],
    "languages": {"en": {"name": "English"}},
    "execution": {
        "environments": {
            "mxnet": ["mxnet==1.9.1", "numpy==1.23.5"],
            "pytorch": %s,
        },%s
    },
}
"""
TORCH = '["torch==2.0.0", "torchvision==0.15.1"]'
CHAPTER = """\
# Chapter

```{.python .input}
x = 1
```

```{.python .input}
#@tab pytorch
import torch
```
"""
GPYTORCH = """\
```{.python .input}
%load_ext d2lbook.tab
tab.interact_select(['mxnet', 'pytorch'])
#required_libs("gpytorch==1.11")
```

# Gaussian processes

```{.python .input}
#@tab pytorch
import gpytorch
```
"""


def config_at(root: Path, torch: str = TORCH, more: str = "") -> Any:
    (root / "chapters" / "en").mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(CONF % (torch, more), encoding="utf-8")
    return load_config(root / "conf.py")


def book_of(config: Any, chapters: dict[str, str]) -> Book:
    book = Book(config)
    settings = DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
    book.chapters["en"] = {
        name: parse_text(text, f"chapters/en/{name}.md", settings) for name, text in chapters.items()
    }
    return book


# -- conf.py ---------------------------------------------------------------------------


def test_environments_are_read_with_their_lines_and_key_their_frameworks(tmp_path: Path) -> None:
    ex = config_at(tmp_path).execution
    assert ex.environments["pytorch"].requirements == ("torch==2.0.0", "torchvision==0.15.1")
    assert (ex.environments["mxnet"].line, ex.environments["pytorch"].line) == (7, 8)
    assert ex.env_dir == (tmp_path / "build" / "envs").resolve()
    # The distributions that key a framework are its requirements' names: nothing lists frameworks by hand.
    assert ex.packages_for("pytorch") == ("torch", "torchvision", "d2l", "numpy")
    assert ex.packages_for("mxnet") == ("mxnet", "numpy", "d2l")
    assert config_at(tmp_path, more='\n        "env_dir": "/tmp/shared-envs",').execution.env_dir == Path(
        "/tmp/shared-envs"
    )


def test_bad_environments_are_reported_at_their_lines(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "conf.py").write_text(
        textwrap.dedent("""\
        polybook = {
            "source_language": "en",
            "frameworks": ["mxnet", "pytorch"],
            "languages": {"en": {"name": "English"}},
            "execution": {
                "environments": {
                    "pytorh": ["torch==2.0.0"],
                    "mxnet": ["mxnet=1.9.1"],
                    "pytorch": "torch",
                },
                "env_dir": 3,
            },
        }
        """),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "conf.py")
    assert [(d.line, d.message) for d in info.value.diagnostics] == [
        (7, "polybook.execution.environments.pytorh: not in polybook.frameworks; did you mean 'pytorch'?"),
        (
            8,
            "polybook.execution.environments.mxnet: 'mxnet=1.9.1' is not a PEP 508 requirement: "
            + info.value.diagnostics[1].message.split("requirement: ", 1)[1],
        ),
        (9, "polybook.execution.environments.pytorch: must be a list of requirement strings ('torch==2.0.0')"),
        (11, "polybook.execution.env_dir: must be a folder path (a string)"),
    ]
    assert "Expected" in info.value.diagnostics[1].message  # packaging's own words on what is wrong


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="az09._-[],=", min_size=1, max_size=14))
def test_a_requirement_taken_without_packaging_is_one_packaging_takes(text: str) -> None:
    """conf.py's pinned requirements are read without importing packaging (a twentieth of a
    second before every command): only what PEP 508 holds for sure is taken that way."""
    from packaging.requirements import Requirement

    from polybook.config.validate import _PINNED

    if _PINNED.fullmatch(text):
        Requirement(text)  # raises InvalidRequirement otherwise


def test_pinned_requirements_are_taken_and_the_others_left_to_packaging() -> None:
    from polybook.config.validate import _PINNED

    for pinned in ("torch==2.0.0", "jax[cpu]==0.4.13", "d2l", "matplotlib-inline==0.1.6"):
        assert _PINNED.fullmatch(pinned)
    for other in ("mxnet=1.9.1", "torch>=2", "a==1.", "a[b,]==1", "x; python_version<'3.12'"):
        assert not _PINNED.fullmatch(other)  # packaging reads these (and says what is wrong)


# -- identity -------------------------------------------------------------------------


def test_an_environment_is_named_by_what_it_is_made_from(tmp_path: Path) -> None:
    ex = config_at(tmp_path).execution
    spec = env_spec(ex, "pytorch")
    assert spec.requirements == ("torch==2.0.0", "torchvision==0.15.1")
    assert spec.folder == ex.env_dir / f"pytorch-{spec.identity[:12]}"
    assert spec.kernel == f"polybook-pytorch-{spec.identity[:8]}"
    assert spec.python == f"{sys.implementation.name}-{sys.version_info.major}.{sys.version_info.minor}"
    # Another order and another spelling of the same requirements: the same environment.
    same = config_at(tmp_path / "b", '["TorchVision == 0.15.1", "torch==2.0.0"]').execution
    assert env_spec(same, "pytorch").identity == spec.identity
    # One more requirement, or a #required_libs extra: another one.
    more = config_at(tmp_path / "c", '["torch==2.0.0", "torchvision==0.15.1", "six"]').execution
    assert env_spec(more, "pytorch").identity != spec.identity
    derived = env_spec(ex, "pytorch", ("gpytorch",))
    assert derived.identity not in {spec.identity, env_spec(more, "pytorch").identity}
    assert derived.requirements == ("gpytorch", "torch==2.0.0", "torchvision==0.15.1") and derived.extra == (
        "gpytorch",
    )
    assert derived.label == "pytorch + gpytorch"


def test_the_identity_enters_every_program_key_and_no_kernel_is_probed(tmp_path: Path) -> None:
    def keys(config: Any) -> dict[str, str]:
        book = book_of(config, {"ch": CHAPTER})
        prints = fingerprints(config.execution, config.frameworks)  # both have environments: no kernel
        return {p.framework: p.key for p in build_programs(book, prints)}

    config = config_at(tmp_path)
    spec = env_spec(config.execution, "pytorch")
    assert fingerprints(config.execution, ("pytorch",))["pytorch"] == {
        "kernel": spec.kernel,
        "python": spec.python,
        "environment": spec.identity,
        "packages": {"torch": "2.0.0", "torchvision": "0.15.1"},  # as pinned: the same made or not
    }
    assert not look_up(config.execution, "pytorch").ready  # computed without it
    open_ended = config_at(tmp_path / "open", '["torch>=2", "torchvision==0.15.*"]').execution
    assert env_spec(open_ended, "pytorch").fingerprint()["packages"] == {"torch": None, "torchvision": None}
    base = keys(config)
    bumped = keys(config_at(tmp_path / "b", '["torch==2.0.1", "torchvision==0.15.1"]'))
    assert bumped["pytorch"] != base["pytorch"] and bumped["mxnet"] == base["mxnet"]


def test_a_document_with_required_libs_runs_in_a_derived_environment(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    book = book_of(config, {"ch": CHAPTER, "gp": GPYTORCH})
    programs = {(p.name, p.framework): p for p in plan(book)}  # keyed: nothing made, nothing looked at
    derived = env_spec(config.execution, "pytorch", ("gpytorch==1.11",))
    assert programs[("gp", "pytorch")].kernel == derived.kernel
    assert programs[("gp", "pytorch")].fingerprint["environment"] == derived.identity
    assert programs[("ch", "pytorch")].kernel == env_spec(config.execution, "pytorch").kernel
    # Each knows the environment it must run in, and where that one's kernel spec goes: the build folder.
    assert programs[("gp", "pytorch")].environment == ("pytorch", ("gpytorch==1.11",))
    assert programs[("ch", "pytorch")].environment == ("pytorch", ())
    assert programs[("gp", "pytorch")].kernel_dir == config.build_dir / "kernels"
    assert not derived.folder.exists() and not look_up(config.execution, "pytorch", ("gpytorch==1.11",)).ready


# -- uv and pip's settings --------------------------------------------------------------


def test_pips_index_settings_are_passed_on_to_uv(monkeypatch: pytest.MonkeyPatch) -> None:
    said = (
        "global.extra-index-url='file:///opt/a/simple file:///opt/b/simple'\n"
        "global.find-links='/opt/wheels'\n"
        "global.index-url='https://mirror.example/simple'\n"
        "install.index-url='https://install.example/simple'\n"
        "global.timeout='60'\n"
    )
    monkeypatch.setattr(uvtool, "_pip_config_list", lambda: said)
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    monkeypatch.setenv("PIP_FIND_LINKS", "/srv/wheels /srv/more")
    assert uvtool.pip_indexes.__wrapped__() == {
        "index-url": ("https://install.example/simple",),  # install's section over global's
        "extra-index-url": ("file:///opt/a/simple", "file:///opt/b/simple"),
        "find-links": ("/srv/wheels", "/srv/more"),  # the variable over the file
    }


def test_package_files_are_linked_from_uvs_cache_unless_uv_link_mode_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("UV_LINK_MODE", raising=False)
    assert envs.link_mode() == ["--link-mode", "clone" if sys.platform == "darwin" else "hardlink"]
    monkeypatch.setenv("UV_LINK_MODE", "copy")
    assert envs.link_mode() == []  # uv reads the variable itself


def test_uvs_reason_is_its_error_without_the_chatter() -> None:
    stderr = (
        "Using CPython 3.11.7 interpreter at: /usr/bin/python3\n"
        "Resolved 3 packages in 12ms\n"
        "\x1b[31merror\x1b[0m: No solution found when resolving dependencies:\n"
        "  ╰─▶ Because there is no version of six==99.0 and you require six==99.0, we can conclude that your "
        "requirements are unsatisfiable.\n"
    )
    assert uvtool.reason(stderr) == (
        "error: No solution found when resolving dependencies: Because there is no version of six==99.0 and you "
        "require six==99.0, we can conclude that your requirements are unsatisfiable."
    )


# -- an environment that cannot be made ---------------------------------------------------


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """uv answers from its cache only: a requirement nobody has fails at once, without the network."""
    monkeypatch.setenv("UV_OFFLINE", "1")


def test_a_failing_environment_is_one_diagnostic_at_its_line_and_its_programs_did_not_run(
    tmp_path: Path, offline: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = tmp_path / "conf.py"
    (tmp_path / "chapters" / "en").mkdir(parents=True)
    (tmp_path / "chapters" / "en" / "ch.md").write_text(CHAPTER.replace("#@tab pytorch\n", ""), encoding="utf-8")
    (tmp_path / "chapters" / "en" / "two.md").write_text("# Two\n\n```{.python .input}\ny = 2\n```\n", encoding="utf-8")
    conf.write_text(
        (CONF % ('["polybook-no-such-package==0.0.1"]', ""))
        .replace('"frameworks": ["mxnet", "pytorch"]', '"frameworks": ["pytorch"]')
        .replace('            "mxnet": ["mxnet==1.9.1", "numpy==1.23.5"],\n', ""),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--conf", str(conf), "build", "eval", "-v"])  # -v: every warning in full
    assert result.exit_code == 0, result.output  # what the machine lacks is a warning, never a crash
    said = [line for line in result.output.split("\n") if "[polybook.exec.no_framework]" in line]
    folder = env_spec(load_config(conf).execution, "pytorch").folder
    assert len(said) == 1, result.output
    assert said[0].startswith(
        f"conf.py:7: warning: the pytorch environment ({folder.name}) could not be made, so its programs were not "
        "run: error: No solution found when resolving dependencies"
    )
    assert "polybook-no-such-package" in said[0] and said[0].endswith("[polybook.exec.no_framework]")
    report = json.loads((tmp_path / "build" / "eval-report.json").read_text(encoding="utf-8"))
    assert [(p["chapter"], p["status"], p["source"]) for p in report["programs"]] == [
        ("ch", "missing_framework", "skipped"),
        ("two", "missing_framework", "skipped"),
    ]
    assert report["summary"]["statuses"] == {"missing_framework": 2} and report["summary"]["fatal"] == 0
    assert [d["code"] for d in report["diagnostics"]] == ["polybook.exec.no_framework"]
    assert not folder.exists()  # nothing half-made left behind
    assert list(Store(tmp_path / "build" / "cache").entries()) == []  # nor cached
    assert "framework not installed" in result.output  # the summary table counts them

    # The next build says it again without spending the time on it; `build env` tries again.
    def no_uv(*_: Any, **__: Any) -> str:
        raise AssertionError("uv was called for an environment that failed before")

    monkeypatch.setattr(envs, "run_uv", no_uv)
    again = CliRunner().invoke(main, ["--conf", str(conf), "build", "eval", "-v"])
    assert again.exit_code == 0, again.output
    said_again = [line for line in again.output.split("\n") if "[polybook.exec.no_framework]" in line]
    assert len(said_again) == 1 and "polybook-no-such-package" in said_again[0]
    assert "(as the attempt of " in said_again[0] and "`polybook build env` tries again)" in said_again[0]
    retried = CliRunner().invoke(main, ["--conf", str(conf), "build", "env"])
    assert retried.exit_code == 1 and "uv was called" in str(retried.exception or retried.output)


def test_build_env_says_why_and_exits_1(tmp_path: Path, offline: None, monkeypatch: pytest.MonkeyPatch) -> None:
    config_at(tmp_path, '["polybook-no-such-package==0.0.1"]')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--conf", "conf.py", "build", "env", "-f", "pytorch"])
    assert result.exit_code == 1
    assert "conf.py:8: warning: the pytorch environment (pytorch-" in result.output
    assert "polybook-no-such-package" in result.output and "failed" in result.output
    assert "mxnet" not in result.output  # only the framework asked for
    unknown = CliRunner().invoke(main, ["--conf", "conf.py", "build", "env", "-f", "jax"])
    assert unknown.exit_code == 2 and "not a framework with an environment of this book: jax" in unknown.output


# -- real environments (uv, the registry or its cache, a kernel) ----------------------------

TINY = """\
polybook = {
    "source_language": "en",
    "frameworks": ["tiny"],
    "languages": {"en": {"name": "English"}},
    "execution": {"environments": {"tiny": ["six==1.17.0"]}, "timeout": 120},
}
"""
ISOLATED = """\
# Isolated

```{.python .input}
import sys, six
print(six.__version__, sys.prefix)
```

```{.python .input}
try:
    import torch
except ModuleNotFoundError as exc:
    print("torch:", exc)
```
"""


@pytest.fixture
def tiny(tmp_path: Path) -> Any:
    """A one-framework book whose environment is six alone (its kernel spec in its build folder)."""
    (tmp_path / "chapters" / "en").mkdir(parents=True)
    (tmp_path / "chapters" / "en" / "isolated.md").write_text(ISOLATED, encoding="utf-8")
    (tmp_path / "conf.py").write_text(TINY, encoding="utf-8")
    return load_config(tmp_path / "conf.py")


@pytest.mark.slow
def test_a_real_environment_runs_its_programs_apart_from_polybooks_own(
    tiny: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tiny.root
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, ["--conf", "conf.py", "build", "eval"])
    assert result.exit_code == 0, result.output
    report = json.loads((root / "build" / "eval-report.json").read_text(encoding="utf-8"))
    (program,) = report["programs"]
    spec = env_spec(tiny.execution, "tiny")
    assert (program["status"], program["kernel"]) == ("ok", spec.kernel)
    assert program["provenance"]["packages"] == {"six": "1.17.0"}
    outputs = json.loads((root / "build" / "eval" / "en" / "isolated.json").read_text(encoding="utf-8"))
    text = [o["text"] for c in outputs["cells"] for o in c["outputs"]]
    assert text == [f"1.17.0 {spec.folder}\n", "torch: No module named 'torch'\n"]  # .venv has torch: not seen
    record = json.loads((spec.folder / envs.RECORD).read_text(encoding="utf-8"))
    assert record["requirements"] == ["six==1.17.0", "ipykernel"] and record["packages"]["six"] == "1.17.0"
    assert record["uv"] and record["seconds"] > 0 and record["python"].startswith(spec.python)
    # Its kernel is registered in the book's build folder, never in polybook's own environment.
    kernel = json.loads((root / "build" / "kernels" / spec.kernel / "kernel.json").read_text(encoding="utf-8"))
    assert kernel["argv"][0] == str(spec.executable)
    assert not (Path(sys.prefix) / "share" / "jupyter" / "kernels" / spec.kernel).exists()

    # Made once: a second time it is kept, without calling uv.
    def no_uv(*_: Any) -> str:
        raise AssertionError("uv was called for a kept environment")

    monkeypatch.setattr(envs, "run_uv", no_uv)
    again = ensure_environment(tiny, "tiny")
    assert (again.state, again.record) == (EnvState.KEPT, look_up(tiny.execution, "tiny").record)


@pytest.mark.slow
def test_two_builds_at_once_make_one_environment(tiny: Any) -> None:
    """Two processes ask for the same missing environment: one makes it, the other waits and keeps it."""
    script = (
        "import sys\nfrom pathlib import Path\nfrom polybook.config import load_config\n"
        "from polybook.execute.envs import ensure_environment\n"
        "env = ensure_environment(load_config(Path(sys.argv[1])), 'tiny', say=lambda m: None)\n"
        "print(env.state, env.record.seconds if env.record else env.reason)"
    )
    conf = str(tiny.path)
    with ThreadPoolExecutor(2) as pool:
        runs = list(
            pool.map(
                lambda _: subprocess.run(
                    [sys.executable, "-c", script, conf], capture_output=True, text=True, check=True
                ),
                range(2),
            )
        )
    states = sorted(run.stdout.split()[0] for run in runs)
    assert states == ["kept", "made"], [run.stdout + run.stderr for run in runs]
    seconds = {run.stdout.split()[1] for run in runs}
    assert len(seconds) == 1  # the one record, read by both
    made = [p.name for p in tiny.execution.env_dir.iterdir() if not p.name.startswith(".")]
    assert made == [env_spec(tiny.execution, "tiny").folder.name]


@pytest.mark.slow
def test_html_that_makes_the_environments_is_up_to_date_on_the_next_build(tiny: Any) -> None:
    """A first ``build html`` makes the environment while it evaluates; its stamps record the
    environment as it left it, so the next build has nothing to do."""
    from polybook.site.build import HtmlOptions, build_html

    (tiny.chapters_dir / "en" / "index.md").write_text("# Tiny\n\n```toc\nisolated\n```\n", encoding="utf-8")
    first = build_html(tiny, HtmlOptions())
    assert [b.sphinx for b in first.languages] == ["built"], first.to_dict()
    assert look_up(tiny.execution, "tiny").ready
    second = build_html(tiny, HtmlOptions())
    assert [b.sphinx for b in second.languages] == ["up to date"], second.to_dict()
    assert (second.kernel_runs, second.cache_hits) == (0, 0)  # not even read again from the cache


def test_a_dated_install_takes_what_the_registry_got_later_as_it_is_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """``as_of`` installs packages as the registry had them that day (what requirements leave
    open resolves as the book's authors had it); a version a pin needs that was published
    later (jaxlib 0.4.13's Python 3.11 wheels) is taken as the registry has it now."""
    calls: list[list[str]] = []

    def fake(args: list[str], cwd: Path, stdin: str | None = None) -> str:
        calls.append(args)
        if len(calls) == 1:
            said = "hint: `jaxlib` was filtered by `exclude-newer` to only include packages uploaded before ..."
            raise uvtool.UvFailure("error: No solution found", said)
        return "jax==0.4.13\n"

    monkeypatch.setattr(uvtool, "run_uv", fake)
    monkeypatch.setattr(uvtool, "pip_indexes", lambda: {"extra-index-url": ("file:///opt/mirror/simple",)})
    out, undated = uvtool.run_dated(["pip", "compile", "-"], Path("."), "2023-08-18", "jax[cpu]==0.4.13")
    assert (out, undated) == ("jax==0.4.13\n", ["jaxlib"])
    assert "--exclude-newer" in calls[0] and "2023-08-18T23:59:59Z" in calls[0]
    assert "file:///opt/mirror/simple" not in calls[0]  # a local mirror does not say when a file was published
    assert calls[1][-2:] == ["--exclude-newer-package", "jaxlib=2100-01-01T00:00:00Z"]


def test_the_date_of_an_environment_is_part_of_its_identity(tmp_path: Path) -> None:
    plain = env_spec(config_at(tmp_path).execution, "pytorch")
    dated = env_spec(config_at(tmp_path, more='"as_of": "2023-08-18",').execution, "pytorch")
    assert (dated.identity != plain.identity, dated.as_of, plain.as_of) == (True, "2023-08-18", None)
    with pytest.raises(ConfigError, match=r"polybook\.execution\.as_of: must be a date like '2023-08-18'"):
        config_at(tmp_path, more='"as_of": "August 2023",')
