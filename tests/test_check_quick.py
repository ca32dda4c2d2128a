"""The checker's quick paths give what their plain forms give: the key of plain code is the
tokenizer's (:func:`normalize_code`), the numbers of prose are those of the plain patterns."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polybook.check import tex
from polybook.check.code_keys import (
    _plain_key,
    _scanned_tokens,
    _unquoted_tokens,
    cell_key,
    code_tokens,
    without_comments,
)
from polybook.dialect.normalize import CodeToken, logical_lines, normalize_code


def code_lines(code: str) -> list[tuple[int, list[CodeToken]]]:
    """:func:`code_tokens` as the document model's tokens, to compare with :func:`logical_lines`."""
    return [(depth, [CodeToken(t.text, t.line, t.start, t.end, t.is_string) for t in toks])
            for depth, toks in code_tokens(code)]  # fmt: skip


CELLS = [
    "x = 1",
    "def f(a,   b):\n    '''Docstring.'''\n    return a+b",
    '"""A cell\'s docstring."""\nimport torch',
    '"Hello, world"',
    'class A:\n    """Doc."""\n    x = 1\n\n    def g(self):\n        return [1,\n                2]',
    "if x:\n    y = 1\nelse:\n    y = 2\nz = 3",
    "print(f'{x:.2f}', b'bytes', rb'raw', 'it''s')",
    "x = (1 +  # a comment\n     2)\n# only a comment\n\n    \ny = x",
    "%matplotlib inline\nfrom d2l import torch as d2l",
    "async def f():\n    '''Doc.'''\n    await g()",
    "a = '''one line'''\nb = 1",
    "def f():\n    x = 1\n  y = 2",  # a dedent to no outer level
    "a = '''over\nlines'''",
    "x = 1 + \\\n    2",
    "f(1,\n  2",  # ends inside brackets
    "x = 1)",
    "!pip install d2l",
    "s = 'unterminated",
    "\tx = 1",
    "x = 1\r\ny = 2",
    "",
]


@pytest.mark.parametrize("code", CELLS)
def test_plain_key_is_the_tokenizers_key(code: str) -> None:
    found = _plain_key(code)
    assert found is None or found == normalize_code(code)
    assert cell_key(code) == normalize_code(without_comments(code))
    assert code_lines(code) == logical_lines(code)  # positions too


@pytest.mark.parametrize("code", CELLS)
def test_code_tokens_are_the_tokenizers_tokens_as_tuples(code: str) -> None:
    expected = [
        (depth, [(t.text, t.is_string, t.line, t.start, t.end) for t in toks]) for depth, toks in logical_lines(code)
    ]
    assert code_tokens(code) == expected  # the quick reading's and the tokenizer's alike


@pytest.mark.parametrize("code", [*CELLS, "x = 1  # one\n\ny = 'a#b'  # two\n# alone", "a = 1   \n  \nb = 2 \t"])
def test_without_comments_is_the_pattern_on_every_line(code: str) -> None:
    pattern = re.compile(r"""^([^'"#]*?)\s*#.*$""")  # its plain form: the pattern asked of every line
    lines = [m[1] if (m := pattern.match(line)) else line.rstrip() for line in code.split("\n")]
    assert without_comments(code) == "\n".join(line for line in lines if line.strip())


def test_plain_key_leaves_what_only_the_tokenizer_reads_to_it() -> None:
    for code in ["a = '''over\nlines'''", "x = 1 + \\\n    2", "f(1,\n  2", "!pip install d2l", "\tx = 1", "x = 1)"]:
        assert _plain_key(code) is None
    assert _plain_key("def f():\n    '''Doc.'''\n    return 1") == "def f ( ) :\n    return 1"


