"""The PDF books of the bundled book: cold time for all of them, and the no-op time.

The book (conf.py, chapters, and the execution results in build/eval, if any) is copied to
a temporary folder, so the cold build starts from nothing and the repository's build/ is
left alone. Prints per-PDF seconds, the cold wall time (goal: <= 60 s for the 10 PDFs on
2 cores), the no-op wall time (nothing changed: nothing runs) and the time after editing
one chapter (only that language's PDFs rebuild).

    .venv/bin/python bench/pdf_book.py [-j N] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from polybook.config import load_config
from polybook.pdf.build import PdfReport, build_pdfs

ROOT = Path(__file__).resolve().parent.parent


def copy_book(target: Path) -> Path:
    shutil.copy(ROOT / "conf.py", target / "conf.py")
    shutil.copytree(ROOT / "chapters", target / "chapters")
    if (ROOT / "build" / "eval").is_dir():
        shutil.copytree(ROOT / "build" / "eval", target / "build" / "eval")
    return target / "conf.py"


def timed(conf: Path, jobs: int | None) -> tuple[float, PdfReport]:
    started = time.monotonic()
    report = build_pdfs(load_config(conf), jobs=jobs)
    seconds = time.monotonic() - started
    if report.failed:
        raise SystemExit("\n".join(d.format() for d in report.diagnostics))
    return seconds, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-j", "--jobs", type=int, default=None, help="PDFs at once (default: cores)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary book and print its path")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="polybook-pdf-bench-"))
    try:
        conf = copy_book(folder)
        cold, report = timed(conf, args.jobs)
        for o in report.outcomes:
            print(f"  {o.target.name:12} {o.status:9} {o.seconds:5.1f} s  {o.pages or '?'} pages")
        built = sum(o.status == "built" for o in report.outcomes)
        print(f"cold: {built} PDFs in {cold:.1f} s wall (-j {args.jobs or os.cpu_count()}, {os.cpu_count()} cores)")
        noop, report = timed(conf, args.jobs)
        unchanged = sum(o.status == "unchanged" for o in report.outcomes)
        print(f"no-op: {unchanged}/{len(report.outcomes)} unchanged in {noop:.2f} s wall")
        chapter = folder / "chapters" / "tr" / "async-computation.md"
        chapter.write_text(chapter.read_text(encoding="utf-8") + "\nBir cümle daha.\n", encoding="utf-8")
        edit, report = timed(conf, args.jobs)
        rebuilt = [o.target.name for o in report.outcomes if o.status == "built"]
        print(f"one tr chapter edited: rebuilt {', '.join(rebuilt)} in {edit:.1f} s wall")
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
