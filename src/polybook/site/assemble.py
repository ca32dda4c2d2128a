"""Assemble ``build/html``: the root language chooser, ``sitemap.xml``, a ``404.html`` per
language, MathJax served from the site (no CDN), and the PDFs when they exist.

Everything here is small and rewritten only when it changes.
"""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic
from polybook.files import DamagedCopy, atomic_copy, atomic_write, atomic_write_bytes, display_path
from polybook.render.settings import MATHJAX_DIR
from polybook.render.site_info import SiteInfo
from polybook.stage.i18n import text

#: Debian's libjs-mathjax (scripts/setup-html.sh); only what TeX -> CommonHTML needs.
MATHJAX_SOURCE = Path("/usr/share/javascript/mathjax")
MATHJAX_PARTS = (
    "MathJax.js",
    "config/TeX-AMS_CHTML.js",
    "jax/input/TeX",
    "jax/output/CommonHTML",
    "jax/element",
    "extensions",
    "fonts/HTML-CSS/TeX/woff",
)


def write_if_changed(path: Path, content: str) -> None:
    data = content.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return
    atomic_write_bytes(path, data)


def assemble(config: BookConfig, site: SiteInfo, outdir: Path) -> list[Diagnostic]:
    outdir.mkdir(parents=True, exist_ok=True)
    problems: list[Diagnostic] = []
    write_if_changed(outdir / "index.html", root_index(config, site))
    write_if_changed(outdir / "sitemap.xml", sitemap(site))
    for language in site.languages:
        if (outdir / language.lang).is_dir():
            write_if_changed(outdir / language.lang / "404.html", not_found(language.lang, site))
    # Hosts such as GitHub Pages serve only the root's 404.html, for every missing page.
    write_if_changed(outdir / "404.html", not_found(None, site))
    problems += copy_pdfs(config, site, outdir)
    copy_notebooks(config, site, outdir)
    if not copy_mathjax(outdir / MATHJAX_DIR):
        message = f"MathJax not found in {MATHJAX_SOURCE}: math is shown as TeX (run scripts/setup-html.sh)"
        problems.append(Diagnostic.make(str(config.path), 1, Code.HTML_MATHJAX, message))
    return problems


def root_index(config: BookConfig, site: SiteInfo) -> str:
    """Choose a language: each named in itself; the browser's language is suggested."""
    items = "\n".join(
        f'    <li><a href="{language.lang}/index.html" lang="{language.lang}" hreflang="{language.hreflang}" '
        f'data-language="{language.lang}"><span class="name">{html.escape(language.name)}</span> '
        f'<span class="title">{html.escape(language.title)}</span></a></li>'
        for language in site.languages
    )
    alternates = "\n".join(
        f'  <link rel="alternate" hreflang="{language.hreflang}" href="{site.url(language.lang + "/index.html")}">'
        for language in site.languages
    )
    choose = json.dumps(
        {language.lang: text(language.lang, "choose") for language in site.languages}, ensure_ascii=False
    )
    return f"""<!DOCTYPE html>
<html lang="{site.source_language}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{html.escape(config.title)}</title>
  <link rel="icon" href="data:,">
{alternates}
  <style>
    body {{ font-family: system-ui, "Noto Sans", "Noto Sans CJK JP", sans-serif; margin: 0; background: #f6f7f9;
           color: #1f2328; display: flex; min-height: 100vh; align-items: center; justify-content: center; }}
    main {{ background: #fff; padding: 2.5rem 3rem; border-radius: 12px; box-shadow: 0 2px 12px #0001;
           max-width: 32rem; width: 100%; box-sizing: border-box; }}
    h1 {{ font-size: 1.6rem; margin: 0 0 .3rem; }}
    p.choose {{ color: #57606a; margin: 0 0 1.5rem; }}
    ul {{ list-style: none; padding: 0; margin: 0; }}
    li a {{ display: flex; justify-content: space-between; gap: 1rem; padding: .8rem 1rem; margin: .4rem 0;
           border: 1px solid #d0d7de; border-radius: 8px; text-decoration: none; color: inherit; }}
    li a:hover, li a.suggested {{ border-color: #0969da; background: #f0f6ff; }}
    .title {{ color: #57606a; }}
    .suggested .name::after {{ content: " \\2605"; color: #0969da; }}
  </style>
</head>
<body>
<main>
  <h1>{html.escape(config.title)}</h1>
  <p class="choose" id="choose">{html.escape(text(site.source_language, "choose"))}</p>
  <ul class="languages">
{items}
  </ul>
</main>
<script>
(function () {{
  var choose = {choose};
  var wanted = (navigator.languages || [navigator.language || ""]).map(function (l) {{ return l.toLowerCase(); }});
  var links = Array.prototype.slice.call(document.querySelectorAll("a[data-language]"));
  for (var i = 0; i < wanted.length; i++) {{
    var base = wanted[i].split("-")[0];
    var hit = links.filter(function (a) {{ return a.dataset.language.toLowerCase().split("_")[0] === base; }})[0];
    if (hit) {{
      hit.classList.add("suggested");
      hit.focus();
      var prompt = choose[hit.dataset.language];
      if (prompt) {{ document.getElementById("choose").textContent = prompt; }}
      break;
    }}
  }}
}})();
</script>
</body>
</html>
"""


