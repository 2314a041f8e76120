"""Agent World Model: synthetic, executable, verifiable tool-use environments.

The core library. It knows nothing of Dagster: the stages are plain functions,
the contracts are pydantic models, and the runtime serves environments to agents.
"""

__version__ = "0.1.0"
