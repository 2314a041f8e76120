"""Sample values of the placeholders tool templates use, so template modules import and lint as real code.

A template names a role's table, label, foreign key and plural label as ROLE_TABLE, ROLE_LABEL, ROLE_FK and
ROLE_PLURAL (ROLE is the role in capitals; ENTITY stands for the role of a generic tool), and a coded role's
code prefix as ROLE_PREFIX; the builder binds them per environment (awm.builder.tools.base.entity_bindings).
The role placeholders are not kept here: importing one derives it (the module's `__getattr__`) from the role's
default label (awm.builder.entities) or its category's (awm/builder/categories/<category>/entities.py), the
value a world with that label binds; rendering never reads them, and a name of no role is refused on import.
The other placeholders are a concern's values (a window, a limit, a column), with sample values; each is
imported by some template (tests/awm/builder/test_placeholders.py). A placeholder only one concern uses may
instead be defined at the top of that concern's template module (rendering takes only the template functions
of a module).
"""

from functools import cache

from awm.builder.entities import DEFAULT_LABELS
from awm.builder.modules.packs import PACK_MODULES
from awm.builder.naming import code_prefix, plural, snake

_ROLE_PARTS = ("TABLE", "LABEL", "FK", "PLURAL", "PREFIX")


@cache
def role_labels() -> dict[str, str]:
    """Every role with its label: the default ones, then each category's."""
    return {**DEFAULT_LABELS, **{role: label for module in PACK_MODULES.values() for role, label in module.LABELS.items()}}


def role_placeholder(name: str) -> str | None:
    """The sample value of ROLE_TABLE, ROLE_LABEL, ROLE_FK, ROLE_PLURAL or ROLE_PREFIX, as a world with the
    role's label binds it (awm.builder.tools.base.entity_bindings); None if `name` is not one."""
    token, _, part = name.rpartition("_")
    label = role_labels().get(token.lower()) if token.isupper() and part in _ROLE_PARTS else None
    if label is None:
        return None
    return {"TABLE": snake(plural(label)), "LABEL": label, "FK": f"{snake(label)}_id", "PLURAL": plural(label),
            "PREFIX": code_prefix(label)}[part]


def __getattr__(name: str) -> str:
    value = role_placeholder(name)
    if value is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (not a placeholder, nor a role's "
                             f"{', '.join(_ROLE_PARTS)})")
    return value


ENTITY_TABLE = "orders"
ENTITY_LABEL = "order"
ENTITY_FK = "order_id"

SIZE_COSTS = {"small": 20.0, "large": 80.0}  # a server size -> its monthly cost
CODE_PREFIX = "CRD"  # the unique code prefix of the role a create tool numbers (WorldPlan.code_prefixes)
OPEN_STATUSES = ("confirmed",)  # the case statuses a tool accepts
MAX_LIMIT = 10000.0  # the most a limit or amount may be set to
HAS_READINGS = False  # the world keeps meter readings (recording one adds a row)
HAS_HOLDS = False  # the world keeps registration holds (enrolment and transcripts check them)
FAR_CUTOFF = "2025-08-01"  # a second date bound of a rule (a renewal window, the earliest notice date)
SAFE_RANGES: dict = {}  # unit -> (lowest, highest) safe reading of a food safety check
MAX_RATES: dict = {}  # crop input -> (unit, the most its label allows per acre)

# the shape of one tool: set per tool by its declaration
SEARCH = False  # the list tool takes a text query
SEARCH_COLUMNS = ("name",)  # the columns the query matches
FILTERS: dict = {}  # the list tool's filters, column -> parameter (an expression)
CHILDREN: tuple = ()  # a get tool's child tables: bindings of CHILD_KEY and CHILD_TABLE per child
CHILD_KEY = "order_lines"
CHILD_TABLE = "order_lines"
VERB_TEXT = "cancel"  # a status transition: its verb, allowed source statuses, target status, extra values
SOURCES = ("pending",)
TARGET = "cancelled"
EXTRA = None
INITIAL = "pending"  # the case flavour: initial status, statuses lines may change in, closed statuses ...
EDITABLE = ("pending",)
CLOSED = ("cancelled", "completed")
REFUNDABLE = ("cancelled",)
REFUNDABLE_TEXT = "cancelled"
CANCELLED = "cancelled"
OPEN_STATUSES_SQL = "'pending', 'confirmed'"
SERVICE = False  # assigning an open case makes it assigned
TIME_COLUMN = "placed_at"  # the case's time column (TIME names the parameter carrying it)
HAS_DISCOUNT = False
NEEDS_TIME = False  # a case action: takes a new time, has a time window, needs verified documents
WINDOW_DAYS = 0
WINDOW_TEXT = "30"
CUTOFF = "2025-01-01T00:00:00"
NEEDS_DOCUMENTS = False
HAS_STOCK = False  # receiving a purchase order adds its quantities to stock

# a verifier's goal checks (awm.builder.templates.verifier): the goal's table, row, expected values ...
TABLE = "orders"
PK = 1
EXPECT: dict = {"status": "shipped"}
COLUMN = "total_amount"
DELTA = 0.0
COUNT = 1
CHILD_FK = "order_id"
# an answer goal: its slot and the task's slots, type, value, conflicting candidates, allowed numbers and dates,
# echoes, the words a prose answer may use, the words its expected values use, whether the answer may deny things
# (a refusal, a condition not met) other than its values
SPEC: dict = {"slot": "status", "slots": ["status"], "type": "status", "value": "shipped", "others": [],
              "allowed": [], "names": [], "echoes": [], "vocabulary": [], "said": [], "proper": [], "denials": False}
