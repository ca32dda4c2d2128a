"""Bringing existing books into polybook, one language at a time (``polybook import d2lbook``)."""
