"""Libraries' start-up chatter on stderr is left out of the outputs readers see -- pages, PDFs,
notebooks -- by conf.py's ``polybook.execution.quiet_stderr``; every other line is shown, and the
stored results keep them all."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from polybook.config import ConfigError, load_config
from polybook.config.model import QUIET_STDERR
from polybook.dialect import DialectSettings, parse_text
from polybook.execute.outputs import code_hashes
from polybook.notebooks.outputs import notebook_outputs
from polybook.stage.myst import transpile
from polybook.stage.outputs import ChapterResults, OutputRenderer, quiet_outputs

NOISE = [
    "2023-08-18 07:02:10.520395: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is "
    "optimized to use available CPU instructions in performance-critical operations.",
    "To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the appropriate "
    "compiler flags.",
    "2023-08-18 07:02:11.127710: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not "
    "find TensorRT",
    "2024-01-02 03:04:05.000001: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register "
    "cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
    "E0000 00:00:1731504383.123456    1234 cuda_blas.cc:1418] Unable to register cuBLAS factory: Attempting to "
    "register factory for plugin cuBLAS when one has already been registered",
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "W0000 00:00:1731504383.654321    1234 gpu_device.cc:2344] Cannot dlopen some GPU libraries.",
    "No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
    "WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for "
    "more info.)",
    "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.",
    "2023-11-01 10:00:00.000000: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see "
    "slightly different numerical results due to floating-point round-off errors from different computation orders.",
]
KEPT = [
    "/usr/lib/python3/site-packages/torch/nn/modules/lazy.py:180: UserWarning: Lazy modules are a new feature",
    "  warnings.warn('Lazy modules are a new feature under heavy development')",
    "I tensorflow is what this chapter uses",  # not a log line
    "Downloading ../data/fashion-mnist.zip from http://d2l-data.s3-accelerate.amazonaws.com/fashion-mnist.zip...",
]


def _stderr(lines: list[str]) -> dict[str, object]:
    return {"output_type": "stream", "name": "stderr", "text": "".join(line + "\n" for line in lines)}


def test_known_chatter_goes_every_other_line_stays() -> None:
    mixed = [NOISE[0], KEPT[0], NOISE[1], KEPT[1], *NOISE[2:], *KEPT[2:]]
    stdout = {"output_type": "stream", "name": "stdout", "text": NOISE[0] + "\n"}  # printed: shown as printed
    outputs = [_stderr(mixed), stdout, _stderr(NOISE)]
    stored = copy.deepcopy(outputs)
    shown = quiet_outputs(outputs, QUIET_STDERR)
    assert shown == [_stderr(KEPT), stdout]  # a stderr output of chatter alone goes
    assert outputs == stored  # the stored results keep every line
    assert quiet_outputs(outputs, ()) == outputs  # [] in conf.py: everything shown


def test_pages_and_notebooks_show_the_outputs_without_it() -> None:
    settings = DialectSettings("en", ("tf",), "tf")
    doc = parse_text("# T\n\n```{.python .input}\nimport tensorflow\n```\n", "ch.md", settings)
    (cell,) = doc.cells("tf")
    stored = {
        "framework": "tf",
        "index": 0,
        "code": code_hashes([cell.code])[0],
        "status": "ok",
        "outputs": [_stderr([NOISE[0], KEPT[0]])],
    }
    results = ChapterResults.from_doc({"programs": {}, "cells": [stored]})
    page = transpile(doc, "en", outputs=OutputRenderer("en", results, str, quiet=QUIET_STDERR)).text
    assert "UserWarning: Lazy modules" in page and "cpu_feature_guard" not in page
    notebook = notebook_outputs(stored, 1, QUIET_STDERR)
    assert notebook == [_stderr([KEPT[0]])]


CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["pytorch"],
    "languages": {"en": {"name": "English"}},
    "execution": {
        "quiet_stderr": [
            r"^Seeding with \\d+$",
            "(unclosed",
        ],
    },
}
"""


def test_conf_py_sets_the_list_and_a_pattern_that_is_no_regex_is_an_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    conf = tmp_path / "conf.py"
    conf.write_text(CONF.replace('            "(unclosed",\n', ""), encoding="utf-8")
    assert load_config(conf).execution.quiet_stderr == (r"^Seeding with \d+$",)
    conf.write_text(CONF.split('    "execution"')[0] + "}\n", encoding="utf-8")
    assert load_config(conf).execution.quiet_stderr == QUIET_STDERR  # polybook's defaults
    conf.write_text(CONF, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(conf)
    (problem,) = raised.value.diagnostics
    assert problem.line == 8 and "polybook.execution.quiet_stderr[1]" in problem.message
    assert "'(unclosed' is not a regex" in problem.message
