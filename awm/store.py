"""The artifact store: one folder per environment under AWM_HOME, atomic writes, provenance.

Layout (a public contract):

    AWM_HOME/corpus/<domain>/<env_id>/scenario.json, tasks.json, schema.sql, schema.json,
                                      env.db, tools.py, tools.json, verifiers.json,
                                      report.json, provenance.json, attempts.json (LLM attempt
                                      log), failed.json (if failed)
    AWM_HOME/catalog.jsonl            one line per published task

The file names are declared once, with their contracts, in awm/artifacts.py.

Every write goes to a temporary file in the same folder, is flushed to disk and
renamed over the target, so a reader sees the old file or the new one, never half.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TypeVar

from pydantic import BaseModel, ValidationError

from awm import artifacts
from awm.contracts import Failure, Provenance
from awm.domains import split_env_id, validate_domain_slug
from awm.errors import AWMError, CorruptArtifactError, MissingArtifactError
from awm.home import DEFAULT_HOME, default_home  # noqa: F401 (DEFAULT_HOME re-exported: callers take it from the store)

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)




def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def current_umask() -> int:
    """The process's umask, read without changing it (Linux reports it in /proc/self/status; elsewhere it is
    set and restored, which is not thread-safe but brief)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path: Path, mode: str = "wb", encoding: str | None = None) -> Iterator[IO]:
    """Write `path` through a temporary file in the same folder, flushed, fsynced and renamed over it on
    success; on any failure the temporary file is removed and the old `path` is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; the file gets what open() would give it
        with os.fdopen(fd, mode, encoding=encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_directory(path: Path) -> Iterator[Path]:
    """Build the directory `path` in a temporary folder beside it, then put it in place: the old directory
    (if any) is renamed aside, the new one renamed to `path`, the old one removed. On any failure the
    temporary folder is removed and the old `path` is untouched. Modes follow the umask."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise AWMError(f"{path} exists and is not a directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp makes 0700
        yield tmp
        for file in tmp.rglob("*"):
            if file.is_file():
                with open(file, "rb") as fh:
                    os.fsync(fh.fileno())
        old = None
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old.tmp", dir=path.parent))
            os.replace(path, old / path.name)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def dump_json(model: BaseModel | dict | list) -> str:
    if isinstance(model, BaseModel):
        data = model.model_dump(mode="json", by_alias=True)
    else:
        data = model
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def read_json_file(path: Path, model: type[M]) -> M:
    if not path.exists():
        raise MissingArtifactError(f"{path} does not exist")
    try:
        raw = path.read_text(encoding="utf-8")
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptArtifactError(f"{path} is not valid JSON ({exc}); delete it and re-materialize") from exc
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise CorruptArtifactError(
            f"{path} does not match the {model.__name__} contract at {where}: {first['msg']} "
            f"({exc.error_count()} error(s))"
        ) from exc


def check_sqlite_file(path: Path) -> None:
    """Raise CorruptArtifactError unless `path` is a readable SQLite database."""
    if not path.exists():
        raise MissingArtifactError(f"{path} does not exist")
    with open(path, "rb") as fh:
        header = fh.read(16)
    if header != b"SQLite format 3\x00":
        raise CorruptArtifactError(f"{path} is not a SQLite database (bad header); delete it and re-materialize")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            result = conn.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise CorruptArtifactError(f"{path} is a damaged SQLite database: {exc}") from exc
    if result != "ok":
        raise CorruptArtifactError(f"{path} failed SQLite's integrity check: {result}")


