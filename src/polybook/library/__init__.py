"""The book's own library (``d2l/torch.py``, ...) from its ``#@save`` code: ``polybook build lib``.

For other stages: :func:`collect_library` gives each framework's module (blocks with their
``path:line``, the text, a digest) without writing anything; :func:`library_status` compares it
with the file on disk.
"""

from __future__ import annotations

from polybook.library.build import (
    LibraryReport,
    LibraryStatus,
    SavedLibrary,
    collect_library,
    library_settings,
    library_status,
    load_library_book,
    write_library,
)
from polybook.library.collect import SavedBlock

__all__ = [
    "LibraryReport",
    "LibraryStatus",
    "SavedBlock",
    "SavedLibrary",
    "collect_library",
    "library_settings",
    "library_status",
    "load_library_book",
    "write_library",
]
