"""A tiny hand-written environment whose tasks create rows (room bookings), to judge whole inserted rows on:
a create tool with optional arguments (a start, a kind from a closed set, a note), a generated code, and
tools that act on a booking once it exists (confirm, cancel) or on its member (suspend)."""

from __future__ import annotations

import sqlite3

from awm.contracts import Column, SchemaSpec, Table, TaskSet, ToolSet, VerifierSet
from awm.schema_sql import to_ddl
from awm.store import ArtifactStore, dump_json

ENV_ID = "rooms__00"
NOW = "2025-06-01T09:00:00"

TOOLS_PY = '''\
"""Tools of a small room-booking desk."""

NOW = "2025-06-01T09:00:00"


def error(code, message):
    return {"error": {"code": code, "message": message}}


def get_room(db, room_id):
    row = db.one("SELECT * FROM rooms WHERE id = ?", [room_id])
    return row if row is not None else error("not_found", "no room " + str(room_id))


def book_room(db, room_id, member_id, starts_at=None, kind=None, note=None):
    if db.one("SELECT id FROM rooms WHERE id = ?", [room_id]) is None:
        return error("not_found", "no room " + str(room_id))
    member = db.one("SELECT * FROM members WHERE id = ?", [member_id])
    if member is None:
        return error("not_found", "no member " + str(member_id))
    if member["status"] != "active":
        return error("invalid_state", "member " + str(member_id) + " is " + member["status"])
    count = db.one("SELECT COUNT(*) AS n FROM bookings", [])["n"]
    new_id = db.execute(
        "INSERT INTO bookings (code, room_id, member_id, starts_at, kind, status, note, created_at) "
        "VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)",
        ["BK-" + str(100 + count), room_id, member_id, starts_at or NOW, kind or "standard", note, NOW])["lastrowid"]
    return db.one("SELECT * FROM bookings WHERE id = ?", [new_id])


def _move(db, booking_id, sources, target):
    row = db.one("SELECT * FROM bookings WHERE id = ?", [booking_id])
    if row is None:
        return error("not_found", "no booking " + str(booking_id))
    if row["status"] not in sources:
        return error("invalid_state", "booking " + str(booking_id) + " is " + row["status"])
    db.execute("UPDATE bookings SET status = ? WHERE id = ?", [target, booking_id])
    return db.one("SELECT * FROM bookings WHERE id = ?", [booking_id])


def confirm_booking(db, booking_id):
    return _move(db, booking_id, ["pending"], "confirmed")


def cancel_booking(db, booking_id):
    return _move(db, booking_id, ["pending", "confirmed"], "cancelled")


def suspend_member(db, member_id):
    if db.one("SELECT id FROM members WHERE id = ?", [member_id]) is None:
        return error("not_found", "no member " + str(member_id))
    db.execute("UPDATE members SET status = 'suspended' WHERE id = ?", [member_id])
    return db.one("SELECT * FROM members WHERE id = ?", [member_id])
'''


def _spec(name, description, properties, required, read_only):
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": required,
                            "additionalProperties": False},
            "annotations": {"readOnlyHint": read_only}}


ID = {"type": "integer", "minimum": 1}
TOOLS_JSON = {"env_id": ENV_ID, "tools": [
    _spec("get_room", "Get one room.", {"room_id": ID}, ["room_id"], True),
    _spec("book_room", "Book a room for a member.",
          {"room_id": ID, "member_id": ID, "starts_at": {"type": "string", "format": "date-time"},
           "kind": {"type": "string", "enum": ["standard", "priority"]}, "note": {"type": "string"}},
          ["room_id", "member_id"], False),
    _spec("confirm_booking", "Confirm a pending booking.", {"booking_id": ID}, ["booking_id"], False),
    _spec("cancel_booking", "Cancel a booking.", {"booking_id": ID}, ["booking_id"], False),
    _spec("suspend_member", "Suspend a member.", {"member_id": ID}, ["member_id"], False),
]}


def _verifier(room: int, member: int) -> str:
    """Checks only what the instruction states (a new booking of this room for this member), like a rows_created
    goal: the runtime's outcome check is what compares the rest of the row."""
    return f'''\
def verify(initial, final, answer):
    last = initial.one("SELECT MAX(id) AS n FROM bookings", [])["n"] or 0
    rows = final.query("SELECT * FROM bookings WHERE id > ? AND room_id = ? AND member_id = ?", [last, {room}, {member}])
    ok = len(rows) == 1
    return {{"complete": ok, "evidence": ["every goal is met"] if ok else [str(len(rows)) + " new bookings"]}}
'''


