"""A document has a version for a framework when one of its cells or text tabs names it (the
default tab always), as d2lbook decides: no program, no tab, no library code for the others."""

from __future__ import annotations

from pathlib import Path

from polybook.book import Book
from polybook.config import load_config
from polybook.dialect import DialectSettings, parse_text
from polybook.execute.programs import build_programs
from polybook.stage.myst import transpile

SETTINGS = DialectSettings("en", ("mxnet", "pytorch", "tensorflow"), "mxnet")
TEXT = """\
# Chapter

```{.python .input}
#@tab all
x = 1
```

```{.python .input}
#@tab pytorch
import torch
```
"""
CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet", "pytorch", "tensorflow"],
    "languages": {"en": {"name": "English"}},
}
"""


def test_only_named_frameworks_and_the_default_tab_are_offered() -> None:
    doc = parse_text(TEXT, "chapters/en/ch.md", SETTINGS)
    assert doc.offered() == ("mxnet", "pytorch")
    assert doc.cells()[0].frameworks == ("mxnet", "pytorch", "tensorflow")  # all still means all
    text_tab = parse_text(TEXT + "\n:begin_tab:`tensorflow`\nOnly TensorFlow.\n:end_tab:\n", "ch.md", SETTINGS)
    assert text_tab.offered() == ("mxnet", "pytorch", "tensorflow")


def test_no_program_and_no_tab_for_a_framework_the_document_does_not_offer(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    doc = parse_text(TEXT, "chapters/en/ch.md", SETTINGS)
    book = Book(load_config(tmp_path / "conf.py"), {"en": {"ch": doc}})
    environment = {fw: {} for fw in ("mxnet", "pytorch", "tensorflow")}
    assert sorted(p.framework for p in build_programs(book, environment)) == ["mxnet", "pytorch"]
    myst = transpile(doc, "en").text
    assert "{tab-item} pytorch" in myst and "tensorflow" not in myst  # labels as written: no framework_labels
