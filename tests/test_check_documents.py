"""The check's memoised readings of a document give what the document's own methods give."""

from __future__ import annotations

from polybook.check.documents import cells_of
from polybook.dialect import DialectSettings, parse_text

TEXT = """# T

```{.python .input}
x = 1
```

```{.python .input}
#@tab pytorch
y = 2
```

```{.python .input}
#@tab mxnet, tensorflow
z = 3
```

```{.python .input}
#@tab all
w = 4
```
"""


def test_cells_of_is_the_documents_cells_for_every_framework() -> None:
    settings = DialectSettings(frameworks=("mxnet", "pytorch", "tensorflow"), default_tab="mxnet")
    doc = parse_text(TEXT, "en/t.md", settings)
    for framework in [None, "mxnet", "pytorch", "tensorflow", "paddle", None, "pytorch"]:
        assert cells_of(doc, framework) == doc.cells(framework)
    assert cells_of(doc, "pytorch") is cells_of(doc, "pytorch")  # read once
    other = parse_text(TEXT.replace("y = 2", "y = 5"), "en/t.md", settings)
    assert [c.code for c in cells_of(other, "pytorch")] == [c.code for c in other.cells("pytorch")]
