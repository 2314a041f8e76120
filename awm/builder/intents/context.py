"""Sentences of context a customer's message may open with: why they write, what their days are like. They
change nothing the task asks for (no values, no conditions, no facts about their records, no word on how the
message arrived), so an agent must rightly ignore them; each category of business has a few of its own, and every
business shares the general ones. A member of staff writes no such sentence: an aside about the day ("the phones
have not stopped") is filler a request to the system does not carry.

The realiser (awm/builder/phrasing.py) opens a first-person request with one now and then (`CONTEXT_SHARE`), so no
sentence is in more than a small share of tasks (awm/quality/realism.py measures it)."""

from __future__ import annotations

import re

GENERAL = (
    "I've been a customer of yours for years.", "A friend recommended you to me.",
    "I'm travelling this week and only have a minute.", "Sorry for the short notice.", "I hope you can help.",
    "I'm not very good with online forms.", "My schedule changed at the last minute.",
    "It's been on my to-do list for a while.", "I'm usually hard to reach during working hours.",
    "I'm a bit anxious to get this settled.", "I have a busy week ahead.", "I'm writing on my lunch break.",
    "My English isn't perfect, so bear with me.", "The deadline on my side is tight.",
    "My spouse usually handles these things.", "It's my first time doing this.",
    "I'm organised, but this slipped through.", "I'm rather old-fashioned about paperwork.",
    "Our household budget is tight this month.", "Weekends are hectic for us.",
    "I'm recovering from the flu, so forgive the brevity.", "My accountant wants this sorted before the month is out.",
    "I've tried to keep this message short.", "I'm visually impaired, so plain replies help.",
)

# Where the customers are organisations (a client company, a shipper: DomainSeed.party_kind), the person writing
# speaks for one: a sentence about their household, their family or their health is not theirs to open with. They
# take these, and the general ones about their week and their message (`GENERAL_AT_WORK`), not their category's.
ORGANISATION = (
    "I look after our company's account with you.", "Our finance team asked me to sort this out.",
    "Our quarter closes at the end of the month.", "I've just taken over this account from a colleague.",
    "Our office manager is away this week.", "We're growing quickly this year.",
    "Our auditors will be looking at this.", "I'm between meetings, so I'll keep this short.",
    "We've worked with you for several years.", "Our procurement team likes things done by the book.",
)
GENERAL_AT_WORK = (
    "I'm travelling this week and only have a minute.", "Sorry for the short notice.", "I hope you can help.",
    "My schedule changed at the last minute.", "It's been on my to-do list for a while.", "I have a busy week ahead.",
    "I'm writing on my lunch break.", "The deadline on my side is tight.", "I'm organised, but this slipped through.",
    "I've tried to keep this message short.",
)

