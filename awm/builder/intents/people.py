"""Intents about the people and things every business keeps: its customers (contact details, addresses,
status and tier), its staff (who works where, who leaves), its catalogue (prices, what is offered) and its
sites (moving a case from one to another)."""

from __future__ import annotations

from awm.builder.intents.base import BOTH, Plan, World, intent, or_words
from awm.builder.intents.steps import (
    CANCEL_REASONS,
    MOVE_NOTES,
    OFFICE_MOVE_NOTES,
    PURCHASES,
    act,
    act_and_refund,
    add_note,
    captured,
    get_case,
    message_channel,
    notify,
    paid_at_once,
    refund,
    status_goal,
)
from awm.builder.phrasing import Say, T, count, money, quote
from awm.contracts import Goal

_CITIES = ("Portland", "Madison", "Tucson", "Raleigh", "Boise", "Omaha", "Savannah", "Spokane", "Dayton", "Eugene")
_STREETS = ("Elm", "Harbor", "Maple", "Summit", "Cedar", "Willow", "Lakeview", "Orchard", "Juniper", "Ridge")
_MAIL_HOSTS = ("example.com", "example.org", "example.net", "mail.test")


def street_address(w: World) -> str:
    return f"{w.rng.randint(10, 999)} {w.pick(_STREETS)} {w.pick(['Street', 'Avenue', 'Road', 'Lane'])}"


def _phone(w: World) -> str:
    return f"555-{w.rng.randint(100, 999)}-{w.rng.randint(1000, 9999)}"


def postal_code(w: World) -> str:
    return f"{w.rng.randint(10000, 99999)}"


# --- contact details and addresses ----------------------------------------------------------------------


@intent("action", needs=("address",))
def update_contact_details(w: World) -> Plan | None:
    """A person who moved house: their city and phone, a primary home address, a note on their latest case (not
    where the customers are organisations: they have no home)."""
    party = None if w.organisation else w.pick(w.active_parties("case"))
    if party is None:
        return None
    city, phone, street, postal = w.pick(_CITIES), _phone(w), street_address(w), postal_code(w)
    case = max(w.party_cases(party), key=lambda c: c["created_at"])
    note = w.pick(("Contact details updated", "New address on file", "Moved house; details updated"))
    ref = w.party_ref(party)
    case_np, _ = w.case_ref(case, ref, lookups=False)
    pfk = w.fk("party")
    note_call, note_goal = add_note(w, case, note)
    calls = [w.find_party(ref),
             (w.n.change("party", "update", "contact"), {w.pk("party"): party["id"], "city": city, "phone": phone}),
             (w.n.list("address"), {pfk: party["id"]}),
             (w.n.create("address"), {pfk: party["id"], "kind": "home", "street": street, "city": city,
                                      "postal_code": postal, "is_primary": True}),
             (w.n.list("case"), {pfk: party["id"]}), note_call]
    say = Say("do", (
        "{they_have} moved || change {their} city to {city} and {their} phone to {phone}, add a primary home "
        "{ADDRESS} at {street}, {city} {postal}, and add a note saying {note} to {case}",
        "update {their} details after a move: city {city}, phone {phone}, a new primary home {ADDRESS} at "
        "{street}, {city} {postal}, and the note {note} on {case}",
        "record {their} move to {city}: set the city to {city} and the phone number to {phone}, add {a ADDRESS} "
        "(home, primary) at {street}, {city} {postal}, then put the note {note} on {case}",
        "{they_have} [relocated|just moved house] to {city} || [set|change] the city to {city}, the phone to {phone}, "
        "[make {street}, {city} {postal}|add {street}, {city} {postal} as] {their} primary home {ADDRESS}, and "
        "[note|record] {note} on {case}",
    ), {"city": city, "phone": phone, "street": street, "postal": postal, "note": quote(note), "case": case_np},
        party=ref, voices=BOTH)
    goals = [Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"city": city, "phone": phone}),
             Goal(kind="rows_created", table=w.table("address"), count=1,
                  expect={pfk: party["id"], "kind": "home", "street": street, "city": city, "postal_code": postal,
                          "is_primary": 1}), note_goal]
    return Plan(calls, goals, say, targets={("party", party["id"]), ("case", case["id"])})


@intent("action")
def change_email(w: World) -> Plan | None:
    party = w.pick(w.active_parties())
    if party is None:
        return None
    email = f"{party['first_name']}.{party['last_name']}.{w.rng.randint(2, 99)}@{w.pick(_MAIL_HOSTS)}".lower()
    email = email.replace("'", "").replace(" ", "")
    ref = w.party_ref(party, ("name_email", "name"))
    calls = [w.find_party(ref), (w.n.change("party", "update", "contact"), {w.pk("party"): party["id"],
                                                                           "email": email})]
    goals = [Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"email": email})]
    slots = {"new": email}
    tail = ""
    if w.has("notification"):
        subject = w.pick(("Your email address was changed", "Email address updated", "We updated your email"))
        note_call, note_goal = notify(w, party, "email", subject, f"Your email address is now {email}.")
        calls.append(note_call)
        goals.append(note_goal)
        slots["subject"] = quote(subject)
        tail = ", then send {them} an email {NOTIFICATION} with the subject {subject}"
    say = Say("do", (
        "change {their} email address to {new}" + tail,
        "{their} email is now {new} || update the record" + tail,
        "replace the email on {their} record with {new}" + tail,
    ), slots, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("party", party["id"])})


