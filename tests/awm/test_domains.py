import json

import pytest

from awm.builder.catalogue import CATEGORIES, DOMAIN_SEEDS
from awm.builder.catalogue.seeds import resolve_domains
from awm.domains import env_id_for, load_seeds_file, split_env_id, validate_domain_slug
from awm.errors import InvalidDomainError, SeedsFileError


@pytest.mark.parametrize("slug", ["banking", "dental_clinic", "k12_school", "ab"])
def test_valid_slugs(slug):
    assert validate_domain_slug(slug) == slug


@pytest.mark.parametrize("slug", ["", "a", "Banking", "bank|ing", "bank,ing", "9lives", "a b", "x__y", "a/b", None, 3,
                                  "banking\n", "\nbanking"])
def test_invalid_slugs_are_refused_with_the_value_named(slug):
    with pytest.raises(InvalidDomainError, match="invalid domain slug"):
        validate_domain_slug(slug)


def test_env_ids_are_url_safe_and_round_trip():
    env_id = env_id_for("banking", 3)
    assert env_id == "banking__03"
    assert split_env_id(env_id) == ("banking", 3)
    with pytest.raises(InvalidDomainError):
        split_env_id("../etc")
    with pytest.raises(InvalidDomainError):
        split_env_id("banking__03\n")


def test_catalogue_size():
    assert len(DOMAIN_SEEDS) >= 100
    assert len(CATEGORIES) >= 20
    for seed in DOMAIN_SEEDS.values():
        assert len(seed.sub_businesses) >= 10
        assert len({s.name for s in seed.sub_businesses}) == len(seed.sub_businesses), seed.slug


def test_seeds_file_forms(tmp_path):
    plain = tmp_path / "seeds.txt"
    plain.write_text("# my domains\nbanking\n\nllama_farm\nbanking\n")
    assert load_seeds_file(plain) == ["banking", "llama_farm"]
    as_json = tmp_path / "seeds.json"
    as_json.write_text(json.dumps({"domains": ["a1", "b2"]}))
    assert load_seeds_file(as_json) == ["a1", "b2"]


def test_missing_seeds_file_names_the_file(tmp_path):
    with pytest.raises(SeedsFileError, match="nope.txt does not exist"):
        load_seeds_file(tmp_path / "nope.txt")


def test_malformed_seeds_file_names_file_and_entry(tmp_path):
    bad = tmp_path / "seeds.txt"
    bad.write_text("banking\nNot A Slug\n")
    with pytest.raises(SeedsFileError, match=r"seeds.txt, entry 2: invalid domain slug 'Not A Slug'"):
        load_seeds_file(bad)
    broken_json = tmp_path / "seeds.json"
    broken_json.write_text('["banking", ')
    with pytest.raises(SeedsFileError, match="not valid JSON"):
        load_seeds_file(broken_json)


def test_resolve_domains_knob():
    assert len(resolve_domains("3", 100)) == 3
    assert resolve_domains("llama_farm, retail_banking", 100) == ["llama_farm", "retail_banking"]
    assert len(resolve_domains(None, 7)) == 7
    with pytest.raises(InvalidDomainError):
        resolve_domains("good,BAD!", 100)
    with pytest.raises(InvalidDomainError, match="only"):
        resolve_domains("100000", 100)


def test_a_seeds_file_is_bounded_in_depth_size_and_alias_expansion(tmp_path, monkeypatch):
    import awm.domains

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)  # the JSON parser itself would run out of stack
    with pytest.raises(SeedsFileError, match="nests lists or objects deeper than 32 levels"):
        load_seeds_file(deep)
    nested = tmp_path / "nested.json"
    inner: list = [1]
    for _ in range(40):
        inner = [inner]
    nested.write_text(json.dumps({"domains": [{"slug": "x", "more": inner}]}))
    with pytest.raises(SeedsFileError, match="deeper than 32 levels"):
        load_seeds_file(nested)
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]  # 10**7 values expanded
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(levels) + "\ndomains: [*a6]\n")
    with pytest.raises(SeedsFileError, match="more than 500000 values once its YAML aliases are expanded"):
        load_seeds_file(bomb)
    itself = tmp_path / "itself.yaml"
    itself.write_text("domains: &d [retail_banking, *d]\n")
    with pytest.raises(SeedsFileError, match="or a YAML alias refers to itself"):
        load_seeds_file(itself)
    monkeypatch.setattr(awm.domains, "MAX_SEEDS_BYTES", 100)
    big = tmp_path / "big.txt"
    big.write_text("retail_banking\n" * 10)
    with pytest.raises(SeedsFileError, match="is 150 bytes, more than the 100 a seeds file may be"):
        load_seeds_file(big)
