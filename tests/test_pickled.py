"""What the stores keep (parsed documents, findings) is pickled as calls of the frozen classes
with their fields (:func:`polybook.files.pickled_by_fields`): loaded, it is what was kept."""

from __future__ import annotations

import copyreg
import pickle
import pickletools
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from polybook.check.findings import Finding, Location
from polybook.check.memo import findings_dir  # noqa: F401  (registers the findings' classes)
from polybook.check.plan import Changes, Counts, DocumentPlan, DocumentState
from polybook.diagnostics import Code
from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.nodes import Inline, Label
from polybook.files import pickled_by_fields
from polybook.models import MODELS_DIR  # noqa: F401  (registers the documents' classes)


def test_a_finding_with_its_plan_comes_back_equal_as_calls_of_its_classes() -> None:
    changes = Changes(paragraphs=Counts(1, 2, 3), words=7)
    plan = DocumentPlan(DocumentState.CHANGED, "chapter/a", "chapter/a", "0.17", changes=changes, labels=frozenset("x"))
    finding = Finding.make(
        Code.MATH_MISSING, "math $x$ is missing", "ja", "chapter/a", Location("ja/a.md", 3),
        source=Location("en/a.md", 4), diff=(("", "x"),), subject=("", "x"), plan=plan,
    )  # fmt: skip
    data = pickle.dumps([finding, Location("b.md", 1)], protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(data) == [finding, Location("b.md", 1)]
    # a call of each class, not an object and its state (set by dataclasses' __setstate__)
    assert "BUILD" not in {op.name for op, _, _ in pickletools.genops(data)}


def test_a_parsed_document_comes_back_equal() -> None:
    doc = parse_text("# Title\n:label:`sec_a`\n\nSee :numref:`sec_a` and $x^2$.\n", "a.md", DialectSettings())
    assert any(isinstance(i, Inline) for n in doc.walk() for i in getattr(n, "inlines", ()))
    assert isinstance(doc.labels["sec_a"], Label)
    data = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(data) == doc
    assert Inline in copyreg.dispatch_table and Label in copyreg.dispatch_table


def test_a_class_the_call_would_not_make_again_is_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class Derived:
        a: int
        b: int = field(init=False, default=0)

    @dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            pass

    for cls in (Derived, Checked):
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickled_by_fields(cls)


def test_a_class_of_one_field() -> None:
    @dataclass(frozen=True, slots=True)
    class One:
        a: tuple[int, ...]

    pickled_by_fields(One)
    globals()["One"] = One  # pickle finds a class by its module's name
    One.__qualname__ = "One"
    assert pickle.loads(pickle.dumps(One((1, 2)))) == One((1, 2))


def test_a_kept_pickle_is_the_pickle_kept_and_a_damaged_one_is_made_again(tmp_path: Path) -> None:
    from polybook.files import kept_pickle

    entry = tmp_path / "kept" / "entry.pickle"
    made = kept_pickle(entry, list, lambda: [1, 2])
    assert pickle.loads(made) == [1, 2] and entry.read_bytes() == made
    assert kept_pickle(entry, list, lambda: [3]) == made  # kept: not worked out again
    entry.write_bytes(b"not a pickle")
    assert pickle.loads(kept_pickle(entry, list, lambda: [4])) == [4]
    assert pickle.loads(kept_pickle(entry, dict, lambda: {"k": 5})) == {"k": 5}  # another kind: a miss
