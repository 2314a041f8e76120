"""A tiny hand-written environment (a library: authors and books) to craft bad inputs from."""

from __future__ import annotations

import sqlite3

import pytest

from awm.contracts import Column, SchemaSpec, Table, TaskSet, ToolSet, VerifierSet
from awm.schema_sql import to_ddl
from awm.store import ArtifactStore, dump_json

ENV_ID = "library__00"

TOOLS_PY = '''\
"""Tools of a small library."""


def error(code, message):
    return {"error": {"code": code, "message": message}}


def get_book(db, book_id):
    row = db.one("SELECT * FROM books WHERE id = ?", [book_id])
    return row if row is not None else error("not_found", "no book " + str(book_id))


def list_books(db, author_id=None):
    if author_id is None:
        return db.query("SELECT * FROM books ORDER BY id", [])
    return db.query("SELECT * FROM books WHERE author_id = ? ORDER BY id", [author_id])


def search_authors(db, query):
    return db.query("SELECT * FROM authors WHERE name LIKE ?", ["%" + query + "%"])


def get_author(db, author_id):
    row = db.one("SELECT * FROM authors WHERE id = ?", [author_id])
    return row if row is not None else error("not_found", "no author " + str(author_id))


def rename_book(db, book_id, title):
    if db.one("SELECT id FROM books WHERE id = ?", [book_id]) is None:
        return error("not_found", "no book " + str(book_id))
    db.execute("UPDATE books SET title = ? WHERE id = ?", [title, book_id])
    return db.one("SELECT * FROM books WHERE id = ?", [book_id])


def set_stock(db, book_id, stock):
    if db.one("SELECT id FROM books WHERE id = ?", [book_id]) is None:
        return error("not_found", "no book " + str(book_id))
    db.execute("UPDATE books SET stock = ? WHERE id = ?", [stock, book_id])
    return db.one("SELECT * FROM books WHERE id = ?", [book_id])
'''


def _spec(name, description, properties, required, read_only):
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": required,
                            "additionalProperties": False},
            "annotations": {"readOnlyHint": read_only}}


BOOK_ID = {"type": "integer", "minimum": 1}
TOOLS_JSON = {"env_id": ENV_ID, "tools": [
    _spec("get_book", "Get one book.", {"book_id": BOOK_ID}, ["book_id"], True),
    _spec("list_books", "List books.", {"author_id": {"type": "integer", "minimum": 1}}, [], True),
    _spec("search_authors", "Find authors by name.", {"query": {"type": "string", "minLength": 1}}, ["query"], True),
    _spec("get_author", "Get one author.", {"author_id": {"type": "integer", "minimum": 1}}, ["author_id"], True),
    _spec("rename_book", "Rename a book.", {"book_id": BOOK_ID, "title": {"type": "string", "minLength": 1}},
          ["book_id", "title"], False),
    _spec("set_stock", "Set a book's stock.", {"book_id": BOOK_ID, "stock": {"type": "integer", "minimum": 0}},
          ["book_id", "stock"], False),
]}

HONEST_VERIFIER = '''\
def verify(initial, final, answer):
    row = final.one("SELECT title, stock FROM books WHERE id = ?", [2])
    failures = []
    if row is None or row["title"] != "Collected Poems":
        failures.append("book 2 is not titled Collected Poems")
    if row is None or row["stock"] != 7:
        failures.append("book 2 does not have stock 7")
    return {"complete": not failures, "evidence": failures or ["every goal is met"]}
'''

QUESTION_VERIFIER = '''\
import json


def verify(initial, final, answer):
    text = str(answer).lower() if answer is not None else ""
    if text.strip().startswith("{"):  # a structured answer: exactly its one slot, one name
        data = json.loads(text)
        ok = list(data) == ["answer_1"] and isinstance(data["answer_1"], str) and data["answer_1"] == "ada lovelace"
        return {"complete": ok, "evidence": [] if ok else ["the structured answer is not Ada Lovelace alone"]}
    others = [name for name in ("mary shelley", "emily bronte") if name in text]
    hedged = any(word in text for word in ("maybe", "possibly", "perhaps", "something else", "presumably", " or ",
                                           "reckoning", "not ", "otherwise", "wager", "inactive", "0.0"))
    ok = "ada lovelace" in text and not others and not hedged
    return {"complete": ok, "evidence": [] if ok else ["the answer does not name Ada Lovelace alone"]}
'''
# Looks for the expected name anywhere in the answer: a hedge or a dump of every author passes it.
LAX_QUESTION_VERIFIER = '''\
def verify(initial, final, answer):
    ok = answer is not None and "ada lovelace" in str(answer).lower()
    return {"complete": ok, "evidence": [] if ok else ["the answer does not name Ada Lovelace"]}
'''

