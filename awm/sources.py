"""The source files that shape a stage's output, and one digest of them: the code half of a stage's code version.

A stage's output is shaped by its stage module (the harness and the stage's gate) and by the generator's
code for that stage: for the offline builder, the builder modules it calls (the world plan, templates,
intents, phrasing, codegen, ...) and the catalogue's data files; for a model, the backend and its prompts.
Each generator names only its entry modules per stage (`SOURCES` in awm/backends/offline.py; the stage and
backend modules for the model, in awm/backends/llm.py); the files are found from them, not listed:

- every module of the core reachable by import from an entry module (imports read from the source, nothing
  is executed; an import inside a function counts, since it runs when the function does), and the
  `__init__` of every package on the way, which importing a module runs (with what its top level imports);
- the data files of every package reached (`*.yaml`, `*.json`, ..., also in a data folder that is not a
  package itself, such as the catalogue's `packs/`);
- the modules a module imports by name at run time, found by scanning a package (the builder's categories,
  awm/builder/categories), which it names in a line `# discovers: <pattern>` (`*` stands for one part of a
  dotted name: `awm.builder.categories.*.tools`); like an import, read at the top level or inside a function;
- an entry written `shallow:<module>` contributes its own file (and its packages) but not what it imports:
  a backend module imports the generators of every stage, and each stage's entries name its own.

Left out, with why (`EXCLUDED`): the runtime (`awm.runtime`) runs what the stages wrote and writes no
artifact; a change there rebuilds nothing. Modules outside the core (the standard library, third-party
packages) are not read; the versions of the interpreter and of the packages that generate values are named
per generator instead (`distributions`: `DISTRIBUTIONS` in awm/backends/offline.py). A generator may also
leave out parts it never calls although a module it calls imports them (`exclude`: the offline builder
calls no model; the model's transport does not decide its answers).

The digest is of the sorted file list (paths relative to the repository) and each file's bytes: no mtimes,
nothing of this machine, the same on every checkout. Imports are found with a regular expression, and the
files are read once per process (the result is cached): about 0.2 s for the six stages of the offline builder
(about 220 files and 2.5 MB for the largest).
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the directory holding the awm package
CORE = "awm"
SHALLOW = "shallow:"

# Parts of the core that never shape a stage's output, and why.
EXCLUDED: dict[str, str] = {
    "awm.runtime": "runs the environments the stages wrote (the gates smoke-call and prove through it); it "
                   "writes no artifact",
}

DATA_SUFFIXES = (".yaml", ".yml", ".json", ".txt", ".sql", ".csv", ".toml")


def _excluded(module: str, parts: Iterable[str]) -> bool:
    return any(module == part or module.startswith(part + ".") for part in parts)


@cache
def _module_path(module: str, root: Path) -> tuple[Path, bool] | None:
    """The file of a core module and whether it is a package, or None if the name is not a module."""
    base = root.joinpath(*module.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py", True
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py"), False
    return None


# `import a.b as c, d` and `from .a import (b, c as d)` at any indentation (imports inside functions run too).
_IMPORT = re.compile(rb"^([ \t]*)(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]+))",
                     re.MULTILINE)
_COMMENT = re.compile(rb"#[^\n]*")
# `# discovers: awm.builder.categories.*.tools`: modules imported by a name found at run time
_DISCOVERS = re.compile(rb"^([ \t]*)# discovers: ([\w.*]+)[ \t]*$", re.MULTILINE)


def _names(clause: bytes) -> list[str]:
    clause = _COMMENT.sub(b"", clause).strip(b"() \t\\")
    return [part.split()[0].decode() for part in clause.replace(b"\\\n", b" ").split(b",") if part.split()]


@cache
def _imports(path: Path, module: str, is_package: bool, top_level: bool = False) -> tuple[str, ...]:
    """The dotted names a module imports (absolute; `from pkg import name` gives pkg and pkg.name, which may be
    a submodule or an attribute: the caller resolves each to its longest module prefix). With `top_level`, only
    the imports at the module's top level: those that run when the module is imported.

    Read with a regular expression, not ast (80 times faster: a code location loads in milliseconds): an
    import-like line inside a string, or an import under `if TYPE_CHECKING:`, counts too, which can only add
    a file to the digest, never leave one out."""
    package = module if is_package else module.rpartition(".")[0]
    names: list[str] = []
    for indent, base, imported, plain in _IMPORT.findall(path.read_bytes()):
        if top_level and indent:
            continue
        if plain:
            names.extend(_names(plain))
            continue
        base = base.decode()
        level = len(base) - len(base.lstrip("."))
        base = base[level:]
        if level:
            parts = package.split(".")
            parent = ".".join(parts[:len(parts) - level + 1])
            base = f"{parent}.{base}" if base else parent
        names.append(base)
        names.extend(f"{base}.{name}" for name in _names(imported) if name != "*")
    return tuple(names)


@cache
def _discovers(path: Path, top_level: bool = False) -> tuple[str, ...]:
    """The patterns of a module's `# discovers:` lines (with `top_level`, those at its top level)."""
    return tuple(pattern.decode() for indent, pattern in _DISCOVERS.findall(path.read_bytes())
                 if not (top_level and indent))