@intent("action", needs=("address",))
def add_billing_address(w: World) -> Plan | None:
    parties = [p for p in w.active_parties() if not any(a["kind"] == "billing" for a in
                                                        w.children("address", "party", p["id"]))]
    party = w.pick(parties)
    if party is None:
        return None
    street, city, postal = street_address(w), w.pick(_CITIES), postal_code(w)
    ref = w.party_ref(party)
    pfk = w.fk("party")
    calls = [w.find_party(ref), (w.n.list("address"), {pfk: party["id"]}),
             (w.n.create("address"), {pfk: party["id"], "kind": "billing", "street": street, "city": city,
                                      "postal_code": postal, "is_primary": False})]
    say = Say("do", (
        "add a billing {ADDRESS} for {them} at {street}, {city} {postal}, without making it the primary one",
        "{they} would like invoices to go to {street}, {city} {postal} || add that as a billing {ADDRESS} (not "
        "primary)",
        "put a second {ADDRESS} on file for {them}: billing, {street}, {city} {postal}; keep the current "
        "primary as it is",
    ), {"street": street, "city": city, "postal": postal}, party=ref, voices=BOTH)
    goal = Goal(kind="rows_created", table=w.table("address"), count=1,
                expect={pfk: party["id"], "kind": "billing", "street": street, "city": city, "postal_code": postal,
                        "is_primary": 0})
    return Plan(calls, [goal], say, targets={("party", party["id"])})


@intent("action", needs=("address",))
def new_primary_address(w: World) -> Plan | None:
    party = w.pick([p for p in w.active_parties() if w.children("address", "party", p["id"])])
    if party is None:
        return None
    kind = w.pick(["billing", "work"] if w.organisation else ["home", "work"])  # an organisation has no home
    street, city, postal = street_address(w), w.pick(_CITIES), postal_code(w)
    ref = w.party_ref(party)
    pfk = w.fk("party")
    calls = [w.find_party(ref), (w.n.list("address"), {pfk: party["id"]}),
             (w.n.create("address"), {pfk: party["id"], "kind": kind, "street": street, "city": city,
                                      "postal_code": postal, "is_primary": True})]
    say = Say("do", (
        "make {street}, {city} {postal} {their} primary {ADDRESS} (a {kind} {ADDRESS})",
        "add a new {kind} {ADDRESS} for {them} at {street}, {city} {postal} and make it the primary one",
        "from now on {their} main {ADDRESS} is {street}, {city} {postal} ({kind}) || add it as primary",
    ), {"street": street, "city": city, "postal": postal, "kind": kind}, party=ref, voices=BOTH)
    goal = Goal(kind="rows_created", table=w.table("address"), count=1,
                expect={pfk: party["id"], "kind": kind, "street": street, "city": city, "postal_code": postal,
                        "is_primary": 1})
    return Plan(calls, [goal], say, targets={("party", party["id"])})


def _sole_addresses(w: World, primary: bool) -> list[tuple[dict, dict]]:
    """(party, address) for each active party with exactly one primary (or one other) address, on a street no
    other address of theirs shares, so the street names it alone."""
    options = []
    for party in w.active_parties():
        addresses = w.children("address", "party", party["id"])
        kind = [a for a in addresses if bool(a["is_primary"]) == primary]
        if len(kind) == 1 and sum(a["street"] == kind[0]["street"] for a in addresses) == 1:
            options.append((party, kind[0]))
    return options


@intent("action", needs=("address",))
def remove_old_address(w: World) -> Plan | None:
    options = _sole_addresses(w, primary=False)
    if not options:
        return None
    party, address = w.rng.choice(options)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("address"), {w.fk("party"): party["id"]}),
             (w.n.delete("address"), {w.pk("address"): address["id"]})]
    say = Say("do", (
        "{they} no longer use {their} {ADDRESS} at {street} || delete it",
        "{they} moved out of {street} || remove that {ADDRESS} from {their} record",
        "take the {ADDRESS} on {street} off {their} file",
    ), {"street": address["street"]}, party=ref, voices=BOTH)
    return Plan(calls, [Goal(kind="row_deleted", table=w.table("address"), pk=address["id"])], say,
                targets={("party", party["id"])})


@intent("infeasible", needs=("address",))
def delete_primary_address(w: World) -> Plan | None:
    options = _sole_addresses(w, primary=True)
    if not options:
        return None
    party, address = w.rng.choice(options)
    ref = w.party_ref(party)
    say = Say("do", (
        "delete {their} {ADDRESS} at {street}",
        "remove the {ADDRESS} on {street} from {their} record",
        "{their} {ADDRESS} at {street} is no longer [needed|in use] || delete it",
    ), {"street": address["street"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("address"), {w.fk("party"): party["id"]})],
                [w.text_answer("primary", ["secondary"])], say,
                answer="It is the primary address, and a primary address cannot be deleted until another one is "
                       "made primary.", targets={("party", party["id"])},
                refused=((w.n.delete("address"), {w.pk("address"): address["id"]}), "primary_address"))


# --- registering, suspending, tiers -----------------------------------------------------------------------


def _new_person(w: World) -> tuple[str, str, str, str, str]:
    first = w.pick(["Maya", "Omar", "Lena", "Theo", "Priya", "Jonas", "Elena", "Marcus", "Nadia", "Felix", "Ruth",
                    "Andre", "Keiko", "Sofia", "Dmitri", "Imani"])
    last = w.pick(["Okafor", "Lindqvist", "Moreau", "Castillo", "Haddad", "Novak", "Brennan", "Tanaka", "Abara",
                   "Fischer", "Quinlan", "Varga"])
    email = f"{first}.{last}@{w.pick(_MAIL_HOSTS)}".lower()
    taken = {p["email"] for p in w.rows["party"]}
    if email in taken:
        email = email.replace("@", f"{w.rng.randint(2, 99)}@")
    return first, last, email, _phone(w), w.pick(_CITIES)


