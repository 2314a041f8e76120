"""One folder per category (awm/builder/categories/<category>/), found by scanning, never listed.

A category added in a temporary folder is discovered with its modules; a malformed one is refused when it is
found, with an error naming its file (not later, at the schemas stage of some build).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from awm.builder import categories
from awm.builder.catalogue import CATEGORIES
from awm.builder.categories import CategoryError, discover
from awm.builder.intents import INTENTS
from awm.builder.intents.base import intent
from awm.builder.modules.packs import PACK_MODULES
from awm.builder.tools import CONCERNS

ENTITIES = '''
from awm.builder.entities import Col, Entity, pk_col
from awm.builder.categories.group import Group

CATEGORY = "{category}"
LABELS = {{"widget_batch": "{label}"}}
ALT_LABELS = {{"widget_batch": "gadget batch"}}
GROUPS = {{"batches": Group(("widget_batch",))}}
FILL = {{}}


def entities(L, has, flavour):
    return [Entity("widget_batch", L["widget_batch"], [pk_col(), Col("name", "TEXT", False)])]
'''
TOOLS = '''
from awm.builder.tools.base import ToolBuilder

ROLES = ("widget_batch",)


def declare(b: ToolBuilder) -> None:
    b.get_tool("widget_batch")
'''


# Its requests: one about its own table, one on a shared shape that a second category shares.
REQUESTS = '''
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.shapes import define, escalate_urgent


@intent("question", categories=("{category}",), needs=("widget_batch",))
def {category}_count_batches(w: World) -> Plan | None:
    return None


define("{category}_escalate_urgent", "aggregate", ("{category}", "gizmos"), lambda w: escalate_urgent(
    w, ("escalate every urgent {{TICKET}}",)), needs=("ticket",))
'''


def write_category(folder: Path, name: str = "widgets", label: str = "widget batch", category: str | None = None,
                   files: tuple[str, ...] = ("__init__.py", "pack.yaml", "entities.py", "tools.py")) -> Path:
    path = folder / name
    path.mkdir(parents=True)
    contents = {"__init__.py": '"""Widgets."""\n', "pack.yaml": f"category: {name}\nmodules: []\ndomains: []\n",
                "entities.py": ENTITIES.format(category=category or name, label=label), "tools.py": TOOLS,
                "requests.py": REQUESTS.format(category=category or name)}
    for file in files:
        (path / file).write_text(textwrap.dedent(contents[file]))
    return path


@pytest.fixture
def extra(tmp_path, monkeypatch) -> Path:
    """A package `extra_categories` on the import path, empty until a test writes categories into it."""
    folder = tmp_path / "extra_categories"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    import sys

    for name in [m for m in sys.modules if m == "extra_categories" or m.startswith("extra_categories.")]:
        del sys.modules[name]
    for name in [n for n, i in INTENTS.items() if i.module.startswith("extra_categories.")]:
        del INTENTS[name]


def test_every_built_in_category_is_a_folder_and_every_folder_is_used():
    found = categories.categories()
    assert sorted(found) == sorted(CATEGORIES)  # every catalogue pack has its folder, and no folder is stray
    assert list(PACK_MODULES) == [name for name, c in found.items() if c.has("entities")]
    discovered_tools = [c.module("tools") for c in found.values() if c.has("tools")]
    assert CONCERNS[-len(discovered_tools):] == tuple(discovered_tools)
    for name, category in found.items():
        assert category.folder == Path(categories.__file__).parent / name
        assert PACK_MODULES[name].CATEGORY == name


def test_a_category_added_in_a_folder_is_discovered_with_its_modules(extra):
    assert discover(extra, "extra_categories") == {}
    write_category(extra)
    found = discover(extra, "extra_categories")
    assert list(found) == ["widgets"]
    widgets = found["widgets"]
    assert widgets.has("entities") and widgets.has("tools") and not widgets.has("requests")
    entities = widgets.module("entities")
    assert entities.__name__ == "extra_categories.widgets.entities"
    assert entities.GROUPS["batches"].roles == ("widget_batch",)
    assert widgets.module("tools").ROLES == ("widget_batch",)
    write_category(extra, "gizmos")
    assert list(discover(extra, "extra_categories")) == ["gizmos", "widgets"]  # in name order


def test_a_category_added_in_a_folder_registers_its_requests_from_it(extra):
    """Its requests.py registers its requests (with `intent`, or with `define` on a shared shape), and nothing else
    lists them; one it shares with another category is in the folder of the first it names."""
    write_category(extra, files=("__init__.py", "pack.yaml", "entities.py", "tools.py", "requests.py"))
    widgets = discover(extra, "extra_categories")["widgets"]
    assert widgets.has("requests")
    assert "widgets_count_batches" not in INTENTS
    widgets.module("requests")
    own, shared = INTENTS["widgets_count_batches"], INTENTS["widgets_escalate_urgent"]
    assert (own.categories, own.needs, own.shape) == (("widgets",), ("widget_batch",), "question")
    assert (shared.categories, shared.needs, shared.shape) == (("widgets", "gizmos"), ("ticket",), "aggregate")
    assert own.module == shared.module == "extra_categories.widgets.requests"


def test_a_request_for_another_category_is_refused_where_it_is_registered(extra):
    """A category's folder registers only requests that name it first: gizmos/requests.py registering a request
    for widgets fails on import, naming the folder it belongs in."""
    write_category(extra, "gizmos", category="widgets",
                   files=("__init__.py", "pack.yaml", "entities.py", "tools.py", "requests.py"))
    (extra / "gizmos" / "entities.py").write_text(ENTITIES.format(category="gizmos", label="widget batch"))
    with pytest.raises(ValueError, match=r"intent 'widgets_count_batches' is for widgets: register it from the "
                                         r"requests.py of the first category it names \(awm/builder/categories/"
                                         r"widgets/requests.py\), not from extra_categories.gizmos.requests"):
        discover(extra, "extra_categories")["gizmos"].module("requests")
    assert "widgets_count_batches" not in INTENTS


def test_every_request_for_some_categories_is_registered_from_the_folder_of_the_first_it_names():
    """One place per category's requests (no second registry of category requests elsewhere): a request for some
    categories is registered from the requests.py of the first it names, every request a category folder registers
    names that category first, and registering one from anywhere else fails."""
    folders = "awm.builder.categories."
    misplaced = [(n, i.categories, i.module) for n, i in INTENTS.items()
                 if (i.categories or i.module.startswith(folders))
                 and i.module != f"{folders}{(i.categories or ('',))[0]}.requests"]
    assert not misplaced
    assert {i.module for i in INTENTS.values() if i.categories} == {
        f"{folders}{name}.requests" for name, c in categories.categories().items() if c.has("requests")}

    def bank_fee_waiver(w):
        return None

    with pytest.raises(ValueError, match=r"awm/builder/categories/banking/requests.py\), not from tests\."):
        intent("action", categories=("banking", "fintech"))(bank_fee_waiver)
    assert "bank_fee_waiver" not in INTENTS


@pytest.mark.parametrize(("label", "shown"), [
    ("widget-batch", "'widget-batch'"),  # a hyphen: the table would be named widget-batches
    ("Widget batch", "'Widget batch'"),
    ("9 lives", "'9 lives'"),
    ("", "''"),
])
def test_a_label_that_cannot_name_a_table_is_refused_at_discovery_naming_the_file(extra, label, shown):
    write_category(extra, label=label)
    category = discover(extra, "extra_categories")["widgets"]
    with pytest.raises(CategoryError) as raised:
        category.module("entities")
    assert f"extra_categories/widgets/entities.py: LABELS['widget_batch'] = {shown} cannot name a table" in str(
        raised.value)


def test_a_malformed_category_folder_is_refused_naming_what_is_wrong(extra):
    write_category(extra, category="gadgets")
    with pytest.raises(CategoryError, match=r"widgets/entities.py: CATEGORY is 'gadgets', expected 'widgets'"):
        discover(extra, "extra_categories")["widgets"].module("entities")
    write_category(extra, "Bad-Name")
    with pytest.raises(CategoryError, match=r"Bad-Name: 'Bad-Name' is not a category name"):
        discover(extra, "extra_categories")


def test_a_category_without_its_pack_or_with_tools_and_no_tables_is_refused(extra):
    write_category(extra, files=("__init__.py", "entities.py"))
    with pytest.raises(CategoryError, match=r"widgets/pack.yaml: missing"):
        discover(extra, "extra_categories")
    (extra / "widgets" / "pack.yaml").write_text("category: widgets\n")
    (extra / "widgets" / "entities.py").rename(extra / "widgets" / "unused.py")
    (extra / "widgets" / "tools.py").write_text(TOOLS)
    with pytest.raises(CategoryError, match=r"widgets/tools.py: the category has no entities.py for it to use"):
        discover(extra, "extra_categories")


@pytest.mark.parametrize("kind", ["entities", "tools", "templates", "requests", "placeholders"])
def test_a_category_module_imports_first_in_a_fresh_interpreter(kind):
    """Whichever module a process imports first, the discovery does not meet a half-imported category module (an
    entities.py importing a package whose __init__ discovers the entities again)."""
    import subprocess
    import sys

    module = "awm.builder.templates.placeholders" if kind == "placeholders" else f"awm.builder.categories.agriculture.{kind}"
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
