"""The book's own library, checked: what readers of each language import must be what the
source's ``#@save`` code gives.

* A translation's ``#@save`` cell that differs from the source's (``code.saved``, an error):
  the code a translator changed would not reach the library, or -- with a translation's own
  copy of the package -- its readers would get another library.
* A committed module whose code is not what ``polybook build lib`` gives (``lib.stale``), with the
  first differing definition and the chapter line that defines it.
* A translation's own copy of a module (``chapters/<lang>/d2l/torch.py``, as imported from its
  project) whose code differs from the book's (``lib.copy``): its kernels import that copy.

Modules are compared as code: comments, blank lines, layout, the header's wording (d2lbook's or
polybook's) and docstrings (which translations translate) are no difference.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from cydifflib import SequenceMatcher  # difflib's, compiled: the same results (see pyproject.toml)

from polybook.book import Book
from polybook.check.code import TAKE_SOURCE
from polybook.check.documents import cells_of
from polybook.check.findings import Finding, Location
from polybook.check.keys import checker_version, file_digest, key_of
from polybook.check.segments import by_identity
from polybook.config import BookConfig, LibrarySettings
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, Document
from polybook.files import display_path, hash_files, kept
from polybook.library import SavedLibrary, collect_library, library_status
from polybook.library.build import (
    first_difference,
    library_book,
    library_languages,
    module_target,
    source_languages,
)
from polybook.library.collect import SAVE_RE, SavedBlock, save_lines


def saved_drift(
    lang: str, source: Document, findings: list[Finding], translation: Document | None = None
) -> list[Finding]:
    """``code.changed`` findings about the lines of a cell that ``#@save`` marks give the library
    become ``code.saved`` (of the translation's cell when the change has text there, else of the
    source's; with no ``translation``, any line of a cell the source saves)."""
    if not any(finding.code is Code.CODE_CHANGED for finding in findings):
        return findings  # (most chapters: nothing to turn)
    s_lines = _saved_lines(source) if translation is not None else None
    t_lines = _saved_lines(translation) if translation is not None else None
    out = []
    for finding in findings:
        if finding.code is not Code.CODE_CHANGED:
            out.append(finding)
            continue
        where = finding.source.line if finding.source is not None else 0
        if s_lines is not None and t_lines is not None and finding.location is not None:
            mine = bool(finding.diff and finding.diff[0][0])
            library = finding.location.line in t_lines if mine else where in s_lines
        else:
            library = any(cell.line <= where <= cell.end_line for cell in _saved_cells(source))
        if library:
            said = finding.message.removesuffix(f"; {TAKE_SOURCE}").removesuffix(f": {TAKE_SOURCE}")
            message = f"{said}; it is #@save code: readers of {lang} would get another library; {TAKE_SOURCE}"
            finding = replace(finding, code=Code.CODE_SAVED, message=message)
        out.append(finding)
    return out


@by_identity
def _saved_cells(doc: Document) -> list[CodeCell]:
    """The document's code cells with a save mark (memoised for the last documents)."""
    return [cell for cell in cells_of(doc) if SAVE_RE.search(cell.code)]


@by_identity
def _saved_lines(doc: Document) -> frozenset[int]:
    """The file lines whose code ``#@save`` marks give the library, for any framework (memoised
    for the last documents: the source's serves every language). A framework's lines are its
    cell's code's (some dropped, some cut): a cell with no mark in its code has none in them."""
    return frozenset(n for cell in _saved_cells(doc) for f in cell.frameworks for _, n in save_lines(cell.lines_for(f)))


def library_findings(
    book: Book, languages: list[str], store: Path | None = None, frameworks: tuple[str, ...] | None = None
) -> list[Finding]:
    """Stale committed modules, and the translations' own copies that differ from the book's
    (``frameworks``: of these only). ``store``: the folder of kept findings
    (:mod:`polybook.check.memo`; None: computed)."""
    config = book.config
    settings = config.library
    if config.library_problems or not settings.enabled:
        return []  # polybook build lib reports the settings' problems
    whole = set(book.tocs)  # the languages loaded whole: the library follows their tocs
    if config.source_language not in whole and not set(source_languages(config, settings, frameworks)) <= whole:
        return []  # neither the source nor the languages of these modules was loaded whole
    if store is None:
        return _library_findings(book, languages, settings, frameworks)
    key = _library_key(config, settings, languages, frameworks)
    compute = functools.partial(_library_findings, book, languages, settings, frameworks)
    return kept(store / "library" / f"{key}.pickle", list, compute)


def kept_library_findings(
    config: BookConfig,
    languages: list[str],
    store: Path,
    load: Callable[[], Book] | None = None,
    frameworks: tuple[str, ...] | None = None,
) -> list[Finding]:
    """:func:`library_findings` kept in ``store``, the book loaded (``load``: its source language
    whole; None: the languages the modules come from, whole) only when they are computed: an
    unchanged book's check does not load it."""
    settings = config.library
    if config.library_problems or not settings.enabled:
        return []
    key = _library_key(config, settings, languages, frameworks)

    def compute() -> list[Finding]:
        book = load() if load is not None else library_book(config, source_languages(config, settings, frameworks))
        return library_findings(book, languages, None, frameworks)

    return kept(store / "library" / f"{key}.pickle", list, compute)


def _library_key(
    config: BookConfig, settings: LibrarySettings, languages: list[str], frameworks: tuple[str, ...] | None
) -> str:
    """Everything the library's findings read: the checker's and the library's code, conf.py,
    every document of the languages the modules are collected from (the toc, the #@save
    cells), the committed modules and the translations' copies (of ``frameworks``, None: all)."""
    chosen = [f for f in settings.frameworks if frameworks is None or f in frameworks]
    parts: list[str | bytes] = [
        checker_version(),
        _library_code(),
        config.path.as_posix(),
        file_digest(config.path),
        repr(languages),
        repr(chosen),
    ]
    from_languages = library_languages(config, settings)
    for lang in sorted({config.source_language, *(from_languages[f] for f in chosen if f in from_languages)}):
        for name in config.document_names(lang):
            path = config.document_path(lang, name)
            parts += [f"{lang}/{name}\0{display_path(path)}", file_digest(path)]
    for framework in chosen:
        spec = settings.frameworks[framework]
        parts.append(file_digest(module_target(config, settings, framework)))
        parts += [file_digest(config.chapters_dir / lang / spec.lib_file) for lang in languages]
    return key_of(parts)


@functools.cache
def _library_code() -> str:
    import polybook.library

    digest = hashlib.sha256()
    hash_files(digest, sorted(Path(polybook.library.__file__).parent.glob("*.py")))
    return digest.hexdigest()


def _library_findings(
    book: Book, languages: list[str], settings: LibrarySettings, frameworks: tuple[str, ...] | None = None
) -> list[Finding]:
    config = book.config
    source = config.source_language
    libraries = collect_library(book, settings, frameworks)
    out: list[Finding] = []
    for framework, status in library_status(book, libraries).items():
        diagnostic = status.diagnostic()
        if diagnostic is None:
            continue
        library = libraries[framework]
        block = status.block
        if status.missing:
            diagnostic = replace(diagnostic, message="the library file does not exist: polybook build lib writes it")
        else:
            found = code_difference(library.target.read_text(encoding="utf-8", errors="replace"), library)
            if found is None:
                continue  # the same code: comments, layout or docstrings differ
            diagnostic = replace(diagnostic, line=found.line, message=found.stale_message())
            block = found.block
        owner = library.language if library.target.is_relative_to(config.chapters_dir / library.language) else source
        out.append(Finding.make(
            Code.LIB_STALE, diagnostic.message, owner, block.document if block else "",
            Location(diagnostic.path, diagnostic.line), source=Location(block.path, block.line) if block else None,
            framework=framework, subject=(library.digest, ""),
        ))  # fmt: skip
    for lang in languages:
        for framework, library in libraries.items():
            copy = config.chapters_dir / lang / settings.frameworks[framework].lib_file
            if framework not in config.languages[lang].frameworks or copy == library.target:
                continue  # (the language's own library: the module itself, checked above)
            if config.languages[lang].base is not None:
                # its chapters follow an older edition and call that edition's library
                # (d2l.train_ch3, which 1.0 dropped): today's is not what its copy should be
                continue
            out += _copy(config.chapters_dir / lang / settings.frameworks[framework].lib_file, lang, library)
    return out


#: More places than this and a copy is told as another version of the library, not place by place.
_FEW_PLACES = 3


def _copy(copy: Path, lang: str, library: SavedLibrary) -> list[Finding]:
    if not copy.is_file():
        return []
    text = copy.read_text(encoding="utf-8", errors="replace")
    found = code_difference(text, library) if text != library.text else None
    if found is None:
        return []
    block = found.block
    where = f", defined at {block.location}" if block else ""
    if found.places > _FEW_PLACES:  # another version of the library: what to do is about the file, not a place
        message = (
            f"{lang}'s own {library.framework} module is another version of the book's library ({found.places} "
            f"top-level statements differ; the first at line {found.line}: {found.first or found.what}{where}); "
            f"its kernels import this copy: remove it to use the book's (polybook build lib)"
        )
    else:
        message = (
            f"{lang}'s own {library.framework} module differs from the book's library in code at line {found.line}: "
            f"{found.what}{where}; its kernels import this copy: remove it to use the book's (polybook build lib)"
        )
    return [Finding.make(
        Code.LIB_COPY, message, lang, block.document if block else "", Location(display_path(copy), found.line),
        source=Location(block.path, block.line) if block else None, framework=library.framework,
        subject=(library.digest, hashlib.sha256(text.encode("utf-8")).hexdigest()),
    )]  # fmt: skip


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