@intent("chained")
def register_and_open(w: World) -> Plan | None:
    items = [i for i in w.rows["item"] if i["active"]]
    if not items:
        return None
    first, last, email, phone, city = _new_person(w)
    site = w.pick(w.rows["site"])
    # a first case of one item, or (most often, where the catalogue has two of different names and the case is
    # bought or booked: an application is for one thing) of two
    two = len(items) >= 2 and w.fl.name in PURCHASES and w.chance(TWO_ITEMS_SHARE)
    chosen = w.rng.sample(items, 2) if two else [w.pick(items)]
    if len(chosen) == 2 and chosen[0]["name"] == chosen[1]["name"]:
        chosen = chosen[:1]
    lines = [(item, w.units(w.rng.randint(1, 3))) for item in chosen]
    party_id, case_id = len(w.rows["party"]) + 1, len(w.rows["case"]) + 1
    pfk, cfk = w.fk("party"), w.fk("case")
    calls = [(w.n.list("party"), {"query": email}),
             (w.n.create("party"), {"first_name": first, "last_name": last, "email": email, "phone": phone,
                                    "city": city}),
             w.find_site(site), *(w.find_item(item) for item, _ in lines),
             (w.n.create("case"), {pfk: party_id, w.fk("site"): site["id"]}),
             *((w.n.create("line"), {cfk: case_id, w.fk("item"): item["id"], "quantity": qty}) for item, qty in lines)]
    say = Say("do", (
        "register {name} as a new {PARTY} (email {email}, phone {phone}, city {city}), then open {a CASE} for "
        "them at {site} with {items}",
        "{name} is new [to us|here] || create {their} record with email {email}, phone {phone} and city {city}, and "
        "start {a CASE} at {site} containing {line}",
        "sign up {name} ({email}, {phone}, living in {city}) and [straight away|right after that] set up {a CASE} "
        "for them at {site}: {items}",
        "[a new {PARTY}|someone new], {name}, [walked in at|called] {site} || add them to our records (email "
        "{email}, phone {phone}, city {city}) and [open|create] {a CASE} there for {line}",
        "create {a PARTY} record for {name}, [email|email address] {email}, phone {phone}, based in {city}; "
        "[then|after that] [book|place] {a CASE} at {site} for {items} under that new record",
        "{name} [has never dealt with us before|is a first-time {PARTY}] and [wants|would like] {line} from {site} "
        "|| [set them up|put them on file] with [the email|email] {email}, [the phone number|phone] {phone} and "
        "[the city|city] {city}, then [raise|open] {a CASE} [for it|for that] there",
        "[first|before anything else], [add|enter] {name} as {a PARTY} ({email}; {phone}; {city}) || [open|start] "
        "{a CASE} [for them|in their name] at {site} [holding|with] {line}",
    ), {"name": f"{first} {last}", "email": email, "phone": phone, "city": city, "site": site["name"],
        "line": " and ".join(w.line_words(item, qty, "{item} (quantity {n})") for item, qty in lines),
        "items": " and ".join(w.line_words(item, qty) for item, qty in lines)})
    goals = [Goal(kind="rows_created", table=w.table("party"), count=1,
                  expect={"first_name": first, "last_name": last, "email": email, "phone": phone, "city": city}),
             Goal(kind="rows_created", table=w.table("case"), count=1,
                  expect={pfk: party_id, w.fk("site"): site["id"]}, child_table=w.table("line"), child_fk=cfk,
                  children=[{w.fk("item"): item["id"], "quantity": qty} for item, qty in lines])]
    if len(lines) == 2:
        say.clauses = tuple(c.replace("[for it|for that]", "[for both|for the two]") for c in say.clauses)
    plan = Plan(calls, goals, say)
    return paid_at_once(w, plan, lines) if w.items_are("priced") else plan


TWO_ITEMS_SHARE = 0.6  # how often a newly registered person's first case holds two items


@intent("action", needs=("address",))
def register_with_address(w: World) -> Plan | None:
    """A new person registered with a primary home address (not where the customers are organisations)."""
    if w.organisation:
        return None
    first, last, email, phone, city = _new_person(w)
    street, postal = street_address(w), postal_code(w)
    party_id = len(w.rows["party"]) + 1
    pfk = w.fk("party")
    calls = [(w.n.list("party"), {"query": email}),
             (w.n.create("party"), {"first_name": first, "last_name": last, "email": email, "phone": phone,
                                    "city": city}),
             (w.n.create("address"), {pfk: party_id, "kind": "home", "street": street, "city": city,
                                      "postal_code": postal, "is_primary": True})]
    say = Say("do", (
        "register {name} as a new {PARTY}: email {email}, phone {phone}, city {city}, with a primary home "
        "{ADDRESS} at {street}, {city} {postal}",
        "add {name} to our records ({email}, {phone}, {city}) and give them a primary home {ADDRESS}: {street}, "
        "{city} {postal}",
        "a new {PARTY}, {name}, needs a record || check that {email} is not registered yet, then create it with "
        "that email, phone {phone} and city {city}, and add {street}, {city} {postal} as {their} primary home "
        "{ADDRESS}",
    ), {"name": f"{first} {last}", "email": email, "phone": phone, "city": city, "street": street, "postal": postal})
    goals = [Goal(kind="rows_created", table=w.table("party"), count=1,
                  expect={"first_name": first, "last_name": last, "email": email, "phone": phone, "city": city}),
             Goal(kind="rows_created", table=w.table("address"), count=1,
                  expect={pfk: party_id, "kind": "home", "street": street, "city": city, "postal_code": postal,
                          "is_primary": 1})]
    return Plan(calls, goals, say)


