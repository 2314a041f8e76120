"""The Dagster definitions are what the stage registry declares, and they change only on purpose.

The snapshot (definitions_snapshot.json beside this file) records every asset's key, upstream keys,
partitions, code version, group and stage tag, and every check's name, asset, blocking flag and partitions.
A stage's code version ends in the digest of the files that shape its output (awm/sources.py), which any
builder change moves: the snapshot keeps it as `code-<digest>`, and the tests below check the digest itself.
A change to the registry (a stage, a revision, awm.__version__) or to the Dagster layer shows here;
if it is meant, regenerate with `AWM_UPDATE_SNAPSHOT=1 pytest tests/awm_assets/test_definitions_snapshot.py`
and commit the new file with the change.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import dagster as dg

from awm import __version__
from awm.registry import CATALOG, CATALOG_CODE_VERSION, STAGES
from awm_assets.definitions import defs

SNAPSHOT = Path(__file__).with_name("definitions_snapshot.json")
DIGEST = re.compile(r":code-[0-9a-f]{16}$")


def partitions_name(partitions_def) -> str | None:
    if partitions_def is None:
        return None
    if isinstance(partitions_def, dg.MultiPartitionsDefinition):
        return " x ".join(f"{d.name}:{partitions_name(d.partitions_def)}" for d in partitions_def.partitions_defs)
    return getattr(partitions_def, "name", None) or type(partitions_def).__name__


def definitions_snapshot() -> dict:
    graph = defs.resolve_asset_graph()
    assets = {}
    for key in sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string()):
        node = graph.get(key)
        assets[key.to_user_string()] = {
            "upstream": sorted(k.to_user_string() for k in node.parent_keys),
            "partitions": partitions_name(node.partitions_def),
            "code_version": DIGEST.sub(":code-<digest>", node.code_version or ""),
            "group": node.group_name,
            "stage": (node.tags or {}).get("stage"),
        }
    checks = {}
    for check_key in sorted(graph.asset_check_keys, key=lambda k: k.name):
        spec = graph.get_check_spec(check_key)
        checks[check_key.name] = {"asset": check_key.asset_key.to_user_string(), "blocking": spec.blocking,
                                  "partitions": partitions_name(spec.partitions_def)}
    return {"assets": assets, "checks": checks}


def test_the_definitions_match_the_snapshot():
    current = definitions_snapshot()
    if os.environ.get("AWM_UPDATE_SNAPSHOT") == "1":
        SNAPSHOT.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    assert current == json.loads(SNAPSHOT.read_text()), (
        "the Dagster definitions changed; if that is meant, regenerate the snapshot (see this module's docstring)")


def test_every_stage_asset_and_check_is_derived_from_the_registry():
    from awm.backends.offline import BUILDER_VERSION

    current = definitions_snapshot()
    for spec in STAGES:
        asset = current["assets"][spec.name]
        revision = f"+{spec.revision}" if spec.revision else ""
        assert spec.code_version == f"{spec.name}:{__version__}{revision}"
        assert asset["code_version"] == f"{spec.code_version}:{BUILDER_VERSION}:code-<digest>"
        assert asset["upstream"] == ([spec.upstream.name] if spec.upstream else [])
        assert asset["partitions"] == "domains" and asset["stage"] == str(spec.number)
        assert current["checks"][spec.valid_check] == {"asset": spec.name, "blocking": True, "partitions": "domains"}
        assert current["checks"][spec.yield_check] == {"asset": spec.name, "blocking": False, "partitions": "domains"}
    assert current["assets"][CATALOG]["code_version"] == CATALOG_CODE_VERSION
    assert {s.name for s in STAGES} | {CATALOG} <= set(current["assets"])


def test_the_code_version_dagster_shows_is_the_one_provenance_records():
    """Dagster shows each stage's code version as the offline builder records it in provenance (the declared
    version, the generator, the digest of the stage's sources): a stage whose Dagster code version is unchanged
    reuses what it built, and one whose version changed rebuilds."""
    from awm.backends import get_backend
    from awm.backends.offline import sources_digest
    from awm.stages.base import code_version

    backend = get_backend("offline")
    for spec in STAGES:
        node = defs.resolve_asset_graph().get(dg.AssetKey(spec.name))
        assert node.code_version == code_version(spec.name, backend.params, backend) == (
            f"{spec.code_version}:{backend.params['builder']}:code-{sources_digest(spec.name)}")
