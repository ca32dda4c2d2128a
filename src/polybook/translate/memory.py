"""Never pay twice: what the book already says, and what an engine already answered.

* the **translation memory**: every source block the book has a translation of (a block of a
  translated document not behind a mark, paired with the source's block at its place), keyed by
  the source block's exact text -- a block to draft whose text is one of them is that translation;
* the **cache** of engine answers, ``build/translate/answers.jsonl``: one line per answer,
  keyed by engine, model, languages, glossary and the protected text sent. A line is appended
  as soon as a batch is answered, so an interrupted run loses nothing it paid for; a line cut
  short by the interruption is skipped when read.
"""

from __future__ import annotations

import hashlib
import json
import os
from difflib import SequenceMatcher
from pathlib import Path

from polybook.dialect.marks import document_mark, marked, read_mark
from polybook.dialect.nodes import Block, Document, Node
from polybook.translate.blocks import is_prose

CACHE_FILE = Path("translate") / "answers.jsonl"


def _kind(node: Node) -> str:
    return f"Block.{node.kind}" if isinstance(node, Block) else type(node).__name__


def _text(lines: list[str], node: Node) -> str:
    return "\n".join(lines[node.line - 1 : node.end_line]).strip()


def document_memory(source: Document, source_text: str, translation: Document, text: str) -> dict[str, str]:
    """``source block text -> its translation`` of one document pair: blocks of one kind at the
    same place of the two documents' sequences of blocks (a ported document is written in the
    source's order), the translation's not behind a mark."""
    if document_mark(translation) is not None:
        return {}
    marks = marked(translation)
    mine = [n for n in translation.nodes if read_mark(n) is None]
    theirs = [n for n in source.nodes if read_mark(n) is None]
    src_lines, tgt_lines = source_text.split("\n"), text.split("\n")
    out: dict[str, str] = {}
    matcher = SequenceMatcher(None, [_kind(n) for n in theirs], [_kind(n) for n in mine], autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            src, tgt = theirs[block.a + offset], mine[block.b + offset]
            if is_prose(src) and id(tgt) not in marks:
                key, value = _text(src_lines, src), _text(tgt_lines, tgt)
                if key and value and key != value:  # a block the translation left in the source language is none
                    out.setdefault(key, value)
    return out


def cache_key(engine: str, model: str, source_lang: str, lang: str, glossary: str, text: str, context: str) -> str:
    parts = json.dumps([engine, model, source_lang, lang, glossary, text, context], ensure_ascii=False)
    return hashlib.sha256(parts.encode("utf-8")).hexdigest()


class AnswerCache:
    """The engine answers kept in ``build/``: read whole when opened, appended to batch by batch."""

    def __init__(self, build_dir: Path) -> None:
        self.path = build_dir / CACHE_FILE
        self.answers: dict[str, str] = {}
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    key, text = json.loads(line)
                except (ValueError, TypeError):
                    continue  # cut short by an interruption
                self.answers[key] = text

    def get(self, key: str) -> str | None:
        return self.answers.get(key)

    def add(self, answers: dict[str, str]) -> None:
        """Keep ``answers`` (key -> text): one line each, appended and flushed to disk."""
        if not answers:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps([key, text], ensure_ascii=False) + "\n" for key, text in answers.items())
        with self.path.open("a", encoding="utf-8") as out:
            out.write(lines)  # one write: two runs appending at once do not interleave within a line
            out.flush()
            os.fsync(out.fileno())
        self.answers.update(answers)
