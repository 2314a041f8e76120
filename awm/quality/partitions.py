"""Where the environments of one domain stand at one stage: built and valid, failed by it, or stopped
before it. The checks of every stage judge a domain partition from this split."""

from __future__ import annotations

from dataclasses import dataclass

from awm.domains import env_id_for
from awm.registry import stage
from awm.store import ArtifactStore


@dataclass
class PartitionEnvironments:
    domain: str
    valid: list[str]  # built by the stage and not failed at or before it
    failed_here: list[tuple[str, str]]  # (env_id, reason) failed by this stage
    upstream: list[str]  # failed before this stage, or not built yet

    @property
    def total(self) -> int:
        return len(self.valid) + len(self.failed_here) + len(self.upstream)


def partition_environments(store: ArtifactStore, stage_name: str, slots: int, domain: str) -> PartitionEnvironments:
    """The K environments of one domain partition, split by where they stand at one stage."""
    spec = stage(stage_name)
    valid, failed_here, upstream = [], [], []
    for slot in range(slots):
        env_id = env_id_for(domain, slot)
        failure = store.failure(env_id)
        if failure and failure.stage == spec.name:
            failed_here.append((env_id, failure.reason))
        elif failure and stage(failure.stage).before(spec):
            upstream.append(env_id)
        elif spec.last_output.exists(store, env_id):
            valid.append(env_id)
        else:
            upstream.append(env_id)
    return PartitionEnvironments(domain, valid, failed_here, upstream)