def sitemap(site: SiteInfo) -> str:
    """Every page of every language, each with its alternates (hreflang): its counterparts, a page
    of the same name or sharing its labels (:mod:`polybook.render.counterparts`)."""
    rows = []
    for language in site.languages:
        for page in language.pages:
            counterparts = [(other, site.counterpart(language.lang, page, other.lang)) for other in site.languages]
            alternates = "".join(
                f'\n    <xhtml:link rel="alternate" hreflang="{other.hreflang}" '
                f'href="{html.escape(site.url(other.lang + "/" + found.page + ".html"))}"/>'
                for other, found in counterparts
                if found is not None and not found.nearest
            )
            loc = html.escape(site.url(f"{language.lang}/{page}.html"))
            rows.append(f"  <url>\n    <loc>{loc}</loc>{alternates}\n  </url>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        + "\n".join(rows)
        + "\n</urlset>\n"
    )


def not_found(lang: str | None, site: SiteInfo) -> str:
    """A 404 page: sends a page missing from a translation to the source language's page.

    ``language`` None is the site root's page, which a host serves for any missing path:
    it finds the language in the path itself and speaks the source language.
    """
    pages = json.dumps(site.documents)
    source = site.source_language
    names = site.names
    shown = lang or source
    home = html.escape(text(shown, "home")) + (f" ({html.escape(names[lang])})" if lang else "")
    root_url = html.escape(site.baseurl.rstrip("/") + "/")
    return f"""<!DOCTYPE html>
<html lang="{shown}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <link rel="icon" href="data:,">
  <title>{html.escape(text(shown, "not_found"))}</title>
  <style>body {{ font-family: system-ui, "Noto Sans", "Noto Sans CJK JP", sans-serif; max-width: 40rem;
                 margin: 4rem auto; padding: 0 1rem; color: #1f2328; }}</style>
</head>
<body>
  <h1>{html.escape(text(shown, "not_found"))}</h1>
  <p>{html.escape(text(shown, "not_found_body"))}</p>
  <p><a id="home" href="{"index.html" if lang else root_url}">{home}</a></p>
<script>
(function () {{
  // /<site>/<lang>/<page>.html: when <page> exists in the source language, read it there.
  var pages = {pages}, source = {json.dumps(source)}, here = {json.dumps(lang)};
  var parts = window.location.pathname.split("/");
  var at = -1;
  if (here) {{
    at = parts.lastIndexOf(here);
  }} else {{
    for (var i = parts.length - 2; i >= 0 && at < 0; i--) {{
      if (Object.prototype.hasOwnProperty.call(pages, parts[i])) {{ at = i; here = parts[i]; }}
    }}
  }}
  if (at < 0) return;
  var root = parts.slice(0, at).join("/") + "/";
  document.getElementById("home").setAttribute("href", root + here + "/index.html");
  var page = parts.slice(at + 1).join("/").replace(/\\.html$/, "") || "index";
  if (pages[here] && pages[here].indexOf(page) < 0 && (pages[source] || []).indexOf(page) >= 0) {{
    window.location.replace(root + source + "/" + page + ".html?polybook-from=" + here + window.location.hash);
  }}
}})();
</script>
</body>
</html>
"""


