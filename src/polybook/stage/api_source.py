"""The book's library documented from its source: what autodoc shows, without importing it.

An API page (d2l's ``chapter_appendix-tools-for-deep-learning/d2l.md``: ``.. automodule::
d2l.torch`` with ``:members:``, or ``.. autoclass::``/``.. autofunction::`` one by one) is
written out here as the ``py:`` directives autodoc itself would generate -- signatures,
docstrings, the class's bases, its members -- read from the module's syntax tree
(:func:`read_module`). Nothing of the book is imported, so a page or a module a translation
adds cannot run code in ``build html --no-eval``, and the Sphinx workers no longer import the
frameworks the library imports. Sphinx's Python domain takes the directives as it takes
autodoc's: the same targets, index entries and cross-references.

What a parse shows that an import showed otherwise: a default value as the source writes it
(``slice(0, None)``, where autodoc printed ``slice(0, None, None)``); members in source order
unless ``:member-order:`` or conf.py's ``autodoc_member_order`` says otherwise; a function
``@d2l.add_to_class(C)`` attaches to ``C`` is documented as ``C``'s method (as importing the
module makes it). A class's signature is its ``__init__``'s, or that of a base class of the
same module; one that inherits it from elsewhere (``torch.nn.Module``) shows none, as autodoc
shows none for ``*args, **kwargs``. Imported names are never documented (``:imported-members:``
has no effect).
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path

from polybook.dialect.rst import read_directives
from polybook.files import kept

_CODE = hashlib.sha256(Path(__file__).read_bytes()).digest()  # what was kept was read by this code

#: How autodoc's ``groupwise`` order ranks the kinds of members.
_GROUP = {"exception": 10, "class": 20, "function": 30, "data": 40, "method": 50, "property": 60, "attribute": 60}
_DIRECTIVE = {"function": "function", "class": "class", "exception": "exception", "method": "method"}
_DIRECTIVE |= {"property": "property", "attribute": "attribute", "data": "data"}
_DECORATOR_OPTIONS = {"staticmethod": "staticmethod", "classmethod": "classmethod", "abstractmethod": "abstractmethod"}
_LONGEST_VALUE = 100  # a data's value longer than this (as the source writes it) is not shown


@dataclass(slots=True)
class ApiObject:
    """A class, function, method, property or documented attribute, as its source defines it."""

    kind: str  # a key of _DIRECTIVE
    name: str
    line: int  # in the module's file
    signature: str = ""  # "(a, b=1) -> int"; "" for none
    docstring: str = ""
    flags: tuple[str, ...] = ()  # py-domain flags: staticmethod, classmethod, async, abstractmethod
    annotation: str = ""  # a property's or attribute's type
    value: str = ""  # a data's value as the source writes it
    bases: tuple[str, ...] = ()
    members: list[ApiObject] = field(default_factory=list)
    init: ast.FunctionDef | ast.AsyncFunctionDef | None = None  # a class's __init__


@dataclass(slots=True)
class ModuleApi:
    """A module's documented objects, top level, in source order (``problem``: why it could not
    be read)."""

    docstring: str = ""
    objects: list[ApiObject] = field(default_factory=list)
    problem: str = ""
    aliases: dict[str, str] = field(default_factory=dict)  # ``nn_Module = nn.Module``: a base's real name

    @property
    def classes(self) -> set[str]:
        return {obj.name for obj in self.objects if obj.kind in ("class", "exception")}

    def find(self, parts: list[str]) -> ApiObject | None:
        """``["Module", "forward"]`` -> that method."""
        found: ApiObject | None = None
        members = self.objects
        for part in parts:
            found = next((obj for obj in members if obj.name == part), None)
            if found is None:
                return None
            members = found.members
        return found


@dataclass(frozen=True, slots=True)
class DocOptions:
    """The options of one autodoc directive that shape what is written."""

    members: tuple[str, ...] | None = None  # None: no members; (): all
    exclude: frozenset[str] = frozenset()
    private: bool = False
    special: tuple[str, ...] | None = None  # None: none; (): all
    order: str = "bysource"
    no_index: bool = False
    show_inheritance: bool = True  # polybook's default, as autodoc_default_options had it

    @classmethod
    def of(cls, options: dict[str, str], order: str) -> DocOptions:
        def names(key: str) -> tuple[str, ...] | None:
            if key not in options:
                return None
            return tuple(name.strip() for name in options[key].split(",") if name.strip())

        return cls(
            members=names("members"),
            exclude=frozenset(names("exclude-members") or ()),
            private="private-members" in options,
            special=names("special-members"),
            order=options.get("member-order") or order,
            no_index="no-index" in options or "noindex" in options,
            show_inheritance="no-show-inheritance" not in options,
        )


#: Where :func:`read_module` keeps what it read of a module, under the build folder.
STORE = ".polybook/api"


def read_module(path: Path, build_dir: Path | None = None) -> ModuleApi:
    """The module at ``path`` as its syntax tree shows it; kept while the file is unchanged, in
    this process and, given the ``build_dir``, beside the build, by the file (its path, which a
    problem names, and its bytes) and this module's code (the d2l library's torch.py is parsed in
    0.15 s: a one-page build did it again)."""
    stat = path.stat()
    if build_dir is None:
        return _read(path, stat.st_mtime_ns, stat.st_size)
    return _kept(path, stat.st_mtime_ns, stat.st_size, build_dir)


@functools.cache
def _kept(path: Path, mtime: int, size: int, build_dir: Path) -> ModuleApi:
    key = hashlib.sha256(_CODE + str(path).encode() + b"\0" + path.read_bytes()).hexdigest()  # a problem names it
    return kept(build_dir / STORE / f"{key}.pickle", ModuleApi, lambda: _read(path, mtime, size))


@functools.cache
def _read(path: Path, mtime: int, size: int) -> ModuleApi:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as error:
        return ModuleApi(problem=f"{path}:{error.lineno}: it does not parse ({error.msg})")
    except (OSError, ValueError, RecursionError, MemoryError) as error:
        return ModuleApi(problem=f"{path}: it cannot be read ({error})")
    lines = text.split("\n")
    module = ModuleApi(ast.get_docstring(tree) or "")
    classes: dict[str, ApiObject] = {}
    attached: list[tuple[str, ApiObject]] = []  # (class, method) of @add_to_class functions
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef):
            found = _class(node, lines)
            classes[node.name] = found
            _define(module.objects, found)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            owner = _added_to(node)
            if owner is not None:
                attached.append((owner, _function(node, "method")))
            else:
                _define(module.objects, _function(node, "function"))
        elif (data := _assigned(node, tree.body[index + 1 : index + 2], lines, "data")) is not None:
            _define(module.objects, data)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name | ast.Attribute):
            module.aliases.update({t.id: ast.unparse(node.value) for t in node.targets if isinstance(t, ast.Name)})
    for owner, method in attached:  # as importing the module makes them: methods of their class
        if owner in classes:
            _define(classes[owner].members, method)
    for found in classes.values():
        found.signature = _class_signature(found, classes)
    for found in classes.values():  # the syntax trees are not kept with the module
        found.init = None
    return module


def _class(node: ast.ClassDef, lines: list[str]) -> ApiObject:
    bases = tuple(ast.unparse(base) for base in node.bases)
    kind = (
        "exception" if any(b.rsplit(".", 1)[-1].endswith(("Error", "Exception", "Warning")) for b in bases) else "class"
    )
    found = ApiObject(kind, node.name, node.lineno, docstring=ast.get_docstring(node) or "", bases=bases)
    for index, child in enumerate(node.body):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            if child.name == "__init__":
                found.init = child
            decorators = {_name(d) for d in child.decorator_list}
            if any(d.endswith((".setter", ".deleter")) for d in decorators):
                continue  # the property is documented once, at its getter
            if decorators & {"property", "cached_property", "functools.cached_property"}:
                annotation = ast.unparse(child.returns) if child.returns else ""
                flags = ("abstractmethod",) if "abstractmethod" in decorators else ()
                doc = ast.get_docstring(child) or ""
                _define(found.members, ApiObject("property", child.name, child.lineno, "", doc, flags, annotation))
            else:
                _define(found.members, _function(child, "method"))
        elif isinstance(child, ast.ClassDef):
            _define(found.members, _class(child, lines))
        elif (attribute := _assigned(child, node.body[index + 1 : index + 2], lines, "attribute")) is not None:
            _define(found.members, attribute)
    return found


def _define(objects: list[ApiObject], obj: ApiObject) -> None:
    """Add ``obj`` to a module's or class's objects: a name defined again is the last definition,
    where it stands (as Python keeps it, and autodoc orders it)."""
    objects[:] = [other for other in objects if other.name != obj.name]
    objects.append(obj)


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str) -> ApiObject:
    decorators = {_name(d).rsplit(".", 1)[-1] for d in node.decorator_list}
    flags = tuple(flag for decorator, flag in _DECORATOR_OPTIONS.items() if decorator in decorators)
    if isinstance(node, ast.AsyncFunctionDef):
        flags += ("async",)
    drop_first = kind == "method" and "staticmethod" not in decorators
    signature = _signature(node.args, drop_first, node.returns)
    return ApiObject(kind, node.name, node.lineno, signature, ast.get_docstring(node) or "", flags)


def _assigned(node: ast.stmt, after: list[ast.stmt], lines: list[str], kind: str) -> ApiObject | None:
    """A module's or class's assignment worth documenting: a lambda (a function), or a name with
    a docstring after it or a ``#:`` comment before it (what autodoc documents of data)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        target, value, annotation = node.targets[0].id, node.value, ""
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        target, value, annotation = node.target.id, node.value, ast.unparse(node.annotation)
    else:
        return None
    if isinstance(value, ast.Lambda):
        function = "function" if kind == "data" else "method"
        return ApiObject(function, target, node.lineno, _signature(value.args, kind != "data", None))
    docstring = ""
    if after and isinstance(after[0], ast.Expr) and isinstance(after[0].value, ast.Constant):
        docstring = after[0].value.value if isinstance(after[0].value.value, str) else ""
    comment = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
    if comment.startswith("#:"):
        docstring = docstring or comment[2:].strip()
    elif not docstring:
        return None
    shown = ast.unparse(value) if value is not None else ""
    shown = shown if len(shown) <= _LONGEST_VALUE and "\n" not in shown else ""
    return ApiObject(
        kind, target, node.lineno, docstring=inspect.cleandoc(docstring), annotation=annotation, value=shown
    )


