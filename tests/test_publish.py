"""`polybook publish`: a complete build becomes a folder or a git branch; anything less is refused.

Most tests publish a *fake* build -- the files `polybook build html` leaves behind, written
by hand -- so they run in milliseconds; the slow one publishes a real Sphinx build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.cli import main

from minibook import make_book

FAKE_PDF = b"%PDF-1.4 fake\n"
#: What a published site of the two-language mini book holds, and nothing else.
SITE = {
    ".nojekyll",
    "robots.txt",
    "index.html",
    "sitemap.xml",
    "_mathjax/MathJax.js",
    *(
        f"{lang}/{name}"
        for lang in ("en", "ja")
        for name in (
            "index.html",
            "intro.html",
            "404.html",
            "polybook-status.html",
            "_static/polybook.css",
            "pdf/book-mxnet.pdf",
            "pdf/book-pytorch.pdf",
        )
    ),
}


def fake_build(root: Path) -> Path:
    """The two-language mini book with the build output a successful `build html` leaves."""
    conf = make_book(root, "# Intro\n", "# 序\n")
    html = root / "build" / "html"
    files = {
        "index.html": '<link rel="alternate" hreflang="en" href="en/index.html">',
        "sitemap.xml": "<urlset>\n  <url><loc>en/intro.html</loc>"
        '<xhtml:link rel="alternate" hreflang="ja" href="ja/intro.html"/></url>\n</urlset>\n',
        "_mathjax/MathJax.js": "/* mathjax */",
        "_mathjax/.polybook-complete": "libjs-mathjax\n",
    }
    for lang in ("en", "ja"):
        other = "ja" if lang == "en" else "en"
        page = f'<html><head><link rel="alternate" hreflang="{other}" href="../{other}/intro.html" /></head></html>'
        files |= {
            f"{lang}/index.html": "<html></html>",
            f"{lang}/intro.html": page,
            f"{lang}/404.html": "<html></html>",
            f"{lang}/polybook-status.html": "<html></html>",
            f"{lang}/_static/polybook.css": "/* css */",
            f"{lang}/.buildinfo": "# Sphinx build info",
            f"{lang}/.polybook-build.json": '{"digest": "x"}',
        }
        (html / lang / "_sources").mkdir(parents=True)
        for framework in ("mxnet", "pytorch"):
            for folder in (root / "build" / "pdf" / lang, html / lang / "pdf"):
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"book-{framework}.pdf").write_bytes(FAKE_PDF)
            # The stamp a successful PDF build leaves beside the PDF (polybook.pdf.build).
            (root / "build" / "pdf" / lang / f".book-{framework}.pdf.digest").write_text('{"digest": "x"}\n')
    for name, text in files.items():
        (html / name).parent.mkdir(parents=True, exist_ok=True)
        (html / name).write_text(text, encoding="utf-8")
    report = {"languages": [{"language": c, "sphinx": "built", "diagnostics": []} for c in ("en", "ja")]}
    (root / "build" / "html-report.json").write_text(json.dumps(report), encoding="utf-8")
    (root / "build" / "cache").mkdir()
    (root / "build" / "cache" / "secret.json").write_text("{}", encoding="utf-8")
    return conf


def publish(conf: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--conf", str(conf), "publish", *args])
    return result.exit_code, result.output


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_complete_build_is_published_as_exactly_the_site(tmp_path: Path) -> None:
    conf = fake_build(tmp_path / "book")
    code, out = publish(conf, "--to", str(tmp_path / "site"))
    assert code == 0, out
    assert set(files(tmp_path / "site")) == SITE  # no stamps, no Sphinx bookkeeping, no sources, no caches
    assert (tmp_path / "site" / "robots.txt").read_text() == "User-agent: *\nAllow: /\n"  # no base URL: no Sitemap
    assert "warning: no --base-url" in out  # ... and the sitemap stays relative: said, not hidden
    assert oct((tmp_path / "site").stat().st_mode & 0o777) == "0o755"
    assert set(os.listdir(tmp_path)) == {"book", "site"}  # no temporary folder left behind


def test_an_incomplete_build_is_refused_and_the_published_site_kept(tmp_path: Path) -> None:
    conf = fake_build(tmp_path / "book")
    site = tmp_path / "site"
    assert publish(conf, "--to", str(site))[0] == 0
    before = files(site)
    html = tmp_path / "book" / "build" / "html"
    (html / "en" / "intro.html").write_text("new", encoding="utf-8")
    shutil.rmtree(html / "ja")
    code, out = publish(conf, "--to", str(site))
    assert code == 1
    assert "language ja (日本語) is missing from" in out and "polybook build html" in out
    assert files(site) == before
    assert set(os.listdir(tmp_path)) == {"book", "site"}  # no temporary folder left behind


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ("stamp", "the last HTML build of ja (日本語) failed or did not finish"),
        ("sphinx", "the last HTML build of en (English) failed or did not finish"),
        ("error", "chapters/ja/intro.md:3: error: figure 'x.png' not found [polybook.html.figure.missing]"),
        ("eval", "chapters/en/intro.md:7: mxnet cell 2 failed (error: ZeroDivisionError) and is not allowed to"),
        ("pdf", "book-pytorch.pdf is missing: run `polybook build pdf`"),
        ("pdf-failed", "pdf/ja/book-mxnet.pdf failed or did not finish (the file is an older build"),
        ("pdf-newer", "pdf/ja/book-mxnet.pdf was built after the HTML: run `polybook build html`"),
        ("pdf-errors", "pdf/ja/book-mxnet.pdf was built with 1 error(s), the first chapters/ja/intro.md:9: ja: LaTeX"),
        ("strict", "the last HTML build with --strict of ja (日本語) failed or did not finish"),
        ("strict", "chapters/ja/intro.md:3: warning: undefined label [polybook.html.sphinx]"),
    ],
)
def test_failed_builds_are_refused_naming_what_is_wrong(tmp_path: Path, damage: str, expected: str) -> None:
    conf = fake_build(tmp_path)
    build = tmp_path / "build"
    report = json.loads((build / "html-report.json").read_text())
    if damage == "stamp":
        (build / "html" / "ja" / ".polybook-build.json").unlink()
    elif damage == "sphinx":
        report["languages"][0]["sphinx"] = "failed"
    elif damage == "error":
        error = {"path": "chapters/ja/intro.md", "line": 3, "level": "error", "code": "polybook.html.figure.missing"}
        report["languages"][1]["diagnostics"].append({**error, "message": "figure 'x.png' not found"})
    elif damage == "eval":
        failure = {"cell": 1, "kind": "error", "ename": "ZeroDivisionError", "locations": ["chapters/en/intro.md:7"]}
        program = {"chapter": "intro", "framework": "mxnet", "status": "error", "failure": failure, "fatal": True}
        (build / "eval-report.json").write_text(json.dumps({"summary": {"fatal": 1}, "programs": [program]}))
    elif damage == "pdf":
        (build / "html" / "en" / "pdf" / "book-pytorch.pdf").unlink()
        (build / "pdf" / "en" / "book-pytorch.pdf").unlink()
    elif damage == "pdf-failed":  # the older PDF is still there, the failed build removed its stamp
        (build / "pdf" / "ja" / ".book-mxnet.pdf.digest").unlink()
    elif damage == "pdf-errors":  # built, with a formula set as its text: readable, not publishable
        error = {"path": "chapters/ja/intro.md", "line": 9, "level": "error", "code": "polybook.pdf.formula"}
        stamp = {"digest": "x", "errors": [{**error, "message": "ja: LaTeX cannot set the formula \\(x\\)"}]}
        (build / "pdf" / "ja" / ".book-mxnet.pdf.digest").write_text(json.dumps(stamp))
    elif damage == "pdf-newer":  # rebuilt after `build html` copied the PDFs into the site
        (build / "pdf" / "ja" / "book-mxnet.pdf").write_bytes(FAKE_PDF + b"% rebuilt\n")
    elif damage == "strict":  # `build html --strict` failed on a warning (publish itself is not strict)
        warning = {"path": "chapters/ja/intro.md", "line": 3, "level": "warning", "code": "polybook.html.sphinx"}
        report["languages"][1] |= {"strict": True, "failed": True}
        report["languages"][1]["diagnostics"].append({**warning, "message": "undefined label"})
    (build / "html-report.json").write_text(json.dumps(report))
    code, out = publish(conf, "--to", str(tmp_path / "site"))
    assert code == 1 and expected in out, out
    assert not (tmp_path / "site").exists()
    if damage.startswith("pdf"):
        assert publish(conf, "--to", str(tmp_path / "site"), "--without-pdf")[0] == 0


def test_strict_refuses_warnings_but_not_executions(tmp_path: Path) -> None:
    conf = fake_build(tmp_path)
    report = json.loads((tmp_path / "build" / "html-report.json").read_text())
    gpu = {"path": "a.md", "line": 1, "level": "warning", "code": "polybook.exec.needs_gpu", "message": "GPU"}
    report["diagnostics"] = [gpu]
    (tmp_path / "build" / "html-report.json").write_text(json.dumps(report))
    assert publish(conf, "--to", str(tmp_path / "a"), "--strict")[0] == 0
    report["diagnostics"].append({**gpu, "code": "polybook.html.sphinx", "message": "undefined label"})
    (tmp_path / "build" / "html-report.json").write_text(json.dumps(report))
    assert publish(conf, "--to", str(tmp_path / "b"))[0] == 0
    code, out = publish(conf, "--to", str(tmp_path / "c"), "--strict")
    assert code == 1 and "a.md:1: warning: undefined label [polybook.html.sphinx]" in out


def test_a_folder_that_is_not_a_published_site_is_never_replaced(tmp_path: Path) -> None:
    conf = fake_build(tmp_path / "book")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me", encoding="utf-8")
    code, out = publish(conf, "--to", str(mine))
    assert code == 1 and "not a site polybook published" in out
    assert files(mine) == {"notes.txt": b"keep me"}
    for inside in (tmp_path / "book", tmp_path / "book" / "build" / "html", tmp_path):
        code, out = publish(conf, "--to", str(inside))
        assert code == 1 and "publish into a folder of its own" in out, inside


def test_a_link_out_of_the_build_is_refused(tmp_path: Path) -> None:
    conf = fake_build(tmp_path / "book")
    (tmp_path / "secret.txt").write_text("not for the web", encoding="utf-8")
    (tmp_path / "book" / "build" / "html" / "en" / "notes.txt").symlink_to(tmp_path / "secret.txt")
    code, out = publish(conf, "--to", str(tmp_path / "site"))
    assert code == 1 and "links outside itself" in out and "en/notes.txt" in out
    assert set(os.listdir(tmp_path)) == {"book", "secret.txt"}


def test_base_url_makes_sitemap_hreflang_and_robots_absolute(tmp_path: Path) -> None:
    conf = fake_build(tmp_path / "book")
    site = tmp_path / "site"
    assert publish(conf, "--to", str(site), "--base-url", "https://example.org/book/")[0] == 0
    sitemap = (site / "sitemap.xml").read_text()
    assert "<loc>https://example.org/book/en/intro.html</loc>" in sitemap
    assert 'href="https://example.org/book/ja/intro.html"' in sitemap
    page = (site / "en" / "intro.html").read_text()
    assert '<link rel="alternate" hreflang="ja" href="https://example.org/book/ja/intro.html" />' in page
    assert 'href="https://example.org/book/en/index.html"' in (site / "index.html").read_text()
    assert (site / "robots.txt").read_text().endswith("Sitemap: https://example.org/book/sitemap.xml\n")
    assert publish(conf, "--to", str(site), "--base-url", "example.org")[0] == 2


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.org")


def test_the_branch_target_commits_the_site_and_keeps_history(tmp_path: Path, identity: None) -> None:
    book, remote = tmp_path / "book", tmp_path / "remote.git"
    conf = fake_build(book)
    git(book, "init", "-q", "-b", "main")
    (book / ".gitignore").write_text("build/\n", encoding="utf-8")
    git(book, "add", "conf.py", "chapters", ".gitignore")
    git(book, "commit", "-qm", "the book")
    (book / "chapters" / "en" / "intro.md").write_text("# Intro, edited but not committed\n", encoding="utf-8")
    git(book, "add", "chapters/en/intro.md")  # staged: the index must survive publishing
    git(tmp_path, "init", "-q", "--bare", str(remote))
    state = (git(book, "status", "--porcelain"), git(book, "diff", "--cached"), git(book, "rev-parse", "HEAD"))

    code, out = publish(conf, "--branch", "gh-pages", "--remote", str(remote))
    assert code == 0, out
    first = git(remote, "rev-parse", "gh-pages")
    assert set(git(remote, "ls-tree", "-r", "--name-only", "gh-pages").splitlines()) == SITE

    html = book / "build" / "html"
    (html / "en" / "polybook-status.html").unlink()  # gone from the second site
    (html / "en" / "intro.html").write_text("<html>second</html>", encoding="utf-8")
    code, out = publish(conf, "--branch", "gh-pages", "--remote", str(remote), "-m", "second")
    assert code == 0, out
    assert git(remote, "rev-parse", "gh-pages^") == first  # history kept
    assert git(remote, "log", "--format=%s", "gh-pages") == "second\nPublish the site built from " + git(
        book, "rev-parse", "--short", "HEAD"
    )
    tree = set(git(remote, "ls-tree", "-r", "--name-only", "gh-pages").splitlines())
    assert tree == SITE - {"en/polybook-status.html"}  # the site replaced, not merged
    assert git(remote, "show", "gh-pages:en/intro.html") == "<html>second</html>"
    assert "unchanged" in publish(conf, "--branch", "gh-pages", "--remote", str(remote))[1]
    assert git(remote, "rev-list", "--count", "gh-pages") == "2"
    # The user's working tree, index and branch are as they were.
    assert (git(book, "status", "--porcelain"), git(book, "diff", "--cached"), git(book, "rev-parse", "HEAD")) == state
    assert git(book, "rev-parse", "gh-pages") == git(remote, "rev-parse", "gh-pages")


def test_the_checked_out_branch_is_never_published_to(tmp_path: Path, identity: None) -> None:
    conf = fake_build(tmp_path)
    git(tmp_path, "init", "-q", "-b", "gh-pages")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "x")
    code, out = publish(conf, "--branch", "gh-pages")
    assert code == 1 and "checked out" in out
    code, out = publish(conf, "--branch", "bad..name")
    assert code == 1 and "not a valid branch name" in out


def test_usage_errors(tmp_path: Path) -> None:
    conf = fake_build(tmp_path)
    assert publish(conf)[0] == 2  # no target
    assert publish(conf, "--to", str(tmp_path / "s"), "--remote", "origin")[0] == 2  # --remote without --branch


@pytest.mark.slow
def test_a_real_build_is_published_with_its_pdfs_and_nothing_else(tmp_path: Path) -> None:
    render_book = Path(__file__).parent / "fixtures" / "render" / "book"
    book = tmp_path / "book"
    book.mkdir()
    for name in ("conf.py", "refs.bib", "chapters"):
        source = render_book / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, book / name)
    shutil.copytree(render_book / "eval", book / "build" / "eval")
    for lang in ("en", "ja"):  # stand-ins for `polybook build pdf` (LaTeX is another test's business)
        (book / "build" / "pdf" / lang).mkdir(parents=True)
        for framework in ("mxnet", "pytorch"):
            (book / "build" / "pdf" / lang / f"mini-{framework}.pdf").write_bytes(FAKE_PDF)
            (book / "build" / "pdf" / lang / f".mini-{framework}.pdf.digest").write_text('{"digest": "x"}\n')
    built = CliRunner().invoke(main, ["--conf", str(book / "conf.py"), "build", "html", "--no-eval"])
    assert built.exit_code == 0, built.output
    site = tmp_path / "site"
    code, out = publish(book / "conf.py", "--to", str(site), "--base-url", "https://example.org/mini")
    assert code == 0, out
    root = {".nojekyll", "robots.txt", "index.html", "404.html", "sitemap.xml", "_mathjax", "en", "ja"}
    assert set(os.listdir(site)) == root
    published = set(files(site))
    for lang in ("en", "ja"):
        expected = {"index.html", "tiny.html", "404.html", "polybook-status.html", "search.html", "genindex.html"}
        assert {f"{lang}/{name}" for name in expected} <= published
        assert {f"{lang}/pdf/mini-{fw}.pdf" for fw in ("mxnet", "pytorch")} <= published
        assert 'href="pdf/mini-pytorch.pdf"' in (site / lang / "tiny.html").read_text(encoding="utf-8")
    assert not [p for p in published if p.endswith((".md", ".json", ".buildinfo")) or "_sources" in p]
    assert '<link rel="alternate" hreflang="ja" href="https://example.org/mini/ja/tiny.html" />' in (
        site / "en" / "tiny.html"
    ).read_text(encoding="utf-8")


def test_a_partial_build_keeps_the_other_languages_errors(tmp_path: Path) -> None:
    """`build html -l ja` after a failed full build: en's error still stops publish."""
    from polybook.config import load_config
    from polybook.site.html import merge_report

    conf = fake_build(tmp_path)
    config = load_config(conf)
    missing = {"line": 3, "level": "error", "code": "polybook.html.figure.missing", "message": "figure not found"}
    en_error = {**missing, "path": str(tmp_path / "chapters" / "en" / "intro.md")}
    warning = {**missing, "level": "warning", "path": str(tmp_path / "chapters" / "ja" / "intro.md")}
    full = {
        "languages": [{"language": c, "sphinx": "built", "diagnostics": []} for c in ("en", "ja")],
        "diagnostics": [en_error],
    }
    first = merge_report({}, full, config, strict=False)
    assert [e["failed"] for e in first["languages"]] == [True, False] and first["diagnostics"] == []
    partial = {"languages": [{"language": "ja", "sphinx": "built", "diagnostics": []}], "diagnostics": [warning]}
    second = merge_report(first, partial, config, strict=True)
    assert [(e["language"], e["failed"]) for e in second["languages"]] == [("en", True), ("ja", True)]
    assert second["languages"][0]["diagnostics"] == [en_error]
    (tmp_path / "build" / "html-report.json").write_text(json.dumps(second))
    code, out = publish(conf, "--to", str(tmp_path / "site"))
    assert code == 1 and "chapters/en/intro.md:3: error: figure not found" in out, out
    assert "the last HTML build with --strict of ja (日本語) failed" in out
