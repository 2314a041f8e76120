"""AgentWorldModel-1K interchange: import environments published in AWM's format, check what can be checked,
run their code in the OS-isolated sandbox, and export ours in that format (docs/awm1k.md).

    dataset.py   reading their JSONL files (one line per scenario or task), with the provenance of each line
    database.py  their DDL and sample inserts into an initial SQLite database, failures per table
    host.py      the sandboxed side: their FastAPI app called route by route through ASGI, their verifiers
    runtime.py   the client side: a host process under bubblewrap, each route an MCP tool
    checks.py    what can be checked without a reference solution, and the tier it earns
    importer.py  one scenario into the artifact store (origin awm1k)
    serving.py   imported environments served by `awm serve` (an EnvironmentSource): an episode per database
    promotion.py candidate references (awm eval rollouts, trajectory files) through the proofs: `proven`
    mcp.py       one episode over MCP stdio (awm serve-awm1k)
    export.py    our corpus in their files
"""
