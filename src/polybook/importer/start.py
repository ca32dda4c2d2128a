"""``polybook init``: a new book -- a minimal conf.py, with comments, and each language's
``index.md`` with its toc block -- that builds and checks as it is."""

from __future__ import annotations

from pathlib import Path

from polybook.config import CONFIG_NAME
from polybook.files import atomic_write
from polybook.importer.confpy import render
from polybook.importer.merge import language_name

CONF = """\
# The book's one config file: Sphinx settings plus polybook's own (the `polybook` dict).
# Made by `polybook init`; edit it freely (`polybook import d2lbook` merges into it too).
#
# polybook reads this file statically -- literal assignments only, nothing is executed --
# so `polybook check` is safe to run on pull requests. Sphinx executes it when building.

project = {title}

polybook = {{
    # The book's title (or one per language: {{"en": "...", "zh": "..."}}).
    "title": {title},
    # The language the translations follow.
    "source_language": {source},
    # Book-wide frameworks in tab order; a code cell without a tab belongs to `default_tab`.
    "frameworks": {frameworks},
    "default_tab": {default_tab},
    # Each language: its name in itself (and, if they differ from the book's, its own
    # "frameworks" and "default_tab"). Its chapters are in chapters/<code>/, from index.md.
    "languages": {languages},
    # One sub-folder per language holds its chapters; outputs go to build_dir.
    "chapters": "chapters",
    "build_dir": "build",
    # Markdown files that are not documents (globs relative to each language's folder).
    "exclusions": [],
}}
"""

INDEX = """\
# {title}

This is the book's first page. Write each chapter in a file beside it (`intro.md`, or
`chapter_intro/index.md` with its sections) and list it in the toc block below, one
document name per line, without `.md`.

```toc
:maxdepth: 2

```
"""


class BookExists(Exception):
    """``polybook init`` would overwrite a book: nothing was written."""


#: What a new book's .gitignore holds: what polybook builds, never committed.
GITIGNORE = "# What polybook builds (polybook init and import write this file when there is none)\nbuild/\n"


def ignore_build(folder: Path) -> Path | None:
    """A ``.gitignore`` naming ``build/`` in a new book's ``folder``, when it has none (one the
    user wrote is never changed); the file written, if any."""
    path = folder / ".gitignore"
    if path.exists():
        return None
    atomic_write(path, GITIGNORE)
    return path


def start_book(folder: Path, languages: list[str], title: str, frameworks: list[str]) -> list[Path]:
    """Write a new book into ``folder`` (made if need be): conf.py and ``chapters/<lang>/index.md``
    for each language, the first the source; the files written. Refuses, writing nothing, when
    ``folder`` has a conf.py or a language's index.md already."""
    conf = folder / CONFIG_NAME
    indexes = [folder / "chapters" / lang / "index.md" for lang in languages]
    if there := [path for path in [conf, *indexes] if path.exists()]:
        verb = "exists" if len(there) == 1 else "exist"
        raise BookExists(f"{', '.join(map(str, there))} {verb} already: polybook init writes a new book only")
    names = {lang: {"name": language_name(lang)} for lang in languages}
    text = CONF.format(
        title=render(title, ""),
        source=render(languages[0], ""),
        frameworks=render(frameworks, "    "),
        default_tab=render(frameworks[0], "    "),
        languages=render(names, "    "),
    )
    for index in indexes:
        index.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(index, INDEX.format(title=title))
    ignored = ignore_build(folder)
    atomic_write(conf, text)  # last: a book is there once its conf.py is
    return [conf, *indexes, *([ignored] if ignored else [])]
