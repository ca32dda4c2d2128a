"""Failure classes on a CPU machine: what the machine lacks (a GPU, the network, a framework)
is told apart from a bug of the code, from the stored result alone (so cached and frozen
results are classified by today's rules)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from polybook.execute.failures import classify, framework_modules
from polybook.execute.programs import Program
from polybook.execute.results import CellResult, Failure, ProgramResult, RunStatus

ERROR, NEEDS_GPU, TIMEOUT = RunStatus.ERROR, RunStatus.NEEDS_GPU, RunStatus.TIMEOUT
DOWNLOAD_FAILED, MISSING_FRAMEWORK = RunStatus.DOWNLOAD_FAILED, RunStatus.MISSING_FRAMEWORK

CPU = {"device": "CPU: Example Processor"}
GPU = {"device": "GPU: Example Accelerator"}


def program(*sources: str, framework: str = "pytorch") -> Program:
    return Program("k", framework, "chapter_x/section", "python3", Path("."), list(sources), [], {})


def failed(cell: int, ename: str, evalue: str, traceback: list[str] | None = None, **provenance: Any) -> ProgramResult:
    cells = [CellResult(RunStatus.OK) for _ in range(cell)] + [CellResult(ERROR)]
    failure = Failure(cell, ERROR, ename, evalue, traceback or [])
    return ProgramResult("k", "x", ERROR, cells, failure, provenance=provenance or CPU)


TORCH = framework_modules("pytorch", ("torch", "torchvision"))


@pytest.mark.parametrize(
    ("code", "ename", "evalue"),
    [
        (
            "devices = d2l.try_all_gpus()\nnet = nn.DataParallel(net, device_ids=devices)",
            "IndexError",
            "list index out of range",
        ),
        ("k = 10 % d2l.num_gpus()", "ZeroDivisionError", "integer modulo by zero"),
        ("x = x.cuda()", "RuntimeError", "Found no NVIDIA driver on your system"),
        ("ctx = npx.gpu(0)", "MXNetError", "anything at all"),
        ("device = jax.devices('gpu')[0]", "RuntimeError", "Unknown backend: 'gpu' requested"),
    ],
)
def test_a_program_asking_for_a_gpu_that_fails_without_one_needs_a_gpu(code: str, ename: str, evalue: str) -> None:
    result = classify(failed(1, ename, evalue), program("import torch", code), TORCH)
    assert result.status == NEEDS_GPU and result.failure.kind == NEEDS_GPU
    assert result.cells[1].status == NEEDS_GPU


def test_a_failure_before_the_gpu_cell_or_on_a_gpu_machine_is_a_bug() -> None:
    before = failed(0, "NameError", "name 'x' is not defined")
    assert classify(before, program("print(x)", "d2l.try_gpu()"), TORCH).status == ERROR
    on_gpu = failed(1, "IndexError", "list index out of range", **GPU)
    assert classify(on_gpu, program("import torch", "d2l.try_all_gpus()[0]"), TORCH).status == ERROR


def test_a_failed_download_names_its_url() -> None:
    trace = [
        "ConnectionError: HTTPConnectionPool(host='d2l-data.s3-accelerate.amazonaws.com', port=80): Max retries "
        "exceeded with url: /fashion-mnist.zip (Caused by NewConnectionError('Failed to establish a new connection'))",
        "  requests.get('http://d2l-data.s3-accelerate.amazonaws.com/fashion-mnist.zip', stream=True)",
    ]
    result = classify(failed(2, "ConnectionError", "HTTPConnectionPool(...)", trace), program("a", "b", "c"), TORCH)
    assert result.status == DOWNLOAD_FAILED
    assert result.failure.url == "http://d2l-data.s3-accelerate.amazonaws.com/fashion-mnist.zip"


def test_a_framework_that_is_not_installed_is_its_own_class() -> None:
    tensorflow = framework_modules("tensorflow", ("tensorflow",))
    result = classify(
        failed(0, "ModuleNotFoundError", "No module named 'tensorflow'"), program("import tf"), tensorflow
    )
    assert result.status == MISSING_FRAMEWORK and result.failure.module == "tensorflow"
    other = classify(failed(0, "ModuleNotFoundError", "No module named 'pandas'"), program("import pandas"), tensorflow)
    assert other.status == ERROR  # a package the code needs is the book's problem, not the framework


def test_other_statuses_and_successes_are_left_alone() -> None:
    timeout = replace(failed(0, "", ""), status=TIMEOUT)
    assert classify(timeout, program("d2l.try_gpu()"), TORCH) is timeout
    ok = ProgramResult("k", "x", RunStatus.OK, [], provenance=CPU)
    assert classify(ok, program("d2l.try_gpu()"), TORCH) is ok


def test_a_module_the_frameworks_own_cells_import_is_the_framework() -> None:
    """No packages setting, no environment, no table of frameworks: ``import torch`` in the
    pytorch cells says what a missing PyTorch looks like; ``import pandas`` in an ``all`` cell
    does not make pandas the framework."""
    from polybook.dialect import DialectSettings, parse_text
    from polybook.execute.programs import Use

    text = (
        "```{.python .input}\n#@tab all\nimport pandas\n```\n\n```{.python .input}\n#@tab pytorch\nimport torch\n```\n"
    )
    doc = parse_text(text, "c.md", DialectSettings("en", ("mxnet", "pytorch"), "mxnet"))
    own = program("import pandas", "import torch")
    own.uses.append(Use("en", "c", "c.md", doc.cells("pytorch")))
    no_torch = failed(1, "ModuleNotFoundError", "No module named 'torch'")
    assert classify(no_torch, own, framework_modules("pytorch", ("pytorch",))).status == ERROR  # by name only
    modules = framework_modules("pytorch", ("pytorch",), own)
    missing = classify(no_torch, own, modules)
    assert missing.status == MISSING_FRAMEWORK and missing.failure.module == "torch"
    assert "pandas" not in modules


def test_a_download_a_library_reports_only_in_what_it_printed_is_a_download() -> None:
    """torchvision prints the network error, then raises a vaguer RuntimeError."""
    result = failed(0, "RuntimeError", "Error downloading train-images-idx3-ubyte.gz")
    result.cells[0].outputs = [
        {
            "output_type": "stream",
            "name": "stdout",
            "text": "Downloading https://example.org/mnist/train-images-idx3-ubyte.gz\nFailed to download (trying "
            "next):\n<urlopen error [Errno -2] Name or service not known>\n",
        }
    ]
    classified = classify(result, program("d = FashionMNIST()"), TORCH)
    assert classified.status == DOWNLOAD_FAILED
    assert classified.failure.url == "https://example.org/mnist/train-images-idx3-ubyte.gz"
    assert classify(failed(0, "RuntimeError", "Error downloading x"), program("x"), TORCH).status == ERROR


def test_a_failed_download_that_names_no_url_says_so_with_an_empty_one() -> None:
    """As before the results were typed: the report's failure then carries ``"url": ""``."""
    result = classify(failed(0, "URLError", "<urlopen error [Errno -3] Temporary failure in name resolution>"),
                      program("d = load()"), TORCH)  # fmt: skip
    assert result.status == DOWNLOAD_FAILED and result.failure is not None and result.failure.url == ""
    assert result.failure.to_json()["url"] == ""
