"""Benchmark ``polybook build html`` on the whole bundled site (five languages).

Builds a copy of the book in a temporary folder that shares the execution cache
(``build/cache``), then prints: cold build (empty build/html, cache warm), no-op
rebuild, prose edits in a translation (ja) and in the source (en) -- each must run no
kernel and rebuild that language only -- and code edit (one program re-runs; the page
must show the new output).

    .venv/bin/python bench/html_build.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from polybook.config import load_config
from polybook.site.build import HtmlOptions, HtmlResult, build_html

ROOT = Path(__file__).resolve().parent.parent


def timed(root: Path) -> tuple[float, HtmlResult]:
    t0 = time.perf_counter()
    result = build_html(load_config(root / "conf.py"), HtmlOptions())
    return time.perf_counter() - t0, result


def rebuilt(result: HtmlResult) -> str:
    return ",".join(b.language for b in result.languages if b.sphinx == "built") or "none"


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="polybook-bench-") as tmp:
        root = Path(tmp)
        shutil.copy(ROOT / "conf.py", root / "conf.py")
        shutil.copytree(ROOT / "chapters", root / "chapters")
        (ROOT / "build" / "cache").mkdir(parents=True, exist_ok=True)
        (root / "build").mkdir()
        (root / "build" / "cache").symlink_to(ROOT / "build" / "cache")
        rows = []
        seconds, result = timed(root)
        rows.append(("cold build (execution cache warm)", seconds, result))
        seconds, result = timed(root)
        rows.append(("no-op rebuild", seconds, result))
        ja = root / "chapters" / "ja" / "async-computation.md"
        ja.write_text(ja.read_text(encoding="utf-8").replace("非同期計算", "非同期の計算", 1), encoding="utf-8")
        seconds, result = timed(root)
        rows.append(("prose edit (ja)", seconds, result))
        en = root / "chapters" / "en" / "async-computation.md"
        en.write_text(en.read_text(encoding="utf-8").replace("highly parallel", "very parallel", 1), encoding="utf-8")
        seconds, result = timed(root)
        rows.append(("prose edit (en, the source)", seconds, result))
        marker = f"polybook-bench-{time.time_ns()}"  # a new program key: a real kernel run
        text = en.read_text(encoding="utf-8").replace("npx.set_np()\n", f"npx.set_np()\nprint('{marker}')\n", 1)
        en.write_text(text, encoding="utf-8")
        seconds, result = timed(root)
        rows.append(("code edit (en mxnet)", seconds, result))
        fresh = marker in (root / "build" / "html" / "en" / "async-computation.html").read_text(encoding="utf-8")
        print(f"{'step':38} {'seconds':>8} {'kernel runs':>12}  rebuilt languages")
        for name, secs, res in rows:
            print(f"{name:38} {secs:8.2f} {res.kernel_runs:12d}  {rebuilt(res)}")
        print(f"code edit shows the new output: {fresh}")
        prose = [(rows[2][2], "ja"), (rows[3][2], "en")]
        ok = rows[1][2].kernel_runs == 0 and fresh and all(r.kernel_runs == 0 and rebuilt(r) == c for r, c in prose)
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
