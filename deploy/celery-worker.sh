#!/usr/bin/env bash
# Start a Dagster Celery worker for AWM_EXECUTOR=celery. Run it from the repository root on every
# worker machine, with the same DAGSTER_HOME (production profile: Postgres), AWM_HOME (shared
# storage) and AWM_CELERY_BROKER as the webserver and daemon.
#   AWM_CELERY_BROKER=redis://broker:6379/0 deploy/celery-worker.sh [extra dagster-celery args]
set -euo pipefail
: "${AWM_CELERY_BROKER:?set AWM_CELERY_BROKER, e.g. redis://127.0.0.1:6379/0}"
config="$(mktemp --suffix=.yaml)"
cat > "$config" <<YAML
execution:
  config:
    broker: "${AWM_CELERY_BROKER}"
    backend: "${AWM_CELERY_BACKEND:-$AWM_CELERY_BROKER}"
    include: ["awm_assets.definitions"]
YAML
exec dagster-celery worker start -A dagster_celery.app -y "$config" "$@"
