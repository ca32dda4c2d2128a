"""Properties: sync never changes prose, sync twice = sync once, check never raises."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from polybook import sync
from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config
from polybook.dialect import parse_text
from polybook.dialect.nodes import Block, Heading, Paragraph

from minibook import make_book
from test_properties import FRAGMENTS

STATEMENTS = ["x = 1", "y = x + 2", "for _ in range(1000):\n    y = x + 1", "npx.waitall()", "print(y)  # show"]
COMMENTS = ["# コメント", "# comment", ""]
PROSE = ["Some text.", "Zahlen 10000 und 256.", "Math $t_1 + 1000 t_2$ here.", "* a list\n* item", "## A heading"]


@st.composite
def cells(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=4))
    comment = draw(st.sampled_from(COMMENTS))
    tab = draw(st.sampled_from(["", "#@tab pytorch\n", "#@tab all\n"]))
    body = "\n".join(([comment] if comment else []) + lines)
    return f"```{{.python .input}}\n{tab}{body}\n```"


@st.composite
def chapters(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.one_of(cells(), st.sampled_from(PROSE)), max_size=8))
    return "# Title\n:label:`sec_t`\n\n" + "\n\n".join(blocks) + "\n"


def prose(text: str) -> list[str]:
    """The prose of a chapter: paragraphs, lists, headings -- math blanked (sync may fix it)."""
    doc = parse_text(text, "x.md")
    out = []
    for node in doc.walk():
        if isinstance(node, Heading):
            out.append(node.text)
        elif isinstance(node, Paragraph) or (isinstance(node, Block) and node.kind != "html"):
            out.append(re.sub(r"\$[^$]*\$", "$…$", node.source))
    return out


_TWIN = "```{.python .input}\n#@tab all\n# コメント\nx = 1\n```\n"


@given(chapters(), chapters(), st.booleans())
# a missing `#@tab all` cell inserted must not add a framework to the chapter (the next run re-tagged its twin)
@example(
    f"# Title\n:label:`sec_t`\n\n{_TWIN}\n{_TWIN}",
    "# Title\n:label:`sec_t`\n\n" + _TWIN.replace("#@tab all\n", ""),
    False,
)
# a re-tag that makes the chapters share a framework: the cells standing for it compared in the same run
@example(
    "# Title\n:label:`sec_t`\n\n```{.python .input}\nx = 1\n```\n\n```{.python .input}\n#@tab pytorch\nx = 1\n```\n",
    "# Title\n:label:`sec_t`\n\n```{.python .input}\n#@tab all\nx = 1\n```\n\n```{.python .input}\nx = 1\n```\n",
    False,
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sync_never_changes_prose_and_is_idempotent(en: str, ja: str, prune: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        conf = make_book(Path(tmp), en, ja)
        target = Path(tmp) / "chapters" / "ja" / "intro.md"
        book = load_book(load_config(conf))
        first = sync.sync_book(book, prune=prune)
        sync.write(book, first)
        once = target.read_text(encoding="utf-8")
        assert prose(once) == prose(ja)
        book = load_book(load_config(conf))
        sync.write(book, sync.sync_book(book, prune=prune))
        assert target.read_text(encoding="utf-8") == once


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30), st.lists(st.sampled_from(FRAGMENTS), max_size=30))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_check_never_raises(en: list[str], ja: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        conf = make_book(Path(tmp), "\n".join(en), "\n".join(ja))
        result = check_book(load_book(load_config(conf)))
        for finding in result.findings:
            assert finding.primary.line >= 1
            finding.to_dict()
