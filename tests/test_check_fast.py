"""The check's shortcuts (what makes `polybook check` of a whole book fast) answer exactly as
the long way does: each is compared here with the plain computation it stands for."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from polybook.book import load_book
from polybook.check.findings import Finding, Location
from polybook.check.math_places import _DOLLAR, _unpaired_dollars
from polybook.check.prose import section_spans
from polybook.check.references import resource_fallbacks
from polybook.check.segments import Alignment, Item
from polybook.check.suppress import apply
from polybook.check.tex import (
    _MATH_NUMBER,
    _NUMBER_WORD,
    _NUMBER_WORDS,
    _TRAILING_PUNCT,
    _WORDS,
    _has_number_word,
    _with_commands,
    _without_commands,
    _without_trailing_punctuation,
    as_plain,
    normalize_tex,
    numbers_of,
    without_parens,
)
from polybook.config import load_config
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, Heading, Paragraph

from minibook import make_multilingual_book

# TeX without a command, made of what the normalising steps look for
_PIECES = [*"xy1209.,;:?^_{}()~' -+=。、\n", "th", "st", "end{a}"]
_COMMAND_FREE = st.lists(st.sampled_from(_PIECES), max_size=14).map("".join)


@given(_COMMAND_FREE)
def test_math_without_a_command_normalises_as_with_every_step(tex: str) -> None:
    assert "\\" not in tex
    assert _without_commands(tex) == _with_commands(tex)


def test_the_steps_math_with_commands_needs_still_apply() -> None:
    assert normalize_tex(r"2 \cdot 160") == normalize_tex(r"2\times160")
    assert normalize_tex(r"\$10") == normalize_tex(r"10\$")
    assert normalize_tex(r"\%95") == normalize_tex(r"95\%")
    assert normalize_tex(r"i^\mathrm{th}") == "i"
    assert normalize_tex(r"\mathbf{X}'i") == normalize_tex(r"\mathbf{X}")
    assert normalize_tex("x^{th}") == "x"  # no command: the ordinal still goes


@given(st.text(alphabet=list("$\\a \n"), max_size=16))
def test_lone_dollars_are_counted_only_where_it_can_matter(text: str) -> None:
    assert _unpaired_dollars(text) == bool(len(_DOLLAR.findall(text)) % 2)


def _heading(line: int, end: int | None = None, level: int = 1) -> Heading:
    return Heading("a.md", line, line if end is None else end, level, f"h{line}")


_ANCHORS = st.lists(st.tuples(st.integers(1, 30), st.integers(0, 6)), max_size=8)


@given(_ANCHORS, st.booleans())
def test_the_anchor_holding_a_line_is_the_first_that_does(spans: list[tuple[int, int]], ordered: bool) -> None:
    """In order and apart, an anchor is found by bisection; else (overlapping, out of order) by
    looking at each: either way the first in the list that holds the line."""
    if ordered:
        spans = sorted(spans)
    anchors = [(_heading(line, line + length), _heading(100 + k)) for k, (line, length) in enumerate(spans)]
    alignment = Alignment([], anchors)
    for line in range(0, 40):
        first = next((t for s, t in anchors if s.line <= line <= s.end_line), None)
        assert alignment._holding(line) is first


def _naive_sections(items: list[Item], kept: set[int]) -> list[tuple[Heading, list[Item]]]:
    """What section_spans stands for: each heading's section runs to the next heading as high."""
    out = []
    for k, item in enumerate(items):
        if isinstance(item.node, Heading):
            level = item.node.level
            ends = (j for j in range(k + 1, len(items)) if isinstance(items[j].node, Heading))
            end = next((j for j in ends if items[j].node.level <= level), len(items))
            cells = [i.node for i in items[k + 1 : end] if isinstance(i.node, CodeCell)]
            if cells and not any(id(c) in kept for c in cells):
                out.append((item.node, items[k + 1 : end]))
    return out


def _cell(line: int) -> CodeCell:
    return CodeCell("a.md", line, line, "{.python .input}", "python", {}, None, ("pytorch",), "x = 1", line + 1)


@given(st.lists(st.sampled_from(["h1", "h2", "h3", "cell", "kept", "text"]), max_size=14))
def test_sections_without_a_kept_cell_are_found_in_one_pass(kinds: list[str]) -> None:
    items: list[Item] = []
    kept: set[int] = set()
    for line, kind in enumerate(kinds, start=1):
        if kind.startswith("h"):
            items.append(Item(_heading(line, level=int(kind[1])), None))
        elif kind in ("cell", "kept"):
            items.append(Item(_cell(line), None))
            if kind == "kept":
                kept.add(id(items[-1].node))
        else:
            items.append(Item(Paragraph("a.md", line, line, "words"), None))
    assert section_spans(items, kept) == _naive_sections(items, kept)


