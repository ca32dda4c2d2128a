"""A full disk costs only the work it stopped: every file polybook writes or copies is whole or
not there (the old one stays), a copy is checked, Sphinx's damaged state is built again, and
the command says what it kept and what to do -- never a traceback. The disk is "full" by
injection: a write helper, ``os.replace`` or a copy raises ``OSError(ENOSPC)`` at its n-th call.
"""

from __future__ import annotations

import errno
import hashlib
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from polybook import files
from polybook.cli import main

from minibook import cell, make_book


def full_at(n: int, real: Callable[..., Any], path_argument: int = 0) -> Callable[..., Any]:
    """``real``, but its ``n``-th call (1-based) fails as a full disk does."""
    calls = {"count": 0}

    def fake(*args: Any, **kwargs: Any) -> Any:
        calls["count"] += 1
        if calls["count"] == n:
            raise OSError(errno.ENOSPC, "No space left on device", str(args[path_argument]))
        return real(*args, **kwargs)

    return fake


def left(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_a_write_the_disk_stops_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "stamp.json"
    files.atomic_write(path, "old")
    monkeypatch.setattr(files.os, "replace", full_at(1, os.replace))
    with pytest.raises(OSError) as raised:
        files.atomic_write(path, "new")
    assert raised.value.errno == errno.ENOSPC
    assert path.read_text(encoding="utf-8") == "old" and left(tmp_path) == {"stamp.json"}


def test_a_copy_the_disk_stops_half_way_leaves_the_old_copy(tmp_path: Path, monkeypatch) -> None:
    source, target = tmp_path / "book.pdf", tmp_path / "site" / "book.pdf"
    source.write_bytes(b"%PDF new " * 1000)
    target.parent.mkdir()
    target.write_bytes(b"%PDF old")

    def half(src: Any, dst: Any) -> None:  # what a full disk leaves: part of the bytes, then the error
        Path(dst).write_bytes(Path(src).read_bytes()[:100])
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(files.shutil, "copy2", half)
    with pytest.raises(OSError):
        files.atomic_copy(source, target)
    assert target.read_bytes() == b"%PDF old" and left(target.parent) == {"book.pdf"}


def test_a_copy_that_is_not_what_its_stamp_says_is_refused(tmp_path: Path) -> None:
    source, target = tmp_path / "book.pdf", tmp_path / "site" / "book.pdf"
    source.write_bytes(b"%PDF cut sho")
    whole = b"%PDF cut short by a full disk"
    with pytest.raises(files.DamagedCopy, match="does not match it"):
        files.atomic_copy(source, target, (len(whole), hashlib.sha256(whole).hexdigest()))
    assert not target.parent.exists() or left(target.parent) == set()
    files.atomic_copy(source, target, (source.stat().st_size, files.file_sha256(source)))
    assert target.read_bytes() == source.read_bytes()


def test_every_error_a_full_disk_causes_is_found_through_wrappers() -> None:
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device", "build/html/en/index.html")
        except OSError as exc:
            raise RuntimeError("Sphinx's own wrapper") from exc
    except RuntimeError as wrapped:
        found = files.disk_full(wrapped)
    assert found is not None and found.filename == "build/html/en/index.html"
    assert files.disk_full(OSError(errno.EACCES, "Permission denied")) is None


def _pdf_book(root: Path) -> tuple[Path, Any, Path]:
    """A book with one built PDF (and its stamp, with the PDF's size and hash) and a site."""
    from polybook.config import load_config
    from polybook.pdf.build import PdfStamp, pdf_targets

    conf = make_book(root, "# Intro\n", "# 序\n")
    config = load_config(conf)
    target = next(t for t in pdf_targets(config) if t.language == "en")
    target.pdf.parent.mkdir(parents=True, exist_ok=True)
    target.pdf.write_bytes(b"%PDF-1.4 " + b"x" * 5000)
    PdfStamp("digest", 1, 0.0, [], target.pdf.stat().st_size, files.file_sha256(target.pdf)).write(target.stamp)
    return conf, config, target.pdf


def test_a_half_copied_pdf_in_the_site_is_copied_again_though_it_is_newer(tmp_path: Path) -> None:
    from polybook.render.site_info import PdfLink, SiteInfo, SiteLanguage
    from polybook.site.assemble import copy_pdfs

    _, config, pdf = _pdf_book(tmp_path)
    site = SiteInfo(
        "en", (SiteLanguage("en", "English", "en", "Book", ("intro",)),), {"en": ["intro"]}, {}, {},
        pdfs={"en": (PdfLink("PDF", f"en/pdf/{pdf.name}"),)},
    )  # fmt: skip
    copied = tmp_path / "build" / "html" / "en" / "pdf" / pdf.name
    copied.parent.mkdir(parents=True)
    copied.write_bytes(pdf.read_bytes()[:1000])  # what an older polybook left when the disk filled up
    assert copy_pdfs(config, site, tmp_path / "build" / "html") == []
    assert copied.read_bytes() == pdf.read_bytes()
    pdf.write_bytes(pdf.read_bytes()[:2000])  # the PDF itself no longer what its stamp says
    os.utime(pdf, ns=(0, copied.stat().st_mtime_ns + 10**9))
    problems = copy_pdfs(config, site, tmp_path / "build" / "html")
    assert [p.code.value for p in problems] == ["html.pdf"] and "does not match it" in problems[0].message
    assert copied.stat().st_size == 5009  # the good copy stays


def test_damaged_sphinx_state_is_found_before_the_build_and_built_again(tmp_path: Path) -> None:
    from polybook.stage import sphinx_state

    out, doctrees, locales, work = (tmp_path / name for name in ("html", "doctrees", "locale", "work"))
    for folder in (out, doctrees, locales / "tr" / "LC_MESSAGES", work):
        folder.mkdir(parents=True)
    catalog = locales / "tr" / "LC_MESSAGES" / "sphinx.mo"
    (catalog.with_suffix(".po")).write_text('msgid "Search"\nmsgstr "Ara"\n', encoding="utf-8")
    catalog.write_bytes(b"")  # compiled on a full disk: newer than its .po, so never compiled again
    (out / ".buildinfo").write_text("", encoding="utf-8")  # Sphinx: IndexError on every later build
    (doctrees / "environment.pickle").write_bytes(pickle.dumps({"env": 1})[:-3])  # cut short
    done = sphinx_state.repair(out, doctrees, [locales], work)
    assert not catalog.exists()  # Sphinx compiles a missing catalogue
    assert sphinx_state.buildinfo_readable(out / ".buildinfo")  # read, and matching no config: all pages again
    assert (out / ".buildinfo").read_text(encoding="utf-8") == sphinx_state.STALE_BUILDINFO
    assert done.fresh and not (doctrees / "environment.pickle").exists() and len(done.notes) == 3


def test_a_sphinx_run_that_did_not_finish_has_everything_built_again(tmp_path: Path) -> None:
    from polybook.stage import interrupted, sphinx_state

    out, doctrees, work = tmp_path / "html", tmp_path / "doctrees", tmp_path / "work"
    for folder in (out, doctrees, work):
        folder.mkdir()
    good = "# Sphinx build info version 1\n# comment\nconfig: abc\ntags: def\n"
    (out / ".buildinfo").write_text(good, encoding="utf-8")
    (doctrees / "environment.pickle").write_bytes(pickle.dumps({"env": 1}, protocol=pickle.HIGHEST_PROTOCOL))
    assert sphinx_state.repair(out, doctrees, [], work).notes == []  # whole and finished: left alone
    interrupted.begin(work)  # ... and then the disk filled up: never finished
    done = sphinx_state.repair(out, doctrees, [], work)
    assert done.fresh and (out / ".buildinfo").read_text(encoding="utf-8") == sphinx_state.STALE_BUILDINFO
    interrupted.end(work)
    assert not interrupted.running(work)


def test_a_sphinx_worker_on_a_full_disk_stops_the_command_not_just_its_language(monkeypatch) -> None:
    import sphinx.application

    from polybook.stage.sphinx_run import sphinx_build

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "build/html/en/intro.html")

    monkeypatch.setattr(sphinx.application, "Sphinx", full)
    with pytest.raises(OSError) as raised:
        sphinx_build("src", "conf", "out", "doctrees", "html", {})
    assert raised.value.errno == errno.ENOSPC


