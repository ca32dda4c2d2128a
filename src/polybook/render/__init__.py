"""The HTML side: each language's staged pages (:mod:`polybook.stage`) through Sphinx --
staging per language (``stage``), Sphinx settings and extension (``settings``,
``sphinx_ext``), the worker pool (``workers``), the build (``build``). The site
(:mod:`polybook.site`) drives it and assembles the languages into one site."""
