"""The built-in seed domains, loaded once from the category packs' YAML files.

`catalogue.yaml` lists the packs in catalogue order (a category folder it does not list comes after them, in name
order); `awm/builder/categories/<category>/pack.yaml` holds a
category's generic modules (the curated table of what a business of that kind may have:
invoices, loyalty, stock, ...) and its domains. Every entry is validated by the pydantic models in `model.py`; a
bad one raises CatalogueError naming the file, the domain and the field.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml
from pydantic import ValidationError

from awm.builder import categories
from awm.builder.catalogue.model import DomainSeed, Pack
from awm.errors import CatalogueError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)



def _read_yaml(name: str, package: str = __package__) -> Any:
    path = resources.files(package).joinpath(name)
    try:
        text = path.read_text(encoding="utf-8")
        return yaml.load(text, Loader=_Loader)
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogueError(f"catalogue file {name} cannot be read: {exc}") from exc


def validation_message(exc: ValidationError) -> str:
    """Pydantic's errors as 'field.path: message; ...'."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'entry'}: {err['msg'].removeprefix('Value error, ')}"
        for err in exc.errors()
    )


def parse_domain(entry: Any, category: str, where: str, min_sub_businesses: int = 10) -> DomainSeed:
    """Validate one domain entry of a pack file or seeds file; errors name `where`, the domain and the field."""
    if not isinstance(entry, dict):
        raise CatalogueError(f"{where}: each domain must be a mapping with slug, title, ...; got {entry!r:.80}")
    slug = entry.get("slug", "?")
    try:
        return DomainSeed.model_validate(
            {"category": category, **entry}, context={"min_sub_businesses": min_sub_businesses}
        )
    except ValidationError as exc:
        raise CatalogueError(f"{where}: domain {slug!r}: {validation_message(exc)}") from exc


def _load() -> tuple[dict[str, DomainSeed], dict[str, Pack]]:
    index = _read_yaml("catalogue.yaml")
    if not isinstance(index, dict) or not isinstance(index.get("packs"), list):
        raise CatalogueError("catalogue file catalogue.yaml: expected 'packs: [<category>, ...]'")
    folders = categories.categories()
    listed = index["packs"]
    missing = [c for c in listed if c not in folders]
    if missing:
        raise CatalogueError(f"catalogue file catalogue.yaml: packs {missing} have no folder "
                             "awm/builder/categories/<category>/ with a pack.yaml")
    seeds: dict[str, DomainSeed] = {}
    packs: dict[str, Pack] = {}
    # the packs catalogue.yaml lists, in its order, then any other category folder's, in name order
    for category in [*listed, *(c for c in folders if c not in listed)]:
        name = f"categories/{category}/pack.yaml"
        data = _read_yaml(f"{category}/pack.yaml", "awm.builder.categories")
        if not isinstance(data, dict) or data.get("category") != category or not isinstance(data.get("domains"), list):
            raise CatalogueError(f"catalogue file {name}: expected 'category: {category}' and a 'domains' list")
        try:
            packs[category] = Pack.model_validate({k: v for k, v in data.items() if k != "domains"})
        except ValidationError as exc:
            raise CatalogueError(f"catalogue file {name}: {validation_message(exc)}") from exc
        for entry in data["domains"]:
            seed = parse_domain(entry, category, f"catalogue file {name}")
            if seed.slug in seeds:
                raise CatalogueError(f"catalogue file {name}: duplicate built-in domain {seed.slug!r}")
            seeds[seed.slug] = seed
    return seeds, packs


# discovers: awm.builder.categories.*
DOMAIN_SEEDS, PACKS = _load()
CATEGORIES: list[str] = sorted(PACKS)
# A pack's first domain: where a seeds-file domain of that pack takes the fields it leaves out.
PACK_TEMPLATES: dict[str, DomainSeed] = {}
for _seed in DOMAIN_SEEDS.values():
    PACK_TEMPLATES.setdefault(_seed.category, _seed)
