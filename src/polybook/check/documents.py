"""What the checks read of a document, memoised on its identity: a chunk compares one source
(and often one base) with every language in turn, and a document compares by value (every node),
so ``lru_cache`` is no help."""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from polybook.dialect.nodes import CodeCell, Document

T = TypeVar("T")


def by_identity(func: Callable[..., T]) -> Callable[..., T]:
    """Memoise on the identity of the first argument (a document, or a list made from one),
    for the few most recent: the source chapter is compared with every translation in turn.
    An entry keeps its argument alive, so an id is never reused while it is cached."""
    cache: OrderedDict[tuple[Any, ...], tuple[object, T]] = OrderedDict()

    @functools.wraps(func)
    def wrapper(first: object, *rest: Any) -> T:
        key = (id(first), *rest)
        hit = cache.get(key)
        if hit is not None and hit[0] is first:
            cache.move_to_end(key)
            return hit[1]
        value = func(first, *rest)
        cache[key] = (first, value)
        if len(cache) > 32:
            cache.popitem(last=False)
        return value

    return wrapper


@by_identity
def _cell_lists(doc: Document) -> dict[str | None, list[CodeCell]]:
    """The lists :func:`cells_of` gave for ``doc`` so far, per framework (None: every cell)."""
    return {}


def cells_of(doc: Document, framework: str | None = None) -> list[CodeCell]:
    """``doc.cells(framework)``, the document walked once for all frameworks (bookmix's checks
    asked for 13,600 walks). Shared: never mutate it."""
    lists = _cell_lists(doc)
    found = lists.get(framework)
    if found is None:
        every = lists.get(None)
        if every is None:
            every = lists[None] = doc.cells()
        found = lists[framework] = every if framework is None else [c for c in every if framework in c.frameworks]
    return found
