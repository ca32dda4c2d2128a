"""Tiny complete books on disk for tests: a conf.py and one chapter per language."""

from __future__ import annotations

from pathlib import Path

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet", "pytorch"],
    "default_tab": "mxnet",
    "framework_labels": {"mxnet": "MXNet", "pytorch": "PyTorch"},
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語"}},
    "chapters": "chapters",
    "build_dir": "build",
}
"""
#: Every language of the bundled book, named in itself.
LANGUAGES = {"en": "English", "ja": "日本語", "zh": "中文", "pt": "Português", "tr": "Türkçe"}


def make_multilingual_book(root: Path, chapters: dict[str, str], name: str = "index") -> Path:
    """Like :func:`make_book`, with ``chapters``: language -> text of its chapter ``NAME``."""
    languages = ", ".join(f'"{code}": {{"name": "{LANGUAGES[code]}"}}' for code in chapters)
    default = '{"en": {"name": "English"}, "ja": {"name": "日本語"}}'
    for code, text in chapters.items():
        folder = root / "chapters" / code
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(CONF.replace(default, f"{{{languages}}}"), encoding="utf-8")
    return root / "conf.py"


def make_book(root: Path, en: str, ja: str, name: str = "intro") -> Path:
    """Write ``conf.py``, ``chapters/en/NAME.md`` and ``chapters/ja/NAME.md``; return conf.py."""
    for lang, text in (("en", en), ("ja", ja)):
        folder = root / "chapters" / lang
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    return root / "conf.py"


def cell(code: str, tab: str | None = None) -> str:
    marker = f"#@tab {tab}\n" if tab else ""
    return f"```{{.python .input}}\n{marker}{code}\n```\n"
