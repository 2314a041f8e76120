"""The executor, chosen per deployment: in-process (default) or Celery workers.

AWM_EXECUTOR=in_process   every step in the run's own process (measured fastest on one machine:
                          the multiprocess executor adds ~2.5 s per step; docs/architecture.md)
AWM_EXECUTOR=celery       steps go to Celery workers through AWM_CELERY_BROKER (e.g.
                          redis://127.0.0.1:6379/0); results via AWM_CELERY_BACKEND (default: the
                          broker). Start workers with deploy/celery-worker.sh. Needs the
                          dagster-celery extra (pip install -e '.[celery]').
"""

from __future__ import annotations

import os

import dagster as dg

EXECUTORS = ("in_process", "celery")


def selected_executor_name() -> str:
    name = os.environ.get("AWM_EXECUTOR", "in_process")
    if name not in EXECUTORS:
        raise ValueError(f"AWM_EXECUTOR={name!r}: choose one of {', '.join(EXECUTORS)}")
    return name


def celery_config() -> dict:
    broker = os.environ.get("AWM_CELERY_BROKER")
    if not broker:
        raise ValueError("AWM_EXECUTOR=celery needs AWM_CELERY_BROKER, e.g. redis://127.0.0.1:6379/0")
    return {"broker": broker, "backend": os.environ.get("AWM_CELERY_BACKEND", broker),
            "include": ["awm_assets.definitions"]}


def selected_executor() -> dg.ExecutorDefinition:
    if selected_executor_name() == "in_process":
        return dg.in_process_executor
    try:
        from dagster_celery import celery_executor
    except ImportError as exc:
        raise ValueError("AWM_EXECUTOR=celery needs dagster-celery: pip install -e '.[celery]'") from exc
    return celery_executor.configured(celery_config(), name="celery")