@intent("chained")
def suspend_and_cancel_open(w: World) -> Plan | None:
    cancel = w.fl.cancel
    options = []
    for party in w.active_parties("case"):
        cancellable = [c for c in w.party_cases(party) if c["status"] in cancel.sources]
        if 1 <= len(cancellable) <= 3:
            options.append((party, cancellable))
    if not options:
        return None
    party, cases = w.rng.choice(options)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]})]
    calls += [act(w, c, cancel.verb) for c in cases]
    calls.append((w.n.action("party", "suspend"), {w.pk("party"): party["id"]}))
    goals = [status_goal(w, c, cancel.target) for c in cases]
    goals.append(Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"status": "suspended"}))
    verb = cancel.verb.replace("_", " ")
    say = Say("do", (
        "suspend {party} and {verb} every one of {their} {CASE/pl} that can still be {done}",
        "{party} is to be suspended || first {verb} each of {their} {CASE/pl} that the rules still let you "
        "{verb}, then suspend the record",
        "{verb} all of the {CASE/pl} of {party} that are not too far along to {verb}, and then suspend {their} "
        "record",
        "[close down|wind down] our dealings with {party}: [{verb} whatever|{verb} every {CASE} that] can still "
        "be {done}, [and then|then] suspend {them}",
        "[compliance|management] asked us to suspend {party} || {verb} any {CASE} of theirs that can still be "
        "{done} first, and then suspend {them}",
    ), {"verb": verb, "done": "withdrawn" if verb == "withdraw" else "cancelled"}, party=ref)
    return Plan(calls, goals, say, targets={("party", party["id"])}, unasked=True)


GOLD_SUBJECTS = ("Welcome to the gold tier", "You are now a gold member", "Your gold tier upgrade")
# kinds of business whose people are not sold to and have no loyalty tier to earn (a taxpayer, a patient, a student)
UNTIERED = ("government", "healthcare", "education", "human_resources", "utilities")


@intent("conditional")
def upgrade_if_big_spender(w: World) -> Plan | None:
    """A person moved to the gold tier if what they have paid (captured payments over their cases) exceeds a
    threshold, else the total told; half the time the upgrade is announced to them by a message, which the request
    asks for only if they are upgraded (a message sent when they are not is a write the task did not ask for). Only
    a person with two to five cases, two or more of them paid on: a total "across all their cases" is a sum. Not
    where the business has no tiers to earn (`UNTIERED`)."""
    if w.category in UNTIERED:
        return None
    options = []
    for party in w.active_parties("case"):
        if party["tier"] == "gold":
            continue
        cases = w.party_cases(party)
        spent = round(float(sum(p["amount"] for c in cases for p in captured(w, c))), 2)
        if spent > 0 and len(cases) <= 5 and sum(bool(captured(w, c)) for c in cases) >= 2:
            options.append((party, cases, spent))
    if not options:
        return None
    party, cases, spent = w.rng.choice(options)
    threshold = float(w.pick([500, 1000, 2000, 5000]))
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]})]
    calls += [(w.n.list("payment"), {w.fk("case"): c["id"]}) for c in cases]
    # half the time (where the business sends messages) an upgrade is announced to the person: only if it is made
    tell = w.has("notification") and w.chance(0.5)
    channel, named = message_channel(w) if tell else ("", {})
    subject = w.pick(list(GOLD_SUBJECTS)) if tell else ""
    if spent > threshold:
        calls.append((w.n.change("party", "set", "tier"), {w.pk("party"): party["id"], "tier": "gold"}))
        goals = [Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"tier": "gold"})]
        answer = None
        if tell:
            call, goal = notify(w, party, channel, subject, "Your tier has been upgraded.")
            calls.append(call)
            goals.append(goal)
    else:
        goals, answer = [w.money_answer(spent)], money(spent)
    if tell:
        say = Say("do", (
            "if {their} captured {PAYMENT/pl} across all {their} {CASE/pl} add up to more than {threshold}, move "
            "{them} to the gold tier and tell {them} by {channel} with the subject {subject}; if not, change "
            "nothing and tell me the total",
            "[add up|total] what {they_have} paid {us} in captured {PAYMENT/pl} || if it comes to more than "
            "{threshold}, upgrade {them} to gold and send {them} {a via} message titled {subject}; if it doesn't, "
            "send nothing and just give me the figure",
            "{they} would like to know [whether|if] {they} [qualify|are eligible] for the gold tier || if {their} "
            "captured {PAYMENT/pl} total more than {threshold}, [set|move] {them} to gold and let {them} know by "
            "{channel} (subject {subject}); otherwise just tell me the sum",
        ), {"threshold": money(threshold), "subject": quote(subject), **named}, party=ref)
        return Plan(calls, goals, say, answer=answer, targets={("party", party["id"])}, messages=True)
    say = Say("do", (
        "if {their} captured {PAYMENT/pl} across all {their} {CASE/pl} add up to more than {threshold}, move "
        "{them} to the gold tier; if not, tell me the total",
        "[check|look up|work out] what {they_have} paid {us} in captured {PAYMENT/pl} [overall|in total|so far] || "
        "upgrade {them} to the gold tier if it comes to more than {threshold}, and otherwise just tell me the figure",
        "upgrade {them} to gold if {their} captured {PAYMENT/pl} total more than {threshold}, and if they "
        "don't, give me the total instead",
        "{they} would like to know [whether|if] {they} [qualify|are eligible] for the gold tier || [add up|total] "
        "{their} captured {PAYMENT/pl}: above {threshold}, [set|move] {them} to the gold tier; at or below it, "
        "[just report|tell me] the sum",
    ), {"threshold": money(threshold)}, party=ref)
    return Plan(calls, goals, say, answer=answer, targets={("party", party["id"])})


@intent("action")
def reactivate_party(w: World) -> Plan | None:
    party = w.pick([p for p in w.rows["party"] if p["status"] == "suspended"])
    if party is None:
        return None
    phone = _phone(w)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.action("party", "reactivate"), {w.pk("party"): party["id"]}),
             (w.n.change("party", "update", "contact"), {w.pk("party"): party["id"], "phone": phone})]
    say = Say("do", (
        "reactivate {party}, who is suspended, and update {their} phone number to {phone}",
        "{party} has settled everything || lift the suspension and change {their} phone to {phone}",
        "bring {party} back to active status and record {their} new phone number, {phone}",
    ), {"phone": phone}, party=ref)
    goals = [Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"status": "active",
                                                                                    "phone": phone})]
    return Plan(calls, goals, say, targets={("party", party["id"])})


# --- staff ---------------------------------------------------------------------------------------------------


