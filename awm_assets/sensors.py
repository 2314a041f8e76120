"""Sensors and schedules: register domain partitions, regenerate domains on a schedule."""

from __future__ import annotations

import os

import dagster as dg

from awm.builder.catalogue.seeds import builtin_domains, load_seed_domains
from awm.domains import load_seeds_file, seeds_file_path, validate_domain_slug
from awm_assets.constants import CORPUS_JOB, DOMAIN_PARTITIONS_NAME
from awm_assets.partitions import domain_partitions


def wanted_domains(register_builtins: bool = True) -> tuple[list[str], str]:
    """Domains that should be partitions: the built-in catalogue plus the seeds file.

    A missing seeds file is fine (only built-ins); a malformed one raises SeedsFileError naming
    the file, the entry and the problem.
    """
    wanted = builtin_domains() if register_builtins else []
    path = seeds_file_path()
    note = f"no seeds file at {path}"
    if path.exists():
        seeds = load_seeds_file(path)
        load_seed_domains(path)  # a domain defined in full is validated where it is registered
        note = f"{len(seeds)} domain(s) in {path}"
        wanted += [d for d in seeds if d not in wanted]
    return wanted, note


@dg.sensor(name="domain_seeds_sensor", minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING,
           description="Registers a domain partition for every built-in seed domain and every slug in the "
                       "editable seeds file ($AWM_SEEDS_FILE or $AWM_HOME/seeds.txt: slugs, or domains in the "
                       "catalogue's format).")
def domain_seeds_sensor(context: dg.SensorEvaluationContext):
    register_builtins = os.environ.get("AWM_REGISTER_BUILTINS", "1") != "0"
    wanted, note = wanted_domains(register_builtins)
    existing = set(context.instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME))
    new = [d for d in wanted if d not in existing]
    if not new:
        return dg.SkipReason(f"all {len(wanted)} domains already registered ({note})")
    context.log.info(f"registering {len(new)} new domain partitions: {', '.join(new[:20])}")
    return dg.SensorResult(dynamic_partitions_requests=[domain_partitions.build_add_request(new)])


def scheduled_domains(context: dg.ScheduleEvaluationContext) -> list[str]:
    subset = os.environ.get("AWM_SCHEDULE_DOMAINS", "").strip()
    registered = context.instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME)
    if not subset:
        return list(registered)
    chosen = [validate_domain_slug(d.strip()) for d in subset.split(",") if d.strip()]
    return [d for d in chosen if d in registered]


@dg.schedule(name="nightly_domain_regeneration", job_name=CORPUS_JOB,
             cron_schedule=os.environ.get("AWM_SCHEDULE_CRON", "0 3 * * *"),
             default_status=dg.DefaultScheduleStatus.STOPPED,
             description="One run per registered domain (or the AWM_SCHEDULE_DOMAINS subset), on AWM_SCHEDULE_CRON.")
def nightly_domain_regeneration(context: dg.ScheduleEvaluationContext):
    day = context.scheduled_execution_time.strftime("%Y-%m-%d")
    for domain in scheduled_domains(context):
        yield dg.RunRequest(run_key=f"{domain}-{day}", partition_key=domain, tags={"awm/trigger": "schedule"})
