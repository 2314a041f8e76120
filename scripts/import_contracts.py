"""The layers of the code base, as import contracts checked over the source tree (no import is executed).

    python scripts/import_contracts.py [ROOT]   # exit 1 and name every broken contract (ROOT: the repo)

Contracts (docs/architecture.md explains the layers):
  core-without-dagster   the core `awm` imports neither dagster (nor its integrations) nor the Dagster
                         layer: awm_assets, resources, checks;
  core-acyclic           no import cycle inside the core: neither between its modules nor between its
                         parts (awm.stages, awm.quality, awm.runtime, ..., and each top-level module), so
                         the core reads as layers, each importing only from those below it;
  resources-below-assets resources import neither awm_assets nor checks;
  checks-use-keys-only   checks import from awm_assets only asset keys and partitions
                         (awm_assets.constants, awm_assets.partitions).

Every import counts, also one inside a function (it runs when the function does); only imports under
`if TYPE_CHECKING:` are left out. A checker over Python's ast rather than import-linter: the same rules
in a hundred lines with no dependency, and the cycle report names the modules of the cycle.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("awm", "awm_assets", "resources", "checks")
DAGSTER_PREFIXES = ("dagster", "dagster_")
DAGSTER_LAYER = ("awm_assets", "resources", "checks")
CHECK_MAY_USE = ("awm_assets.constants", "awm_assets.partitions")
# Cycles between parts of the core that are known and accepted for now, each with why. A cycle not listed
# here, or one that grows to take in another part, still breaks the contract.
KNOWN_PART_CYCLES: dict[frozenset[str], str] = {}


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    imported: str  # dotted module name as written (absolute)
    line: int


@dataclass
class Violation:
    contract: str
    message: str


@dataclass
class ImportGraph:
    modules: set[str] = field(default_factory=set)
    imports: list[Import] = field(default_factory=list)

    def add_source(self, module: str, source: str, is_package: bool = False) -> None:
        """Parse one module's source and record what it imports."""
        self.modules.add(module)
        package = module if is_package else module.rpartition(".")[0]
        self.imports += [Import(module, name, line) for name, line in _imports_in(source, package)]

    def resolve(self, name: str) -> str | None:
        """The module of the tree an imported name refers to: the name itself, or its longest known parent
        (`from awm.stages.base import STAGES` is recorded as awm.stages.base.STAGES)."""
        while name:
            if name in self.modules:
                return name
            name = name.rpartition(".")[0]
        return None

    def edges(self) -> dict[str, set[str]]:
        graph: dict[str, set[str]] = {m: set() for m in self.modules}
        for imp in self.imports:
            target = self.resolve(imp.imported)
            if target is not None and target != imp.importer:
                graph[imp.importer].add(target)
        return graph


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


# What an import statement can be inside: other statements (a function, a class, an if, a try and its handlers, a
# with, a match and its cases); never an expression, which the walk therefore leaves out.
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def _imports(tree: ast.AST) -> Iterable[tuple[ast.Import | ast.ImportFrom, int]]:
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if _type_checking_block(child):
                stack.extend(child.orelse)  # only the else branch runs
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, child.lineno
            elif isinstance(child, _HOLDS_STATEMENTS):
                stack.append(child)


@functools.lru_cache(maxsize=4096)
def _imports_in(source: str, package: str) -> tuple[tuple[str, int], ...]:
    """(imported name, line) of every import a module's source makes, parsed once per source text: a process that
    reads several copies of the tree (the contract tests break one file of a copy each) parses each text once."""
    return tuple((name, line) for node, line in _imports(ast.parse(source)) for name in _imported_names(node, package))


