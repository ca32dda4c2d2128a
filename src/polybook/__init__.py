"""polybook: one book in many languages, executed per framework, checked for drift."""

__version__ = "0.1.0"
