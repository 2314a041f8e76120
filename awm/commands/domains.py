"""awm domains: the built-in seed domains by category."""

from __future__ import annotations


def list_domains() -> str:
    from awm.builder.catalogue import DOMAIN_SEEDS

    by_category: dict[str, list[str]] = {}
    for seed in DOMAIN_SEEDS.values():
        by_category.setdefault(seed.category, []).append(seed.slug)
    lines = [f"{len(DOMAIN_SEEDS)} built-in domains in {len(by_category)} categories "
             "(any other valid slug is composed from archetypes):"]
    lines += [f"  {cat}: {', '.join(slugs)}" for cat, slugs in sorted(by_category.items())]
    return "\n".join(lines)


def register(sub) -> None:
    parser = sub.add_parser("domains", help="list the built-in seed domains")
    parser.set_defaults(handler=lambda args: print(list_domains()) or 0)
