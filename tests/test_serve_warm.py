"""`polybook serve`'s warm path: which edits it takes (the served rebuild itself: tests/test_serve.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.dialect import parse_text
from polybook.site.serve import snapshot
from polybook.site.warm import WarmSite
from polybook.stage.shape import shape

from minibook import make_book

CHAPTER = """# Title
:label:`sec_title`

Some prose, as :cite:`Someone.2020` says.

## A section

```{.python .input}
x = 1
```

```toc
:maxdepth: 2

part
```
"""


def test_a_prose_edit_keeps_the_shape() -> None:
    edited = CHAPTER.replace("Some prose,", "Some prose, edited, with $x$ and a [link](https://example.org),")
    assert shape(parse_text(edited)) == shape(parse_text(CHAPTER))


def test_a_title_heading_toc_or_label_change_is_for_the_full_build() -> None:
    before = shape(parse_text(CHAPTER))
    for old, new in [
        ("# Title", "# Title, Renamed"),
        ("## A section", "## A section, renamed"),
        ("\npart\n", "\npart\nother\n"),
        ("sec_title", "sec_renamed"),
        ("Someone.2020", "Someone.2020,Other.2021"),  # the references page lists what the book cites
        ("## A section", "![A box](box.svg)\n\n## A section"),  # renumbers the figures after it
    ]:
        assert shape(parse_text(CHAPTER.replace(old, new))) != before, (old, new)


def test_a_code_edit_is_warm_only_without_evaluation() -> None:
    edited = parse_text(CHAPTER.replace("x = 1", "x = 2"))
    assert shape(edited) != shape(parse_text(CHAPTER))  # its outputs must be computed: the full build
    assert shape(edited, code=False) == shape(parse_text(CHAPTER), code=False)  # --no-eval: stored outputs


def test_a_warm_build_reports_the_set_up_warnings_as_a_build_in_a_new_process_does(tmp_path) -> None:
    from polybook.site.warm_sphinx import _After, _build
    from polybook.stage import sphinx_speed
    from polybook.stage.sphinx_run import PhasedWarnings, SphinxJob, SphinxRun

    log = PhasedWarnings()

    class App:  # what _build asks of a live Sphinx application
        doctreedir = str(tmp_path / "build" / ".sphinx" / "en" / "doctrees")
        statuscode = 0

        def build(self, force_all: bool, filenames: list[str]) -> None:
            log.phase = "read"
            log.write("page.md:3: WARNING: a warning of the page\n")

    class Builder:
        def finish(self) -> None:
            pass

    App.builder = Builder()
    job = SphinxJob("en", "src", "conf", "out", App.doctreedir, {})
    setup = [("setup", "WARNING: an option of the theme\n")]
    answers: list[SphinxRun] = []
    try:
        _build(App(), job, log, ["src/page.md"], setup, answers.append, _After())
    finally:
        sphinx_speed.uninstall()
    assert [run.phases for run in answers] == [[*setup, ("read", "page.md:3: WARNING: a warning of the page\n")]]


def test_a_warm_build_answers_once_its_pages_are_written_and_its_finishing_is_said_next(tmp_path) -> None:
    """The served page reloads while Sphinx writes the search index: the answer goes before
    ``finish``; what ``finish`` warns of comes with the next answer, and a failure of it answers
    the next build (whose caller then builds the usual way)."""
    from polybook.site.warm_sphinx import _After, _build
    from polybook.stage import sphinx_speed
    from polybook.stage.sphinx_run import PhasedWarnings, SphinxJob, SphinxRun

    log, events = PhasedWarnings(), []
    answers: list[SphinxRun] = []

    def answer(run: SphinxRun) -> None:
        events.append("answered")
        answers.append(run)

    class Builder:
        fail = False

        def finish(self) -> None:
            events.append("finish")
            log.write("WARNING: the search index of a page\n")
            if self.fail:
                raise OSError("disk full")

    class App:
        doctreedir = str(tmp_path / "doctrees")
        statuscode = 0
        builder = Builder()

        def build(self, force_all: bool, filenames: list[str]) -> None:
            log.phase = "write"
            log.write("page.md:1: WARNING: a warning of the page\n")
            log.written.append("page")
            self.builder.finish()

    job, after = SphinxJob("en", "src", "conf", "out", App.doctreedir, {}), _After()
    try:
        _build(App(), job, log, ["src/page.md"], [], answer, after)
        assert events == ["answered", "finish"] and answers[0].docs_written == ["page"]
        assert answers[0].succeeded and answers[0].phases == [("write", "page.md:1: WARNING: a warning of the page\n")]
        # in the same phase: the log adds it to the answer's last chunk; only it is said next
        assert after.failure == "" and after.take() == [("write", "WARNING: the search index of a page\n")]
        App.builder.fail = True
        _build(App(), job, log, ["src/page.md"], [], answer, after)
    finally:
        sphinx_speed.uninstall()
    assert answers[1].succeeded  # the page was written: it reloads
    assert "disk full" in after.failure  # and the next build is answered with the failure
    assert "finish" not in App.builder.__dict__  # the builder's own finish again


def test_a_chapter_saved_while_the_full_build_ran_goes_to_the_full_build(tmp_path: Path) -> None:
    """The kept book is parsed after the full build: a title saved while that build ran is on the
    kept book and not on the site, so its change must not look like a prose edit to the warm path."""
    conf = make_book(tmp_path, "# Book\n\nWords.\n", "# 本\n\n文。\n", name="index")
    config = load_config(conf)
    warm = WarmSite(config, [], evaluate=False)
    warm.built_from = snapshot([config.chapters_dir])  # serve: as the full build reads them
    en, ja = (tmp_path / "chapters" / lang / "index.md" for lang in ("en", "ja"))
    en.write_text("# Book, Retitled\n\nWords.\n", encoding="utf-8")  # saved while it runs
    warm._load()  # the warm-up, once it ended
    assert warm._changed_docs([str(en)]) is None  # the full build: the neighbours' navigation too
    ja.write_text("# 本\n\n文、書き直した。\n", encoding="utf-8")  # a prose edit saved after
    assert warm._changed_docs([str(ja)]) is not None


def test_the_status_tables_are_made_outside_the_lock_and_older_ones_never_overwrite_newer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save while the status pages' tables are being made (a second of a d2l book) is rebuilt
    at once: the tables are made outside the lock; tables made before a later rebuild's, and
    finished after them, are not written over them."""
    from polybook.site import warm as warm_module

    conf = make_book(tmp_path, "# Book\n\nWords.\n", "# 本\n\n文。\n", name="index")
    warm = WarmSite(load_config(conf), [], evaluate=False)
    warm._load()
    making, finish = threading.Event(), threading.Event()

    def pages(book: object, languages: list[str], result: object = None, linked: object = None) -> dict[str, str]:
        making.set()
        assert finish.wait(10)
        return {}

    monkeypatch.setattr(warm_module.status, "pages", pages)
    monkeypatch.setattr(warm_module, "Forked", InProcess)  # the events above are this process's
    refreshed: list[bool] = []
    thread = threading.Thread(target=lambda: refreshed.append(warm.refresh_status()))
    thread.start()
    assert making.wait(10)
    assert warm.lock.acquire(timeout=1)  # what a warm rebuild takes first
    warm.rebuilds += 1
    warm.tables_of = warm.rebuilds  # that rebuild's tables were written first
    warm.lock.release()
    finish.set()
    thread.join(10)
    assert refreshed == [False]


