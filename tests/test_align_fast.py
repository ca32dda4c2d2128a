"""The alignment's shortcuts (memo, rows no key can pair, the DP skipped when nothing can be
alike, bounds before ratios) give the pairs of the plain algorithm, item for item."""

from __future__ import annotations

from difflib import SequenceMatcher
from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.check.align import Pair, _common_length, align, char_ratio, never, token_ratio
from polybook.check.bases import Base, BaseKind, _closest
from polybook.check.staleness import word_diff
from polybook.dialect import DialectSettings, parse_text


def _plain_common(source: list[str], target: list[str]) -> list[tuple[int, int]]:
    """A longest common subsequence by the whole table between the common prefix and suffix,
    earliest pairs preferred."""
    n, m = len(source), len(target)
    head = 0
    while head < min(n, m) and source[head] == target[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and source[n - 1 - tail] == target[m - 1 - tail]:
        tail += 1
    a, b = source[head : n - tail], target[head : m - tail]
    middle = [(head + i, head + j) for i, j in _plain_table(a, b)]
    return [*((k, k) for k in range(head)), *middle, *((n - tail + k, m - tail + k) for k in range(tail))]


def _plain_table(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    lcs = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if a[i] == b[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j] and lcs[i][j] == lcs[i + 1][j + 1] + 1:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif lcs[i + 1][j] >= lcs[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _plain_ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()


def _plain_align(a: list[str], b: list[str], similarity, threshold: float) -> list[Pair]:  # type: ignore[no-untyped-def]
    out: list[Pair] = []
    anchors = [(-1, -1), *_plain_common(a, b), (len(a), len(b))]
    for (s_prev, t_prev), (s_next, t_next) in pairwise(anchors):
        s0, t0 = s_prev + 1, t_prev + 1
        n, m = s_next - s0, t_next - t0
        ratio = [[similarity(a[s0 + i], b[t0 + j]) for j in range(m)] for i in range(n)]
        best = [[0.0] * (m + 1) for _ in range(n + 1)]
        for i in range(n - 1, -1, -1):
            for j in range(m - 1, -1, -1):
                took = ratio[i][j] + best[i + 1][j + 1] if ratio[i][j] >= threshold else 0.0
                best[i][j] = max(best[i + 1][j], best[i][j + 1], took)
        i = j = 0
        while i < n or j < m:
            if i < n and j < m and ratio[i][j] >= threshold and best[i][j] == ratio[i][j] + best[i + 1][j + 1]:
                out.append(Pair(s0 + i, t0 + j, "similar", ratio[i][j]))
                i, j = i + 1, j + 1
            elif i < n and (j == m or best[i][j] == best[i + 1][j]):
                out.append(Pair(s0 + i, None, "missing", 0.0))
                i += 1
            else:
                out.append(Pair(None, t0 + j, "extra", 0.0))
                j += 1
        if s_next < len(a):
            out.append(Pair(s_next, t_next, "equal"))
    return out


_WORDS = st.sampled_from(["a", "b", "c", "the", "x", "y"])
_TEXTS = st.lists(_WORDS, min_size=0, max_size=6).map(" ".join)
_KEYS = st.lists(st.sampled_from(["A", "B", "C", "D", "E"]), max_size=9)


@settings(max_examples=300, deadline=None)
@given(_KEYS, _KEYS)
def test_equal_keys_pair_as_by_the_whole_table(a: list[str], b: list[str]) -> None:
    assert align(a, b, never, 2.0) == _plain_align(a, b, lambda x, y: 0.0, 2.0)
    assert align(a, b, never, 1.0) == _plain_align(a, b, lambda x, y: 0.0, 1.0)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS, max_size=6), st.lists(_TEXTS, max_size=6), st.sampled_from([0.5, 0.6]))
def test_similar_texts_pair_as_by_every_ratio(a: list[str], b: list[str], threshold: float) -> None:
    expected = _plain_align(a, b, _plain_ratio, threshold)
    assert align(a, b, token_ratio, threshold) == expected
    assert align(a, b, token_ratio, threshold) == expected  # the memo's answer, a list of its own
    chars = _plain_align(a, b, lambda x, y: SequenceMatcher(None, x, y, autojunk=False).ratio(), threshold)
    assert align(a, b, char_ratio, threshold) == chars


def test_a_memoised_alignment_is_not_shared_with_the_caller() -> None:
    first = align(["a b", "c"], ["a b", "d"], token_ratio, 0.6)
    first.clear()
    assert align(["a b", "c"], ["a b", "d"], token_ratio, 0.6) == [
        Pair(0, 0, "equal"),
        Pair(1, None, "missing", 0.0),
        Pair(None, 1, "extra", 0.0),
    ]


def test_word_diff_says_the_changed_runs() -> None:
    assert word_diff("the cat sat", "the dog sat") == (("cat", "dog"),)


def test_candidates_that_are_one_document_are_not_counted(tmp_path: Path) -> None:
    """The first candidate at hand wins, as the count would say (every count is the same)."""
    settings = DialectSettings(frameworks=("mxnet",), default_tab="mxnet")
    source = parse_text("# T\n\n```{.python .input}\nx = 1\n```\n", "en/t.md", settings)
    other = parse_text("# T\n\n```{.python .input}\ny = 2\n```\n", "en/t_origin.md", settings)
    translation = parse_text("# T\n\n```{.python .input}\ny = 2  # ja\n```\n", "ja/t.md", settings)
    none = Base(BaseKind.EDITION, None, "v0", tmp_path / "e")
    same = [none, Base(BaseKind.ORIGIN, source, "o"), Base(BaseKind.SOURCE, source, "s")]
    assert _closest(same, translation, None, tmp_path / "t.md", ()) == 1
    assert _closest([none, none], translation, None, tmp_path / "t.md", ()) == 0
    both = [Base(BaseKind.ORIGIN, source, "o"), Base(BaseKind.SOURCE, other, "s")]
    assert _closest(both, translation, None, tmp_path / "t.md", ()) == 1
    reworded = parse_text("# T\n\nNew words.\n\n```{.python .input}\nx = 1  # one\n```\n", "en/t.md", settings)
    alike = [Base(BaseKind.ORIGIN, source, "o"), Base(BaseKind.SOURCE, reworded, "s")]
    assert _closest(alike, translation, None, tmp_path / "t.md", ()) == 0


@settings(max_examples=300, deadline=None)
@given(st.text("ab c", max_size=30), st.text("ab c", max_size=30))
def test_the_longest_common_subsequence_by_bits_is_the_tables(a: str, b: str) -> None:
    assert _common_length(char_ratio, a, b) == len(_plain_table(list(a), list(b)))
    assert _common_length(token_ratio, a, b) == len(_plain_table(a.split(), b.split()))