def _imported_names(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        parent = ".".join(parts[:len(parts) - node.level + 1])
        base = f"{parent}.{base}" if base else parent
    # `from pkg import sub` may name a submodule: record pkg.sub (resolve() falls back to pkg)
    return [f"{base}.{alias.name}" if alias.name != "*" else base for alias in node.names]


def graph_of(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> ImportGraph:
    graph = ImportGraph()
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            graph.add_source(".".join(parts), path.read_text(encoding="utf-8"), is_package)
    return graph


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def core_without_dagster(graph: ImportGraph) -> list[Violation]:
    found = []
    for imp in graph.imports:
        if not _in(imp.importer, "awm"):
            continue
        top = imp.imported.split(".")[0]
        if top in DAGSTER_LAYER or top == "dagster" or top.startswith("dagster_"):
            found.append(Violation("core-without-dagster",
                                   f"{imp.importer} (line {imp.line}) imports {imp.imported}: the core must not "
                                   "depend on Dagster or on the Dagster layer"))
    return found


def resources_below_assets(graph: ImportGraph) -> list[Violation]:
    return [Violation("resources-below-assets", f"{imp.importer} (line {imp.line}) imports {imp.imported}")
            for imp in graph.imports
            if _in(imp.importer, "resources") and imp.imported.split(".")[0] in ("awm_assets", "checks")]


def checks_use_keys_only(graph: ImportGraph) -> list[Violation]:
    found = []
    for imp in graph.imports:
        if not _in(imp.importer, "checks") or not _in(imp.imported, "awm_assets"):
            continue
        if not any(_in(imp.imported, allowed) for allowed in CHECK_MAY_USE):
            found.append(Violation("checks-use-keys-only",
                                   f"{imp.importer} (line {imp.line}) imports {imp.imported}: checks take only asset "
                                   f"keys and partitions from awm_assets ({', '.join(CHECK_MAY_USE)}); move shared "
                                   "logic to awm/quality"))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:  # iterative, so a deep graph cannot overflow the interpreter's stack
        nonlocal counter
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return groups


def part_of(module: str) -> str:
    """The part of the core a module belongs to: awm.stages.base -> awm.stages, awm.store -> awm.store."""
    return ".".join(module.split(".")[:2])


def core_acyclic(graph: ImportGraph) -> list[Violation]:
    edges = graph.edges()
    core = {m: {t for t in targets if _in(t, "awm")} for m, targets in edges.items() if _in(m, "awm")}
    found = []
    for group in cycles(core):
        members = set(group)
        links = [f"{m} -> {t}" for m in group for t in sorted(core[m] & members)]
        found.append(Violation("core-acyclic", f"import cycle between modules {', '.join(group)}: "
                                               f"{'; '.join(links)}"))
    parts: dict[str, set[str]] = {part_of(m): set() for m in core if m != "awm"}
    why: dict[tuple[str, str], list[str]] = {}
    for module, targets in core.items():
        for target in targets:
            a, b = part_of(module), part_of(target)
            if module != "awm" and target != "awm" and a != b:
                parts[a].add(b)
                why.setdefault((a, b), []).append(f"{module} -> {target}")
    for group in cycles(parts):
        if frozenset(group) in KNOWN_PART_CYCLES:
            continue
        members = set(group)
        links = [f"{link}" for a in group for b in sorted(parts[a] & members) for link in why[(a, b)][:3]]
        found.append(Violation("core-acyclic", f"import cycle between parts {', '.join(group)}: "
                                               f"{'; '.join(links)}"))
    return found


CONTRACTS = (core_without_dagster, core_acyclic, resources_below_assets, checks_use_keys_only)


def check(graph: ImportGraph) -> list[Violation]:
    return [v for contract in CONTRACTS for v in contract(graph)]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else ROOT
    missing = [p for p in PACKAGES if not (root / p).is_dir()]
    if missing:
        print(f"error: {root} has no {', '.join(missing)}: pass the repository's root", file=sys.stderr)
        return 2
    violations = check(graph_of(root))
    for v in violations:
        print(f"{v.contract}: {v.message}")
    if violations:
        print(f"{len(violations)} import contract violation(s)", file=sys.stderr)
        return 1
    print(f"import contracts kept: {', '.join(c.__name__.replace('_', '-') for c in CONTRACTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
