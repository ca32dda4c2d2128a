"""A module compared with the book's library as code: statement by statement, comments, layout
and docstrings aside (translations translate docstrings; d2lbook and polybook word the header
otherwise), with where the first difference stands."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

from cydifflib import SequenceMatcher  # difflib's, compiled: the same results (see pyproject.toml)

from polybook.library import SavedLibrary
from polybook.library.build import first_difference
from polybook.library.collect import SavedBlock


@dataclass(frozen=True, slots=True)
class CodeDifference:
    """Where a module file first differs in code from the book's library text."""

    line: int  # in the file
    what: str  # "'train_epoch' differs", "'f' is only in the file", "'g' of the book's is missing"
    block: SavedBlock | None  # where the book defines it (or what follows)
    places: int = 1  # how many top-level statements differ
    first: str = ""  # what differs at ``line`` alone ("" : ``what``)

    def stale_message(self) -> str:
        where = f" ({self.block.location})" if self.block else ""
        return f"{self.what}{where}: the file is not what the #@save code gives; run polybook build lib"


def code_difference(text: str, library: SavedLibrary) -> CodeDifference | None:
    """The first top-level statement where ``text`` and the book's module differ as code (None:
    the same code); a file that does not parse differs at its first line that is not the book's."""
    mine, book = _statements(text), _statements(library.text)
    if mine is None or book is None:
        first, _ = first_difference(text.split("\n"), library.text.split("\n"))
        return CodeDifference(first + 1, "differs", library.origin(first + 1))
    ops = SequenceMatcher(None, [s[1] for s in mine], [s[1] for s in book], autojunk=False).get_opcodes()
    changes = [op for op in ops if op[0] != "equal"]
    if not changes:
        return None
    # what differs, statement by statement; a statement only moved (pt's copy defines DATA_HUB
    # further down) is not missing, and is told only when nothing else differs
    mine_codes, book_codes = {s[1] for s in mine}, {s[1] for s in book}
    theirs = [(k, i1) for _, i1, _, j1, j2 in changes for k in range(j1, j2) if book[k][1] not in mine_codes]
    ours = [k for _, i1, i2, _, _ in changes for k in range(i1, i2) if mine[k][1] not in book_codes]
    defined = {book[k][2]: k for k, _ in theirs if book[k][2]}
    changed = defined.keys() & {mine[k][2] for k in ours}  # defined both ways
    end = len(text.split("\n"))
    places: list[tuple[int, str, str, int | None]] = []  # (line in the file, what, name, the book's statement)
    for k in ours:
        name = _name(mine[k])
        what = f"{name} differs" if mine[k][2] in changed else f"{name} is not in the book's library"
        places.append((mine[k][0], what, name, defined.get(mine[k][2])))
    for k, at in theirs:
        if book[k][2] not in changed:
            line = mine[at][0] if at < len(mine) else end
            places.append((line, f"{_name(book[k])} of the book's library is missing here", _name(book[k]), k))
    if not places:
        _, i, _, j, _ = changes[0]
        name = _name(book[j]) if j < len(book) else _name(mine[i])
        block = library.origin(book[j][0]) if j < len(book) else None
        where = mine[i][0] if i < len(mine) else end
        return CodeDifference(where, f"the same code in another order ({name} stands elsewhere here)", block)
    places.sort(key=lambda p: p[0])
    line, what, _, k = places[0]
    k = k if k is not None else changes[0][3]  # (else what follows in the book's)
    block = library.origin(book[k][0]) if k < len(book) else None
    first = what
    if len(places) > 1:
        names = [p[2] for p in places[1:4]]
        more = ", …" if len(places) > 4 else ""
        what += f" (and {len(places) - 1} more place(s): {', '.join(names)}{more})"
    return CodeDifference(line, what, block, len(places), first)


def _name(statement: tuple[int, str, str]) -> str:
    return f"{statement[2]!r}" if statement[2] else "the code"


