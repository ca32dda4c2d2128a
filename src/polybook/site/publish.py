"""``polybook publish``: the deployable site from a complete build, into a folder.

1. :func:`problems` decides whether ``build/`` holds a complete, successful build: every
   language's HTML (with the stamp Sphinx's run leaves only on success), no failed Sphinx
   run and no error in ``build/html-report.json``, no failed cell that is not allowed in
   ``build/eval-report.json``, every PDF of :func:`polybook.pdf.build.pdf_targets`.
2. :func:`assemble_site` copies ``build/html`` -- only it: sources, caches and build
   bookkeeping stay behind -- into a fresh folder, adds ``robots.txt`` and ``.nojekyll``,
   and with a base URL makes the sitemap's and the pages' hreflang links absolute.
3. :func:`replace_folder` swaps that folder in for the published one in one rename, or
   :mod:`polybook.site.branch` commits it to a git branch.
"""

from __future__ import annotations

import posixpath
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from polybook.config import BookConfig
from polybook.diagnostics import fails_build
from polybook.execute.report import fatal_programs
from polybook.files import atomic_write, disk_full, display_path, file_sha256, replace_folder
from polybook.render.build import STAMP
from polybook.site.html import read_report

#: Build bookkeeping that is never published (Sphinx's and polybook's stamps, copied sources).
PRIVATE = {".buildinfo", ".buildinfo.bak", ".polybook-build.json", ".polybook-complete", "_sources"}
#: What every published site has at its root besides the languages; a folder holding these
#: is one ``publish --to`` may replace.
MARKERS = (".nojekyll", "index.html", "sitemap.xml")
_LINK_RE = re.compile(r'(<link\b[^>]*?\brel="(?:alternate|canonical)"[^>]*?\bhref=")([^"]*)(")')
_SITEMAP_RE = re.compile(r'(<loc>)([^<]*)(</loc>)|(<xhtml:link\b[^>]*?\bhref=")([^"]*)(")')


class PublishRefused(Exception):
    """The build is not complete, or the target is not one to replace; nothing was changed."""

    def __init__(self, what: str, reasons: list[str]) -> None:
        super().__init__(what + "\n" + "\n".join(f"  - {r}" for r in reasons))
        self.reasons = reasons


@dataclass(slots=True)
class SiteStats:
    files: int = 0
    bytes: int = 0


def problems(config: BookConfig, strict: bool = False, require_pdfs: bool = True) -> list[str]:
    """Why ``build/`` cannot be published, one sentence each; empty when it can."""
    html_dir = config.build_dir / "html"
    rerun = "run `polybook build html`"
    report = read_report(config)
    if not (html_dir / "index.html").is_file() or report is None:
        return [f"no complete HTML build in {display_path(html_dir)}: {rerun}"]
    found: list[str] = []
    fatal: list[dict[str, Any]] = [d for d in report.diagnostics if fails_build(d, strict or report.strict)]
    for lang, settings in config.languages.items():
        out = html_dir / lang
        entry = report.languages.get(lang)
        if not (out / "index.html").is_file() or entry is None:
            found.append(f"language {lang} ({settings.name}) is missing from {display_path(html_dir)}: {rerun}")
            continue
        if not (out / STAMP).is_file() or entry.sphinx.fatal or entry.failed:
            how = " with --strict" if entry.strict else ""
            found.append(f"the last HTML build{how} of {lang} ({settings.name}) failed or did not finish: {rerun}")
        # A build run with --strict failed on warnings too: list them, as publish --strict does.
        fatal += [d for d in entry.diagnostics if fails_build(d, strict or entry.strict)]
    for diag in fatal:
        found.append(f"{diag['path']}:{diag['line']}: {diag['level']}: {diag['message']} [{diag['code']}]")
    found += [str(program) for program in fatal_programs(config.build_dir)]  # as polybook build eval decided
    if require_pdfs:
        from polybook.pdf.build import pdf_targets, read_stamp

        for target in pdf_targets(config):
            linked = html_dir / target.language / "pdf" / target.pdf.name
            if not target.pdf.is_file():
                found.append(f"{display_path(target.pdf)} is missing: run `polybook build pdf` (or --without-pdf)")
            elif (stamp := read_stamp(target)) is None:
                # The stamp is written only when LaTeX made the PDF (polybook.pdf.build._finish).
                found.append(
                    f"the last build of {display_path(target.pdf)} failed or did not finish (the file is an "
                    f"older build; log {display_path(target.log)}): fix it and run `polybook build pdf`"
                )
            elif stamp.errors:
                first = stamp.errors[0]
                found.append(
                    f"{display_path(target.pdf)} was built with {len(stamp.errors)} error(s), the first "
                    f"{first.path}:{first.line}: {first.message}: fix them and run `polybook build pdf`"
                )
            elif not linked.is_file() or not _same_bytes(linked, target.pdf):
                found.append(f"{display_path(target.pdf)} was built after the HTML: {rerun} (it links the PDFs)")
    return list(dict.fromkeys(found))


def _same_bytes(a: Path, b: Path) -> bool:
    return a.stat().st_size == b.stat().st_size and file_sha256(a) == file_sha256(b)