def test_a_program_stopped_by_a_full_disk_is_never_kept_as_its_result() -> None:
    from polybook.execute.evaluate import _disk_was_full
    from polybook.execute.results import Failure, ProgramResult, RunStatus

    result = ProgramResult.not_run("k", "label", [60], RunStatus.ERROR, "OSError", "[Errno 28] No space left", 0)
    assert _disk_was_full(result)
    assert result.failure is not None
    result.failure = Failure(0, RunStatus.ERROR, "ZeroDivisionError", "division by zero")
    assert not _disk_was_full(result)


def _book(root: Path) -> Path:
    conf = make_book(root, "# Intro\n\nText.\n\n" + cell("print(1)"), "# 序\n\n文。\n\n" + cell("print(1)"))
    for lang, title in (("en", "Two"), ("ja", "二")):
        (root / "chapters" / lang / "two.md").write_text(f"# {title}\n", encoding="utf-8")
    return conf


@pytest.mark.parametrize("n", [1, 3])
def test_a_command_on_a_full_disk_says_what_it_kept_and_the_next_run_equals_a_cold_one(
    tmp_path: Path, monkeypatch, n: int
) -> None:
    conf = _book(tmp_path / "book")
    monkeypatch.setattr(files, "atomic_write_bytes", full_at(n, files.atomic_write_bytes))
    result = CliRunner().invoke(main, ["--conf", str(conf), "build"])
    assert result.exit_code == 1, result.output
    assert "no space left on device writing" in result.output and "model" in result.output
    assert "Kept:" in result.output and "To do: free some space" in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    monkeypatch.undo()  # space freed
    assert CliRunner().invoke(main, ["--conf", str(conf), "build"]).exit_code == 0
    cold = _book(tmp_path / "cold")
    assert CliRunner().invoke(main, ["--conf", str(cold), "build"]).exit_code == 0
    assert models(tmp_path / "book") == models(tmp_path / "cold")
    assert not [p for p in (tmp_path / "book").rglob(".*.tmp")]  # no temporary left behind


