"""The numbers the README states about the code are the code's: checked here, so they cannot go stale."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def stated(pattern: str) -> list[int]:
    found = [int(n.replace(",", "")) for n in re.findall(pattern, README.read_text(encoding="utf-8"))]
    assert found, f"README.md no longer says {pattern!r}: update this test with the sentence that moved"
    return found


def test_the_readme_states_the_number_of_registered_intents():
    from awm.builder.intents import INTENTS

    counts = stated(r"drawn from ([\d,]+) intents") + stated(r"to say\. ([\d,]+) intents:")
    assert counts == [len(INTENTS)] * 2, (
        f"README.md says {counts} intents, the registry has {len(INTENTS)} (awm.builder.intents.INTENTS): "
        "correct the README")


def test_the_readme_names_a_job_for_every_asset():
    """Every asset in the definitions is built by the job `make run` launches or by a job the README names."""
    from awm_assets.constants import CATALOG_JOB, CORPUS_JOB
    from awm_assets.definitions import defs

    text = README.read_text(encoding="utf-8")
    paragraph = re.search(r"\*\*Jobs\.\*\*(.*?)\n\n", text, re.S)
    assert paragraph, "README.md has no **Jobs.** paragraph"
    named = set(re.findall(r"`(\w+)`", paragraph.group(1))) & {j.name for j in defs.resolve_all_job_defs()}
    assert {CORPUS_JOB, CATALOG_JOB} <= named  # what `make run` launches (awm_assets/launch.py)
    built = set()
    for name in named:
        built |= set(defs.resolve_job_def(name).asset_layer.selected_asset_keys)
    every = set(defs.resolve_asset_graph().get_all_asset_keys())
    assert every - built == set(), f"assets no job the README names builds: {sorted(every - built)}"
