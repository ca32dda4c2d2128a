"""Every framework's code as d2lbook 1.0.3 writes it, against polybook's notebooks of the same book.

    .venv/bin/python bench/d2lbook_code.py BOOK D2LBOOK_PROJECT [--d2lbook-python PY] [--build]

BOOK is a polybook book imported from D2LBOOK_PROJECT (`polybook import d2lbook`), whose notebooks
are built (`polybook build notebooks`; ``--build`` runs it). d2lbook's side runs in d2lbook's own
Python (default /work/d2lbook-venv/bin/python), in the project's folder as `d2lbook build eval`
does, with the steps it takes before evaluating a notebook (``build._process_and_eval_notebook``):
``notebook.get_tab_notebook`` per tab, ``library.replace_alias`` with the tab's ``[library-x]``,
``library.format_code_nb``; nothing is evaluated. Each (document, framework) pair's code cells
are compared in order; prints the pairs equal and, for each pair that differs, the first
difference; then the pairs only one side writes a notebook for (they count as differing).
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
from pathlib import Path

POLYBOOK = Path(sys.executable).with_name("polybook")

#: Run by d2lbook's Python in the project's folder: {document: {tab: [code] or None}} on stdout.
D2LBOOK_SIDE = r"""
import json, sys
from d2lbook import build, config, library, notebook

cfg = config.Config()
builder = build.Builder(cfg)
notebooks, _, _ = builder._find_md_files()
out = {}
for path in notebooks:
    name = path[len(cfg.src_dir) + 1 :] if path.startswith(cfg.src_dir + '/') else path
    name = name[: -len('.md')]
    with open(path) as f:
        source = f.read()
    out[name] = {}
    for tab in cfg.tabs:
        nb = notebook.split_markdown_cell(notebook.read_markdown(source))
        nb = notebook.get_tab_notebook(nb, tab, cfg.default_tab)
        if not nb:
            out[name][tab] = None
            continue
        if tab in cfg.library:
            nb = library.replace_alias(nb, cfg.library[tab])
        nb = library.format_code_nb(nb)
        out[name][tab] = [cell.source for cell in nb.cells if cell.cell_type == 'code']
json.dump(out, sys.stdout)
"""


def d2lbook_code(project: Path, python: str) -> dict[str, dict[str, list[str] | None]]:
    done = subprocess.run([python, "-c", D2LBOOK_SIDE], cwd=project, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"d2lbook failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def polybook_code(book: Path, lang: str) -> dict[str, dict[str, list[str]]]:
    """{document: {framework: [code]}} from ``build/notebooks/<lang>/<framework>/``."""
    out: dict[str, dict[str, list[str]]] = {}
    root = book / "build" / "notebooks" / lang
    for path in sorted(root.glob("*/**/*.ipynb")):
        framework, *parts = path.relative_to(root).with_suffix("").parts
        notebook = json.loads(path.read_text(encoding="utf-8"))
        codes = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in notebook["cells"]]
        kinds = [c["cell_type"] for c in notebook["cells"]]
        out.setdefault("/".join(parts), {})[framework] = [c for c, k in zip(codes, kinds, strict=True) if k == "code"]
    return out


def first_difference(theirs: list[str] | None, ours: list[str] | None) -> str:
    if theirs is None or ours is None:
        return f"d2lbook {'has no notebook' if theirs is None else 'has one'}, polybook " + (
            "has none" if ours is None else "has one"
        )
    for index, (a, b) in enumerate(zip(theirs, ours, strict=False)):
        if a != b:
            diff = [
                line
                for line in difflib.unified_diff(a.split("\n"), b.split("\n"), "d2lbook", "polybook", n=0, lineterm="")
                if not line.startswith(("---", "+++", "@@"))
            ]
            return f"cell {index}: " + " | ".join(diff[:4])
    return f"{len(theirs)} cells in d2lbook, {len(ours)} in polybook"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("project", type=Path)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--d2lbook-python", default="/work/d2lbook-venv/bin/python")
    parser.add_argument("--build", action="store_true", help="run polybook build notebooks first")
    args = parser.parse_args()
    if args.build:
        subprocess.run([str(POLYBOOK), "build", "notebooks"], cwd=args.book, check=False, capture_output=True)
    theirs = d2lbook_code(args.project.resolve(), args.d2lbook_python)
    ours = polybook_code(args.book, args.lang)
    equal, differing, one_side = 0, [], []
    for name in sorted(set(theirs) | set(ours)):
        for framework in sorted(set(theirs.get(name, {})) | set(ours.get(name, {}))):
            a, b = theirs.get(name, {}).get(framework), ours.get(name, {}).get(framework)
            if a is None and b is None:
                continue
            if a is None or b is None:
                one_side.append(f"{name} [{framework}]: {first_difference(a, b)}")
            elif a == b:
                equal += 1
            else:
                differing.append(f"{name} [{framework}]: {first_difference(a, b)}")
    both = equal + len(differing)
    print(f"pairs equal: {equal} / {both + len(one_side)} ({equal} / {both} of the pairs both write a notebook for)")
    for line in differing:
        print("  " + line)
    print(f"pairs only one side writes a notebook for: {len(one_side)}")
    for line in one_side:
        print("  " + line)


if __name__ == "__main__":
    main()
