"""Categories of business, one folder each: everything only one kind of business has.

A category is the folder awm/builder/categories/<category>/ (its name is the category's, as in the catalogue).
It holds up to six files, and nothing lists them elsewhere: the builder finds a category by scanning this
package (`discover`), in the order of the folders' names.

    __init__.py    the package (a docstring saying what the category is)
    pack.yaml      its catalogue pack: the generic modules its businesses may carry and its domains
                   (awm.builder.catalogue loads it; catalogue.yaml orders the packs it lists)
    entities.py    the tables only it keeps (`CATEGORY`, `LABELS`, `ALT_LABELS`, `GROUPS`, `entities`, `FILL`:
                   awm.builder.modules.packs describes them)
    tools.py       the tools of those tables (`ROLES`, `declare(builder)`), bound to templates.py
    templates.py   the tools' code: one function per kind of tool, real Python with placeholders, rendered
                   through the AST emitter and held to the sandbox policy like every template
    requests.py    every request (intent) for it, registered on import: about its own tables, and over the
                   generic modules (many on a shape of awm/builder/intents/shapes.py); one that other categories
                   share names them all and is here if this is the first it names (awm.builder.intents.base.intent
                   refuses a request for some categories registered anywhere else)

Only pack.yaml is needed (a category may have domains and no tables of its own); entities.py is needed by
tools.py and requests.py. A malformed category fails here, when it is found, with an error naming the file:
a folder whose name is not a category name, an entities.py whose `CATEGORY` is not its folder's, or a label
that cannot become a table's name.

A module that imports category modules found here says so in a line `# discovers: <pattern>` (for example
`awm.builder.categories.*.tools`), so the code versions (awm/sources.py) digest what it found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType

from awm.contracts import IDENT
from awm.errors import CatalogueError

KINDS = ("entities", "tools", "templates", "requests")
_NAME = re.compile(r"[a-z][a-z0-9_]{1,40}")
_LABEL = re.compile(r"[a-z][a-z0-9]*( [a-z][a-z0-9]*)*")


class CategoryError(CatalogueError):
    """A category folder that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Category:
    name: str
    folder: Path
    package: str  # the dotted name of its package

    def has(self, kind: str) -> bool:
        return (self.folder / f"{kind}.py").is_file()

    def module(self, kind: str) -> ModuleType:
        """The category's module of that kind (imported; entities checked)."""
        if kind not in KINDS:
            raise ValueError(f"unknown category module kind {kind!r}; known: {', '.join(KINDS)}")
        module = import_module(f"{self.package}.{kind}")
        if kind == "entities":
            check_entities(self, module)
        return module


def _shown(path: Path) -> str:
    """A path as an error shows it: relative to the folder holding the awm package when under it."""
    try:
        return path.resolve().relative_to(Path(__file__).resolve().parents[3]).as_posix()
    except ValueError:
        return path.as_posix()


def _where(category: Category, kind: str) -> str:
    return _shown(category.folder / f"{kind}.py")


def table_names(label: str) -> tuple[str, ...]:
    """The names a label gives a table and its code prefix column (awm.builder.naming)."""
    from awm.builder.naming import plural, snake

    return snake(label), snake(plural(label))


def check_entities(category: Category, module: ModuleType) -> None:
    """An entities module fits its folder: `CATEGORY` is the folder's name, every label (and alternative
    label) is lowercase words that make a valid table name, and every group's roles are labelled."""
    where = _where(category, "entities")
    if getattr(module, "CATEGORY", None) != category.name:
        raise CategoryError(f"{where}: CATEGORY is {getattr(module, 'CATEGORY', None)!r}, expected "
                            f"{category.name!r} (the folder's name)")
    for attr in ("LABELS", "GROUPS", "FILL"):
        if not isinstance(getattr(module, attr, None), dict):
            raise CategoryError(f"{where}: expected a dict {attr}")
    if not callable(getattr(module, "entities", None)):
        raise CategoryError(f"{where}: expected a function entities(L, has, flavour)")
    for attr in ("LABELS", "ALT_LABELS"):
        for role, label in getattr(module, attr, {}).items():
            if not isinstance(role, str) or not IDENT.fullmatch(role):
                raise CategoryError(f"{where}: {attr}: role {role!r} is not a valid name ([a-z][a-z0-9_]*)")
            bad = [name for name in table_names(label) if not IDENT.fullmatch(name)] \
                if isinstance(label, str) and _LABEL.fullmatch(label) else [label]
            if bad:
                raise CategoryError(f"{where}: {attr}[{role!r}] = {label!r} cannot name a table: a label is "
                                    "lowercase words of letters and digits, making a name [a-z][a-z0-9_]{0,62}")
    for name, group in module.GROUPS.items():
        unlabelled = sorted(set(group.roles) - set(module.LABELS))
        if unlabelled:
            raise CategoryError(f"{where}: group {name!r} has roles without a label: {unlabelled}")


def discover(folder: Path | None = None, package: str | None = None) -> dict[str, Category]:
    """The categories under `folder` (this package's by default), by name, in name order."""
    folder = Path(__file__).parent if folder is None else Path(folder)
    package = __name__ if package is None else package
    found: dict[str, Category] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_dir() or path.name.startswith(("_", ".")):
            continue
        if not (path / "__init__.py").is_file():
            raise CategoryError(f"{_shown(path)}: a category folder needs an __init__.py")
        if not _NAME.fullmatch(path.name):
            raise CategoryError(f"{_shown(path)}: {path.name!r} is not a category name ([a-z][a-z0-9_]{{1,40}})")
        if not (path / "pack.yaml").is_file():
            raise CategoryError(f"{_shown(path / 'pack.yaml')}: missing (every category has its catalogue pack)")
        category = Category(path.name, path, f"{package}.{path.name}")
        for kind in ("tools", "requests"):
            if category.has(kind) and not category.has("entities"):
                raise CategoryError(f"{_where(category, kind)}: the category has no entities.py for it to use")
        found[path.name] = category
    return found


@cache
def categories() -> dict[str, Category]:
    """The built-in categories."""
    return discover()


def modules(kind: str) -> dict[str, ModuleType]:
    """The built-in categories' modules of one kind, by category, in name order (those that have one)."""
    return {name: c.module(kind) for name, c in categories().items() if c.has(kind)}