def _discovered(pattern: str, where: Path) -> list[str]:
    """The modules a `# discovers:` pattern names, found under the root of the core (the folder above it)."""
    parts = pattern.split(".")
    if parts[0] != CORE:
        raise ValueError(f"{where}: '# discovers: {pattern}' must name modules of the core ({CORE}.*)")
    root = where.resolve()
    while root.name != CORE or not (root / "__init__.py").is_file():
        if root.parent == root:
            raise ValueError(f"{where}: not inside the {CORE} package")
        root = root.parent
    found = [(CORE, root)]
    for part in parts[1:]:
        step = []
        for name, folder in found:
            if not folder.is_dir():
                continue
            for child in sorted(folder.iterdir()):
                stem = child.stem if child.suffix == ".py" else child.name
                if child.name == "__pycache__" or stem == "__init__" or not fnmatch.fnmatchcase(stem, part):
                    continue
                if child.suffix == ".py" or child.is_dir():  # a folder without __init__.py: a namespace package
                    step.append((f"{name}.{stem}", child))
        found = step
    return [name for name, path in found if path.suffix == ".py" or (path / "__init__.py").is_file()]


def _resolve(name: str, root: Path) -> str | None:
    """The longest prefix of an imported name that is a core module."""
    while name:
        if (name == CORE or name.startswith(CORE + ".")) and _module_path(name, root) is not None:
            return name
        name = name.rpartition(".")[0]
    return None


def _data_files(package_dir: Path) -> list[Path]:
    """A package's data files: in its folder and in subfolders that are not packages themselves."""
    found: list[Path] = []
    for path in package_dir.iterdir():
        if path.is_file() and path.suffix in DATA_SUFFIXES:
            found.append(path)
        elif path.is_dir() and path.name != "__pycache__" and not (path / "__init__.py").exists():
            found.extend(_data_files(path))
    return found


def closure(entries: Iterable[str], exclude: Iterable[str] = (), root: Path | None = None) -> tuple[str, ...]:
    """The files (relative to the root, sorted) that the entry modules are made of (the module docstring);
    `exclude` names parts of the core that a generator never calls although a module it calls imports them
    (besides `EXCLUDED`)."""
    root = (root or ROOT).resolve()
    excluded = (*EXCLUDED, *exclude)
    files: set[Path] = set()
    # (module, how): "deep" follows every import of the module, also those inside functions (they run when the
    # function does); "package" only its top-level imports: a package reached because one of its modules is
    # imported runs its __init__'s top level, not its functions; "shallow" follows none.
    todo: list[tuple[str, str]] = []
    for entry in entries:
        module = entry.removeprefix(SHALLOW)
        if _module_path(module, root) is None:
            raise ValueError(f"source entry {entry!r}: no module {module} under {root}")
        todo.append((module, "shallow" if entry.startswith(SHALLOW) else "deep"))
    rank = {"shallow": 0, "package": 1, "deep": 2}
    seen: dict[str, str] = {}
    while todo:
        module, how = todo.pop()
        if (module in seen and rank[seen[module]] >= rank[how]) or _excluded(module, excluded):
            continue
        seen[module] = how
        found = _module_path(module, root)
        if found is None:
            continue
        path, is_package = found
        files.add(path)
        if is_package:
            files.update(_data_files(path.parent))
        parent = module.rpartition(".")[0]
        if parent:
            todo.append((parent, "package"))
        if how != "shallow":
            # the folders a discovery scans are listed anew each time (a category added is found)
            discovered = [name for pattern in _discovers(path, how == "package") for name in _discovered(pattern, path)]
            for name in (*_imports(path, module, is_package, top_level=how == "package"), *discovered):
                target = _resolve(name, root)
                if target is not None:
                    todo.append((target, "deep"))
    return tuple(sorted(p.relative_to(root).as_posix() for p in files))


def _distribution_version(name: str) -> str:
    if name == "python":
        return "{}.{}".format(*sys.version_info[:2])
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


@cache
def _digest(files: tuple[str, ...], distributions: tuple[str, ...], root: Path) -> str:
    h = hashlib.sha256()
    for rel in files:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    for name in sorted(distributions):
        h.update(f"{name}=={_distribution_version(name)}\0".encode())
    return h.hexdigest()[:16]


@cache
def _closure_cached(entries: tuple[str, ...], exclude: tuple[str, ...], root: Path) -> tuple[str, ...]:
    return closure(entries, exclude, root)


def source_digest(entries: Iterable[str], distributions: Iterable[str] = (), exclude: Iterable[str] = (),
                  root: Path | None = None) -> str:
    """The digest of everything the entry modules are made of (16 hex digits), and of the versions of the
    named distributions (`python` is the interpreter's major.minor)."""
    root = (root or ROOT).resolve()
    found = _closure_cached(tuple(sorted(set(entries))), tuple(sorted(set(exclude))), root)
    return _digest(found, tuple(sorted(set(distributions))), root)