def assemble_site(config: BookConfig, target: Path, base_url: str | None = None) -> SiteStats:
    """Copy ``build/html`` into the empty folder ``target`` and finish it for hosting."""
    source = (config.build_dir / "html").resolve()
    stats = SiteStats()

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = {name for name in names if name in PRIVATE or name.endswith(".tmp")}
        for name in names:
            path = Path(folder) / name
            # A link out of build/html would publish whatever it points at: refuse it.
            if path.is_symlink() and not path.resolve().is_relative_to(source):
                raise PublishRefused("build/html links outside itself:", [f"{display_path(path)} -> {path.resolve()}"])
        return skipped

    shutil.copytree(source, target, ignore=ignore, dirs_exist_ok=True)
    base = (base_url or str(config.sphinx.get("html_baseurl") or "")).rstrip("/")
    if base_url:
        absolute_urls(target, base, str(config.sphinx.get("html_baseurl") or "").rstrip("/"))
    robots = "User-agent: *\nAllow: /\n" + (f"\nSitemap: {base}/sitemap.xml\n" if base else "")
    atomic_write(target / "robots.txt", robots)
    atomic_write(target / ".nojekyll", "")  # GitHub Pages: serve _static/ as is
    for path in target.rglob("*"):
        if path.is_file():
            stats.files += 1
            stats.bytes += path.stat().st_size
    return stats


def check_base_url(url: str) -> str | None:
    """Why ``url`` cannot be the site's base URL, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"--base-url must be an absolute http(s) URL such as https://example.org/book, not {url!r}"
    if parts.query or parts.fragment:
        return f"--base-url cannot have a query or fragment: {url!r}"
    return None


def absolute_urls(site: Path, base: str, built_with: str) -> None:
    """Point the hreflang/canonical links of every page and the sitemap's URLs at ``base``.

    The build wrote them relative (or under conf.py's ``html_baseurl``); search engines want
    them absolute. Only those links are touched -- polybook's own tags and Sphinx's canonical.
    """

    def rewrite(page: str, href: str) -> str:
        if built_with and href.startswith(built_with + "/"):
            return base + href[len(built_with) :]
        if urlsplit(href).scheme or href.startswith("/"):
            return href
        return f"{base}/{posixpath.normpath(posixpath.join(posixpath.dirname(page), href))}"

    for path in site.rglob("*.html"):
        page = path.relative_to(site).as_posix()
        text = path.read_text(encoding="utf-8")
        new = _LINK_RE.sub(lambda m, page=page: m[1] + rewrite(page, m[2]) + m[3], text)
        if new != text:
            atomic_write(path, new)
    sitemap = site / "sitemap.xml"
    if sitemap.is_file():
        text = sitemap.read_text(encoding="utf-8")
        atomic_write(
            sitemap,
            _SITEMAP_RE.sub(
                lambda m: (
                    (m[1] + rewrite("sitemap.xml", m[2]) + m[3])
                    if m[1]
                    else (m[4] + rewrite("sitemap.xml", m[5]) + m[6])
                ),
                text,
            ),
        )


def target_problem(config: BookConfig, dest: Path) -> str | None:
    """Why ``dest`` must not be replaced by the site, or None."""
    dest = dest.resolve()
    root = config.root.resolve()
    for keep, what in ((root, "the book"), (config.build_dir.resolve() / "html", "the build"), (Path.home(), "home")):
        if dest == keep or keep.is_relative_to(dest):
            return f"{display_path(dest)} holds {what}: publish into a folder of its own"
    if dest.is_relative_to(config.chapters_dir.resolve()):
        return f"{display_path(dest)} is inside the chapters: publish into a folder of its own"
    if dest.exists() and not dest.is_dir():
        return f"{display_path(dest)} is a file, not a folder"
    if dest.is_dir() and any(dest.iterdir()) and not all((dest / name).exists() for name in MARKERS):
        return (
            f"{display_path(dest)} is not empty and not a site polybook published (no {', '.join(MARKERS)}): "
            "refusing to replace it; remove it or choose another folder"
        )
    return None


def publish_folder(config: BookConfig, dest: Path, base_url: str | None = None) -> SiteStats:
    """Assemble the site beside ``dest`` and swap it in; ``dest`` is untouched on any failure.
    A folder that cannot be written (or its old site removed) is said, naming it, as a
    :class:`PublishRefused` -- not a traceback; a full disk is left to the command's own message."""
    try:
        problem = target_problem(config, dest)
    except OSError as exc:  # a folder above it that may not be looked into
        raise _unwritable(exc, f"cannot look at {display_path(dest)}") from None
    if problem:
        raise PublishRefused("cannot publish there:", [problem])
    dest = dest.resolve()
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=f".{dest.name}.new-", dir=dest.parent))
    except OSError as exc:
        where = f"cannot write in {display_path(dest.parent)} (to publish {dest.name})"
        raise _unwritable(exc, where) from None
    try:
        fresh.chmod(0o755)  # mkdtemp makes it private; a web server must read it
        stats = assemble_site(config, fresh, base_url)
        left = replace_folder(fresh, dest)
    except OSError as exc:
        raise _unwritable(exc, f"cannot publish to {display_path(dest)}; it is as it was") from None
    finally:
        shutil.rmtree(fresh, ignore_errors=True)  # gone already when it was swapped in
    if left is not None:
        raise PublishRefused(
            f"published to {display_path(dest)}, but its old site could not be removed:",
            [f"{display_path(left)} is left: remove it by hand"],
        )
    return stats


def _unwritable(exc: OSError, what: str) -> OSError | PublishRefused:
    """``exc`` as the refusal to say (``what`` names the folder), with the file the system named; a full
    disk as it is (the command says what it kept and what to do)."""
    if disk_full(exc):
        return exc
    where = f" ({display_path(Path(exc.filename))})" if exc.filename else ""
    return PublishRefused(f"{what}:", [f"{exc.strerror or exc}{where}"])
