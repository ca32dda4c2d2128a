"""The conf.py reference (``docs/reference/conf.md``), written from the tables the validation
itself checks keys against: a setting the validator knows is documented, and nothing else.

``tests/test_docs.py`` keeps the committed page equal to :func:`reference_markdown`
(``pytest tests/test_docs.py --regen`` writes it again).
"""

from __future__ import annotations

from polybook.config import library, notebooks, validate

#: (where the keys sit in conf.py, what that part is, its keys and their help), in reading order.
_PARTS = (
    ("polybook", "polybook's own settings: one literal dict, read without running conf.py", validate._BOOK_KEYS),
    ("polybook.languages.LANG", "One language (its key is the language's code)", validate._LANGUAGE_KEYS),
    ("polybook.execution", "How `polybook build eval` runs the code", validate._EXECUTION_KEYS),
    ("polybook.execution.chapters.NAME", "One chapter's own execution settings", validate._CHAPTER_EXECUTION_KEYS),
    ("polybook.library", "The book's own package, from its `#@save` cells", library._LIBRARY_KEYS),
    ("polybook.library.frameworks.FRAMEWORK", "One framework's module of the library", library._FRAMEWORK_KEYS),
    ("polybook.notebooks", "The notebooks for readers", notebooks._KEYS),
    ("polybook.translate", "The machine translation engine of `polybook translate`", validate._TRANSLATE_KEYS),
)

_HEAD = """\
# conf.py reference

<!-- Written by polybook.config.reference from the validator's own tables: do not edit by hand
     (pytest tests/test_docs.py --regen). -->

`conf.py` is Sphinx's config file and polybook's. polybook reads it **statically**: top-level
assignments whose value is a Python literal are evaluated with `ast.literal_eval`, nothing is
executed, so `polybook check` is safe on pull requests. Sphinx executes the whole file when it
builds (see [the trust model](../trust.md)). Every mistake in the `polybook` dict is reported
at once, at its `conf.py:LINE`, with the close known key when one is misspelt.

Every other top-level setting is Sphinx's (`copyright`, `html_logo`, `latex_elements`, ...),
passed to Sphinx as written; a change to one rebuilds the pages (`html_*`), the PDFs
(`latex_*`) or both (the others), and nothing else.
"""


def reference_markdown() -> str:
    """The page: one table per part of the ``polybook`` dict."""
    out = [_HEAD]
    for where, what, keys in _PARTS:
        out.append(f"\n## `{where}`\n\n{what}.\n\n| key | what it is |\n|---|---|\n")
        out += [f"| `{key}` | {_cell(text)} |\n" for key, text in keys.items()]
    return "".join(out)


def _cell(text: str) -> str:
    """``text`` as a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")
