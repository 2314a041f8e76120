"""Database checks on crafted databases: the SQL rules and the great-expectations suite agree."""

import pytest

from awm.backends import get_backend
from awm.contracts import SchemaSpec
from awm.quality.databases import (
    CHECK_CLOCK,
    database_findings,
    ddl_clock_findings,
    rebuild_findings,
    run_expectation_suite,
)
from awm.schema_sql import to_ddl
from awm.stages import databases
from tests.awm.quality.conftest import AUTHORS, BOOKS, library_schema, write_library_db

# The library schema without any constraint, so SQLite stores what a broken generator would write.
LOOSE_DDL = """
CREATE TABLE authors (id INTEGER, name TEXT);
CREATE TABLE books (id INTEGER, title TEXT, author_id INTEGER, format TEXT, stock INTEGER);
"""


@pytest.fixture
def broken_db(tmp_path):
    path = tmp_path / "broken.db"
    books = BOOKS + [
        (2, "Poems again", 2, "paper", 1),  # duplicate primary key
        (5, None, 1, "paper", 1),  # NULL title
        (6, "Lost", 99, "paper", 1),  # dangling foreign key
        (7, "Scroll", 1, "papyrus", 1),  # not in the enum
        (8, "Bestseller", 1, "paper", 5000),  # above the maximum
    ]
    write_library_db(path, LOOSE_DDL, authors=AUTHORS, books=books)
    return path


EXPECTED = {
    ("books", "id"),  # duplicate primary key
    ("books", "title"),  # NULL
    ("books", "author_id"),  # dangling foreign key
    ("books", "format"),  # enum
    ("books", "stock"),  # range
}


@pytest.mark.slow
def test_a_good_database_passes_both_engines(library):
    spec = library_schema()
    db = library.path("library__00", "env.db")
    assert database_findings(db, spec) == []
    result = run_expectation_suite(db, spec)
    assert result.success and result.findings == [] and result.cells > 20


def test_the_sql_rules_name_table_column_and_row(broken_db):
    findings = database_findings(broken_db, library_schema())
    assert {(f.table, f.column) for f in findings} == EXPECTED
    by_column = {f.column: f for f in findings}
    assert by_column["author_id"].row == 6 and by_column["author_id"].value == 99
    assert by_column["format"].value == "papyrus" and by_column["stock"].row == 8
    assert "appears 2 times" in by_column["id"].error


@pytest.mark.parametrize("row, column", [
    ((2, "Poems again", 2, "paper", 1), "id"),
    ((5, None, 1, "paper", 1), "title"),
    ((6, "Lost", 99, "paper", 1), "author_id"),
    ((7, "Scroll", 1, "papyrus", 1), "format"),
    ((8, "Bestseller", 1, "paper", 5000), "stock"),
])
def test_each_rule_alone_is_caught(tmp_path, row, column):
    """One violation in an otherwise clean table gets past no shortcut (the one-scan count per table)."""
    path = tmp_path / "one.db"
    write_library_db(path, LOOSE_DDL, authors=AUTHORS, books=BOOKS + [row])
    assert {(f.table, f.column) for f in database_findings(path, library_schema())} == {("books", column)}


def test_the_expectation_suite_finds_the_same_problems(broken_db):
    result = run_expectation_suite(broken_db, library_schema())
    assert not result.success
    assert {(f.table, f.column) for f in result.findings} == EXPECTED
    rows = {(f.column, f.row) for f in result.findings}
    assert ("author_id", "6") in rows and ("format", "7") in rows and ("title", "5") in rows
    kinds = {e["expectation"] for e in result.failed_expectations}
    assert "expect_column_values_to_be_unique" in kinds and "expect_column_values_to_not_be_null" in kinds
    assert all(e["sample"] for e in result.failed_expectations)


def test_min_rows_per_table(tmp_path):
    path = tmp_path / "empty.db"
    write_library_db(path, to_ddl(library_schema()), authors=AUTHORS, books=[])
    findings = database_findings(path, library_schema())
    assert [(f.table, f.value) for f in findings] == [("books", 0)]
    suite = run_expectation_suite(path, library_schema())
    assert [(f.table, f.value) for f in suite.findings] == [("books", 0)]


def test_every_offline_database_passes(corpus):
    for env_id in corpus.env_ids()[:2]:
        spec = corpus.read_model(env_id, "schema.json", SchemaSpec)
        assert database_findings(corpus.database_path(env_id), spec) == []
        assert run_expectation_suite(corpus.database_path(env_id), spec).success


def test_a_second_build_is_byte_identical(corpus):
    env_id = corpus.env_ids()[0]
    assert rebuild_findings(corpus, env_id, get_backend()) == []


class ClockBackend:
    """The offline builder, except that one column takes the time of the build."""

    def __init__(self):
        self.inner = get_backend()
        self.name, self.model, self.params = "clock", None, {"builder": "clock"}
        self.builds = 0

    def database_rows(self, scenario, schema):
        self.builds += 1
        rows = self.inner.database_rows(scenario, schema)
        table = schema.tables[0]
        text_column = next(c.name for c in table.columns if c.type == "TEXT" and not c.enum and not c.unique)
        rows[table.name][0][text_column] = f"built at tick {self.builds}"  # what datetime('now') does
        return rows


def test_a_database_that_depends_on_the_clock_is_caught(corpus, store):
    env_id = corpus.env_ids()[0]
    for name in ("scenario.json", "schema.json", "schema.sql"):
        store.write_text(env_id, name, corpus.read_text(env_id, name))
    backend = ClockBackend()
    assert databases.build(store, env_id, backend).ok
    findings = rebuild_findings(store, env_id, backend)
    assert [f.check for f in findings] == [CHECK_CLOCK]
    assert "row 1" in findings[0].error and "differ" in findings[0].error


def test_ddl_that_reads_the_clock_is_caught():
    ddl = "CREATE TABLE t (id INTEGER PRIMARY KEY, created TEXT DEFAULT CURRENT_TIMESTAMP);"
    assert ddl_clock_findings("x__00", ddl)[0].check == CHECK_CLOCK
    assert ddl_clock_findings("x__00", to_ddl(library_schema())) == []


def test_the_databases_stage_fails_an_environment_with_an_empty_table(corpus, store):
    env_id = corpus.env_ids()[0]
    for name in ("scenario.json", "schema.json", "schema.sql"):
        store.write_text(env_id, name, corpus.read_text(env_id, name))

    class EmptyTableBackend(ClockBackend):
        def database_rows(self, scenario, schema):
            rows = self.inner.database_rows(scenario, schema)
            rows[schema.tables[-1].name] = []
            return rows

    outcome = databases.build(store, env_id, EmptyTableBackend())
    assert outcome.status == "failed" and "[database_rows]" in outcome.error
    assert not store.exists(env_id, "env.db")
