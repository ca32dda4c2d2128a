"""Run one notebook ``polybook build notebooks`` made, with nbclient, in the kernel its metadata
names, from its folder (the download's layout: figures and the book's library beside it), and
compare every code cell's outputs with those the notebook holds (what ``build eval`` recorded).

    python bench/notebook_run.py BOOK LANG FRAMEWORK DOCUMENT [--numbers]

``--numbers``: digits count as equal (timings, random draws). ``--launch``: run the launch
notebook (build/launch/...) instead, its install cell first; ``--kernel NAME``: in that kernel
(a fresh environment's, as Colab starts one) instead of the one the notebook names. Prints the cells that agree, those
that differ (with both outputs), and the seconds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

_DIGITS = re.compile(r"\d+(\.\d+)?")


def normalised(outputs: list[Any], numbers: bool) -> list[Any]:
    """Outputs as comparable text: consecutive writes to one stream as one (how a stream is cut
    into messages depends on timing; Jupyter shows them as one), an error by its name and value."""
    merged: list[dict[str, Any]] = []
    for output in outputs:
        last = merged[-1] if merged else None
        if last and output.get("output_type") == last.get("output_type") == "stream" and last["name"] == output["name"]:
            merged[-1] = {**last, "text": last["text"] + output["text"]}
        else:
            merged.append(dict(output))
    out = []
    for output in merged:
        output = dict(output)
        if output.get("output_type") == "error":
            output = {"output_type": "error", "ename": output.get("ename"), "evalue": output.get("evalue")}
        text = json.dumps(output, sort_keys=True, ensure_ascii=False)
        out.append(_DIGITS.sub("N", text) if numbers else text)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("lang")
    parser.add_argument("framework")
    parser.add_argument("document")
    parser.add_argument("--numbers", action="store_true", help="digits count as equal")
    parser.add_argument("--launch", action="store_true", help="the launch notebook, from its install cell")
    parser.add_argument("--kernel", help="this kernel instead of the one the notebook names (a fresh environment's)")
    args = parser.parse_args()
    import nbformat
    from nbclient import NotebookClient

    folder = "launch" if args.launch else "notebooks"
    path = args.book / "build" / folder / args.lang / args.framework / f"{args.document}.ipynb"
    recorded = nbformat.read(path, as_version=4)
    ran = nbformat.read(path, as_version=4)
    started = time.monotonic()
    options: dict[str, Any] = {"kernel_name": args.kernel} if args.kernel else {}
    client = NotebookClient(
        ran, timeout=1800, allow_errors=True, resources={"metadata": {"path": str(path.parent)}}, **options
    )
    client.execute()
    seconds = time.monotonic() - started
    same = differ = 0
    for mine, theirs in zip(recorded.cells, ran.cells, strict=True):
        if mine.cell_type != "code" or mine.get("id") == "polybook-install":
            continue
        if normalised(mine.outputs, args.numbers) == normalised(theirs.outputs, args.numbers):
            same += 1
        else:
            differ += 1
            print(f"--- differs: {mine.source.splitlines()[0] if mine.source else ''!r}")
            print(f"    recorded: {normalised(mine.outputs, args.numbers)}"[:600])
            print(f"    now:      {normalised(theirs.outputs, args.numbers)}"[:600])
    kernel = args.kernel or recorded.metadata.get("kernelspec", {}).get("name")
    print(f"{path}: kernel {kernel}, {same} code cells give the recorded outputs, {differ} differ ({seconds:.1f} s)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