@intent("chained")
def offboard_staff(w: World) -> Plan | None:
    from awm.builder.intents.lifecycle import _assignable

    options = []
    for member in w.staff_pool():
        held = w.open_cases(member["id"])
        if not 1 <= len(held) <= 3 or any(c["status"] not in _assignable(w) for c in held):
            continue
        others = [s for s in w.staff_pool(member[w.fk("site")]) if s["id"] != member["id"]]
        if others:
            options.append((member, held, others))
    if not options:
        return None
    member, held, others = w.rng.choice(options)
    heir = w.rng.choice(others)
    calls = [w.find_staff(member), w.find_staff(heir), (w.n.list("case"), {w.fk("staff"): member["id"]})]
    calls += [(w.n.action("case", "assign"), {w.fk("case"): c["id"], w.fk("staff"): heir["id"]}) for c in held]
    calls.append((w.n.action("staff", "deactivate"), {w.pk("staff"): member["id"]}))
    goals = [Goal(kind="row_equals", table=w.table("case"), pk=c["id"], expect={w.fk("staff"): heir["id"]})
             for c in held]
    goals.append(Goal(kind="row_equals", table=w.table("staff"), pk=member["id"], expect={"active": 0}))
    open_words = or_words(w.fl.open)
    say = Say("do", (
        "{leaver} is leaving us || hand every {CASE} of theirs that is {open} to {heir}, then deactivate "
        "{leaver}",
        "move all of {leaver}'s open {CASE/pl} ({open}) over to {heir} and then mark {leaver} as inactive",
        "offboard {STAFF} {leaver}: reassign their unfinished {CASE/pl} to {heir} first, then deactivate them",
        "[today is|it's] {leaver}'s last day || [transfer|pass] each of their {CASE/pl} that [is|are] {open} to "
        "{heir}, and [once that's done|after that] deactivate {leaver}'s record",
        "[before|prior to] deactivating {leaver}, [reassign|hand over] their {open} {CASE/pl} to {heir} || then "
        "[deactivate|switch off] {leaver}",
    ), {"leaver": w.person(member), "heir": w.person(heir), "open": open_words})
    return Plan(calls, goals, say, targets={("staff", member["id"])} | {("case", c["id"]) for c in held})


@intent("infeasible")
def deactivate_busy_staff(w: World) -> Plan | None:
    options = [(s, len(w.open_cases(s["id"]))) for s in w.staff_pool() if w.open_cases(s["id"])]
    if not options:
        return None
    member, held = w.rng.choice(options)
    say = Say("do", (
        "deactivate {STAFF} {staff}; they are leaving today",
        "mark {staff} as inactive in the system",
        "{staff} has left the company || deactivate their record",
    ), {"staff": w.person(member)})
    return Plan([w.find_staff(member), (w.n.list("case"), {w.fk("staff"): member["id"]})],
                [w.number_answer(held)], say,
                answer=f"{w.person(member)} still has {count(held, 'open ' + w.L['case'])} assigned, which must be "
                       "reassigned first.", targets={("staff", member["id"])},
                refused=((w.n.action("staff", "deactivate"), {w.pk("staff"): member["id"]}), "cases_assigned"))


@intent("aggregate")
def staff_workload_question(w: World) -> Plan | None:
    options = [(s, len(w.open_cases(s["id"]))) for s in w.staff_pool()]
    options = [o for o in options if o[1] >= 1]
    if not options:
        return None
    member, held = w.rng.choice(options)
    calls = [w.find_staff(member)] + [(w.n.list("case"), {w.fk("staff"): member["id"], "status": st})
                                      for st in w.fl.open]
    open_words = or_words(w.fl.open)
    say = Say("ask", (
        "how many {CASE/pl} that are {open} does {staff} have right now",
        "what is {staff}'s current load: how many of the {CASE/pl} assigned to them are {open}",
        "counting only {CASE/pl} that are {open}, how many are on {STAFF} {staff}'s plate",
        "how many {CASE/pl} that are {open} [does|would] {staff} [have|be carrying] [before I give them more work|"
        "before I hand them anything else|if I add another one]",
        "[I'm planning|I am planning|we are planning] [the week|next week's work|the rota] || how many {CASE/pl} "
        "assigned to {staff} are [still |]{open} [right now|at the moment|today]",
        "how many [open |]{CASE/pl} ({open}) [does|would] {STAFF} {staff} [have|hold] [against their name|assigned "
        "to them|on their list] [today|right now|at the moment]",
    ), {"staff": w.person(member), "open": open_words})
    return Plan(calls, [w.number_answer(held)], say, answer=str(held))


@intent("question")
def staff_site_question(w: World) -> Plan | None:
    member = w.pick(w.staff_pool())
    if member is None:
        return None
    site = w.by_id("site", member[w.fk("site")])
    say = Say("ask", (
        "which {SITE} is {STAFF} {staff} based at",
        "where does {staff} work: at which {SITE}",
        "at which of our {SITE/pl} can I find {staff}",
    ), {"staff": w.person(member)})
    return Plan([w.find_staff(member), (w.n.list("site"), {})],
                [w.text_answer(site["name"], [s["name"] for s in w.rows["site"]])], say, answer=site["name"])


# --- the catalogue ---------------------------------------------------------------------------------------