def models(root: Path) -> dict[str, str]:
    """The document models ``polybook build`` wrote, the book's folder left out of their paths."""
    folder = root / "build" / "model"
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8").replace(str(root), "BOOK")
        for p in folder.rglob("*")
        if p.is_file()
    }


def _fake_site(root: Path) -> Path:
    from test_publish import fake_build

    return fake_build(root)


def test_publish_into_a_folder_it_cannot_write_names_the_folder(tmp_path: Path, monkeypatch) -> None:
    import tempfile

    conf = _fake_site(tmp_path / "book")

    def refused(*args: Any, dir: Any = None, **kwargs: Any) -> str:
        raise PermissionError(errno.EACCES, "Permission denied", str(dir))

    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    result = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--to", str(tmp_path / "www" / "site")])
    assert result.exit_code == 1, result.output
    assert "cannot write in" in result.output and "www" in result.output and "Permission denied" in result.output
    assert "Traceback" not in result.output


def test_publish_says_an_old_site_it_could_not_remove(tmp_path: Path, monkeypatch) -> None:
    conf = _fake_site(tmp_path / "book")
    site = tmp_path / "site"
    assert CliRunner().invoke(main, ["--conf", str(conf), "publish", "--to", str(site)]).exit_code == 0
    real = shutil.rmtree

    def stuck(path: Any, *args: Any, **kwargs: Any) -> None:
        if ".old-" in str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        real(path, *args, **kwargs)

    monkeypatch.setattr(files.shutil, "rmtree", stuck)
    result = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--to", str(site)])
    assert result.exit_code == 1, result.output
    assert "could not be removed" in result.output and ".site.old-" in result.output
    assert (site / "index.html").is_file()  # the new site is in place


def test_publish_on_a_full_disk_keeps_the_published_site(tmp_path: Path, monkeypatch) -> None:
    conf = _fake_site(tmp_path / "book")
    site = tmp_path / "site"
    assert CliRunner().invoke(main, ["--conf", str(conf), "publish", "--to", str(site)]).exit_code == 0
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    monkeypatch.setattr(os, "replace", full_at(1, os.replace, path_argument=1))  # robots.txt, in the new site
    result = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--to", str(site)])
    assert result.exit_code == 1 and "no space left on device" in result.output, result.output
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
    assert set(os.listdir(tmp_path)) == {"book", "site"}


