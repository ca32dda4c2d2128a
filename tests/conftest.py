from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# CI draws the same examples every run (a property test's new counterexample is found here, by
# running it with random draws -- the default -- not by a landing that fails at random)
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def copy_conf(root: Path) -> Path:
    """The bundled book's conf.py in ``root``, making its framework environments where ``make site``
    does (``build/envs`` of this checkout): they are kept by what they are made from, so a copy of
    the book makes them once, and each one's kernel spec keeps pointing at one folder."""
    text = (ROOT / "conf.py").read_text(encoding="utf-8")
    shared = f'"execution": {{\n        "env_dir": {str(ROOT / "build" / "envs")!r},'
    (root / "conf.py").write_text(text.replace('"execution": {', shared, 1), encoding="utf-8")
    return root / "conf.py"


def save(path: Path, text: str) -> None:
    """``text`` saved to ``path`` whole, as an editor that writes a new file and renames it does: a
    watcher never sees it half written (a write in place can be, when a loaded machine pauses
    the writer between emptying the file and filling it; that is two rebuilds, not one)."""
    part = path.with_name(f".{path.name}.saving")
    part.write_text(text, encoding="utf-8")
    part.replace(path)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--regen", action="store_true", help="Rewrite expected fixture outputs from the current code.")


@pytest.fixture
def regen(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen"))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright, one for the whole session: Playwright's sync API
    runs an event loop while it is open, so a second one in another module could not start."""
    playwright = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (scripts/setup-html.sh)")
    with playwright.sync_playwright() as p:
        args = ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update"]
        browser = p.chromium.launch(executable_path=chromium, args=[*args, "--no-first-run"])
        yield browser
        browser.close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` served on 127.0.0.1 (a port of its own, no request logged): its URL, no trailing slash."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
