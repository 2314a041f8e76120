"""The catalogue as data: category packs in YAML, validated on load, with errors that name what was wrong."""

from pathlib import Path

import pytest

import awm.builder.catalogue as catalogue
from awm.builder.catalogue import DOMAIN_SEEDS, parse_domain
from awm.errors import CatalogueError

CATEGORIES_DIR = Path(catalogue.__file__).parent.parent / "categories"


def _entry(**changes):
    seed = DOMAIN_SEEDS["retail_banking"].model_dump()
    seed.pop("category")
    seed.update(changes)
    return seed


def test_every_pack_file_is_listed_and_every_listed_pack_loads():
    files = {p.parent.name for p in CATEGORIES_DIR.glob("*/pack.yaml")}
    assert files == {s.category for s in DOMAIN_SEEDS.values()}
    assert list(DOMAIN_SEEDS)[:2] == ["online_retail", "fashion_boutique"]  # catalogue order is pack order


def test_a_valid_entry_round_trips():
    seed = parse_domain(_entry(), "banking", "test")
    assert seed == DOMAIN_SEEDS["retail_banking"]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"flavour": "barter"}, "flavour", "unknown flavour 'barter'"),
        ({"modules": ["invoices", "teleport"]}, "modules", "unknown modules ['teleport']"),
        ({"roles": {"party": "Customer!"}}, "roles", "bad label 'Customer!' for party"),
        ({"roles": {"wizard": "mage"}}, "roles", "unknown role 'wizard'"),
        ({"price_range": [50, 5]}, "price_range", "must be [low, high]"),
        ({"title": None}, "title", "valid string"),
    ],
)
def test_bad_fields_are_named_with_file_and_domain(change, field, message):
    with pytest.raises(CatalogueError) as err:
        parse_domain(_entry(**change), "banking", "catalogue file packs/banking.yaml")
    text = str(err.value)
    assert text.startswith("catalogue file packs/banking.yaml: domain 'retail_banking': ")
    assert f"{field}" in text and message in text


def test_sub_business_errors_name_the_position():
    entry = _entry()
    first = next(iter(entry["sub_businesses"][3]["categories"]))
    entry["sub_businesses"][3]["categories"][first] = []
    with pytest.raises(CatalogueError, match=rf"sub_businesses\.3: .*category '{first}' has no items"):
        parse_domain(entry, "banking", "here")
    with pytest.raises(CatalogueError, match="needs 10 sub-businesses, got 9"):
        parse_domain(_entry(sub_businesses=_entry()["sub_businesses"][:9]), "banking", "here")
    with pytest.raises(CatalogueError, match="each domain must be a mapping"):
        parse_domain(["retail_banking"], "banking", "here")


def test_unknown_keys_are_refused():
    with pytest.raises(CatalogueError, match="colour: Extra inputs are not permitted"):
        parse_domain(_entry(colour="blue"), "banking", "here")


def test_offline_worlds_record_the_catalogue_they_were_built_from():
    """The pack files are part of every stage's sources: editing one rebuilds (tests/awm/test_sources.py)."""
    from awm.backends.offline import OfflineBackend, source_files, sources_digest
    from awm.stages.base import code_version

    backend = OfflineBackend()
    version = code_version("scenarios", backend.params, backend)
    assert version.endswith(f":code-{sources_digest('scenarios')}")
    files = source_files("scenarios")
    assert "awm/builder/catalogue/catalogue.yaml" in files
    assert {f"awm/builder/categories/{category}/pack.yaml" for category in catalogue.CATEGORIES} <= set(files)
