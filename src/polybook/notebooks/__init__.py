"""Notebooks for readers: per language and framework, one ``.ipynb`` per document with the
outputs ``build eval`` recorded (``polybook build notebooks``).

- ``references`` labels and their numbers, links to the published pages
- ``files``      the figures and files a notebook shows, placed inside the download
- ``outputs``    the recorded outputs of a code cell (never run again)
- ``writer``     one document -> one framework's notebook
- ``build``      targets, stamps (skip when unchanged), the folders of notebooks
- ``commands``   the click command
"""