class InProcess:
    """:class:`polybook.forked.Forked`'s stand-in that works in this process."""

    def __init__(self, work: Callable[[], object], nice: int = 0) -> None:
        self.work = work

    def result(self) -> object:
        return self.work()


def test_the_status_tables_are_made_in_a_process_of_their_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """They hold an interpreter for most of a second of a d2l book: not the one serving the
    reloading page and rebuilding the next edit."""
    import os

    from polybook.site import warm as warm_module

    conf = make_book(tmp_path, "# Book\n\nWords.\n", "# 本\n\n文。\n", name="index")
    warm = WarmSite(load_config(conf), [], evaluate=False)
    warm._load()
    made_in = tmp_path / "made-in"

    def pages(book: object, languages: list[str], result: object = None, linked: object = None) -> dict[str, str]:
        made_in.write_text(str(os.getpid()), encoding="utf-8")
        return {}

    monkeypatch.setattr(warm_module.status, "pages", pages)
    assert warm.refresh_status() is False
    assert made_in.read_text(encoding="utf-8") != str(os.getpid())


@pytest.mark.slow  # real Sphinx
def test_the_live_sphinx_gets_the_settings_the_full_build_gave(tmp_path: Path) -> None:
    """Settings that differ from the full build's (the renderer, where the language switch goes)
    would have the live Sphinx read or write every page again on its first rebuild, and write
    pages whose language switch is not the site's."""
    import pickle

    from polybook.render import settings
    from polybook.site.build import HtmlOptions, build_html
    from polybook.stage import settings as stage_settings

    conf = make_book(
        tmp_path, "# Book\n:label:`sec_book`\n\nWords.\n", "# 本\n:label:`sec_book`\n\n文。\n", name="index"
    )
    config = load_config(conf)
    build_html(config, HtmlOptions(evaluate=False))
    warm = WarmSite(config, [], evaluate=False)
    warm._load()
    for lang in ("en", "ja"):
        stage = warm._stage(lang)
        mine = settings.overrides(config, lang, warm.site, stage_settings.bibfiles(config, lang), stage)
        environment = tmp_path / "build" / ".sphinx" / lang / "doctrees" / "environment.pickle"
        built = pickle.loads(environment.read_bytes()).config
        assert mine["polybook_site"] == built.polybook_site
        assert warm._worker_overrides(lang)[settings.RENDERER] == getattr(built, settings.RENDERER)


