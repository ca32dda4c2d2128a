"""Check and sync agree: a drift check tells at its place is one sync repairs there, and the reverse.

Each mutation drifts the translation of ``fixtures/sync-agree`` (a zh chapter whose language has a
framework of its own, paddle) the way a translation drifts from its source; then:

- ``polybook check`` tells a code or math finding within 5 lines of the drift exactly when
  ``polybook sync`` (dry run) would change the document within 5 lines of it;
- after ``polybook sync --write`` the check tells no code or math finding the clean translation
  does not have, and the translation is what it was before the drift: the translated comments
  kept (not the source's English beside them), zh's ``#@tab all`` kept (paddle included), a
  missing cell put back where it was, without a note.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from polybook import sync
from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config

from conftest import FIXTURES

WITHIN = 5
CHAPTER = Path("chapters") / "zh" / "training.md"


def _replace(old: str, new: str, count: int = 1) -> Callable[[str], tuple[str, int]]:
    """A mutation writing ``new`` for the ``count``-th ``old``; the drift's line is where it starts."""

    def mutate(text: str) -> tuple[str, int]:
        at = -1
        for _ in range(count):
            at = text.index(old, at + 1)
        return text[:at] + new + text[at + len(old) :], text.count("\n", 0, at) + 1

    return mutate


MUTATIONS: dict[str, Callable[[str], tuple[str, int]]] = {
    "code literal": _replace("lr = 0.03", "lr = 0.3"),
    "deleted line under a translated comment": _replace("# 学习率\nlr = 0.03\n", "# 学习率\n"),
    "keyword value": _replace("train(net, epochs=5)", "train(net, epochs=6)"),
    "keyword default": _replace("epochs=3, lr=0.1", "epochs=3, lr=0.5", 2),
    "formula symbol": _replace("$n = 1000$", "$m = 1000$"),
    "display formula symbol": _replace("(y_i - \\mathbf{w}", "(y_j - \\mathbf{w}"),
    "formula swap": _replace("$\\alpha = 2$", "$\\mathbf{w} \\leftarrow \\mathbf{w} - \\eta \\nabla L$"),
    "a framework's cell removed before a paddle cell": _replace(
        "```{.python .input}\n#@tab pytorch\nimport torch\n```\n\n", ""
    ),
    "#@tab changed": _replace("#@tab pytorch\ndef train", "#@tab mxnet\ndef train"),
    "#@tab changed to a framework the chapter lacks": _replace("#@tab pytorch\nimport", "#@tab jax\nimport"),
    "#@tab changed on a framework's only cell": _replace("#@tab tensorflow\nimport", "#@tab mxnet\nimport"),
    "#@tab all cell removed": _replace(
        "```{.python .input}\n#@tab all\nnet = train(net, epochs=5)\nprint(net)\n```\n\n", ""
    ),
}


def _cell_removed(text: str) -> tuple[str, int]:
    """The pytorch ``train`` cell taken out (the one after the mxnet one)."""
    start = text.index("```{.python .input}\n#@tab pytorch\ndef train")
    end = text.index("```\n", text.index("net.zero_grad()")) + len("```\n\n")
    return text[:start] + text[end:], text.count("\n", 0, start) + 1


MUTATIONS["a framework's cell removed after prose"] = _cell_removed
#: What sync makes of a drift that took the translator's words with it: a removed cell comes back
#: with the source's comment (the translated one went with the cell).
EXPECTED: dict[str, Callable[[str], str]] = {
    "a framework's cell removed after prose": _replace(
        "    # 每个迭代周期遍历一次数据", "    # one pass over the data per epoch", 2
    ),
}


def _code_math(book_dir: Path) -> list[tuple[str, int, str]]:
    findings = check_book(load_book(load_config(book_dir / "conf.py"))).findings
    return [
        (str(f.code), f.location.line, f.message)
        for f in findings
        if f.location is not None and str(f.code).startswith(("code.", "math.")) and not f.suppressed
    ]


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_check_tells_what_sync_repairs_and_sync_repairs_it_exactly(kind: str, tmp_path: Path) -> None:
    book_dir = tmp_path / "book"
    shutil.copytree(FIXTURES / "sync-agree", book_dir)
    path = book_dir / CHAPTER
    clean = path.read_text(encoding="utf-8")
    before = _code_math(book_dir)
    drifted, line = MUTATIONS[kind](clean)
    assert drifted != clean
    path.write_text(drifted, encoding="utf-8")
    told = [f for f in _code_math(book_dir) if f not in before and abs(f[1] - line) <= WITHIN]
    book = load_book(load_config(book_dir / "conf.py"))
    results = sync.sync_book(book)
    (result,) = results
    synced_there = any(abs(n - line) <= WITHIN for n in result.places)
    assert bool(told) == synced_there, (told, result.diff())
    assert told, f"{kind}: neither check nor sync sees the drift"
    sync.write(book, results)
    assert [f for f in _code_math(book_dir) if f not in before] == []
    expected = EXPECTED[kind](clean)[0] if kind in EXPECTED else clean
    assert path.read_text(encoding="utf-8") == expected, result.diff()
