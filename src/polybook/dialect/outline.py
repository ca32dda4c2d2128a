"""A document's outline as text: what ``polybook parse`` prints and fixture tests compare."""

from __future__ import annotations

from collections import Counter

from polybook.dialect.nodes import (
    Bibliography,
    CodeCell,
    DisplayMath,
    Document,
    EvalRst,
    Fence,
    Figure,
    Heading,
    Node,
    TabSetup,
    TextTab,
    TocBlock,
)


def _describe(node: Node) -> str | None:
    match node:
        case Heading(level=level, text=text, label=label):
            return f"{'#' * level} {text}" + (f"  :label:{label}" if label else "")
        case CodeCell():
            parts = [f"cell [{', '.join(node.frameworks) or '-'}]"]
            if node.tab is not None:
                parts.append(f"tab {node.tab}")
            parts += [f"{k}={v}" for k, v in node.attrs.items()]
            parts += [f"#@{m.name}" for m in node.markers] + [m.name for m in node.magics]
            if not node.closed:
                parts.append("UNCLOSED")
            if node.varies:
                parts.append(f"{len(node.branches)} tab.selected branches")
            return "  ".join(parts)
        case TabSetup(frameworks=frameworks, required_libs=required):
            declared = "not declared" if frameworks is None else ", ".join(frameworks) or "-"
            return f"d2lbook.tab setup [{declared}]" + (f"  requires {', '.join(required)}" if required else "")
        case TextTab():
            state = "" if node.closed else "  UNCLOSED"
            return f"text-tab [{', '.join(node.frameworks) or '-'}] lines {node.line}-{node.end_line}{state}"
        case Figure(src=src, width=width, label=label):
            return f"figure {src}" + (f"  :width:{width}" if width else "") + (f"  :label:{label}" if label else "")
        case DisplayMath(label=label):
            return "math" + (f"  :eqlabel:{label}" if label else "")
        case TocBlock(entries=entries):
            return f"toc: {', '.join(entries)}"
        case Fence(language=language):
            return f"fence {language or '(plain)'}"
        case EvalRst():
            return "eval_rst"
        case Bibliography(file=file):
            return f"bibliography {file}"
    return None


def _lines(nodes: list[Node], depth: int) -> list[str]:
    out = []
    for node in nodes:
        text = _describe(node)
        if text is not None:
            out.append(f"{node.line:>5}  {'  ' * depth}{text}")
        if isinstance(node, TextTab):
            out.extend(_lines(node.children, depth + 1))
        if isinstance(node, CodeCell) and node.varies:
            for framework in node.frameworks:
                out.append(f"{'':>5}  {'  ' * (depth + 1)}{framework}:")
                out.extend(f"{line:>5}  {'  ' * (depth + 2)}| {text}" for text, line in node.lines_for(framework))
    return out


def outline(doc: Document) -> str:
    tabs = ", ".join(f + (" (default)" if f == doc.default_tab else "") for f in doc.frameworks)
    head = f"{doc.path}  [{doc.language or 'no language'}; tabs: {tabs}]"
    cells = ", ".join(f"{f} {len(doc.cells(f))}" for f in doc.frameworks)
    tab_count: Counter[str] = Counter(f for n in doc.walk() if isinstance(n, TextTab) for f in n.frameworks)
    text_tabs = ", ".join(f"{f} {tab_count[f]}" for f in doc.frameworks)
    labels = ", ".join(f"{lb.name} ({lb.kind}, {lb.line})" for lb in doc.labels.values()) or "none"
    offered = ", ".join(doc.offered()) or "none"
    lines = [head, *_lines(doc.nodes, 0), f"  cells: {cells}", f"  text tabs: {text_tabs}", f"  labels: {labels}"]
    lines.append(f"  offers: {offered}")
    if doc.diagnostics:
        lines.append(f"  diagnostics: {len(doc.diagnostics)}")
        lines += [f"  {d.format()}" for d in doc.diagnostics]
    else:
        lines.append("  diagnostics: none")
    return "\n".join(lines)
