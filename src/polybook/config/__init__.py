"""The book's one config: ``conf.py``, read once into a validated :class:`BookConfig`.

:mod:`.model` holds what the settings become, :mod:`.library` the ``polybook.library`` part
(the book's own package), :mod:`.validate` reads conf.py into them, and :mod:`.checks` is what
every part of that validation shares (one way to report a problem, one way to report an
unknown key, with a "did you mean" hint).
"""

from __future__ import annotations

from polybook.config.library import FrameworkLibrary, LibrarySettings, parse_mapping
from polybook.config.model import (
    BookConfig,
    ChapterExecution,
    ConfigError,
    EditionConfig,
    EnvironmentConfig,
    ExecutionConfig,
    LanguageConfig,
)
from polybook.config.validate import CONFIG_NAME, find_config, load_config

__all__ = [
    "CONFIG_NAME",
    "BookConfig",
    "ChapterExecution",
    "ConfigError",
    "EditionConfig",
    "EnvironmentConfig",
    "ExecutionConfig",
    "FrameworkLibrary",
    "LanguageConfig",
    "LibrarySettings",
    "find_config",
    "load_config",
    "parse_mapping",
]