BY_CATEGORY: dict[str, tuple[str, ...]] = {
    "agriculture": (
        "I'm out in the fields most of the day.", "We run a small family farm.", "Harvest keeps me busy this month.",
    ),
    "automotive": (
        "My car is my only way to get to work.", "I need the car back before the weekend.",
        "I commute forty miles each way.",
    ),
    "banking": (
        "I check my statements every month.", "I'm saving up for a deposit on a flat.",
        "My salary lands at the end of the month.",
    ),
    "commerce": (
        "I shop with you quite often.", "It's a birthday present for my niece.",
    ),
    "education": (
        "I'm a parent trying to keep on top of the paperwork.", "Our family's schedule is packed this term.",
        "My son starts secondary school in September.",
    ),
    "energy": (
        "We're trying to cut our energy bills.", "Our boiler is almost twenty years old.",
        "We just fitted new insulation in the loft.",
    ),
    "fintech": (
        "I run a small business, so cash flow matters to me.", "I track every transaction in a spreadsheet.",
    ),
    "fitness": (
        "I'm trying to get back into a routine.", "I'm training for a half marathon.",
    ),
    "food_and_beverage": (
        "We're hosting family this weekend.", "I'm very careful about what I eat.",
        "We're vegetarian, so ingredients matter.", "My daughter has a severe allergy.",
    ),
    "government": (
        "I find the forms a bit confusing.", "I moved here from another county.",
    ),
    "healthcare": (
        "I'm trying to sort out my care before I travel.", "I'm caring for my elderly mother.",
    ),
    "hospitality": (
        "It's our anniversary trip.", "We're travelling with small children.", "We're celebrating a graduation.",
    ),
    "human_resources": (
        "I'm between jobs at the moment.", "I'm starting a new contract on Monday.",
    ),
    "insurance": (
        "This has been a stressful few weeks.", "I want to make sure I'm properly covered.",
    ),
    "logistics": (
        "I ship with you regularly for my shop.", "My customers expect next-day delivery.",
        "I have a trade show coming up.",
    ),
    "manufacturing": (
        "Our launch date is close.", "We depend on these parts for our own production.",
        "Our assembly line depends on this batch.", "We're launching a new product range.",
    ),
    "marketing": (
        "Our event is coming up fast.", "Our budget for this quarter is fixed.",
    ),
    "media": (
        "I'm a big fan of what you publish.", "I mostly use the service on weekends.",
        "My book club meets on Thursday.",
    ),
    "nonprofit": (
        "I care a lot about your cause.", "I'd like to help more this year.", "Giving back matters a lot to me.",
        "I volunteer most Saturdays.",
    ),
    "professional_services": (
        "My accountant suggested I get in touch.", "I'd like this settled before the deadline.",
        "I'm self-employed, so paperwork piles up.", "My lawyer recommended your firm.",
    ),
    "real_estate": (
        "I've just moved into the area.", "We're trying to get settled in.",
        "We're expecting a baby soon, so space matters.",
    ),
    "technology": (
        "My whole team relies on this.", "Our developers rely on this every day.",
        "We're migrating to a new platform.",
    ),
    "telecom": (
        "I work from home, so I need this working.", "I stream a lot of video for work.",
    ),
    "transportation": (
        "I rely on you for my daily commute.", "I travel with a wheelchair.",
    ),
    "travel": (
        "We've been planning this trip for months.", "I'm travelling with my family.", "It's our honeymoon.",
        "I get seasick easily, so details matter.",
    ),
    "utilities": (
        "I'm trying to keep my household costs down.", "We have a newborn at home, so heating is essential.",
        "I work night shifts and sleep during the day.",
    ),
}


# Context sentences that a request's own words would contradict: a tight budget beside "the priciest", a first
# time beside "again" or "my last order", a newcomer beside a person's history. The realiser does not open such a
# request with them, and awm/quality/realism.py counts any that is found as a contradiction.
_HISTORY = r"\b(?:again|repeat\w*|last|latest|most recent|newest|previous|past|mirrors?|same as)\b"
CLASHES: dict[str, re.Pattern] = {
    "Our household budget is tight this month.": re.compile(r"(?i)\b(?:priciest|dearest|most expensive)\b"),
    "Our budget for this quarter is fixed.": re.compile(r"(?i)\b(?:priciest|dearest|most expensive)\b"),
    "It's my first time doing this.": re.compile(r"(?i)" + _HISTORY),
    "A friend recommended you to me.": re.compile(r"(?i)" + _HISTORY),
    "I've just moved into the area.": re.compile(r"(?i)" + _HISTORY),
}


def clashes(sentence: str, request: str) -> bool:
    """Whether a context sentence contradicts the words of the request it would open."""
    pattern = CLASHES.get(sentence)
    return pattern is not None and pattern.search(request) is not None


def context_for(category: str, organisation: bool = False) -> dict[str, tuple[str, ...]]:
    """The context sentences a request may open with, by voice ("self": the category's own, then the general ones,
    or where the customers are organisations, those of someone writing for one; "staff": none)."""
    if organisation:
        return {"self": ORGANISATION + GENERAL_AT_WORK, "staff": ()}
    return {"self": BY_CATEGORY.get(category, ()) + GENERAL, "staff": ()}
