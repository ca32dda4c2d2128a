"""The Sphinx side: the document model -> MyST (``myst``), cell results (``outputs``),
staging per language (``stage``), Sphinx settings and extension (``settings``,
``sphinx_ext``), the build (``build``) and its command (``commands``)."""

from __future__ import annotations

from polybook.render.myst import Transpiled, transpile

__all__ = ["Transpiled", "transpile"]
