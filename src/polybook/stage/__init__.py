"""What HTML and PDF share: the dialect's documents staged as MyST for Sphinx.

The document model -> MyST (``myst``, ``inline``), cell results (``outputs``), the
bibliography and citation style (``bibliography``, ``bibstyle``), ``eval_rst`` blocks and API
pages (``eval_rst``), the reader's language's strings (``i18n``), the staged files of a book
(``documents``: ``Stage``, ``BookFiles``, the toc resolver), the settings both outputs give
Sphinx (``settings``) and the Sphinx runner with its speed-ups (``sphinx_run``,
``sphinx_speed``). :mod:`polybook.render` (HTML) and :mod:`polybook.pdf` build on it.
"""

from __future__ import annotations

from polybook.stage.myst import Transpiled, transpile

__all__ = ["Transpiled", "transpile"]
