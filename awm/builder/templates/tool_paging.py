"""The paging helpers of each API style (awm.builder.dialect), rendered after the prelude in an environment of
that style: a page of rows (the prelude's `select_rows`) and what the answer says about the next one.

  offset  list_rows(limit, offset)   -> {items, total, limit, offset, next_offset}
  page    list_page(page, page_size) -> {results, page, page_size, total_pages, total_results}
  cursor  list_after(limit, cursor)  -> {data, has_more, next_cursor}; a cursor this tool did not make is refused
"""

from awm.builder.templates.tool_prelude import error, select_rows


def list_rows(db, table, filters, limit, offset, search=None, search_columns=()):
    rows, total = select_rows(db, table, filters, limit, offset, search, search_columns)
    more = offset + len(rows) < total
    return {"items": rows, "total": total, "limit": limit, "offset": offset,
            "next_offset": offset + len(rows) if more else None}


def list_page(db, table, filters, page, page_size, search=None, search_columns=()):
    rows, total = select_rows(db, table, filters, page_size, (page - 1) * page_size, search, search_columns)
    return {"results": rows, "page": page, "page_size": page_size,
            "total_pages": (total + page_size - 1) // page_size, "total_results": total}


def make_cursor(offset):
    return "c1." + hex(offset * 7 + 3)[2:]


def read_cursor(cursor):
    digits = cursor[3:] if cursor.startswith("c1.") else ""
    if not digits or any(ch not in "0123456789abcdef" for ch in digits):
        return None
    number = int(digits, 16) - 3
    return number // 7 if number >= 0 and number % 7 == 0 else None


def list_after(db, table, filters, limit, cursor=None, search=None, search_columns=()):
    offset = 0
    if cursor is not None:
        offset = read_cursor(cursor)
        if offset is None:
            return error("invalid_argument", "cursor " + cursor + " is not one this tool returned; "
                         "leave it out for the first page", field="cursor")
    rows, total = select_rows(db, table, filters, limit, offset, search, search_columns)
    more = offset + len(rows) < total
    return {"data": rows, "has_more": more, "next_cursor": make_cursor(offset + len(rows)) if more else None}