TASKS_JSON = {"env_id": ENV_ID, "acting_user": "the front desk", "tasks": [
    {"task_id": "t01", "kind": "action", "template": "book_at",
     "instruction": "Book room 2 for member 1 starting 2025-06-03T10:00:00.",
     "reference_solution": [{"tool": "get_room", "arguments": {"room_id": 2}},
                            {"tool": "book_room", "arguments": {"room_id": 2, "member_id": 1,
                                                                "starts_at": "2025-06-03T10:00:00"}}],
     "goals": [{"kind": "rows_created", "table": "bookings", "expect": {"room_id": 2, "member_id": 1}, "count": 1}]},
    {"task_id": "t02", "kind": "action", "template": "book_with_note",
     "instruction": "Book room 1 for member 2 and leave the front desk a short note about the visit.",
     "reference_solution": [{"tool": "book_room", "arguments": {"room_id": 1, "member_id": 2,
                                                                "note": "Guest arrives early"}}],
     "goals": [{"kind": "rows_created", "table": "bookings", "expect": {"room_id": 1, "member_id": 2}, "count": 1}]},
]}
VERIFIERS = {"t01": _verifier(2, 1), "t02": _verifier(1, 2)}


def bookings_schema() -> SchemaSpec:
    return SchemaSpec(env_id=ENV_ID, tables=[
        Table(name="members", description="people who book rooms", columns=[
            Column(name="id", type="INTEGER", primary_key=True, nullable=False),
            Column(name="name", type="TEXT", nullable=False),
            Column(name="status", type="TEXT", nullable=False, enum=["active", "suspended"])]),
        Table(name="rooms", description="rooms to book", columns=[
            Column(name="id", type="INTEGER", primary_key=True, nullable=False),
            Column(name="name", type="TEXT", nullable=False)]),
        Table(name="bookings", description="a room booked for a member", columns=[
            Column(name="id", type="INTEGER", primary_key=True, nullable=False),
            Column(name="code", type="TEXT", nullable=False, unique=True),
            Column(name="room_id", type="INTEGER", nullable=False, references="rooms.id"),
            Column(name="member_id", type="INTEGER", nullable=False, references="members.id"),
            Column(name="starts_at", type="TEXT", nullable=False),
            Column(name="kind", type="TEXT", nullable=False, enum=["standard", "priority"]),
            Column(name="status", type="TEXT", nullable=False, enum=["pending", "confirmed", "cancelled"]),
            Column(name="note", type="TEXT"),
            Column(name="created_at", type="TEXT", nullable=False)]),
    ])


MEMBERS = [(1, "Ada Lovelace", "active"), (2, "Mary Shelley", "active")]
ROOMS = [(1, "Blue Room"), (2, "Green Room")]
BOOKINGS = [(1, "BK-100", 1, 1, "2025-05-20T10:00:00", "standard", "confirmed", "Bring the keys", NOW),
            (2, "BK-101", 2, 2, "2025-05-21T14:00:00", "priority", "pending", None, NOW)]


def write_bookings(store: ArtifactStore, footprints: dict[str, dict] | None = None) -> str:
    """The environment in `store`; verifiers.json with the given footprints (none: the runtime replays the
    reference solution for them, as for a verifier written before footprints were recorded)."""
    spec = bookings_schema()
    ddl = to_ddl(spec)
    store.write_text(ENV_ID, "schema.json", dump_json(spec))
    store.write_text(ENV_ID, "schema.sql", ddl)
    conn = sqlite3.connect(store.path(ENV_ID, "env.db"))
    conn.executescript(ddl)
    conn.executemany("INSERT INTO members VALUES (?, ?, ?)", MEMBERS)
    conn.executemany("INSERT INTO rooms VALUES (?, ?)", ROOMS)
    conn.executemany("INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", BOOKINGS)
    conn.commit()
    conn.close()
    store.write_text(ENV_ID, "tools.py", TOOLS_PY)
    store.write_text(ENV_ID, "tools.json", dump_json(ToolSet.model_validate(TOOLS_JSON)))
    store.write_text(ENV_ID, "tasks.json", dump_json(TaskSet.model_validate(TASKS_JSON)))
    store.write_text(ENV_ID, "verifiers.json", dump_json(VerifierSet(env_id=ENV_ID, verifiers=[
        {"task_id": k, "code": v, "footprint": (footprints or {}).get(k)} for k, v in VERIFIERS.items()])))
    return ENV_ID
