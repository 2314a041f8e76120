"""The placeholders templates import (awm.builder.templates.placeholders): every constant it keeps is imported by
some template, every name a template imports from it resolves, and a role's placeholders are derived on import
with the values a world binds."""

import ast
import re
from pathlib import Path

import pytest

import awm
import awm.builder.templates.placeholders as placeholders
from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.tools.base import entity_bindings
from awm.builder.world import make_scenario, plan_world

PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*")


def imported_placeholders() -> dict[str, set[str]]:
    """Each name imported from the placeholders module anywhere in the package, with the modules importing it."""
    found: dict[str, set[str]] = {}
    root = Path(awm.__file__).parent
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == placeholders.__name__:
                for alias in node.names:
                    found.setdefault(alias.name, set()).add(str(path.relative_to(root.parent)))
    return found


def test_every_placeholder_kept_is_imported_by_some_template():
    source = ast.parse(Path(placeholders.__file__).read_text(encoding="utf-8"))
    imports = {alias.asname or alias.name for node in source.body if isinstance(node, ast.ImportFrom | ast.Import)
               for alias in node.names}
    kept = {name for name in vars(placeholders) if PLACEHOLDER.fullmatch(name) and name not in imports}
    assert kept, "the module keeps the concerns' placeholders"
    assert sorted(kept - set(imported_placeholders())) == []


def test_every_placeholder_a_template_imports_is_defined_or_derived():
    undefined = {name: sorted(where) for name, where in imported_placeholders().items()
                 if not hasattr(placeholders, name)}
    assert undefined == {}


def test_a_role_placeholder_is_what_a_world_with_that_label_binds():
    labels = placeholders.role_labels()
    checked = 0
    for domain in sorted(DOMAIN_SEEDS)[:12]:
        plan = plan_world(make_scenario(domain, 0))
        for role, ent in plan.entities.items():
            if ent.label != labels.get(role):
                continue
            for name, value in entity_bindings(ent, role.upper()).items():
                if name != role.upper():
                    assert getattr(placeholders, name) == value, name
                    checked += 1
    assert checked > 100


def test_a_name_of_no_role_is_refused():
    with pytest.raises(AttributeError, match="WIDGET_TABLE"):
        placeholders.WIDGET_TABLE  # noqa: B018
    with pytest.raises(AttributeError):
        placeholders.ORDER_COLOUR  # noqa: B018
    with pytest.raises(ImportError):
        exec("from awm.builder.templates.placeholders import WIDGET_TABLE", {})