@functools.lru_cache(maxsize=32)
def _statements(text: str) -> tuple[tuple[int, str, str], ...] | None:
    """``(first line, code, name)`` of each top-level statement, docstrings dropped; None when
    ``text`` does not parse. Memoised: the book's module is compared with every language's copy.

    Parsed piece by piece (:func:`_pieces`), each piece once per process: a language's copy is
    mostly the book's module, statement for statement (book17: 15 modules of some 3,000 lines,
    parsed whole, were half the library check's time). Should a piece not parse alone, the text
    is parsed whole, as a piece that does not parse may be one cut where no statement ends."""
    lines = text.split("\n")
    out: list[tuple[int, str, str]] = []
    first_statement = True
    for start, piece in _pieces(lines):
        found = _piece_statements(piece)
        if found is None:
            return _whole_statements(text)
        for first, code, name, lone_string in found:
            if not (first_statement and lone_string):  # the module's docstring is no code
                out.append((start + first, code, name))
            first_statement = False
    return tuple(out)


def _pieces(lines: list[str]) -> list[tuple[int, str]]:
    """``(lines before it, text)`` of the text's pieces, cut before each line that starts a
    statement at the left margin (not after a decorator, nor at ``else``, ``elif``, ``except``,
    ``finally``); a cut inside a string or brackets leaves a piece that does not parse."""
    starts = [0]
    for i, line in enumerate(lines[1:], 1):
        head = line[:1]
        if head and not head.isspace() and head not in "#)]}'\"" and not _CONTINUES.match(line):
            previous = next((lines[j] for j in range(i - 1, starts[-1] - 1, -1) if lines[j].strip()), "")
            if not previous.startswith("@") and not previous.rstrip().endswith("\\"):
                starts.append(i)
    return [(a, "\n".join(lines[a:b])) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]


_CONTINUES = re.compile(r"(?:else|elif|except|finally|case)\b")
_Statement = tuple[int, str, str, bool]  # first line, code, name, whether it is a lone string
_PIECES: dict[str, tuple[_Statement, ...] | None] = {}  # a piece's text -> its statements


def _piece_statements(piece: str) -> tuple[_Statement, ...] | None:
    """The statements of one piece (lines counted from 0), or None when it does not parse alone."""
    if piece not in _PIECES:
        if len(_PIECES) > 20_000:  # a long-lived process (serve) keeps only recent ones
            _PIECES.clear()
        try:
            tree = ast.parse(piece)
        except SyntaxError:
            _PIECES[piece] = None
        else:
            lines = piece.split("\n")
            _PIECES[piece] = tuple((*_statement(node, lines), _is_docstring(node)) for node in tree.body)
    return _PIECES[piece]


def _statement(node: ast.stmt, lines: list[str]) -> tuple[int, str, str]:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return first, _code_of(node, "\n".join(lines[first - 1 : node.end_lineno])), _statement_name(node)


def _whole_statements(text: str) -> tuple[tuple[int, str, str], ...] | None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    lines = text.split("\n")
    return tuple(_statement(node, lines) for node in _without_docstring(tree.body))


_CODES: dict[str, str] = {}  # a statement's text -> its code as compared (the copies repeat the book's)


def _code_of(node: ast.stmt, written: str) -> str:
    """The statement as compared: its syntax tree without docstrings (positions left out)."""
    found = _CODES.get(written)
    if found is None:
        if len(_CODES) > 100_000:  # a long-lived process (serve) keeps only recent ones
            _CODES.clear()
        _drop_docstrings(node)
        found = _CODES[written] = ast.dump(node)
    return found


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")  # where statements hold statements


def _drop_docstrings(node: ast.AST) -> None:
    """Drop the docstring of every function and class in the statement, at any depth: through
    statements' bodies only, as no expression holds a definition (ast.walk's visit of every
    expression was most of a copy's comparison)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        node.body = _without_docstring(node.body) or [ast.Pass()]
    for field in _BODIES:
        for child in getattr(node, field, None) or ():
            _drop_docstrings(child)


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    return body[1:] if body and _is_docstring(body[0]) else body


def _is_docstring(node: ast.stmt) -> bool:
    """A lone string: a docstring when it is a body's first statement."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _statement_name(node: ast.stmt) -> str:
    """What a statement defines, for messages: a function's or class's name, an assignment's."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign) and node.targets:
        return ast.unparse(node.targets[0])
    return ast.unparse(node).split("\n")[0][:60]
