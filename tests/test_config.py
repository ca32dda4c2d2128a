"""conf.py is read statically into one validated config; all mistakes reported at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.config import ConfigError, find_config, load_config

from conftest import ROOT


def test_the_books_config() -> None:
    config = load_config(ROOT / "conf.py")
    assert config.source_language == "en"
    assert list(config.languages) == ["en", "ja", "pt", "zh", "tr"]
    assert config.translations == ["ja", "pt", "zh", "tr"]
    assert config.languages["en"].frameworks == ("pytorch", "mxnet")
    assert config.languages["en"].default_tab == "pytorch"
    assert config.languages["pt"].frameworks == ("mxnet", "pytorch")
    assert config.languages["pt"].default_tab == "mxnet"
    assert config.languages["zh"].title == "动手学深度学习"
    assert config.sphinx["project"] == "Dive into Deep Learning"
    assert config.language_of(ROOT / "chapters" / "ja" / "async-computation.md") == "ja"
    assert config.settings_for(ROOT / "chapters" / "en" / "x.md").default_tab == "pytorch"


def test_find_config_walks_up() -> None:
    assert find_config(ROOT / "chapters" / "ja") == (ROOT / "conf.py").resolve()


def _write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "chapters").mkdir()
    conf = tmp_path / "conf.py"
    conf.write_text(body, encoding="utf-8")
    return conf


BAD = """\
import os
project = os.environ.get("X", "book")
polybook = {
    "source_language": "de",
    "frameworks": ["mxnet", "pytorch"],
    "default_tab": "jax",
    "langauges": {},
    "languages": {
        "en": {"name": "English", "default_tab": "tensorflow"},
        "ja": {"frameworks": ["pytorch", "jax"]},
        "EN-x": {"name": "bad code"},
    },
}
"""


def test_every_error_is_reported_at_once_with_key_and_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, BAD))
    found = {(d.line, d.message.split(":")[0]) for d in info.value.diagnostics}
    assert found == {
        (7, "polybook.langauges"),
        (6, "polybook.default_tab"),
        (9, "polybook.languages.en.default_tab"),
        (10, "polybook.languages.ja.name"),
        (10, "polybook.languages.ja.frameworks"),
        (11, "polybook.languages.EN-x"),
        (4, "polybook.source_language"),
    }
    text = str(info.value)
    assert "did you mean 'languages'?" in text
    assert f"{tmp_path / 'conf.py'}:7: error: polybook.langauges" in text


def test_config_code_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    conf = _write(
        tmp_path,
        f"open({str(marker)!r}, 'w').write('x')\n"
        "polybook = {'source_language': 'en', 'frameworks': ['mxnet'], 'languages': {'en': {'name': 'English'}}}\n",
    )
    config = load_config(conf)
    assert not marker.exists()
    assert config.languages["en"].default_tab == "mxnet"


def test_polybook_settings_must_be_literal(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"conf.py:1: error: polybook: must be a literal dict"):
        load_config(_write(tmp_path, "polybook = dict(source_language='en')\n"))


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"conf.py:2: error: syntax error"):
        load_config(_write(tmp_path, "x = 1\npolybook = {\n"))


def test_framework_labels_are_the_books_own(tmp_path: Path) -> None:
    """Readers see a framework as conf.py labels it, else as written (d2lbook shows ``jax``)."""
    base = 'polybook = {"source_language": "en", "frameworks": ["jax", "pytorch"], "languages": {"en": {"name": "E"}}'
    config = load_config(_write(tmp_path, base + ', "framework_labels": {"pytorch": "PyTorch"}}\n'))
    assert (config.label_of("pytorch"), config.label_of("jax")) == ("PyTorch", "jax")
    conf = tmp_path / "conf.py"
    conf.write_text(base + ',\n "framework_labels": {"pytroch": "PyTorch"}}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(conf)
    assert (
        "conf.py:2: error: polybook.framework_labels.pytroch: not in polybook.frameworks; did you mean 'pytorch'?"
        in str(caught.value)
    )


HINTED = """\
polybook = {"source_language": "en", "frameworks": ["mxnet", "pytorch"],
    "languages": {"en": {"name": "English",
        "titel": "Counting", "colour": "blue"}},
    "execution": {"chapters": {"intro": {"allow_errors": True,
        "timout": 60, "retries": 2}}},
}
"""


def test_an_unknown_key_anywhere_names_the_close_one(tmp_path: Path) -> None:
    """One way to report an unknown key, with the key meant when one is close, else the known ones."""
    conf = _write(tmp_path, HINTED)
    with pytest.raises(ConfigError) as caught:
        load_config(conf)
    assert str(caught.value).splitlines() == [
        f"{conf}:3: error: polybook.languages.en.titel: unknown setting; did you mean 'title'? [polybook.config]",
        f"{conf}:3: error: polybook.languages.en.colour: unknown setting; "
        "known: ['base', 'default_tab', 'frameworks', 'name', 'origin', 'title'] [polybook.config]",
        f"{conf}:5: error: polybook.execution.chapters.intro.timout: unknown setting; did you mean 'timeout'? "
        "[polybook.config]",
        f"{conf}:5: error: polybook.execution.chapters.intro.retries: unknown setting; "
        "known: ['allow_errors', 'timeout'] [polybook.config]",
    ]


LIBRARY = """\
polybook = {"source_language": "en", "frameworks": ["mxnet", "pytorch"], "languages": {"en": {"name": "English"}},
    "library": {"frameworks": {"pytroch": {"lib_file": "d2l/torch.py"}, "jx": {"lib_file": "d2l/jax.py"}}},
}
"""


def test_the_librarys_problems_are_the_configs_and_hinted_too(tmp_path: Path) -> None:
    """``polybook.library`` is read with the rest of conf.py; its problems stop only the commands
    that need the library (polybook build lib, build eval)."""
    conf = _write(tmp_path, LIBRARY)
    config = load_config(conf)
    assert [d.format() for d in config.library_problems] == [
        f"{conf}:2: error: polybook.library.frameworks.pytroch: not in polybook.frameworks; did you mean 'pytorch'? "
        "[polybook.config]",
        f"{conf}:2: error: polybook.library.frameworks.jx: not in polybook.frameworks (mxnet, pytorch) "
        "[polybook.config]",
    ]
    assert not config.library.enabled


_TREE = [
    "index.md", "a_en.md", "a_origin.md", "README.md", "contrib/x.md", "contrib/notes.txt.md", "contrib/deep/y.md",
    "chapter_a/s.md", "chapter_a/s_origin.md", "chapter_a/deep/t_en.md", "chapter_a/deep/u_origin.md",
    "chapter_b/.hidden.md", "chapter_b/v_en.md", "chapter_b/deeper/still/w_en.md", "q?.md", "star*.md",
]  # fmt: skip


@pytest.mark.parametrize(
    "pattern",
    ["README.md", "contrib/*md", "*/*_origin.md", "**/*_en.md", "**", "chapter_a/**", "*", "*/*", "**/deep/*",
     "chapter_?/s*.md", "./index.md", "chapter_a//s.md", "q?.md", "**/**/t_en.md", "star*.md", "contrib"],
)  # fmt: skip
def test_exclusions_read_as_a_regex_match_what_pathlib_globs(tmp_path: Path, pattern: str) -> None:
    """The listing of a language's documents tells excluded files by one regex of the patterns
    (one walk of the folder instead of one glob per pattern): the same files as Path.glob."""
    from polybook.config.globs import exclusion_regex

    for rel in _TREE:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x", encoding="utf-8")
    globbed = {p.relative_to(tmp_path).as_posix() for p in tmp_path.glob(pattern) if p.is_file()}
    regex = exclusion_regex((pattern,))
    assert regex is not None
    assert {rel for rel in _TREE if regex.fullmatch(rel)} == globbed


def test_exclusions_beyond_the_regex_are_globbed(tmp_path: Path) -> None:
    from polybook.config.globs import exclusion_regex

    for pattern in ("chapter_[ab]/s.md", "/abs/x.md", "a**b/x.md", "../x.md"):
        assert exclusion_regex((pattern,)) is None  # pathlib is asked, as before


def test_trusted_html_names_source_documents_only(tmp_path: Path) -> None:
    """The raw HTML conf.py trusts is the source language's, by document name; a translation's never is."""
    base = 'polybook = {"source_language": "en", "frameworks": ["mxnet"], "languages": {"en": {"name": "E"}, '
    base += '"ja": {"name": "J"}}'
    assert not load_config(_write(tmp_path, base + "}\n")).trusts_html("en", "index")  # default: nothing
    conf = tmp_path / "conf.py"
    conf.write_text(base + ', "trusted_html": ["index", "front/*"]}\n', encoding="utf-8")
    config = load_config(conf)
    assert config.trusts_html("en", "index") and config.trusts_html("en", "front/page")
    assert not config.trusts_html("ja", "index") and not config.trusts_html("en", "chapter/index")
    conf.write_text(base + ',\n "trusted_html": ["index.md"]}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(conf)
    assert "conf.py:2: error: polybook.trusted_html: 'index.md': name a document as the toc does" in str(caught.value)
