"""`polybook serve`: real HTTP requests against the server, a real edit, a real rebuild."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import urlopen

import pytest

from polybook.site.serve import RELOAD_SCRIPT, VERSION_PATH, SiteServer, wait_for_version, watch
from polybook.site.warm import WARM_READY

from conftest import FIXTURES, save

BOOK = FIXTURES / "render" / "book"


def fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except HTTPError as exc:
        return exc.code, exc.headers["Content-Type"] or "", exc.read()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[SiteServer]:
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "page.html").write_text("<html><body><p>first</p></body></html>", encoding="utf-8")
    (tmp_path / "en" / "style.css").write_text("p {}", encoding="utf-8")
    server = SiteServer(tmp_path, port=0).start()
    yield server
    server.stop()


def test_pages_get_the_reload_script_other_files_are_served_as_they_are(site: SiteServer) -> None:
    status, kind, body = fetch(site.url + "en/page.html")
    assert status == 200 and kind.startswith("text/html")
    assert body == b"<html><body><p>first</p>" + RELOAD_SCRIPT + b"</body></html>"
    assert fetch(site.url + "en/style.css")[2] == b"p {}"
    assert fetch(site.url + "en/missing.html")[0] == 404
    assert fetch(site.url + "../../etc/passwd")[0] == 404
    assert json.loads(fetch(site.url + VERSION_PATH.lstrip("/"))[2]) == {"version": 0, "building": False, "problems": 0}


def test_the_browser_keeps_other_files_and_asks_again_pages_never(site: SiteServer, tmp_path: Path) -> None:
    """A page reloads after every rebuild: its scripts and styles come from the browser's copy
    (304, and the scripts' compiled code with them) while their bytes are the same; a rewritten
    file comes anew; a page (its reload script in it) is never kept."""
    from urllib.request import Request

    def get(path: str, tag: str | None = None) -> tuple[int, dict[str, str], bytes]:
        request = Request(site.url + path, headers={"If-None-Match": tag} if tag else {})
        try:
            with urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()

    status, headers, body = get("en/style.css")
    assert (status, body, headers["Cache-Control"]) == (200, b"p {}", "no-cache")
    assert get("en/style.css", headers["ETag"])[0] == 304
    (tmp_path / "en" / "style.css").write_text("p { color: red }", encoding="utf-8")  # a rebuild rewrote it
    assert get("en/style.css", headers["ETag"])[::2] == (200, b"p { color: red }")
    status, headers, _ = get("en/page.html")
    assert headers["Cache-Control"] == "no-store" and "ETag" not in headers
    assert get(VERSION_PATH.lstrip("/"))[1]["Cache-Control"] == "no-store"


def test_a_page_asking_after_a_version_is_answered_when_a_rebuild_ends(site: SiteServer) -> None:
    """The long poll: the page's question waits for the rebuild and is answered by it (the page
    then reloads at once, not at its next poll); a version already past is answered at once."""
    answers: list[dict] = []
    asking = threading.Thread(
        target=lambda: answers.append(json.loads(fetch(site.url + VERSION_PATH[1:] + "?after=0")[2]))
    )
    asking.start()
    asking.join(0.3)
    assert asking.is_alive() and not answers  # held: nothing was rebuilt yet
    site.bump()
    asking.join(10)
    assert answers == [{"version": 1, "building": False, "problems": 0}]
    assert json.loads(fetch(site.url + VERSION_PATH[1:] + "?after=0")[2])["version"] == 1  # already past


def test_a_page_is_told_when_a_rebuild_starts_so_it_never_shows_stale_without_saying_so(site: SiteServer) -> None:
    """A page that knows no rebuild is running asks with ``building=0``: it is answered as soon as
    one starts (it shows "Rebuilding…"), then, asking with ``building=1``, when it ends."""
    answers: list[dict] = []

    def ask(query: str) -> threading.Thread:
        asking = threading.Thread(
            target=lambda: answers.append(json.loads(fetch(site.url + VERSION_PATH[1:] + query)[2]))
        )
        asking.start()
        return asking

    asking = ask("?after=0&building=0")
    asking.join(0.3)
    assert asking.is_alive() and not answers
    site.rebuilding()
    asking.join(10)
    assert answers == [{"version": 0, "building": True, "problems": 0}]
    asking = ask("?after=0&building=1")
    asking.join(0.3)
    assert asking.is_alive() and len(answers) == 1  # held while the rebuild runs
    site.problems = 2
    site.bump()
    asking.join(10)
    assert answers[1] == {"version": 1, "building": False, "problems": 2}
    assert b"polybook-serve-state" in RELOAD_SCRIPT and b"may be out of date" in RELOAD_SCRIPT


def test_a_missing_page_gets_its_languages_404_page_as_a_host_serves_it(site: SiteServer, tmp_path: Path) -> None:
    (tmp_path / "404.html").write_text("<html><body>root 404</body></html>", encoding="utf-8")
    (tmp_path / "en" / "404.html").write_text("<html><body>en 404</body></html>", encoding="utf-8")
    status, kind, body = fetch(site.url + "en/missing.html")
    assert status == 404 and kind.startswith("text/html") and body.startswith(b"<html><body>en 404")
    assert RELOAD_SCRIPT in body
    assert fetch(site.url + "ja/missing.html")[2].startswith(b"<html><body>root 404")
    assert fetch(site.url + "en/deeper/missing.html")[2].startswith(b"<html><body>en 404")
    assert fetch(site.url + "../404.html")[2].startswith(b"<html><body>root 404")


@contextmanager
def watching(sources: Path, rebuild: Callable[[list[str]], int], site: SiteServer, poll: bool) -> Iterator[None]:
    """:func:`watch` over ``sources`` in a thread, listening by the time the block runs."""
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(lambda: [sources], rebuild, site, stop, 0.05, None, poll))
    watcher.start()
    try:
        time.sleep(0.2)
        yield
    finally:
        stop.set()
        watcher.join()


@pytest.mark.parametrize("poll", [False, True], ids=["file-events", "scans"])
def test_a_change_rebuilds_once_and_bumps_the_version(site: SiteServer, tmp_path: Path, poll: bool) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "a.md").write_text("a", encoding="utf-8")
    rebuilt: list[list[str]] = []

    def rebuild(changed: list[str]) -> int:
        rebuilt.append(changed)
        (tmp_path / "en" / "page.html").write_text("<html><body>second</body></html>", encoding="utf-8")
        return 0

    with watching(sources, rebuild, site, poll):
        (sources / "a.md").write_text("edited", encoding="utf-8")
        (sources / "b.md").write_text("new", encoding="utf-8")
        state = wait_for_version(site.url, 0, timeout=10)
    assert state["version"] == 1 and rebuilt == [[str(sources / "a.md"), str(sources / "b.md")]]
    assert b"second" in fetch(site.url + "en/page.html")[2]


@pytest.mark.parametrize("poll", [False, True], ids=["file-events", "scans"])
def test_an_editors_own_files_rebuild_nothing(site: SiteServer, tmp_path: Path, poll: bool) -> None:
    sources = tmp_path / "sources"
    (sources / "part").mkdir(parents=True)
    (sources / "a.md").write_text("a", encoding="utf-8")
    rebuilt: list[list[str]] = []

    def rebuild(changed: list[str]) -> int:
        rebuilt.append(changed)
        return 0

    with watching(sources, rebuild, site, poll):
        for name in (".a.md.swp", "part/#a.md#", "a.md~", ".git/index"):  # vim, emacs, a backup, a hidden folder
            (sources / name).parent.mkdir(exist_ok=True)
            (sources / name).write_text("typing", encoding="utf-8")
        time.sleep(0.5)
        (sources / "a.md").write_text("saved", encoding="utf-8")
        state = wait_for_version(site.url, 0, timeout=10)
    assert state["version"] == 1 and rebuilt == [[str(sources / "a.md")]]


@pytest.mark.slow
def test_serve_rebuilds_the_page_after_an_edit(tmp_path: Path) -> None:
    for name in ("conf.py", "refs.bib", "chapters"):
        source = BOOK / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    shutil.copytree(BOOK / "eval", tmp_path / "build" / "eval")
    polybook = Path(sys.executable).with_name("polybook")
    command = [str(polybook), "--conf", str(tmp_path / "conf.py"), "serve", "--port", "0", "--no-eval"]
    log = (tmp_path / "serve.log").open("w")  # a file, not a pipe: nobody reads it while serving
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        url = server.stdout.readline().strip()  # printed once the first build is served
        assert url.startswith("http://127.0.0.1:"), (tmp_path / "serve.log").read_text()
        status, _, page = fetch(url + "en/tiny.html")
        assert status == 200 and b"Tiny Chapter" in page and b"__polybook__/version" in page
        chapter = tmp_path / "chapters" / "en" / "tiny.md"
        edited = chapter.read_text(encoding="utf-8").replace("# Tiny Chapter", "# Tiny Chapter, Edited")
        started = time.monotonic()
        save(chapter, edited)
        state = wait_for_version(url, 0, timeout=120)
        seconds = time.monotonic() - started
        assert state == {"version": 1, "building": False, "problems": 0}
        assert b"Tiny Chapter, Edited" in fetch(url + "en/tiny.html")[2]
        assert b"Tiny Chapter, Edited" not in fetch(url + "ja/tiny.html")[2]
        print(f"serve: edit to reloadable page in {seconds:.1f}s")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.mark.parametrize("poll", [False, True], ids=["file-events", "scans"])
def test_an_edit_made_while_the_first_build_ran_is_not_lost(site: SiteServer, tmp_path: Path, poll: bool) -> None:
    from polybook.site.serve import snapshot

    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "a.md").write_text("a", encoding="utf-8")
    before = snapshot([sources])  # taken before the first build
    (sources / "a.md").write_text("edited during the build", encoding="utf-8")
    stop = threading.Event()
    args = (lambda: [sources], lambda changed: 0, site, stop, 0.05, before, poll)
    watcher = threading.Thread(target=watch, args=args)
    watcher.start()
    try:
        assert wait_for_version(site.url, 0, timeout=10)["version"] == 1
    finally:
        stop.set()
        watcher.join()


def test_an_edit_saved_during_a_rebuild_is_rebuilt_after_it(site: SiteServer, tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "a.md").write_text("a", encoding="utf-8")
    rebuilt: list[list[str]] = []

    def rebuild(changed: list[str]) -> int:
        rebuilt.append(changed)
        if len(rebuilt) == 1:  # saved while the first rebuild runs
            (sources / "b.md").write_text("during", encoding="utf-8")
            time.sleep(0.3)
        return 0

    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(lambda: [sources], rebuild, site, stop, 0.05))
    watcher.start()
    try:
        time.sleep(0.3)
        (sources / "a.md").write_text("edited", encoding="utf-8")
        state = wait_for_version(site.url, 1, timeout=10)
    finally:
        stop.set()
        watcher.join()
    assert state["version"] == 2 and rebuilt == [[str(sources / "a.md")], [str(sources / "b.md")]]


def _serve_copy(tmp_path: Path) -> tuple[subprocess.Popen[str], str, Path]:
    for name in ("conf.py", "refs.bib", "chapters"):
        source = BOOK / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    shutil.copytree(BOOK / "eval", tmp_path / "build" / "eval")
    polybook = Path(sys.executable).with_name("polybook")
    command = [str(polybook), "--conf", str(tmp_path / "conf.py"), "serve", "--port", "0", "--no-eval"]
    log = tmp_path / "serve.log"  # a file, not a pipe: nobody reads it while serving
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log.open("w"), text=True)
    url = server.stdout.readline().strip()  # printed once the first build is served
    assert url.startswith("http://127.0.0.1:"), log.read_text()
    return server, url, log


def _wait_for_line(log: Path, text: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, log.read_text(encoding="utf-8")
        time.sleep(0.1)


def _pages(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*.html")}


@pytest.mark.slow
def test_a_prose_edit_is_rebuilt_warm_and_only_its_page_is_rewritten(tmp_path: Path) -> None:
    server, url, log = _serve_copy(tmp_path)
    try:  # once the warm-up parsed the book (an edit saved before goes to the full build: test_serve_warm.py)
        _wait_for_line(log, WARM_READY)
        html = tmp_path / "build" / "html"
        before = _pages(html)
        chapter = tmp_path / "chapters" / "en" / "tiny.md"
        text = chapter.read_text(encoding="utf-8")
        save(chapter, text.replace("is math.", "is math. A warm sentence."))
        state = wait_for_version(url, 0, timeout=120)
        assert state == {"version": 1, "building": False, "problems": 0}, log.read_text()
        assert b"A warm sentence." in fetch(url + "en/tiny.html")[2]
        assert "warm)" in log.read_text(), log.read_text()  # the warm path, not the full build
        after = _pages(html)
        rewritten = sorted(page for page in after if after[page] != before.get(page))
        # Of the pages of chapters, only the edited one (Sphinx writes its index pages on every build).
        assert [page for page in rewritten if page not in ("en/genindex.html", "en/search.html")] == ["en/tiny.html"], (
            rewritten
        )
        assert not (html / "en" / ".polybook-build.json").exists()  # the next full build checks en again

        # A second edit too: the live Sphinx wrote pages since, and still rewrites only the edited one.
        before = after
        save(chapter, text.replace("is math.", "is math. A second warm sentence."))
        assert wait_for_version(url, 1, timeout=120)["version"] == 2, log.read_text()
        assert b"A second warm sentence." in fetch(url + "en/tiny.html")[2]
        after = _pages(html)
        rewritten = sorted(page for page in after if after[page] != before.get(page))
        assert [page for page in rewritten if page not in ("en/genindex.html", "en/search.html")] == ["en/tiny.html"], (
            rewritten
        )

        # A title change is not the warm path's: the full build rebuilds the neighbours' navigation too.
        save(chapter, text.replace("# Tiny Chapter", "# Tiny Chapter, Retitled"))
        state = wait_for_version(url, 2, timeout=120)
        assert state == {"version": 3, "building": False, "problems": 0}, log.read_text()
        assert b"Tiny Chapter, Retitled" in fetch(url + "en/tiny.html")[2]
        assert b"Tiny Chapter, Retitled" in fetch(url + "en/index.html")[2]  # its toc entry
        assert b"A warm sentence." not in fetch(url + "en/tiny.html")[2]
        assert (html / "en" / ".polybook-build.json").exists()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_files_heard_of_are_stated_again_and_what_a_stat_cannot_settle_is_scanned(tmp_path: Path) -> None:
    """An event names the files it saw change: they are stat'ed again, the snapshot is what a
    scan of the whole book would give; a folder made or removed, or a path outside the watched
    ones, asks for the scan."""
    from polybook.site.serve import snapshot, updated

    chapters, conf = tmp_path / "chapters", tmp_path / "conf.py"
    (chapters / "en").mkdir(parents=True)
    page, other = chapters / "en" / "page.md", chapters / "en" / "other.md"
    for path in (page, other, conf):
        path.write_text("one\n", encoding="utf-8")
    tops = [chapters, conf]
    before = snapshot(tops)
    page.write_text("one, edited\n", encoding="utf-8")
    other.unlink()
    swap = chapters / "en" / ".page.md.swp"  # an editor's own file: as a scan, not there
    swap.write_text("x", encoding="utf-8")
    added = chapters / "en" / "new.md"
    added.write_text("new\n", encoding="utf-8")
    conf.write_text("two\n", encoding="utf-8")
    heard = {str(p) for p in (page, other, swap, added, conf)}
    assert updated(before, heard, tops) == snapshot(tops)
    assert updated(before, {str(page)}, tops) != snapshot(tops)  # only what was heard: the caller's events
    (chapters / "ja").mkdir()
    assert updated(before, {str(chapters / "ja")}, tops) is None  # a folder: scan
    assert updated(before, {str(tmp_path / "elsewhere.md")}, tops) is None
    shutil.rmtree(chapters / "en")
    assert updated(snapshot(tops) | {str(page): (1, 1)}, {str(chapters / "en")}, tops) is None  # a folder removed