def test_a_warm_rebuild_forgets_the_kept_stage(tmp_path: Path) -> None:
    """The warm path rewrites a staged page: the kept stage (:mod:`polybook.render.kept_stage`)
    no longer says what is staged, and the next build stages the language whole (a chapter saved
    back as it was would otherwise keep the warm edit's page)."""
    from polybook.render.kept_stage import KEPT

    conf = make_book(tmp_path, "# Book\n\nWords.\n", "# 本\n\n文。\n", name="index")
    warm = WarmSite(load_config(conf), [], evaluate=False)
    kept = tmp_path / "build" / ".sphinx" / "ja" / KEPT
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"kept")
    warm._forget_stamps("ja")
    assert not kept.exists()


def test_the_sidebars_state_is_the_same_after_the_theme_wrote_pages() -> None:
    """pydata-sphinx-theme adds to its options as it writes pages (the logo's paths): serve's live
    Sphinx, building again after writing, must not take that for a changed sidebar -- it would
    write every edited page's parents again, and record no state for the next build."""
    from types import SimpleNamespace

    from docutils import nodes

    from polybook.render import navigation

    def title(text: str) -> nodes.title:
        return nodes.title(text, text)

    env = SimpleNamespace(
        found_docs={"index", "page"}, titles={"index": title("Book"), "page": title("Page")},
        tocs={"index": nodes.bullet_list(), "page": nodes.bullet_list()}, metadata={},
        toctree_includes={"index": ["page"]}, toc_secnumbers={}, glob_toctrees=set(), numbered_toctrees=set(),
    )  # fmt: skip
    config = SimpleNamespace(
        language="en", root_doc="index", html_file_suffix=".html", html_link_suffix=".html",
        html_theme_options={"logo": {"text": "Book"}},
    )  # fmt: skip
    app = SimpleNamespace(env=env, config=config)
    before = navigation._state(app)
    config.html_theme_options["logo"]["image_relative"] = {"light": "_static/logo.png"}  # as the theme does
    assert navigation._state(app) == before
    env.titles["page"] = title("Page, retitled")  # a document read again with another title
    assert navigation._state(app) != before
