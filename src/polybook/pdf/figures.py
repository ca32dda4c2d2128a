"""SVG -> PDF for LaTeX, with rsvg-convert (Debian's librsvg2-bin), cached by content.

LaTeX cannot include SVG. Figures and SVG cell outputs are converted once and kept in
``<cache>/<sha256 of the SVG>.pdf``: a PDF written by cairo carries its creation date, so
converting again would change the bytes (and the build digest) of an unchanged book.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from polybook.files import atomic_write_bytes


class ConversionError(Exception):
    """rsvg-convert is missing or refused the SVG; the message says which."""


def svg_to_pdf(svg: bytes, cache: Path) -> bytes:
    """The PDF of ``svg``, converted at most once per distinct SVG."""
    target = cache / (hashlib.sha256(svg).hexdigest() + ".pdf")
    if target.is_file():
        return target.read_bytes()
    tool = shutil.which("rsvg-convert")
    if tool is None:
        raise ConversionError("rsvg-convert not found: run scripts/setup-pdf.sh (package librsvg2-bin)")
    run = subprocess.run([tool, "--format=pdf"], input=svg, capture_output=True, check=False)
    if run.returncode != 0 or not run.stdout.startswith(b"%PDF"):
        raise ConversionError(run.stderr.decode("utf-8", "replace").strip() or f"rsvg-convert exit {run.returncode}")
    atomic_write_bytes(target, run.stdout)
    return run.stdout
