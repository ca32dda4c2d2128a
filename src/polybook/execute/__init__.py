"""Execution: programs per (chapter, framework), a content-addressed cache shared by all
languages, Jupyter kernels behind a small executor interface (local pool or Dask).

``programs`` -> ``environment`` (kernel fingerprint) -> ``evaluate`` (cache, frozen,
executors, ``runner``) -> ``report`` and ``outputs``; ``commands`` is the CLI.
"""