class ArtifactStore:
    """Reads and writes environment artifacts under one root."""

    def __init__(self, home: str | Path | None = None):
        self.home = Path(home).resolve() if home else default_home()

    # paths -------------------------------------------------------------------
    @property
    def corpus_dir(self) -> Path:
        return self.home / "corpus"

    @property
    def catalog_path(self) -> Path:
        return self.home / "catalog.jsonl"

    def env_dir(self, env_id: str) -> Path:
        domain, _ = split_env_id(env_id)
        return self.corpus_dir / domain / env_id

    def path(self, env_id: str, name: str) -> Path:
        return self.env_dir(env_id) / name

    def exists(self, env_id: str, name: str) -> bool:
        return self.path(env_id, name).exists()

    def env_ids(self, domain: str | None = None) -> list[str]:
        domains = [validate_domain_slug(domain)] if domain else self.domains()
        found = []
        for d in domains:
            folder = self.corpus_dir / d
            if folder.is_dir():
                found.extend(sorted(p.name for p in folder.iterdir() if p.is_dir() and "__" in p.name))
        return found

    def domains(self) -> list[str]:
        if not self.corpus_dir.is_dir():
            return []
        return sorted(p.name for p in self.corpus_dir.iterdir() if p.is_dir())

    # writes ------------------------------------------------------------------
    def write_model(self, env_id: str, name: str, model: BaseModel) -> Path:
        path = self.path(env_id, name)
        atomic_write_text(path, dump_json(model))
        return path

    def write_text(self, env_id: str, name: str, text: str) -> Path:
        path = self.path(env_id, name)
        atomic_write_text(path, text)
        return path

    def write_file_from(self, env_id: str, name: str, source: Path) -> Path:
        """Move a finished file (built beside the target) into place atomically."""
        path = self.path(env_id, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(source, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(source, path)
        return path

    def temp_path(self, env_id: str, name: str) -> Path:
        """A fresh temporary path in the environment's folder, for files built in place."""
        folder = self.env_dir(env_id)
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(tmp)
        return Path(tmp)

    def sweep_temp(self, env_id: str) -> int:
        """Remove temporary files a killed writer left in the environment's folder.

        Safe because one environment is written by one stage at a time (its partition's step).
        """
        folder = self.env_dir(env_id)
        if not folder.is_dir():
            return 0
        stale = list(folder.glob(".*.tmp"))
        for path in stale:
            path.unlink(missing_ok=True)
        return len(stale)

    # reads -------------------------------------------------------------------
    def read_model(self, env_id: str, name: str, model: type[M]) -> M:
        return read_json_file(self.path(env_id, name), model)

    def read_text(self, env_id: str, name: str) -> str:
        path = self.path(env_id, name)
        if not path.exists():
            raise MissingArtifactError(f"{path} does not exist")
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise CorruptArtifactError(f"{path} is not UTF-8 text: {exc}") from exc

    def database_path(self, env_id: str) -> Path:
        path = self.path(env_id, artifacts.DATABASE.name)
        check_sqlite_file(path)
        return path

    def hash(self, env_id: str, name: str) -> str:
        return sha256_file(self.path(env_id, name))

    # provenance and failure ---------------------------------------------------
    def provenance(self, env_id: str) -> dict[str, Provenance]:
        """The provenance records by stage; CorruptArtifactError if provenance.json cannot be read as such."""
        path = self.path(env_id, artifacts.PROVENANCE.name)
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorruptArtifactError(f"{path} is not valid JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise CorruptArtifactError(f"{path} is not a JSON object of provenance records by stage")
        try:
            return {stage: Provenance.model_validate(record) for stage, record in data.items()}
        except ValidationError as exc:
            raise CorruptArtifactError(f"{path} does not match the Provenance contract: {exc.errors()[0]['msg']}") \
                from exc

    def set_aside(self, env_id: str, name: str) -> Path:
        """Move a damaged artifact out of the way, to `<name>.corrupt` beside it (kept for inspection). Another
        process that set it aside first did the same."""
        path = self.path(env_id, name)
        aside = path.with_name(f"{name}.corrupt")
        with contextlib.suppress(FileNotFoundError):
            os.replace(path, aside)
        return aside

    def record_provenance(self, env_id: str, record: Provenance) -> None:
        records = self.provenance(env_id)
        records[record.stage] = record
        payload = {stage: rec.model_dump(mode="json") for stage, rec in records.items()}
        atomic_write_text(self.path(env_id, artifacts.PROVENANCE.name), dump_json(payload))

    def failure(self, env_id: str) -> Failure | None:
        """The stage failure recorded for the environment, if any. A damaged failed.json records nothing it can
        be trusted for: it is set aside (failed.json.corrupt) and the environment is built again from where its
        provenance stands, so a stage that fails records its failure anew (as for provenance.json)."""
        path = self.path(env_id, artifacts.FAILED.name)
        if not path.exists():
            return None
        try:
            return read_json_file(path, Failure)
        except MissingArtifactError:  # set aside meanwhile by another process
            return None
        except CorruptArtifactError as exc:
            aside = self.set_aside(env_id, artifacts.FAILED.name)
            log.warning("%s: %s; set aside as %s, the environment is built again", env_id, exc, aside.name)
            return None

    def mark_failed(self, env_id: str, stage: str, reason: str) -> Failure:
        failure = Failure(env_id=env_id, stage=stage, reason=reason[:2000])
        self.write_model(env_id, artifacts.FAILED.name, failure)
        return failure

    def clear_failure(self, env_id: str, stage: str) -> None:
        failure = self.failure(env_id)
        if failure and failure.stage == stage:
            self.path(env_id, artifacts.FAILED.name).unlink(missing_ok=True)

    @contextlib.contextmanager
    def catalog_lock(self) -> Iterator[None]:
        """Held while catalog.jsonl is read and rewritten: the catalog build and evaluations (which write
        difficulty onto its lines) run in different processes."""
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.home / ".catalog.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def iter_catalog(self, torn: list[int] | None = None) -> Iterator[dict]:
        """The catalog's entries. A line that is not a JSON object (a torn write) raises CorruptArtifactError
        naming it; given a `torn` list, its number is added there, it is logged and left out (what is served
        or rebuilt carries on)."""
        if not self.catalog_path.exists():
            return
        with open(self.catalog_path, encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                try:
                    entry = json.loads(line)
                    if not isinstance(entry, dict):
                        raise ValueError("not a JSON object")
                except ValueError as exc:
                    problem = f"{self.catalog_path} line {lineno} is not a JSON object: {exc}"
                    if torn is None:
                        raise CorruptArtifactError(problem) from exc
                    torn.append(lineno)
                    log.warning("%s; left out (the catalog build writes it anew)", problem)
                    continue
                yield entry