def copy_pdfs(config: BookConfig, site: SiteInfo, outdir: Path) -> list[Diagnostic]:
    """Each language's PDFs where its header links them: copied when the site's copy is not the
    PDF (by size and time), checked as copied by the size and SHA-256 its stamp records; a PDF
    that is not what its stamp says is left out, with an error."""
    from polybook.pdf.build import pdf_targets, read_stamp

    problems = []
    stamps = {target.pdf.resolve(): read_stamp(target) for target in pdf_targets(config)}
    for language in site.languages:
        for pdf in site.pdfs.get(language.lang, ()):
            target = outdir / pdf.path
            source = config.build_dir / "pdf" / language.lang / target.name
            stamp = stamps.get(source.resolve())
            if not source.is_file():
                continue
            # no stamp (a failed build's PDF, which publish refuses) or an older one: by size only
            expect = (stamp.size, stamp.sha256) if stamp is not None and stamp.size is not None else None
            if _same_file(target, source, expect):
                continue
            try:
                atomic_copy(source, target, expect)
            except DamagedCopy as exc:
                message = f"{exc}: not copied into the site; run `polybook build pdf --force`"
                problems.append(Diagnostic.make(display_path(source), 1, Code.HTML_PDF, message))
    return problems


def _same_file(copy: Path, source: Path, expect: tuple[int, str] | None) -> bool:
    """Whether the site's ``copy`` is ``source`` as copied: its size (the stamp's, when it has one)
    and its modification time (a copy keeps it)."""
    try:
        mine, theirs = copy.stat(), source.stat()
    except OSError:
        return False
    size = expect[0] if expect is not None else theirs.st_size
    return mine.st_size == size == theirs.st_size and mine.st_mtime_ns == theirs.st_mtime_ns


def copy_notebooks(config: BookConfig, site: SiteInfo, outdir: Path) -> None:
    """Each language's notebooks where its pages link them (:mod:`polybook.notebooks.site`): the
    zips, and each framework's ``.ipynb`` files (the zip holds their figures and the library)."""
    from polybook.notebooks.site import site_downloads, site_notebooks

    for language in site.languages:
        lang = language.lang
        if not (outdir / lang).is_dir():
            continue
        wanted = {outdir / z.path: z.source for z in site_downloads(config, lang)}
        for place in site_notebooks(config, lang):
            wanted.update(
                {outdir / place.folder / p.relative_to(place.source): p for p in place.source.rglob("*.ipynb")}
            )
        for target, source in wanted.items():
            if not target.is_file() or target.stat().st_mtime_ns != source.stat().st_mtime_ns:
                atomic_copy(source, target)
        folder = outdir / lang / "notebooks"
        for path in sorted(folder.rglob("*"), reverse=True) if folder.is_dir() else []:
            if path.is_file() and path not in wanted:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


def copy_mathjax(target: Path) -> bool:
    """Copy the MathJax subset once (a stamp file marks a complete copy)."""
    stamp = target / ".polybook-complete"
    if stamp.is_file():
        return True
    if not (MATHJAX_SOURCE / "MathJax.js").is_file():
        return False
    for part in MATHJAX_PARTS:
        source = MATHJAX_SOURCE / part
        if source.is_dir():
            shutil.copytree(source, target / part, copy_function=atomic_copy, dirs_exist_ok=True)
        elif source.is_file():
            atomic_copy(source, target / part)
    atomic_write(stamp, "libjs-mathjax\n")  # last: a copy the disk stopped is done again
    return True