@intent("action", item="priced")
def reprice_item(w: World) -> Plan | None:
    item = w.pick([i for i in w.rows["item"] if i["active"]])
    if item is None:
        return None
    pct = w.pick([5, 8, 10, 12, 15, 20])
    up = w.chance(0.7)
    new_price = round(item["price"] * (1 + pct / 100 if up else 1 - pct / 100), 2)
    by_sku = w.chance(0.3)
    calls = [w.find_item(item, by_sku), (w.n.get("item"), {w.pk("item"): item["id"]}),
             (w.n.change("item", "update", "price"), {w.pk("item"): item["id"], "price": new_price})]
    say = Say("do", (
        "{verb} the price of {item} by {pct}% (rounded to the cent) and tell me the new price",
        "put {item} {dir} {pct}%, rounding to the cent, and let me know what it costs now",
        "we are {going} {item} by {pct}% || update its price, rounded to the cent, and tell me the new figure",
    ), {"item": T(f"the {{ITEM}} with code {item['sku']}" if by_sku else f"the {{ITEM}} {quote(item['name'])}"),
        "pct": pct, "verb": T("[raise|increase]" if up else "[lower|reduce|cut]"), "dir": "up" if up else "down",
        "going": "raising" if up else "cutting"})
    plan = Plan(calls, [Goal(kind="row_equals", table=w.table("item"), pk=item["id"],
                             expect={"price": {"approx": new_price}}), w.money_answer(new_price)], say,
                answer=money(new_price), targets={("item", item["id"])})
    return plan.derive(w.n.change("item", "update", "price"), "price")  # from the price it reads


@intent("chained", item="priced")
def match_price(w: World) -> Plan | None:
    """An item priced like another of its own category (a rider like a rider, not a laptop like a games console)."""
    cat = w.fk("category")
    pairs = [(a, b) for a in w.rows["item"] for b in w.rows["item"]
             if a["id"] != b["id"] and a["active"] and b["active"] and a[cat] == b[cat] and a["price"] != b["price"]]
    if not pairs:
        return None
    target, model = w.rng.choice(pairs)
    calls = [w.find_item(model), w.find_item(target),
             (w.n.change("item", "update", "price"), {w.pk("item"): target["id"], "price": model["price"]})]
    say = Say("do", (
        "set the price of {target} to whatever {model} costs now",
        "make {target} cost exactly the same as {model}",
        "{target} should be priced like {model} || look up that price and apply it",
        "[align|match] the price of {target} with the current price of {model}",
        "{target} and {model} are in the same {CATEGORY} || set the price of {target} to [exactly|precisely] what {model} "
        "costs now",
    ), {"target": quote(target["name"]), "model": quote(model["name"])})
    plan = Plan(calls, [Goal(kind="row_equals", table=w.table("item"), pk=target["id"],
                             expect={"price": {"approx": model["price"]}})], say, targets={("item", target["id"])})
    return plan.derive(w.n.change("item", "update", "price"), "price")


@intent("action")
def discontinue_item(w: World) -> Plan | None:
    item = w.pick([i for i in w.rows["item"] if i["active"]])
    if item is None:
        return None
    calls = [w.find_item(item), (w.n.change("item", "set", "availability"), {w.pk("item"): item["id"],
                                                                              "active": False})]
    say = Say("do", (
        "stop offering {item}",
        "take {item} off the list of what we offer",
        "we are discontinuing {item} || mark it as no longer offered",
    ), {"item": quote(item["name"])})
    return Plan(calls, [Goal(kind="row_equals", table=w.table("item"), pk=item["id"], expect={"active": 0})], say,
                targets={("item", item["id"])})


@intent("action", item="priced")
def reinstate_item(w: World) -> Plan | None:
    item = w.pick([i for i in w.rows["item"] if not i["active"]])
    if item is None:
        return None
    price = round(item["price"] * w.pick([0.9, 1.05, 1.1, 1.2]), 2)
    calls = [w.find_item(item), (w.n.change("item", "set", "availability"), {w.pk("item"): item["id"], "active": True}),
             (w.n.change("item", "update", "price"), {w.pk("item"): item["id"], "price": price})]
    say = Say("do", (
        "bring back {item}: offer it again at a price of {price}",
        "{item} is back || make it available again and set its price to {price}",
        "reinstate {item} at {price}",
    ), {"item": quote(item["name"]), "price": money(price)})
    goal = Goal(kind="row_equals", table=w.table("item"), pk=item["id"], expect={"active": 1,
                                                                                "price": {"approx": price}})
    return Plan(calls, [goal], say, targets={("item", item["id"])})


@intent("conditional", item="priced")
def discount_if_expensive(w: World) -> Plan | None:
    """An item's price cut by a percentage if it is the dearest of its category still offered, else the dearest
    one named: the agent finds the item, lists its category's items and compares the ones still offered (an item
    no longer offered may cost more)."""
    options: list[tuple[dict, dict]] = []
    for category in w.rows.get("category", []):
        offered = sorted((i for i in w.rows["item"] if i[w.fk("category")] == category["id"] and i["active"]),
                         key=lambda i: -i["price"])
        if 3 <= len(offered) <= 30 and offered[0]["price"] - offered[1]["price"] >= 1:
            options += [(item, offered[0]) for item in offered]
    if not options:
        return None
    dearest = [o for o in options if o[0] is o[1]]
    cheaper = [o for o in options if o[0] is not o[1]]
    item, top = w.pick(dearest if w.chance(0.5) else cheaper)
    pct = w.pick([5, 10, 15])
    calls = [w.find_item(item), (w.n.list("item"), {w.fk("category"): item[w.fk("category")], "limit": 100})]
    if item is top:
        new = round(item["price"] * (1 - pct / 100), 2)
        calls.append((w.n.change("item", "update", "price"), {w.pk("item"): item["id"], "price": new}))
        goals, answer = [Goal(kind="row_equals", table=w.table("item"), pk=item["id"],
                              expect={"price": {"approx": new}})], None
    else:
        siblings = [i["name"] for i in w.rows["item"] if i[w.fk("category")] == item[w.fk("category")]]
        goals, answer = [w.text_answer(top["name"], siblings)], top["name"]
    say = Say("do", (
        "if {item} is the dearest {ITEM} we still offer in its {CATEGORY}, [cut|lower|reduce] its price by {pct}% "
        "(rounded to the cent); if another one costs more, leave the prices alone and tell me which one",
        "{item} [might be|may be] overpriced || if nothing else we still offer in its {CATEGORY} costs more, take "
        "{pct}% off its price (round to the cent); [if not|otherwise], change nothing and [tell me|let me know] "
        "which {ITEM} [there costs more|in it is dearest]",
        "[lower|reduce] the price of {item} by {pct}%, rounding to the cent, but only if it is the most expensive "
        "{ITEM} still offered in its {CATEGORY}; if it isn't, [tell me|name] the one that is",
        "[check|look at] the {CATEGORY} that {item} belongs to || if it is the [dearest|most expensive] thing there we "
        "still offer, [apply|make] a {pct}% price cut to it, rounded to the cent; otherwise leave it and tell me "
        "which {ITEM} [tops|leads] that {CATEGORY} on price",
    ), {"item": quote(item["name"]), "pct": pct})
    plan = Plan(calls, goals, say, answer=answer, targets={("item", item["id"])})
    return plan.derive(w.n.change("item", "update", "price"), "price")  # from the price it reads