def _added_to(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The class a ``@d2l.add_to_class(C)`` decorator names (``C``), None for none."""
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and decorator.args and _name(decorator.func).endswith("add_to_class"):
            return _name(decorator.args[0]).rsplit(".", 1)[-1]
    return None


def _name(node: ast.expr) -> str:
    """A decorator or base as a dotted name (``functools.cached_property``); a call's function."""
    if isinstance(node, ast.Call):
        node = node.func
    return ast.unparse(node)


def _signature(args: ast.arguments, drop_first: bool, returns: ast.expr | None) -> str:
    """``(a, b=1) -> int``, without ``self``/``cls`` for a method."""
    if drop_first:
        args = copy.copy(args)
        if args.posonlyargs:
            args.posonlyargs = args.posonlyargs[1:]
        elif args.args:
            args.args = args.args[1:]
        args.defaults = args.defaults[-len(args.posonlyargs + args.args) :] if args.posonlyargs + args.args else []
    text = f"({ast.unparse(args)})"
    return f"{text} -> {ast.unparse(returns)}" if returns is not None else text


def _class_signature(found: ApiObject, classes: dict[str, ApiObject], seen: frozenset[str] = frozenset()) -> str:
    """A class's ``__init__`` signature, or its first base's of the same module that has one."""
    if found.init is not None:
        return _signature(found.init.args, True, None)
    for base in found.bases:
        name = base.rsplit(".", 1)[-1]
        if name in classes and name not in seen:
            return _class_signature(classes[name], classes, seen | {found.name})
    return ""


def document_module(module: str, api: ModuleApi, options: DocOptions, indent: str, problems: list[str]) -> list[str]:
    """``.. automodule::``: the module, its docstring and (with ``:members:``) its members."""
    lines = [f"{indent}.. py:module:: {module}", *([f"{indent}   :no-index:"] if options.no_index else []), ""]
    lines += _docstring(api.docstring, indent, f"{module}", problems)
    for member in _members(api.objects, options, module=True):
        lines += document(member, module, "", options, indent, api, problems)
    return lines


def document(
    obj: ApiObject,
    module: str,
    prefix: str,
    options: DocOptions,
    indent: str,
    api: ModuleApi,
    problems: list[str],
) -> list[str]:
    """One object as the ``py:`` directive autodoc writes for it (``prefix``: its class's
    dotted name, for a member), its members when ``options`` asks for them."""
    qualified = f"{prefix}{obj.name}"
    signature = obj.signature if obj.kind not in ("property", "attribute", "data") else ""
    lines = [f"{indent}.. py:{_DIRECTIVE[obj.kind]}:: {qualified}{signature}", f"{indent}   :module: {module}"]
    if options.no_index:
        lines.append(f"{indent}   :no-index:")
    lines += [f"{indent}   :{flag}:" for flag in obj.flags]
    if obj.annotation:
        lines.append(f"{indent}   :type: {obj.annotation}")
    if obj.value and obj.kind in ("data", "attribute"):
        lines.append(f"{indent}   :value: {obj.value}")
    lines.append("")
    body = indent + "   "
    if obj.kind in ("class", "exception") and options.show_inheritance:
        bases = [_base(base, module, api) for base in obj.bases] or [":py:class:`object`"]
        lines += [f"{body}Bases: {', '.join(bases)}", ""]
    lines += _docstring(obj.docstring, body, f"{module}.{qualified}", problems)
    if obj.kind in ("class", "exception") and options.members is not None:
        for member in _members(obj.members, options, module=False):
            lines += document(member, module, f"{qualified}.", options, body, api, problems)
    return lines


def _base(base: str, module: str, api: ModuleApi) -> str:
    """A base class as autodoc shows it: its own name, linked when it is documented here (a
    name the module gives another class, ``nn_Module = nn.Module``, is that class)."""
    name = base.rsplit(".", 1)[-1]
    base = api.aliases.get(name, base)
    target = f"{module}.{name}" if name in api.classes else base
    return f":py:class:`~{target}`" if target.replace(".", "").replace("_", "").isalnum() else f"``{base}``"


def _members(objects: list[ApiObject], options: DocOptions, module: bool) -> list[ApiObject]:
    """The members ``options`` asks for, in its order (a module's: not the methods its functions
    became)."""
    chosen = [obj for obj in objects if _wanted(obj.name, options) and not (module and obj.kind == "method")]
    if options.order == "alphabetical":
        return sorted(chosen, key=lambda obj: obj.name)
    if options.order == "groupwise":
        return sorted(chosen, key=lambda obj: (_GROUP[obj.kind], obj.name))
    return chosen


def _wanted(name: str, options: DocOptions) -> bool:
    """Is a member shown: named by ``:members:``, else public, or private or special as asked."""
    if name in options.exclude:
        return False
    if options.members:
        return name in options.members
    if name.startswith("__") and name.endswith("__"):
        return options.special == () or (options.special is not None and name in options.special)
    return not name.startswith("_") or options.private


def _docstring(text: str, indent: str, where: str, problems: list[str]) -> list[str]:
    """A docstring's lines as the directive's content. A directive in it that would read a file
    or run something (``.. include::``, ``.. raw::``...) is left out: a docstring shows text."""
    if not text:
        return []
    lines = text.split("\n")
    for directive in reversed(read_directives(text)):
        if directive.reach is not None:
            problems.append(f"the docstring of {where} has `{directive.written}`: left out (a docstring shows text)")
            lines[directive.start : directive.end] = [f"{directive.indent}.. polybook: left out: {directive.name}"]
    return [f"{indent}{line}" if line.strip() else "" for line in lines] + [""]