def test_catalogues_are_looked_for_where_sphinx_compiles_them(tmp_path: Path) -> None:
    from polybook.stage.sphinx_state import locale_dirs

    assert locale_dirs(tmp_path, {}, {}) == [tmp_path / "locales"]  # Sphinx's default, in the book
    assert locale_dirs(tmp_path, {}, {"locale_dirs": ["po"]}) == [tmp_path / "po"]
    staged = str(tmp_path / "build" / "_locale")
    assert locale_dirs(tmp_path, {"locale_dirs": ["locales", staged]}, {}) == [tmp_path / "locales", Path(staged)]


def _site_pages(root: Path) -> dict[str, bytes]:
    """The site's files as publish would take them (build bookkeeping left out)."""
    from polybook.site.publish import PRIVATE

    html = root / "build" / "html"
    return {
        p.relative_to(html).as_posix(): p.read_bytes()
        for p in sorted(html.rglob("*"))
        if p.is_file() and not PRIVATE & set(p.relative_to(html).parts)
    }


@pytest.mark.slow
def test_after_a_full_disk_the_next_site_build_equals_a_cold_one(tmp_path: Path, monkeypatch) -> None:
    """The disk fills up while a build stages its pages (injected), and Sphinx is left as a full
    disk leaves it (an empty catalogue and .buildinfo, a cut environment and page, a run that did
    not finish); once space is freed, the next build makes the site a cold build makes."""
    from polybook.stage import interrupted

    from minibook import make_multilingual_book

    chapters = {"en": "# Intro\n\nText.\n\n## Part\n\nMore.\n", "tr": "# Giriş\n\nMetin.\n\n## Bölüm\n\nDaha.\n"}
    edited = {lang: text + "\nAn edit.\n" for lang, text in chapters.items()}
    build = ["build", "html", "--no-eval", "-j", "1"]
    cold = make_multilingual_book(tmp_path / "cold", edited)
    assert CliRunner().invoke(main, ["--conf", str(cold), *build]).exit_code == 0
    conf = make_multilingual_book(tmp_path / "warm", chapters)
    assert CliRunner().invoke(main, ["--conf", str(conf), *build]).exit_code == 0
    make_multilingual_book(tmp_path / "warm", edited)
    monkeypatch.setattr(files, "write_through", full_at(3, files.write_through))
    stopped = CliRunner().invoke(main, ["--conf", str(conf), *build])
    assert stopped.exit_code == 1 and "no space left on device writing" in stopped.output, stopped.output
    assert "Traceback" not in stopped.output
    monkeypatch.undo()
    work, out = tmp_path / "warm" / "build" / ".sphinx" / "tr", tmp_path / "warm" / "build" / "html" / "tr"
    (work / "src" / "_locale" / "tr" / "LC_MESSAGES" / "sphinx.mo").write_bytes(b"")
    (out / ".buildinfo").write_bytes(b"")
    environment = work / "doctrees" / "environment.pickle"
    environment.write_bytes(environment.read_bytes()[:100])
    (out / "index.html").write_bytes((out / "index.html").read_bytes()[:300])
    (out / ".polybook-build.json").unlink(missing_ok=True)
    (work / interrupted.MARK).write_text("", encoding="utf-8")  # the run the disk stopped
    again = CliRunner().invoke(main, ["--conf", str(conf), *build])
    assert again.exit_code == 0, again.output
    assert _site_pages(tmp_path / "warm") == _site_pages(tmp_path / "cold")
    assert "Ara" in (out / "index.html").read_text(encoding="utf-8")  # the theme speaks Turkish again


def test_publish_into_a_folder_it_may_not_look_into_names_it(tmp_path: Path, monkeypatch) -> None:
    from polybook.site import publish as publishing

    conf = _fake_site(tmp_path / "book")

    def refused(config: Any, dest: Path) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(dest))

    monkeypatch.setattr(publishing, "target_problem", refused)
    result = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--to", str(tmp_path / "locked" / "site")])
    assert result.exit_code == 1 and "cannot look at" in result.output and "locked/site" in result.output
    assert "Permission denied" in result.output and "Traceback" not in result.output
