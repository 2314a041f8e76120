"""A user's own domain from the seeds file, bare slugs mapped to a category pack, and the honest origin flag."""

import sqlite3

import pytest
import yaml

from awm.builder.catalogue import PACK_TEMPLATES
from awm.builder.catalogue.seeds import load_seed_domains
from awm.builder.world import make_scenario
from awm.contracts import Scenario, TaskSet, VerificationReport
from awm.domains import load_seeds_file
from awm.errors import SeedsFileError
from awm.stages.catalog import build_catalog
from awm.store import ArtifactStore
from tests.conftest import build_environment

TATTOO = {
    "slug": "tattoo_studio",
    "title": "Tattoo Studio",
    "category": "fitness",
    "flavour": "appointment",
    "roles": {
        "party": "client",
        "staff": "tattoo artist",
        "site": "studio",
        "category": "style",
        "item": "tattoo service",
        "case": "session booking",
        "line": "booked tattoo",
    },
    "modules": ["documents", "reviews", "shifts"],
    "price_range": [60, 1800],
    "sub_businesses": [
        {
            "name": "custom fine line tattoo studio",
            "categories": {
                "fine line": ["Fine Line Floral Sleeve", "Minimal Wrist Tattoo"],
                "blackwork": ["Blackwork Mandala Back Piece", "Dotwork Forearm Band"],
                "lettering": ["Script Lettering Collarbone", "Old English Name Tattoo"],
            },
        },
        {
            "name": "walk in flash tattoo parlour",
            "categories": {
                "flash": ["Traditional Swallow Flash", "Sailor Jerry Anchor Flash", "Rose and Dagger Flash"],
                "touch ups": ["Tattoo Touch Up Session", "Color Refresh Touch Up"],
                "consultations": ["Cover Up Consultation"],
            },
        },
    ],
}


@pytest.fixture
def seeds_file(tmp_path, monkeypatch):
    path = tmp_path / "seeds.yaml"
    path.write_text(yaml.safe_dump({"domains": ["retail_banking", "llama_farm", TATTOO]}, sort_keys=False))
    monkeypatch.setenv("AWM_SEEDS_FILE", str(path))
    return path


def test_a_seeds_file_domain_builds_publishes_proven_tasks_and_uses_its_own_items(seeds_file, tmp_path):
    assert load_seeds_file(seeds_file) == ["retail_banking", "llama_farm", "tattoo_studio"]
    store = ArtifactStore(tmp_path / "home")
    env_ids = []
    for slot, sub in enumerate(TATTOO["sub_businesses"]):
        outcomes = build_environment(store, "tattoo_studio", slot)
        assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
        env_id = f"tattoo_studio__{slot:02d}"
        env_ids.append(env_id)
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        assert (scenario.origin, scenario.category, scenario.sub_business) == ("seeds_file", "fitness", sub["name"])
        assert str(seeds_file) in scenario.origin_reason and not scenario.builtin
        conn = sqlite3.connect(store.path(env_id, "env.db"))
        rows = conn.execute(
            "SELECT i.name, s.name, i.price FROM tattoo_services i JOIN styles s ON s.id = i.style_id ORDER BY i.id"
        ).fetchall()
        conn.close()
        items = [name for name, _, _ in rows]
        prices = [price for _, _, price in rows]
        assert items == [item for group in sub["categories"].values() for item in group]
        assert all(name in sub["categories"][category] for name, category, _ in rows)  # filed where the file says
        assert all(60 <= p <= 1800 for p in prices)
        report = store.read_model(env_id, "report.json", VerificationReport)
        tasks = store.read_model(env_id, "tasks.json", TaskSet)
        assert len(report.passed) == len(tasks.tasks) == 10
        assert any(item in t.instruction for t in tasks.tasks for item in items)
    summary = build_catalog(store, env_ids)
    assert len(summary.entries) == 20
    assert {(e.origin, e.origin_reason.startswith("defined in the seeds file")) for e in summary.entries} == {
        ("seeds_file", True)
    }


def test_left_out_fields_come_from_the_pack(tmp_path):
    entry = {k: v for k, v in TATTOO.items() if k not in ("flavour", "roles", "modules", "price_range")}
    path = tmp_path / "seeds.yaml"
    path.write_text(yaml.safe_dump({"domains": [entry]}, sort_keys=False))
    seed = load_seed_domains(path)["tattoo_studio"]
    template = PACK_TEMPLATES["fitness"]
    assert (seed.flavour, seed.roles, seed.modules) == (template.flavour, template.roles, template.modules)


def test_a_bare_slug_is_mapped_to_the_closest_pack_with_the_reason_recorded(seeds_file):
    scenario = make_scenario("llama_farm", 0)
    assert scenario.origin == "composed" and not scenario.builtin
    assert scenario.category == "agriculture"
    assert "'farm'" in scenario.origin_reason and "'agriculture'" in scenario.origin_reason
    assert "'llama' not in that pack" in scenario.origin_reason
    nothing = make_scenario("qxz_vrk", 0)
    assert nothing.category == "composed" and "no word of 'qxz_vrk'" in nothing.origin_reason
    builtin = make_scenario("retail_banking", 0)
    assert (builtin.origin, builtin.builtin) == ("catalogue", True)


def _write(tmp_path, domains):
    path = tmp_path / "seeds.yaml"
    path.write_text(yaml.safe_dump({"domains": domains}, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {**TATTOO, "category": "tattooing"},
            r"entry 1: domain 'tattoo_studio': category: 'tattooing' is not a category pack",
        ),
        (
            {**TATTOO, "modules": ["teleport"]},
            r"entry 1: domain 'tattoo_studio': modules: unknown modules \['teleport'\]",
        ),
        ({**TATTOO, "roles": {"party": "Client!"}}, r"entry 1: domain 'tattoo_studio': roles: bad label 'Client!'"),
        (
            {**TATTOO, "sub_businesses": [{"name": "tiny", "categories": {"a": ["x"], "b": ["y"], "c": ["z"]}}]},
            r"entry 1: domain 'tattoo_studio': sub_businesses\.0: .*needs at least 6 items",
        ),
        ({**TATTOO, "slug": "Tattoo Studio"}, r"entry 1: invalid domain slug 'Tattoo Studio'"),
        ({**TATTOO, "slug": "dental_clinic"}, r"entry 1: 'dental_clinic' is a built-in domain"),
        ({**TATTOO, "colour": "red"}, r"entry 1: domain 'tattoo_studio': colour: Extra inputs are not permitted"),
    ],
)
def test_a_bad_seeds_file_names_the_file_entry_domain_and_field(tmp_path, entry, message):
    path = _write(tmp_path, [entry])
    with pytest.raises(SeedsFileError, match=rf"seeds file {path}, {message}"):
        load_seed_domains(path)


def test_a_domain_defined_twice_and_broken_yaml_are_refused(tmp_path):
    path = _write(tmp_path, [TATTOO, TATTOO])
    with pytest.raises(SeedsFileError, match="entry 2: domain 'tattoo_studio' is defined twice"):
        load_seed_domains(path)
    broken = tmp_path / "broken.yaml"
    broken.write_text("domains:\n  - slug: [unclosed\n")
    with pytest.raises(SeedsFileError, match="is not valid YAML"):
        load_seeds_file(broken)
