"""Schema checks on crafted DDL: a dangling foreign key, a table without a key, auth data."""

from awm.contracts import Column, SchemaSpec, Table
from awm.quality.schemas import (
    CHECK_AGREES,
    CHECK_AUTH,
    CHECK_DDL,
    CHECK_FOREIGN_KEY,
    CHECK_PRIMARY_KEY,
    schema_findings,
)
from awm.schema_sql import to_ddl
from tests.awm.quality.conftest import library_schema


def test_a_valid_schema_has_no_findings(corpus):
    spec = library_schema()
    assert schema_findings(spec, to_ddl(spec)) == []
    for env_id in corpus.env_ids():
        assert schema_findings(corpus.read_model(env_id, "schema.json", SchemaSpec),
                               corpus.read_text(env_id, "schema.sql")) == []


def test_a_dangling_foreign_key_is_named_in_both_json_and_ddl():
    good = library_schema()
    ddl = to_ddl(good).replace("\tstock INTEGER NOT NULL, \n", "\tstock INTEGER NOT NULL, \n\tpublisher_id INTEGER, \n")
    ddl = ddl.replace("REFERENCES authors (id)\n", "REFERENCES authors (id), \n\tFOREIGN KEY(publisher_id) "
                      "REFERENCES publishers (id)\n")
    spec = library_schema()
    spec.table("books").columns.append(Column(name="publisher_id", type="INTEGER", references="publishers.id"))
    findings = schema_findings(spec, ddl)
    dangling = [f for f in findings if f.check == CHECK_FOREIGN_KEY]
    assert {(f.table, f.column) for f in dangling} == {("books", "publisher_id")}
    assert len(dangling) == 2 and all("publishers" in f.error for f in dangling)  # schema.json and schema.sql


def test_a_table_without_primary_key_and_ddl_that_disagrees():
    spec = library_schema()
    ddl = to_ddl(spec).replace("PRIMARY KEY (id)", "UNIQUE (id)", 1)
    findings = schema_findings(spec, ddl)
    assert any(f.check == CHECK_PRIMARY_KEY and f.table == "authors" for f in findings)
    assert any(f.check == CHECK_AGREES and f.table == "authors" and f.column == "id" for f in findings)


def test_ddl_that_sqlite_rejects():
    findings = schema_findings(library_schema(), "CREATE TABLE authors (id INTEGER PRIMARY KEY,, name TEXT);")
    assert findings[0].check == CHECK_DDL and "SQLite rejects" in findings[0].error


def test_authentication_tables_and_columns_are_refused():
    spec = SchemaSpec(env_id="library__00", tables=[
        Table(name="user_passwords", description="secrets", columns=[
            Column(name="id", type="INTEGER", primary_key=True, nullable=False),
            Column(name="password_hash", type="TEXT")])])
    findings = [f for f in schema_findings(spec, to_ddl(spec)) if f.check == CHECK_AUTH]
    assert {(f.table, f.column) for f in findings} == {("user_passwords", None), ("user_passwords", "password_hash")}