def test_findings_are_left_as_they_are_when_nothing_suppresses_them() -> None:
    findings = [
        Finding.make(Code.MATH_MISSING, "math $x$ of the source is missing here", "pt", "intro", Location("a.md", 3))
    ]
    assert apply(findings, [], {}) == findings
    assert re.fullmatch(r"[0-9a-f]{16}", findings[0].fingerprint)  # (still worked out when asked for)


def test_a_file_the_translation_has_is_its_own_and_one_it_lacks_is_the_sources(tmp_path: Path) -> None:
    """The translation's own file is found without resolving its path; one only the source
    language has is still the fallback (and a file neither has, nothing of this check's)."""
    text = "# Intro\n\n![own](img/own.svg)\n\n![shared](img/shared.svg)\n\n![none](img/none.svg)\n"
    conf = make_multilingual_book(tmp_path, {"en": text, "ja": text}, name="intro")
    for lang, files in (("en", ("own.svg", "shared.svg")), ("ja", ("own.svg",))):
        (tmp_path / "chapters" / lang / "img").mkdir()
        for file in files:
            (tmp_path / "chapters" / lang / "img" / file).write_text("<svg/>", encoding="utf-8")
    config = load_config(conf)
    book = load_book(config)
    found = resource_fallbacks(config, "ja", "intro", book.chapters["ja"]["intro"])
    assert [(f.code, f.subject[0], f.primary.line) for f in found] == [(Code.REF_FALLBACK, "en/img/shared.svg", 5)]


def test_prose_with_one_digit_numbers_only_has_none_to_compare() -> None:
    """Numbers up to SMALL are not compared: prose whose numbers are single digits is read no
    further -- unless a word scales one (``3 million``, ``5万``) or a translation's number word."""
    assert numbers_of("3 steps, 0.5 of 1 cell, figure 4") == ()
    assert numbers_of("3 million parameters") == ((("3000000",), 0),)
    assert numbers_of("5万枚", True) == ((("50000",), 0),)
    assert numbers_of("um conjunto de mil imagens e 2 rótulos", True) == ((("mil", "1000"), 0),)
    assert numbers_of("the 1990s and 2 more") == ((("1990", "90"), 0),)


# what the number and formula readers look for, and the characters around it
_MATHS = st.lists(st.sampled_from([*"ab 12.,;:?。、$%~'{}()\\\n", "th", "\\\\", "\\end{a}", "\\text{x}"]), max_size=14)


@given(st.lists(st.sampled_from([*_NUMBER_WORDS, *"一十百千万亿 mc1", "ce", "cen", "yü"]), max_size=8).map("".join))
def test_prose_holds_a_number_word_when_the_regex_finds_one(prose: str) -> None:
    assert _has_number_word(prose) == bool(_NUMBER_WORD.search(prose))


@given(_MATHS.map("".join))
def test_the_readers_written_digit_or_letter_first_find_what_the_plain_patterns_do(tex: str) -> None:
    """_MATH_NUMBER and _WORDS look behind after their first character (the regex engine then skips
    to the next digit or letter instead of trying every character): the same matches as written plainly."""
    plain = re.compile(r"(?<![\d.])\d{1,3}(?:[.,]\d{3})+(?![\d])|(?<![\d.])\d+(?:[.,]\d+)?(?![\d])")
    assert [m.span() for m in _MATH_NUMBER.finditer(tex)] == [m.span() for m in plain.finditer(tex)]
    words = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,} +[A-Za-z]{2,} +[A-Za-z]{2,}(?![A-Za-z])")
    assert [m.span() for m in _WORDS.finditer(tex)] == [m.span() for m in words.finditer(tex)]


@given(_MATHS.map("".join).map(lambda tex: tex.replace("\n", "")))
def test_trailing_punctuation_is_looked_for_only_where_math_may_end_on_it(tex: str) -> None:
    """(math as normalize_tex has it by then: without line breaks)"""
    plain = tex
    for _ in range(3):
        plain, found = _TRAILING_PUNCT.subn(r"\1", plain)
        if not found:
            break
    assert _without_trailing_punctuation(tex) == without_parens(plain)


@given(
    st.sampled_from(["x", "(4, 4)", "n-1", "L_2", "ab"]), st.lists(st.sampled_from([*"xn-14(), ab_$\\L2"]), max_size=16)
)
def test_simple_math_as_plain_text_is_found_where_the_plain_pattern_finds_it(tex: str, text: list[str]) -> None:
    bare = re.sub(r"[_^{}]", "", "".join(tex.split()))
    body = r"\s*".join(re.escape(c) for c in bare)
    plain = re.compile(rf"(?<![A-Za-z0-9_$\\]){body}(?![A-Za-z0-9_])")
    found = as_plain(tex)
    assert found is not None
    assert [m.span() for m in found.finditer("".join(text))] == [m.span() for m in plain.finditer("".join(text))]
