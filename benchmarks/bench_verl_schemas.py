"""How many of a corpus's tools verl's own tool schema models take, per tool format, and how many of those with
nested object parameters keep their nested keys in what verl renders. Runs with the trainers' virtualenv
(make test builds .venv-trainers: verl 0.9.1, and verl 0.7.0's stricter model beside it):

    PYTHONPATH=. .venv-trainers/bin/python benchmarks/bench_verl_schemas.py --home <corpus>

Prints and writes benchmarks/results/verl_schemas.json."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "ecosystem"))

from trainer_rollouts import OLDER_VERL, accepted, verl_schemas  # noqa: E402

from awm.toolspecs import published_spec  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", default=".awm")
    args = parser.parse_args()
    specs = [spec for path in sorted(Path(args.home, "corpus").glob("*/*/tools.json"))
             for spec in json.loads(path.read_text())["tools"]]
    forms = {form: [{"type": "function", "function": {"name": s["name"], "description": s.get("description", ""),
                                                       "parameters": published_spec(s, form)["inputSchema"]}}
                    for s in specs] for form in ("strict", "permissive", "verl")}
    models = {"verl-0.9.1": verl_schemas().OpenAIFunctionToolSchema,
              "verl-0.7.0": verl_schemas(OLDER_VERL / "verl").OpenAIFunctionToolSchema}
    summary = {"tools": len(specs), "environments": len(list(Path(args.home, "corpus").glob("*/*/tools.json"))),
               "models": {version: {form: {k: v for k, v in accepted(model, tools, specs).items() if k != "refused"}
                                    for form, tools in forms.items()} for version, model in models.items()}}
    out = ROOT / "benchmarks" / "results" / "verl_schemas.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
