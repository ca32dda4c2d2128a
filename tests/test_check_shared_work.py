"""What the check works out once and shares: the languages made from one base ask for the same
comparison of that base with the source (the stale findings' changes, the migration plan's
counts), and cells equal but for their comments align alike. A memo never serves a result for
another document: it is keyed by both documents' identities and keeps them alive."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.check.bases import Base, BaseKind, _closest
from polybook.check.code_match import align_code
from polybook.check.merge import rename_key
from polybook.check.migration import document_changes
from polybook.check.staleness import by_documents, source_steps
from polybook.config import load_config
from polybook.dialect import DialectSettings, parse_text

SETTINGS = DialectSettings("en", ("mxnet",), "mxnet")

OLD = """\
# Loops
:label:`sec_loops`

We count to ten.

```{.python .input}
for i in range(10):
    print(i)
```

A sentence that stays.
"""
NEW = OLD.replace("range(10)", "range(100)").replace("to ten", "to a hundred") + "\nA new sentence.\n"


def doc(text: str, path: str = "en/loops.md", settings: DialectSettings = SETTINGS):
    return parse_text(text, path, settings)


def test_by_documents_serves_the_same_pair_only() -> None:
    calls: list[tuple[int, int]] = []

    @by_documents
    def compared(old, new):
        calls.append((id(old), id(new)))
        return [old.path, new.path]

    a, b = doc(OLD), doc(NEW)
    first = compared(a, b)
    assert compared(a, b) is first and len(calls) == 1  # the same two objects: served
    twin = doc(OLD)  # equal, but another document: worked out again, never served a's result
    assert compared(twin, b) is not first and len(calls) == 2
    assert compared(b, a) == [b.path, a.path] and len(calls) == 3  # the order matters


def test_by_documents_keeps_what_it_memoises_alive() -> None:
    """An entry holds its documents, so a new document cannot take a memoised one's id."""

    @by_documents
    def paths(old, new):
        return (old.path, new.path)

    seen = {}
    for k in range(40):  # more than the memo keeps: old entries go, and ids may then be reused
        a, b = doc(OLD, f"en/a{k}.md"), doc(NEW, f"en/b{k}.md")
        assert paths(a, b) == (f"en/a{k}.md", f"en/b{k}.md")
        seen[k] = (a, b)
    a, b = seen[39]
    assert paths(a, b) == ("en/a39.md", "en/b39.md")


def test_the_source_steps_are_shared_by_the_languages_of_one_base() -> None:
    old, new = doc(OLD), doc(NEW)
    steps = source_steps(old, new)
    assert source_steps(old, new) is steps  # the second language made from this base is served
    cells, prose = steps
    assert [(c.what, c.index, c.anchor is not None) for c in cells] == [("changed", 1, True)]
    assert [p.node.line for p in prose] == [4, 13]  # the changed sentence, the new one
    assert all(p.anchor_line is not None for p in prose)
    other = doc(OLD)  # another base with the same text: its own steps, naming its own cells
    assert source_steps(other, new)[0][0].anchor is other.cells()[0]


def test_document_changes_are_counted_once_per_pair() -> None:
    old, new = doc(OLD), doc(NEW)
    changes = document_changes(old, new)
    assert document_changes(old, new) is changes
    assert (changes.paragraphs.changed, changes.paragraphs.added, changes.cells.changed) == (1, 1, 1)
    assert document_changes(doc(OLD), new) == changes  # another document: counted again, alike


def test_cells_equal_but_for_comments_align_alike_and_the_result_is_the_callers() -> None:
    source = ["x = 1\nprint(x)", "y = 2", "z = f(3)"]
    commented = ["x = 1  # 一\nprint(x)", "# 二\ny = 2", "z = f(4)"]
    pairs = align_code(source, commented)
    assert [p.kind for p in pairs] == ["equal", "equal", "similar"]
    pairs.clear()  # a caller's list: changing it changes nothing memoised
    assert [p.kind for p in align_code(source, ["x = 1\nprint(x)", "y = 2", "z = f(4)"])] == [
        "equal",
        "equal",
        "similar",
    ]