TASKS_JSON = {"env_id": ENV_ID, "acting_user": "the librarian", "tasks": [
    {"task_id": "t01", "kind": "action", "template": "rename_and_restock",
     "instruction": "Rename book 2 to 'Collected Poems' and set its stock to 7.",
     "reference_solution": [{"tool": "get_book", "arguments": {"book_id": 2}},
                            {"tool": "rename_book", "arguments": {"book_id": 2, "title": "Collected Poems"}},
                            {"tool": "set_stock", "arguments": {"book_id": 2, "stock": 7}}],
     "goals": [{"kind": "row_equals", "table": "books", "pk": 2, "expect": {"title": "Collected Poems", "stock": 7}}]},
    {"task_id": "t02", "kind": "question", "template": "author_of_book",
     "instruction": "Who wrote the book 'Notes on the Engine'? Give the author's name.",
     "reference_solution": [{"tool": "list_books", "arguments": {}},
                            {"tool": "get_author", "arguments": {"author_id": 1}}],
     "reference_answer": "Ada Lovelace",
     "goals": [{"kind": "answer", "expect": {"value": "Ada Lovelace"}}]},
]}


def library_schema() -> SchemaSpec:
    return SchemaSpec(env_id=ENV_ID, tables=[
        Table(name="authors", description="people who write books", columns=[
            Column(name="id", type="INTEGER", primary_key=True, nullable=False),
            Column(name="name", type="TEXT", nullable=False, unique=True)]),
        Table(name="books", description="books on the shelves", columns=[
            Column(name="id", type="INTEGER", primary_key=True, nullable=False),
            Column(name="title", type="TEXT", nullable=False),
            Column(name="author_id", type="INTEGER", nullable=False, references="authors.id"),
            Column(name="format", type="TEXT", nullable=False, enum=["paper", "hardcover"]),
            Column(name="stock", type="INTEGER", nullable=False, minimum=0, maximum=1000)]),
    ])


AUTHORS = [(1, "Ada Lovelace"), (2, "Mary Shelley"), (3, "Emily Bronte")]
BOOKS = [(1, "Notes on the Engine", 1, "paper", 3), (2, "Poems", 2, "hardcover", 0),
         (3, "Frankenstein", 2, "paper", 12), (4, "Wuthering Heights", 3, "paper", 5)]


def write_library_db(path, ddl: str, authors=AUTHORS, books=BOOKS) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(ddl)
    conn.executemany("INSERT INTO authors VALUES (?, ?)", authors)
    conn.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?)", books)
    conn.commit()
    conn.close()


def write_library(store: ArtifactStore, verifiers: dict[str, str] | None = None, tools_py: str = TOOLS_PY) -> str:
    spec = library_schema()
    ddl = to_ddl(spec)
    store.write_text(ENV_ID, "schema.json", dump_json(spec))
    store.write_text(ENV_ID, "schema.sql", ddl)
    write_library_db(store.path(ENV_ID, "env.db"), ddl)
    store.write_text(ENV_ID, "tools.py", tools_py)
    store.write_text(ENV_ID, "tools.json", dump_json(ToolSet.model_validate(TOOLS_JSON)))
    store.write_text(ENV_ID, "tasks.json", dump_json(TaskSet.model_validate(TASKS_JSON)))
    code = verifiers or {"t01": HONEST_VERIFIER, "t02": QUESTION_VERIFIER}
    store.write_text(ENV_ID, "verifiers.json", dump_json(VerifierSet(env_id=ENV_ID, verifiers=[
        {"task_id": k, "code": v} for k, v in code.items()])))
    return ENV_ID


@pytest.fixture
def library(store: ArtifactStore) -> ArtifactStore:
    write_library(store)
    return store