@intent("aggregate", item="priced")
def price_gap_question(w: World) -> Plan | None:
    items = [i for i in w.rows["item"] if i["active"]]
    if len(items) < 2:
        return None
    a, b = sorted(w.rng.sample(items, 2), key=lambda i: -i["price"])
    if a["price"] == b["price"]:
        return None
    gap = round(a["price"] - b["price"], 2)
    say = Say("ask", (
        "how much more does {a} cost than {b}",
        "what is the price difference between {a} and {b}",
        "by how much is {a} dearer than {b}",
    ), {"a": quote(a["name"]), "b": quote(b["name"])})
    return Plan([w.find_item(a), w.find_item(b)], [w.money_answer(gap)], say, answer=money(gap))


# --- sites ---------------------------------------------------------------------------------------------


@intent("action")
def transfer_case_site(w: World) -> Plan | None:
    cases = [c for c in w.rows["case"] if c["status"] in w.fl.editable and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None or len(w.rows["site"]) < 2:
        return None
    site = w.pick([s for s in w.rows["site"] if s["id"] != case[w.fk("site")]])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    note = w.pick(OFFICE_MOVE_NOTES if w.organisation else MOVE_NOTES)  # either voice
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case), w.find_site(site),
             (w.n.action("case", "transfer"), {w.fk("case"): case["id"], w.fk("site"): site["id"]}), note_call]
    say = Say("do", (
        "move {case} to {site} and add the note {note}",
        "{they} would prefer {site} for {case} || transfer it there and note {note}",
        "switch {case} over to {site}, with the note {note}",
    ), {"case": case_np, "site": site["name"], "note": quote(note)}, party=ref, voices=BOTH)
    goal = Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={w.fk("site"): site["id"]})
    return Plan(calls, [goal, note_goal], say, targets={("case", case["id"])})


@intent("infeasible")
def transfer_locked_case(w: World) -> Plan | None:
    cases = [c for c in w.rows["case"] if c["status"] not in w.fl.editable and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None or len(w.rows["site"]) < 2:
        return None
    site = w.pick([s for s in w.rows["site"] if s["id"] != case[w.fk("site")]])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref, by_status=False)
    say = Say("do", (
        "move {case} to {site}",
        "{they} would rather deal with {site} || transfer {case} there",
        "hand {case} over to {site}",
    ), {"case": case_np, "site": site["name"]}, party=ref, voices=BOTH)
    return Plan([*lookup, get_case(w, case), w.find_site(site)], [w.status_answer(case["status"])], say,
                answer=f"It cannot be moved: its status is {case['status'].replace('_', ' ')}.",
                targets={("case", case["id"])},
                refused=((w.n.action("case", "transfer"), {w.fk("case"): case["id"], w.fk("site"): site["id"]}),
                         "invalid_state"))


# --- acting for someone else: only with the authority the world records ------------------------------------

# The requests a customer makes on another person's behalf, proven either way (awm/quality/realism.py counts them
# and flags any other request in a customer's voice that acts for someone else).
AUTHORITY_INTENTS = ("cancel_as_representative", "cancel_without_authority")
# the same claim beside a case of the speaker's own, cancelled either way (a goal one part of which is refused)
AUTHORITY_PARTIAL = "cancel_own_and_unauthorised"
# What the speaker says: the same words whether or not the world records their authority (the agent must look it
# up on the other person's record, `representative_id`, never take the claim on trust).
_ON_BEHALF = (
    "{cancel} {other}'s {CASE} {code} on their behalf",
    "[I'm the authorised representative of {other}|I'm {other}'s authorised representative] || {cancel} their "
    "{CASE} {code}",
    "I act for {other} as their [guardian|delegate] || {cancel} their {CASE} {code} for them",
    "I [handle|look after|take care of] {other}'s affairs with you || {cancel} {other}'s {CASE} {code}",
)
# and where what was paid for the world's items is refunded (not a donation), the money back too
REFUND_TAIL = " and refund what was paid on it with the reason {reason}"


def _on_behalf_options(w: World, authorised: bool) -> list[tuple[dict, dict, dict]]:
    """(speaker, represented person, case): both active, the case still cancellable, and the represented person's
    record naming the speaker as their representative (authorised) or naming someone else (not)."""
    cancel = w.fl.cancel
    parties = {p["id"]: p for p in w.rows["party"]}
    options = []
    for other in w.active_parties("case"):
        rep = other.get("representative_id")
        if rep is None or not w.unique_person("party", other) or not w.unique_person("party", parties[rep]):
            continue
        cases = [c for c in w.party_cases(other) if c["status"] in cancel.sources]
        if not cases:
            continue
        if authorised:
            speakers = [parties[rep]] if parties[rep]["status"] == "active" else []
        else:
            speakers = [p for p in w.active_parties() if p["id"] not in (rep, other["id"])]
        options += [(s, other, c) for s in speakers for c in cases]
    return options


def _on_behalf_say(w: World, speaker: dict, other: dict, case: dict, reason: str) -> Say:
    verb = w.fl.cancel.verb.replace("_", " ")
    ref = w.party_ref(speaker, ("name_email", "name_email", "email"))
    tail = REFUND_TAIL if w.items_are("refundable") else ""
    slots = {"other": w.person(other), "code": case["code"], "cancel": verb, "reason": quote(reason)}
    return Say("do", tuple(request + tail for request in _ON_BEHALF), slots, party=ref, voices=("self",))