PIECES = [
    "x",
    "= 1",
    "def f(a):",
    "class A:",
    "async def g():",
    "return a",
    "'''doc'''",
    '"""doc"""',
    "'s'",
    '"s"',
    "f'x{y}'",
    "b'z'",
    "rb'q'",
    "u'u'",
    "'it''s'",
    "'a' 'b'",
    "(",
    ")",
    "[1,",
    "2]",
    "{",
    "}",
    "# comment",
    "x  # comment",
    "'#' + x",
    "pass",
    "1.5e-3j",
    "0x_ff",
    "...",
    "a.b",
    "**=",
    "->",
    ":",
    ";",
    "@dec",
    "%matplotlib",
    "!",
    "$",
    "?",
    "\\",
    "'''",
    "'",
    "名前 = 1",
    "\u3000",
    "",
]


LINES = st.tuples(st.sampled_from([0, 0, 4, 8, 2]), st.lists(st.sampled_from(PIECES), max_size=4))


@given(st.lists(LINES, max_size=12))
@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
def test_plain_key_agrees_with_the_tokenizer_on_code_soup(lines: list[tuple[int, list[str]]]) -> None:
    code = "\n".join(" " * indent + " ".join(words) for indent, words in lines)
    found = _plain_key(code)
    assert found is None or found == normalize_code(code)
    assert code_lines(code) == logical_lines(code)


# the numbers of prose: the patterns written digit first (for speed) find what these find
_NUMBER_SPEC = r"(?<![A-Za-z0-9_.,])(\d{1,3}(?:[.,\u00a0\u202f]\d{3})+|\d+(?:[.,]\d+)?)(?![0-9_])"
_ANY_NUMBER_SPEC = r"(?<![0-9_.,])(\d{1,3}(?:[.,\u00a0\u202f]\d{3})+|\d+(?:[.,]\d+)?)(?![0-9_])"


@given(st.text(alphabet=st.sampled_from(list("0123456789١٢., \u00a0\u202f_aZ-$\n"))), st.integers(0, 5))
@settings(max_examples=1000)
def test_number_patterns_find_what_their_plain_forms_find(text: str, start: int) -> None:
    for fast, spec in ((tex._NUMBER, _NUMBER_SPEC), (tex._ANY_NUMBER, _ANY_NUMBER_SPEC)):
        plain = re.compile(spec)
        assert [m.span(1) for m in fast.finditer(text)] == [m.span(1) for m in plain.finditer(text)]
        found, wanted = fast.search(text, start), plain.search(text, start)
        assert (found and found.span(1)) == (wanted and wanted.span(1))


MODULES = [
    '"""The module."""\nimport os\n\n\n@dec\n@dec2(1)\ndef f(x):\n    """Doc."""\n    return x\n',
    "x = 1\nif x:\n    y = 2\nelse:\n    y = 3\ntry:\n    pass\nexcept OSError:\n    pass\nfinally:\n    z = 1\n",
    's = """a string\nat the margin\ndef not_code():\n"""\nclass A:\n    pass\n',
    "t = (1,\n2)\nu = [\n]\nv = 1 + \\\n2\nw = 3\n",
    "# a header\n# more\n\nimport sys  # why\nx = sys.argv\n",
    "def broken(:\n    pass\n",
    "x = 1\n  y = 2\n",
    "'lone string later'\nx = 1\n'another'\n",
]


@pytest.mark.parametrize("text", MODULES)
def test_a_module_read_piece_by_piece_is_the_module_read_whole(text: str) -> None:
    from polybook.check.library_code import _statements, _whole_statements

    assert _statements(text) == _whole_statements(text)


@given(st.text(alphabet=st.sampled_from(list("ab_λ19eEjJxX.(){}[],:;=+-*/%!?$@~^&|<>\\ \u00a0\u3000…`"))))
@settings(max_examples=1500)
def test_a_line_without_quotes_or_comments_reads_as_token_by_token(rest: str) -> None:
    """:func:`_line_tokens`'s one-pass reading of a line with no string and no comment: the same
    tokens at the same places, the same bracket counts, and None for the same error tokens."""
    assert _unquoted_tokens(rest + "\n") == _scanned_tokens(rest + "\n")