def test_the_first_candidate_holding_every_mark_wins_uncounted(monkeypatch) -> None:
    """A translation whose code (but for comments), formulas and labels are all its first
    candidate's shares as much with it as with any: it is chosen, nothing is normalised."""
    import polybook.check.bases as bases

    edition, source = doc(OLD, "old/loops.md"), doc(NEW)
    translation = doc(
        OLD.replace("print(i)", "print(i)  # 数える"), "ja/loops.md", DialectSettings("ja", ("mxnet",), "mxnet")
    )
    scored = [Base(BaseKind.EDITION, edition, "0.1"), Base(BaseKind.SOURCE, source, "the source")]
    counted = []
    monkeypatch.setattr(bases, "_marks", lambda d: counted.append(d) or frozenset())
    assert _closest(scored, translation, None, Path("ja/loops.md"), ()) == 0
    assert counted == []
    # the source first: the translation's code is not all its own, so the marks are counted
    monkeypatch.undo()
    assert _closest(scored[::-1], translation, None, Path("ja/loops.md"), ()) == 1


def test_languages_renaming_one_base_text_share_its_changes(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        'polybook = {"source_language": "en", "frameworks": ["mxnet"], "languages": '
        '{"en": {"name": "English"}, "ja": {"name": "日本語"}, "zh": {"name": "中文"}}}\n',
        encoding="utf-8",
    )
    files = {}
    for lang in ("en", "ja", "zh"):
        (tmp_path / "chapters" / lang).mkdir(parents=True)
        files[lang] = tmp_path / "chapters" / lang / "a_origin.md"
        files[lang].write_text(OLD, encoding="utf-8")
    moved = tmp_path / "chapters" / "en" / "moved.md"
    moved.write_text(NEW, encoding="utf-8")
    config = load_config(tmp_path / "conf.py")
    assert rename_key(config, files["ja"], moved) == rename_key(config, files["zh"], moved)
    files["zh"].write_text(OLD + "\nMore.\n", encoding="utf-8")
    assert rename_key(config, files["ja"], moved) != rename_key(config, files["zh"], moved)


SNIPPETS = [
    "x = 1",
    "x  =  1",
    "x = 1  # one",
    'def f():\n    """Doc."""\n    return 1',
    'def f():\n    """文書."""\n    return 1',
    "def f():\n    return 1",
    "print('a b', x)",
    "print('a  b', x)",
    "y = f(x,\n      2)",
    "y = f(x, 2)",
    "y = f(x, 3)",
    "z = [i for i in range(10)]",
    "1if x else 2",
    "s = '''a\nb'''",
    "import torch",
]


def cells_doc(picked: list[int], path: str) -> object:
    body = "".join(f"```{{.python .input}}\n{SNIPPETS[k]}\n```\n\n" for k in picked)
    return doc(f"# T\n\n{body}", path)


@given(
    st.lists(st.integers(0, len(SNIPPETS) - 1), max_size=6),
    st.lists(st.integers(0, len(SNIPPETS) - 1), max_size=6),
    st.lists(st.integers(0, len(SNIPPETS) - 1), max_size=6),
)
@settings(max_examples=300, deadline=None)
def test_the_sources_bound_is_never_below_what_it_shares_and_the_choice_is_the_counted_one(
    mine: list[int], first: list[int], last: list[int]
) -> None:
    from polybook.check.bases import _marks, _most_shared

    translation, edition, source = cells_doc(mine, "ja/t.md"), cells_doc(first, "old/t.md"), cells_doc(last, "en/t.md")
    marks = _marks(translation)
    assert _most_shared(translation, marks, source) >= len(marks & _marks(source))
    scored = [Base(BaseKind.EDITION, edition, "0.1"), Base(BaseKind.SOURCE, source, "the source")]
    counts = [len(marks & _marks(b.document)) for b in scored]
    assert _closest(scored, translation, None, Path("ja/t.md"), ()) == counts.index(max(counts))