@intent("action")
def cancel_as_representative(w: World) -> Plan | None:
    """A customer cancels another person's case as their authorised representative: the agent finds the speaker,
    reads the other person's record (it names the speaker as their representative), then cancels and (where what
    was paid is refunded) refunds every payment captured on the case."""
    option = w.pick(_on_behalf_options(w, authorised=True))
    if option is None:
        return None
    speaker, other, case = option
    reason = w.pick(list(CANCEL_REASONS))
    say = _on_behalf_say(w, speaker, other, case, reason)
    calls = [w.find_party(say.party), (w.n.list("party"), {"query": w.person(other)}),
             (w.n.list("case"), {"code": case["code"]}), get_case(w, case), act(w, case, w.fl.cancel.verb)]
    refunds = [refund(w, p, reason) for p in captured(w, case)] if w.items_are("refundable") else []
    plan = Plan(calls + [call for call, _ in refunds], [status_goal(w, case, w.fl.cancel.target),
                                                        *(goal for _, goal in refunds)], say,
                targets={("case", case["id"]), ("party", other["id"])})
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment"))


# No tool's own rule refuses it (who writes is no argument of any tool): the runtime does, in the speaker's own
# episode (not_permitted: the case is another customer's, whose record names someone else), which is no error
# code of the tools, so the answer's blocking fact is who the representative on record is.
@intent("infeasible", rule=False)
def cancel_without_authority(w: World) -> Plan | None:
    """The same request from someone the other person's record does not name as their representative: nothing
    may change, and the answer names who is (the blocking fact: the speaker is not the authorised representative)."""
    option = w.pick(_on_behalf_options(w, authorised=False))
    if option is None:
        return None
    speaker, other, case = option
    holder = w.by_id("party", other["representative_id"])
    say = _on_behalf_say(w, speaker, other, case, w.pick(list(CANCEL_REASONS)))
    calls = [w.find_party(say.party), (w.n.list("party"), {"query": w.person(other)}),
             (w.n.get("party"), {w.pk("party"): holder["id"]})]
    plan = Plan(calls, [_representative_answer(w, speaker, other, holder)], say,
                answer=f"{w.person(speaker)} is not the authorised representative of {w.person(other)}; "
                       f"{w.person(holder)} is.",
                targets={("case", case["id"]), ("party", other["id"])})
    return plan.derive(w.n.get("party"), w.pk("party"))


def _representative_answer(w: World, speaker: dict, other: dict, holder: dict) -> Goal:
    """The answer naming the representative on record; it may name the speaker and the person spoken for too (a
    refusal says who asked and for whom), any other person hedges."""
    goal = w.text_answer(w.person(holder), [w.person(p) for p in w.rows["party"]])
    goal.expect["type"] = "name"
    goal.expect["others"] = [o for o in goal.expect.get("others", []) if o not in (w.person(speaker), w.person(other))]
    return goal


# As `cancel_without_authority`, no tool's own rule refuses the other person's case: the runtime does, in the
# speaker's own episode; the speaker's own case is theirs to cancel whatever the record says about the other.
@intent("infeasible", rule=False)
def cancel_own_and_unauthorised(w: World) -> Plan | None:
    """A customer wants a case of their own and one of another person's cancelled (and, where what was paid is
    refunded, refunded), saying they act for that person, whose record names someone else as their
    representative: the agent cancels (and refunds) the speaker's own case, reads the other person's record and
    refuses the rest, naming who holds the authority."""
    cancel = w.fl.cancel
    options = [(speaker, other, case, mine) for speaker, other, case in _on_behalf_options(w, authorised=False)
               for mine in w.party_cases(speaker) if mine["status"] in cancel.sources]
    option = w.pick(options)
    if option is None:
        return None
    speaker, other, case, mine = option
    holder = w.by_id("party", other["representative_id"])
    reason = w.pick(list(CANCEL_REASONS))
    ref = w.party_ref(speaker, ("name_email", "name_email", "email"))
    own, lookup = w.case_ref(mine, ref)
    refundable = w.items_are("refundable")
    tail = " and refund what was paid on [them|both] with the reason {reason}" if refundable else ""
    verb = cancel.verb.replace("_", " ")
    say = Say("do", tuple(request + tail for request in (
        "{cancel} {own} and, on {other}'s behalf, their {CASE} {code}",
        "I act for {other} as their [guardian|delegate] || {cancel} {own} and their {CASE} {code}",
        "I handle {other}'s affairs with you || {cancel} {own}, and {other}'s {CASE} {code} too",
        "[I'm the authorised representative of {other}|I'm {other}'s authorised representative] || {cancel} both "
        "{own} and their {CASE} {code}",
    )), {"own": own, "other": w.person(other), "code": case["code"], "cancel": verb, "reason": quote(reason)},
        party=ref, voices=("self",))
    acted, done = act_and_refund(w, mine, cancel.verb, cancel.target, reason, refunds=refundable)
    # the other person's record read first (who may be acted for is settled before anything changes)
    calls = [w.find_party(ref), (w.n.list("party"), {"query": w.person(other)}),
             (w.n.get("party"), {w.pk("party"): holder["id"]}), *lookup, get_case(w, mine), *acted]
    plan = Plan(calls, [*done, _representative_answer(w, speaker, other, holder)], say,
                answer=f"Your {w.L['case']} is {cancel.target.replace('_', ' ')}, but {w.person(speaker)} is not the "
                       f"authorised representative of {w.person(other)}; {w.person(holder)} is.",
                targets={("case", case["id"]), ("case", mine["id"]), ("party", other["id"]),
                         ("party", speaker["id"])})
    plan = plan.derive(w.n.get("party"), w.pk("party"))
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment")) if len(acted) > 1 else plan
