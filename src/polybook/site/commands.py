"""``polybook publish`` and ``polybook serve``: mounted on the main group by :mod:`polybook.cli`."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from polybook.usage import lang_option, verbose_option

#: Seconds between a warm rebuild and refilling the status pages' tables.
STATUS_DELAY = 0.5

if TYPE_CHECKING:
    from polybook.config import BookConfig
    from polybook.diagnostics import Diagnostic
    from polybook.site.serve import SiteServer
    from polybook.site.warm import WarmSite


@click.command()
@click.option("--to", "dest", type=click.Path(file_okay=False, path_type=Path), help="Publish into this folder.")
@click.option("--branch", help="Commit the site as the only content of this git branch (e.g. gh-pages).")
@click.option("--remote", help="With --branch: build on the remote's branch and push there (e.g. origin).")
@click.option("--base-url", help="The site's public URL, for absolute sitemap and hreflang links.")
@click.option("--message", "-m", help="With --branch: the commit message.")
@click.option("--strict", is_flag=True, help="Refuse a build with warnings too (execution's own policy aside).")
@click.option("--without-pdf", is_flag=True, help="Publish even when PDFs are missing (pages link those built).")
@click.option(
    "--notebooks-branch",
    help="Commit the launch notebooks (build/launch: <lang>/<framework>/<document>.ipynb) as the only content "
    "of this git branch, where conf.py's polybook.notebooks.launch says they are.",
)
@click.pass_context
def publish(
    ctx: click.Context,
    dest: Path | None,
    branch: str | None,
    remote: str | None,
    base_url: str | None,
    message: str | None,
    strict: bool,
    without_pdf: bool,
    notebooks_branch: str | None,
) -> None:
    """Publish the complete build (build/html with its PDFs) to a folder or a git branch.

    Refuses, changing nothing, when the build is incomplete or failed: a language missing,
    a failed Sphinx run, errors in build/html-report.json, failed cells that are not allowed,
    missing PDFs. Only build outputs are published, never sources or caches. Exits 1 when
    refused, 2 on usage errors.
    """
    import shutil
    import tempfile

    from polybook.files import display_path
    from polybook.site.branch import GitProblem, publish_branch
    from polybook.site.publish import PublishRefused, assemble_site, check_base_url, problems, publish_folder
    from polybook.usage import UsageProblem, book_config

    if not dest and not branch and not notebooks_branch:
        raise UsageProblem("where to? pass --to DIR and/or --branch NAME (or --notebooks-branch NAME)")
    if remote and not branch and not notebooks_branch:
        raise UsageProblem("--remote goes with --branch or --notebooks-branch")
    if base_url and (why := check_base_url(base_url)):
        raise UsageProblem(why)
    config = book_config(ctx)
    started = time.monotonic()
    if notebooks_branch:
        _publish_notebooks(ctx, config, notebooks_branch, remote, message)
        if not dest and not branch:
            return
    found = problems(config, strict=strict, require_pdfs=not without_pdf)
    if found:
        click.echo(f"publish: refused, the build is not complete ({len(found)} problem(s)):", err=True)
        for problem in found[:20]:
            click.echo(f"  - {problem}", err=True)
        if len(found) > 20:
            click.echo(f"  … and {len(found) - 20} more", err=True)
        ctx.exit(1)
    if not base_url and not config.sphinx.get("html_baseurl"):
        click.echo(
            "publish: warning: no --base-url (nor html_baseurl in conf.py): sitemap.xml and the hreflang "
            "links stay relative, and search engines need absolute ones",
            err=True,
        )
    try:
        if dest:
            stats = publish_folder(config, dest, base_url)
            size = stats.bytes / 1e6
            click.echo(f"published {stats.files} files ({size:.1f} MB) to {display_path(dest)}", err=True)
        if branch:
            with tempfile.TemporaryDirectory(prefix="polybook-site-") as tmp:
                site = Path(tmp) / "site"
                if dest:  # already assembled: commit exactly what was published
                    shutil.copytree(dest, site)
                else:
                    assemble_site(config, site, base_url)
                result = publish_branch(config.root, site, branch, remote, message)
            if not result.changed:
                click.echo(f"{branch}: the site is unchanged ({result.commit[:10]}); nothing committed", err=True)
            else:
                parent = f" on {result.parent[:10]}" if result.parent else " (first commit)"
                pushed = f", pushed to {result.pushed}" if result.pushed else ""
                click.echo(f"{branch}: committed {result.commit[:10]}{parent}{pushed}", err=True)
    except PublishRefused as exc:
        click.echo(f"publish: refused: {exc}", err=True)
        ctx.exit(1)
    except GitProblem as exc:
        click.echo(f"publish: {exc}", err=True)
        ctx.exit(1)
    click.echo(f"publish: done in {time.monotonic() - started:.2f}s", err=True)


def _publish_notebooks(
    ctx: click.Context, config: BookConfig, branch: str, remote: str | None, message: str | None
) -> None:
    """``--notebooks-branch``: the launch notebooks as the only content of ``branch``, committed as
    the site is (one commit on the branch's last, nothing else touched)."""
    from polybook.files import display_path
    from polybook.site.branch import GitProblem, publish_branch
    from polybook.site.launch import launch_problems

    folder = config.build_dir / "launch"
    found = launch_problems(config, branch)
    for problem in found.warnings:
        click.echo(f"publish: warning: {problem}", err=True)
    if found.refusal:
        click.echo(f"publish: refused: {found.refusal}", err=True)
        ctx.exit(1)
    text = message or "Publish the launch notebooks"
    try:
        result = publish_branch(config.root, folder, branch, remote, text)
    except GitProblem as exc:
        click.echo(f"publish: {exc}", err=True)
        ctx.exit(1)
    if not result.changed:
        click.echo(f"{branch}: the notebooks are unchanged ({result.commit[:10]}); nothing committed", err=True)
    else:
        pushed = f", pushed to {result.pushed}" if result.pushed else ""
        click.echo(f"{branch}: committed {result.commit[:10]} ({display_path(folder)}){pushed}", err=True)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0: any free port.")
@lang_option("Only build these languages (repeatable).")
@click.option("--no-eval", is_flag=True, help="Run no code: render the outputs already in build/eval.")
@click.option(
    "--interval", type=click.FloatRange(min=0.05), default=0.5, show_default=True, help="Seconds per scan (--poll)."
)
@click.option("--poll", is_flag=True, help="Scan for changes instead of listening for file events (network mounts).")
@verbose_option
@click.pass_context
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    languages: tuple[str, ...],
    no_eval: bool,
    interval: float,
    poll: bool,
    verbose: bool,
) -> None:
    """Build the site, serve it on localhost, and rebuild and reload pages as chapters change.

    Watches the chapters (figures included), conf.py, the bibliography and the files conf.py's
    HTML settings name (a logo, static folders); a prose edit is
    re-read alone by the language's live Sphinx and only its page written, any other change
    runs the incremental HTML build (only what changed); open pages reload. Problems are
    summed up once, after the first build; a rebuild says only those it finds anew.
    """
    import threading

    from polybook.config import ConfigError, load_config
    from polybook.site.serve import SiteServer, snapshot, watch
    from polybook.site.warm import WarmSite, start_warming
    from polybook.usage import UsageProblem, book_config, languages_to_build

    config = book_config(ctx)
    languages_to_build(config, languages)
    conf_path = config.path
    current = {"config": config}

    warm = WarmSite(config, list(languages), not no_eval)
    said = Said(verbose, no_eval)

    def rebuild(changed: list[str]) -> int:
        if str(conf_path) not in changed and (done := warm_rebuild(warm, changed, said)) is not None:
            threading.Thread(target=refresh_status, args=(warm, site), name="polybook-status", daemon=True).start()
            return done
        warm.drop()  # the full build below changes what the warm path holds
        if str(conf_path) in changed:
            try:
                current["config"] = load_config(conf_path)
            except ConfigError as exc:
                click.echo(f"serve: conf.py has problems, not rebuilt:\n{exc}", err=True)
                return 1
        shown = ", ".join(Path(p).name for p in changed[:3]) + (" …" if len(changed) > 3 else "")
        click.echo(f"serve: {shown} changed; rebuilding", err=True)
        warm.built_from = snapshot([current["config"].chapters_dir])  # as the build will read them
        problems = build(current["config"], languages, no_eval, said)
        warm.config = current["config"]
        start_warming(warm, lambda m: click.echo(m, err=True))
        return problems

    def paths() -> list[Path]:
        from polybook.config.digest import named_paths
        from polybook.stage.settings import bibfiles

        book = current["config"]
        bibs = {bib for lang in book.languages for bib in bibfiles(book, lang)}
        return [book.chapters_dir, conf_path, *bibs, *named_paths(book, "html")]  # a logo, a static folder

    before = snapshot(paths())
    warm.built_from = snapshot([config.chapters_dir])
    build(config, languages, no_eval, said)
    try:
        site = SiteServer(config.build_dir / "html", host, port).start()
    except OSError as exc:
        raise UsageProblem(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    click.echo(f"serving {site.url} (Ctrl-C to stop)", err=True)
    click.echo(site.url)  # stdout: for scripts and tests
    start_warming(warm, lambda m: click.echo(m, err=True))
    stop = threading.Event()
    try:
        watch(paths, rebuild, site, stop, interval, before, poll)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        site.stop()
        warm.drop()


class Said:
    """What serve has told of the book's problems: the first build sums them all up (the
    shared report: errors in full, warnings by code), a rebuild only those it finds anew,
    and how many said before are still there."""

    def __init__(self, verbose: bool, no_eval: bool) -> None:
        self.verbose = verbose
        self.no_eval = no_eval
        self.before: set[Diagnostic] = set()

    def tell(self, found: Iterable[Diagnostic]) -> None:
        from polybook.diagnostics import Level
        from polybook.site.html import asked_for
        from polybook.usage import report

        shown = [d for d in found if d.level is not Level.INFO]
        new = [d for d in shown if d not in self.before]
        report(new, self.verbose, asked_for(self.no_eval))
        if again := len(shown) - len(new):
            errors = sum(d.level is Level.ERROR for d in shown if d in self.before)
            click.echo(f"serve: {again} problem(s) said before still there ({errors} error(s))", err=True)
        self.before.update(shown)


def build(config: BookConfig, languages: tuple[str, ...], no_eval: bool, said: Said | None = None) -> int:
    """One incremental HTML build, its report written like ``polybook build html``'s; the
    number of errors (problems are told through ``said``, the server keeps serving the last
    good pages)."""
    from polybook.diagnostics import Level
    from polybook.execute.environment import KernelProblem
    from polybook.render.build import SphinxStatus
    from polybook.site.build import HtmlOptions, build_html
    from polybook.site.html import write_report

    said = said or Said(False, no_eval)
    started = time.monotonic()
    try:
        result = build_html(
            config,
            HtmlOptions(list(languages) or None, evaluate=not no_eval),
            on_wait=lambda m: click.echo(m, err=True),
        )
    except KernelProblem as exc:
        click.echo(f"serve: {exc}", err=True)
        return 1
    found = result.all_diagnostics()
    said.tell(found)
    write_report(config, result, strict=False)
    rebuilt = [b.language for b in result.languages if b.sphinx is SphinxStatus.BUILT]
    failed = [b.language for b in result.languages if b.sphinx.fatal]
    what = f"rebuilt {', '.join(rebuilt)}" if rebuilt else "nothing to rebuild"
    what += f"; failed {', '.join(failed)}" if failed else ""
    click.echo(f"serve: {what} ({time.monotonic() - started:.1f}s)", err=True)
    return sum(d.level is Level.ERROR for d in found) + len(failed)


def warm_rebuild(warm: WarmSite, changed: list[str], said: Said | None = None) -> int | None:
    """The warm rebuild of ``changed`` (:mod:`polybook.site.warm`): the number of errors, said as
    :func:`build` says them; None when the change needs the full incremental build."""
    said = said or Said(False, False)
    started = time.monotonic()
    try:
        done = warm.rebuild(changed)
    except Exception as exc:  # the warm path is a speed-up: the full build is always right
        click.echo(f"serve: the warm rebuild failed ({exc}); running the incremental build", err=True)
        return None
    if done is None:
        return None
    said.tell(done.diagnostics)
    pages = ", ".join(done.written) or "no page"
    click.echo(f"serve: rewrote {pages} ({time.monotonic() - started:.2f}s, warm)", err=True)
    return done.errors


def refresh_status(warm: WarmSite, site: SiteServer) -> None:
    """After a warm rebuild: the status pages' tables again; a change reloads open pages (so a
    status page open in the browser is never stale without saying so). It waits a moment first:
    the edited page's reload is served first (this thread shares the server's interpreter)."""
    time.sleep(STATUS_DELAY)
    try:
        changed = warm.refresh_status()
    except Exception as exc:  # the full build refills them: say it, keep serving
        click.echo(f"serve: the translation-status pages were not refreshed ({exc})", err=True)
        return
    if changed:
        site.reload()
