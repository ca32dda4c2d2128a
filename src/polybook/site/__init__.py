"""The one site: every language's Sphinx output under ``build/html/<lang>/`` plus what
ties them together (root index, sitemap, 404 pages, shared MathJax)."""
