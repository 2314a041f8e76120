"""Prompts that fit: the databases and tools stages asked in parts, each request within a token budget.

A request may take at most the client's request budget (prompt + answer: AWM_LLM_REQUEST_TOKENS, 24,000 by
default, or the context window when that is smaller; LLMClient.request_budget). The databases and tools
answers of a whole environment need more than that (rows of ~18 tables, ~35-60 tools), so those two stages
are asked in parts: the schema's tables in groups, in schema order (parents first), each group's rows or
tools in one request. The groups are planned from the prompt's measured size and the answer each table is
expected to need; a table whose answer cannot fit beside the prompt at all is a PromptTooLargeError naming
both sizes and what to change, raised before anything is sent.

Which part writes a tool is decided from its name (`part_of_tool`): the table whose name it carries (the
longest match, singular or plural), else the first part. The tools the tasks' reference solutions call are
given to the part that owns them, so every one of them is asked for exactly once.
"""

from __future__ import annotations

import ast

from awm.contracts import Table
from awm.llm.errors import LLMConfigError

ROWS_PER_TABLE = 40  # rows a table is expected to get (the offline worlds: 4 to 110, about 35 on average)
ROW_TOKENS_PER_COLUMN = 5  # one value of a row, in tokens (dates and numbers split into several)
ROW_TOKENS = 4  # brackets and commas of one row
# Tools a table is expected to get: its reads and, per state of its lifecycle (its status column's values), about
# one transition. The offline worlds (a seventh of the domains, 255 tables): 2.2 for a table without a status, 4.9
# with three states, 7.1 with five, 10.1 with six; 3.5 on average.
TOOLS_PER_TABLE = 2
TOOLS_PER_STATE = 1
TOKENS_PER_TOOL = 400  # one tool's function and spec (the offline worlds: about 310 at 4 characters a token)
PART_TOKENS = 400  # the part block: its tables, the tools asked for, what earlier parts wrote
# What every part of a tools answer writes besides its tables' tools: the helpers the tools call and the module's
# settings (the offline worlds: about 1,200 tokens at 4 characters a token, before the JSON string escapes them)
SHARED_TOOL_TOKENS = 1600
MIN_PART_ANSWER = 512  # a part must leave at least this much room for its answer
WRITTEN_IDS_PER_TABLE = 200  # ids of an earlier part's table listed for a later part, at most


# The most each stage's answer is expected to need, in tokens (max_tokens is not set above it): about twice the
# largest answers of the offline-sized worlds (benchmarks/llm_prompt_sizes.py), and at least 2,048.
ANSWER_TOKENS = {"scenarios": 2048, "schemas": 16384, "verifier": 16384, "phrasing": 1024}
TASK_ANSWER_TOKENS = 1200  # one task of a tasks answer (the offline worlds: about 500)
MIN_ANSWER_TOKENS = 2048


def part_answer_tokens(tables: list[Table], answer_tokens) -> int:
    """The most one part's answer is expected to need: twice the estimate of its tables, at least 2,048."""
    return max(MIN_ANSWER_TOKENS, 2 * sum(answer_tokens(t) for t in tables))


class PromptTooLargeError(LLMConfigError):
    """A stage whose prompt and smallest part cannot fit one request."""


def rows_answer_tokens(table: Table) -> int:
    """The tokens a table's rows are expected to take in an answer."""
    return ROWS_PER_TABLE * (len(table.columns) * ROW_TOKENS_PER_COLUMN + ROW_TOKENS)


def tools_answer_tokens(table: Table) -> int:
    """The tokens a table's tools are expected to take in an answer: more for a table with a longer lifecycle."""
    states = next((len(c.enum) for c in table.columns if c.name == "status" and c.enum), 0)
    return (TOOLS_PER_TABLE + TOOLS_PER_STATE * states) * TOKENS_PER_TOOL


def plan_parts(stage: str, tables: list[Table], answer_tokens, prompt_tokens: int, budget: int,
               budget_from: str, each: int = 0) -> list[list[str]]:
    """The tables in groups (schema order kept), each group's expected answer fitting beside the prompt in
    `budget` tokens (every part's answer `each` tokens more: what each part writes whatever its tables); a
    PromptTooLargeError when even one table cannot."""
    room = budget - prompt_tokens - PART_TOKENS - each
    parts: list[list[str]] = []
    used = 0
    for table in tables:
        need = answer_tokens(table)
        if room < MIN_PART_ANSWER or need > room:
            raise PromptTooLargeError(
                f"the {stage} stage cannot fit a request of {budget} tokens ({budget_from}): its prompt is about "
                f"{prompt_tokens} tokens and the answer for table {table.name} alone needs about {need}, leaving "
                f"{room} for it; use a model or server with a longer context (set AWM_LLM_CONTEXT to it) or raise "
                "AWM_LLM_REQUEST_TOKENS")
        if parts and used + need <= room:
            parts[-1].append(table.name)
            used += need
        else:
            parts.append([table.name])
            used = need
    return parts


def _forms(table: str) -> set[str]:
    forms = {table}
    if table.endswith("ies"):
        forms.add(table[:-3] + "y")
    elif table.endswith(("sses", "ses", "xes", "ches", "shes")):
        forms.add(table[:-2])
    if table.endswith("s") and not table.endswith("ss"):
        forms.add(table[:-1])
    return forms


def tool_table(tool: str, tables: list[str]) -> str | None:
    """The table a tool is about, from its name: the longest table name (singular or plural) it contains."""
    padded = f"_{tool}_"
    best: tuple[int, str] | None = None
    for table in tables:
        for form in _forms(table):
            if f"_{form}_" in padded and (best is None or len(form) > best[0]):
                best = (len(form), table)
    return best[1] if best else None


def part_of_tool(tool: str, parts: list[list[str]]) -> int:
    """The index of the part that writes `tool`: the one holding its table, else the first."""
    table = tool_table(tool, [t for part in parts for t in part])
    return next((n for n, part in enumerate(parts) if table in part), 0)


class SourceMergeError(ValueError):
    """Parts of a tools module that cannot be put together."""


def merge_sources(sources: list[str]) -> str:
    """One tools module from the parts' modules: each top-level statement once (a helper repeated word for word
    is kept once); a function defined differently by two parts is an error naming it. One part: its module."""
    if len(sources) == 1:
        return sources[0]
    seen: dict[str, str] = {}  # function name -> its source
    texts: set[str] = set()
    imports: list[str] = []
    body: list[str] = []
    for n, source in enumerate(sources, 1):
        try:
            tree = ast.parse(source)
        except SyntaxError as exc:
            raise SourceMergeError(f"the source of part {n} is not valid Python: {exc.msg} at line {exc.lineno}") from None
        lines = source.splitlines()
        for node in tree.body:
            start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            text = "\n".join(lines[start - 1:node.end_lineno])
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name in seen:
                    if ast.dump(ast.parse(seen[node.name])) != ast.dump(ast.parse(text)):
                        raise SourceMergeError(f"part {n} defines {node.name} differently from an earlier part; "
                                               "define each function once, or repeat a helper word for word")
                    continue
                seen[node.name] = text
            elif text in texts:
                continue
            texts.add(text)
            (imports if isinstance(node, (ast.Import, ast.ImportFrom)) else body).append(text)
    return "\n".join(imports) + ("\n\n" if imports else "") + "\n\n\n".join(body) + "\n"


def top_level_functions(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
