"""``polybook serve``: the built site on localhost, rebuilt and reloaded as chapters change.

The server is the standard library's (``http.server``), serving ``build/html`` as is, except
that every HTML response gets a small script that asks ``/__polybook__/version`` and reloads
the page when the number changes -- after each rebuild. The page long-polls
(``?after=N`` answers as soon as the version passes N, or after :data:`LONG_POLL` seconds), so
it reloads the moment a rebuild ends rather than at its next poll. Plain HTTP, not a socket: it
needs no extra server machinery, survives the server restarting, and tests read the same
endpoint.

Changes are heard from the operating system through watchfiles (inotify on Linux): a save is
noticed some 50 ms after its last write, where a scan every half second took up to a second to
notice and settle. What changed is still worked out by comparing modification times and sizes
-- of the files the events named (:func:`updated`), of every file at the start and after an
event a stat cannot settle (:func:`snapshot`, a few hundredths of a second for a whole book) --
so an event that changed nothing rebuilds nothing, and an edit made while the served site was
first built is not lost.
Where events do not arrive (some network and container mounts: ``--poll``) or watchfiles is not
installed, the folders are scanned every ``interval`` seconds instead. A prose edit is rebuilt
warm (:mod:`polybook.site.warm`: the edited document staged alone and re-read by the language's
live Sphinx, only its page written); any other change runs the incremental HTML build.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from stat import S_ISREG
from typing import Any
from urllib.parse import parse_qs, urlsplit

VERSION_PATH = "/__polybook__/version"
#: Seconds a long-polling request waits for a rebuild before it is answered anyway.
LONG_POLL = 20.0
RELOAD_SCRIPT = b"""<script>
(function () {
  var seen = null, busy = false, badge = null;
  function say(text) {  // never a stale page without saying so
    if (!badge && text) {
      badge = document.createElement("div");
      badge.id = "polybook-serve-state";
      badge.setAttribute("role", "status");
      badge.style.cssText = "position:fixed;right:1rem;bottom:1rem;z-index:10000;max-width:24rem;" +
        "padding:.4rem .8rem;border-radius:.4rem;background:#222;color:#fff;font:14px/1.4 sans-serif";
      document.body.appendChild(badge);
    }
    if (badge) { badge.textContent = text; badge.hidden = !text; }
  }
  function poll() {
    var url = "%s" + (seen === null ? "" : "?after=" + seen + "&building=" + (busy ? 1 : 0)), wait = 1000;
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (d) {
      if (seen === null) { seen = d.version; } else if (d.version !== seen) { window.location.reload(); return; }
      busy = d.building;
      say(busy ? "Rebuilding\\u2026" : d.problems ? "The last rebuild had " + d.problems +
        " error(s): this page may be out of date (the terminal says why)" : "");
      wait = 50;  // answered: ask again at once (the server holds the request until something changes)
    }).catch(function () {
      say("polybook serve is not answering: this page may be out of date");
    }).finally(function () { setTimeout(poll, wait); });
  }
  poll();
})();
</script>
""" % VERSION_PATH.encode()

Snapshot = dict[str, tuple[int, int]]


class SiteServer:
    """``root`` over HTTP, with the version counter the pages poll."""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
        self.root = root
        self.version = 0
        self.changed = threading.Condition()  # notified when the version is bumped
        self.building = False
        self.problems = 0  # errors of the last rebuild, shown by the version endpoint
        self.httpd = ThreadingHTTPServer((host, port), partial(_Handler, directory=str(root), site=self))
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> SiteServer:
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="polybook-serve", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def state(self) -> dict[str, Any]:
        return {"version": self.version, "building": self.building, "problems": self.problems}

    def rebuilding(self) -> None:
        """A rebuild started: every page waiting is answered, so it can say so."""
        with self.changed:
            self.building = True
            self.changed.notify_all()

    def bump(self) -> None:
        """A rebuild ended: the next version, and every page waiting for it is answered."""
        with self.changed:
            self.building = False
            self.version += 1
            self.changed.notify_all()

    def reload(self) -> None:
        """Open pages reload (the next version) -- a rebuild going on, if any, goes on."""
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def wait_past(self, version: int, building: bool | None = None, timeout: float = LONG_POLL) -> None:
        """Until the version is past ``version`` or, ``building`` given, a rebuild starts or ends
        (or ``timeout`` seconds passed)."""
        with self.changed:
            self.changed.wait_for(
                lambda: self.version > version or (building is not None and self.building != building), timeout
            )


class _Handler(SimpleHTTPRequestHandler):
    def __init__(self, *args: Any, site: SiteServer, **kwargs: Any) -> None:
        self.site = site
        self.tag: str | None = None  # the static file's ETag (:func:`_etag`); None: never stored
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        self.tag = None
        path = urlsplit(self.path).path
        if path == VERSION_PATH:
            query = parse_qs(urlsplit(self.path).query)
            after, building = query.get("after", [""])[0], query.get("building", [""])[0]
            if after.isdigit():
                self.site.wait_past(int(after), building == "1" if building in ("0", "1") else None)
            return self._send(json.dumps(self.site.state()).encode(), "application/json")
        file = Path(self.translate_path(self.path))
        if file.is_dir() and path.endswith("/"):
            file = file / "index.html"
        if file.suffix == ".html" and file.is_file() and _inside(file, self.site.root):
            return self._send(inject(file.read_bytes()), "text/html; charset=utf-8")
        if not file.exists() and (page := self._not_found_page(path)) is not None:
            # As a host does: the language's 404 page (it sends a missing translation to the source).
            return self._send(inject(page.read_bytes()), "text/html; charset=utf-8", HTTPStatus.NOT_FOUND)
        self.tag = _etag(file)
        if self.tag is not None and self.tag in self.headers.get("If-None-Match", ""):
            self.send_response(HTTPStatus.NOT_MODIFIED)  # the browser's copy, and its compiled scripts
            return self.end_headers()
        return super().do_GET()

    def _not_found_page(self, path: str) -> Path | None:
        """The 404.html of the nearest folder of ``path`` that has one (a language's), else the root's."""
        root = self.site.root
        parts = [part for part in path.split("/") if part]
        for depth in range(len(parts) - 1, -1, -1):
            page = root.joinpath(*parts[:depth], "404.html")
            if _inside(page, root) and page.is_file():
                return page
        return None

    def _send(self, body: bytes, content_type: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self) -> None:
        # A page (its reload script injected) and the version endpoint are never stored; any other
        # file is kept by the browser and asked about again on every load: the same bytes answer
        # 304, a file a rebuild rewrote (the search index, a figure) comes anew. Kept, the theme's
        # scripts are not compiled again on each reload.
        if self.tag is None:
            self.send_header("Cache-Control", "no-store")
        else:
            self.send_header("Cache-Control", "no-cache")
            self.send_header("ETag", self.tag)
        super().end_headers()

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        """Only failed requests: a page load is dozens of requests, and the poll one a second."""
        code = code.value if isinstance(code, HTTPStatus) else code
        if str(code).isdigit() and int(code) >= 400:
            super().log_request(code, size)

    def log_error(self, format: str, *args: Any) -> None:
        pass  # log_request above reports the failed request once


def _etag(file: Path) -> str | None:
    """The file's version as an ETag: its modification time in nanoseconds and its size (the
    Last-Modified header counts whole seconds: a file rewritten within the second would be kept);
    None for no file."""
    try:
        stat = file.stat()
    except OSError:
        return None
    return f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"' if S_ISREG(stat.st_mode) else None


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def inject(page: bytes) -> bytes:
    """The page with the reload script before ``</body>`` (at the end when there is none)."""
    at = page.rfind(b"</body>")
    return page + RELOAD_SCRIPT if at < 0 else page[:at] + RELOAD_SCRIPT + page[at:]


def snapshot(paths: Iterable[Path]) -> Snapshot:
    """(mtime, size) of every file under ``paths`` (files or folders), but an editor's own files
    below a folder (see :func:`editor_file`)."""
    found: Snapshot = {}
    for top in paths:
        if top.is_file():
            files: Iterable[Path] = [top]
        elif top.is_dir():
            files = (p for p in top.rglob("*") if not editor_file(p.relative_to(top)) and p.is_file())
        else:
            files = []
        for path in files:
            try:
                stat = path.stat()
            except OSError:  # removed while scanning: the next scan sees it gone
                continue
            found[str(path)] = (stat.st_mtime_ns, stat.st_size)
    return found


def editor_file(relative: Path) -> bool:
    """A file no build reads and editors write as one types: hidden (vim's ``.name.swp``, a
    save's temporary file; the book skips hidden files too), emacs's ``#name#`` and backups
    ``name~``. Their changes rebuild nothing."""
    return any(part.startswith((".", "#")) for part in relative.parts) or relative.name.endswith("~")


def changed_files(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def watch(
    paths: Callable[[], list[Path]],
    rebuild: Callable[[list[str]], int],
    site: SiteServer,
    stop: threading.Event,
    interval: float = 0.5,
    since: Snapshot | None = None,
    poll: bool = False,
) -> None:
    """Until ``stop``: when files under ``paths()`` change (and then stay still, so an editor's
    save is one rebuild), ``rebuild`` them and bump the version.

    ``since``: the files as they were before the site being served was built, so an edit made
    while it was built (or just after) is not mistaken for the starting point. ``poll``: scan
    every ``interval`` seconds instead of listening for file events."""
    last = snapshot(paths()) if since is None else since
    moments = _scans(paths, stop, interval) if poll or not _has_events() else _events(paths, stop)
    for heard in moments:
        # the files heard of stat'ed again (a scan of a d2l book's 2,600 files is 0.06 s of a save's reload)
        now = updated(last, heard, paths()) if heard is not None else None
        now = now if now is not None else snapshot(paths())
        if now == last:
            continue
        changed, last = changed_files(last, now), now
        site.rebuilding()
        try:
            site.problems = rebuild(changed)
        finally:
            site.bump()


def updated(before: Snapshot, heard: set[str], tops: list[Path]) -> Snapshot | None:
    """``before`` with the files ``heard`` of (changed, added, removed) stat'ed again, as a scan
    of ``tops`` would find them; None when one is not a plain file under them (a folder made,
    moved or removed, a path they do not hold): then only a scan tells."""
    now = dict(before)
    for name in heard:
        path = Path(name)
        top = next((top for top in tops if path.is_relative_to(top)), None)
        if top is None:
            return None
        if path != top and editor_file(path.relative_to(top)):
            continue
        try:
            stat = path.stat()
        except FileNotFoundError:
            if any(key.startswith(name + os.sep) for key in now):  # a folder removed
                return None
            now.pop(name, None)
            continue
        except OSError:
            return None
        if not S_ISREG(stat.st_mode):
            return None
        now[name] = (stat.st_mtime_ns, stat.st_size)
    return now


def _has_events() -> bool:
    try:
        import watchfiles  # noqa: F401
    except ImportError:  # an environment without it: scan
        return False
    return True


def _events(paths: Callable[[], list[Path]], stop: threading.Event) -> Iterator[set[str] | None]:
    """Once at first, as soon as the listener runs (the files may have changed since the starting
    point: None, scan them all); then each time a burst of file events has been still for 50 ms,
    the paths it named. The events are heard in a thread of their own, so an edit saved during a
    rebuild is heard and waits for its end."""
    import queue

    while not stop.is_set():
        watched = [path for path in paths() if path.exists()]
        if not watched:
            yield from _scans(paths, stop, 0.5)
            return
        heard: queue.Queue[set[str]] = queue.Queue()
        done = threading.Event()
        either = _Either(stop, done)
        threading.Thread(target=_listen, args=(watched, either, heard), name="polybook-watch", daemon=True).start()
        stop.wait(0.1)  # the listener is listening: an edit from now on is heard
        yield None
        while not stop.is_set() and [path for path in paths() if path.exists()] == watched:
            try:
                named = set(heard.get(timeout=0.5))
            except queue.Empty:
                continue
            while not heard.empty():  # bursts heard while the last rebuild ran: one rebuild
                named |= heard.get_nowait()
            yield named
        done.set()  # conf.py names other files now (a bibliography): listen to those


class _Either:
    """Set when one of its events is (what watchfiles asks of a stop event)."""

    def __init__(self, *events: threading.Event) -> None:
        self.events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self.events)


def _listen(watched: list[Path], stop: _Either, heard: Any) -> None:
    from watchfiles import watch as file_events

    for changes in file_events(*watched, stop_event=stop, debounce=1600, step=50, rust_timeout=1000):
        heard.put({path for _, path in changes})


def _scans(paths: Callable[[], list[Path]], stop: threading.Event, interval: float) -> Iterator[None]:
    """At once, then each time a scan every ``interval`` seconds saw a change and the next one
    saw it settled (None: the caller scans them all again)."""
    last = snapshot(paths())
    yield None
    while not stop.wait(interval):
        now = snapshot(paths())
        if now == last:
            continue
        while not stop.wait(interval):  # let a burst of writes settle
            settled = snapshot(paths())
            if settled == now:
                break
            now = settled
        last = now
        yield None


def wait_for_version(url: str, above: int, timeout: float) -> dict[str, Any]:
    """Poll the version endpoint until it exceeds ``above`` (tests and the benchmark)."""
    from urllib.request import urlopen

    deadline = time.monotonic() + timeout
    while True:
        with urlopen(url.rstrip("/") + VERSION_PATH, timeout=5) as response:
            state = json.loads(response.read())
        if state["version"] > above or time.monotonic() > deadline:
            return state
        time.sleep(0.1)
