"""PDF books: one per language and framework (``polybook build pdf``).

The stages, in order:

- ``stage``      the HTML site's transpile for one framework -> MyST files (+ ``figures``: SVG -> PDF)
- ``languages``  fonts and words per language (Noto, Noto CJK JP/SC via xeCJK, babel)
- ``latex``      Sphinx's LaTeX builder + latexmk/xelatex, in a fresh process per PDF
- ``sphinx_ext`` ``% polybook-src DOC:LINE`` markers in the .tex, for errors
- ``log``        missing glyphs and LaTeX errors -> diagnostics at the chapter's path:line
- ``build``      targets, input digests (skip when unchanged), parallel runs, site links
- ``commands``   the click command
"""
