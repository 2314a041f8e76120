"""Sentences of context a request may open with, as people add them: a colleague's aside about the day, a
customer's reason for writing. Each category of business has its own, and every business has the general ones.
They change nothing the task asks for (no values, no conditions); they are part of how people write."""

from __future__ import annotations

GENERAL = {
    "staff": (
        "We're a bit behind today.", "The phones have not stopped this morning.", "This came in through the web form.",
        "I promised to get back to them before noon.", "The manager asked me to pass this on.",
        "I'm covering the front desk for a colleague.", "Sorry, I'm juggling a few things at once.",
        "This one has been sitting in my inbox since yesterday.", "Let's get this off the list before lunch.",
        "It came up in this morning's team meeting.", "The regional manager is asking about it.",
        "I'd do it myself, but I'm stuck in meetings all afternoon.", "It's end of month, so everything is urgent.",
        "Following up on something from last week.", "Small favour to ask.", "Another one from the queue.",
        "I've double-checked the details below.", "Head office flagged this in the weekly review.",
        "Let's keep the customer happy on this one.", "I know it's a busy day, sorry.",
        "This should only take a minute.", "I'm new here, so I'd rather you handle it.",
        "We talked about this on the morning call.", "It's on today's checklist.",
        "The customer has been patient, so let's be quick.", "I promised a reply before close of business.",
        "Quality assurance will sample this one later.", "We're trying to clear the backlog before Friday.",
        "The system was sluggish earlier, so double-check it went through.", "Legal reminded us to keep good records.",
        "I'm handing over to the evening team soon.", "Our supervisor is keen to see this resolved today.",
        "It's part of the weekly clean-up.", "I flagged this during yesterday's huddle.",
        "I'm working through the overnight emails.", "Accounts asked for this to be tidied up.",
        "The audit trail needs to be complete on this one.", "I'd rather not leave it for the weekend.",
        "We got a friendly reminder about this from management.", "The customer sounded frustrated on the phone.",
        "Thanks again for picking this up.", "It arrived via the chat widget.",
        "I've been asked to escalate anything older than a week.", "The numbers need to be right for the quarterly report.",
    ),
    "self": (
        "I've been a customer of yours for years.", "Sorry if this is the wrong place to ask.",
        "I tried to do this on the website but got stuck.", "I hope this is a quick one.",
        "A friend recommended you to me.", "I'm writing from my phone, so please excuse any typos.",
        "Thanks for your help last time.", "I'm travelling this week and only have a minute.",
        "I called earlier but the line was busy.", "Sorry for the short notice.", "I hope you can help.",
        "This is my second message about it.", "I'm not very good with online forms.",
        "I'd really appreciate a quick reply.", "My schedule changed at the last minute.",
        "I read your help pages but couldn't find the answer.", "It's been on my to-do list for a while.",
        "Hope you're having a good week.", "I'm happy to answer any questions.",
        "My neighbour suggested I write in.", "I'm usually hard to reach during working hours.",
        "Apologies for the long message.", "I'd prefer a written confirmation if possible.",
        "I'm a bit anxious to get this settled.", "The chatbot couldn't help me with this.",
        "I have a busy week ahead.", "Honestly, I'm quite disappointed so far.",
        "Everything else has been great, by the way.", "My bank asked me to sort this out quickly.",
        "I'm abroad at the moment, so email suits me best.", "I'm writing on my lunch break.",
    ),
}

BY_CATEGORY: dict[str, dict[str, tuple[str, ...]]] = {
    "agriculture": {
        "staff": ("Planting season has everyone rushing.", "The co-op board meets on Thursday.",
                  "Harvest orders are piling up."),
        "self": ("I'm out in the fields most of the day.", "The weather has been hard on my crops this year."),
    },
    "automotive": {
        "staff": ("The service bays are full today.", "The parts delivery came in late again.",
                  "We have three cars waiting on the lift."),
        "self": ("My car is my only way to get to work.", "I need the car back before the weekend."),
    },
    "banking": {
        "staff": ("Quarter end is keeping the branch busy.", "Compliance wants these handled by the book.",
                  "The branch queue is out the door."),
        "self": ("I check my statements every month.", "I'm a little worried about my account."),
    },
    "commerce": {
        "staff": ("The weekend sale doubled our orders.", "The warehouse is short-staffed.",
                  "Returns always spike after the holidays."),
        "self": ("I shop with you quite often.", "The parcel tracking page wasn't much help."),
    },
    "education": {
        "staff": ("Enrolment week is always hectic.", "The term starts on Monday.",
                  "Parents have been calling all morning."),
        "self": ("I'm a parent trying to keep on top of the paperwork.", "Our family's schedule is packed this term."),
    },
    "energy": {
        "staff": ("The crews are out on installations all day.", "Storm season has the call centre busy.",
                  "The rebate programme closes at the end of the month."),
        "self": ("We're trying to cut our energy bills.", "We had a power cut last week."),
    },
    "fintech": {
        "staff": ("Fraud alerts have been up this week.", "The risk team flagged this one.",
                  "Settlement runs at five, so let's be quick."),
        "self": ("I run a small business, so cash flow matters to me.", "I noticed this in the app this morning."),
    },
    "fitness": {
        "staff": ("The January rush has started early.", "The evening classes are packed.",
                  "Two trainers called in sick."),
        "self": ("I'm trying to get back into a routine.", "My physio gave me some new advice."),
    },
    "food_and_beverage": {
        "staff": ("The kitchen is slammed tonight.", "We're short on delivery drivers.",
                  "The supplier shorted us again this week."),
        "self": ("We're hosting family this weekend.", "I'm very careful about what I eat."),
    },
    "government": {
        "staff": ("The office opens to the public in ten minutes.", "Audit season means everything must be by the book.",
                  "The counter queue is long today."),
        "self": ("I've been waiting on this for weeks.", "I find the forms a bit confusing."),
    },
    "healthcare": {
        "staff": ("The waiting room is full this morning.", "The doctors are running about twenty minutes late.",
                  "Flu season has us stretched."),
        "self": ("I haven't been feeling well lately.", "I'm trying to sort out my care before I travel."),
    },
    "hospitality": {
        "staff": ("We're fully booked this weekend.", "A conference group just arrived.",
                  "Housekeeping is running behind."),
        "self": ("It's our anniversary trip.", "We're travelling with small children."),
    },
    "human_resources": {
        "staff": ("Payroll closes tomorrow.", "Hiring has picked up this quarter.",
                  "The onboarding cohort starts next week."),
        "self": ("I'm between jobs at the moment.", "My manager asked me to sort this out."),
    },
    "insurance": {
        "staff": ("Claims volume is up after the storm.", "The underwriting team is reviewing its backlog.",
                  "Renewals go out next week."),
        "self": ("This has been a stressful few weeks.", "I want to make sure I'm properly covered."),
    },
    "logistics": {
        "staff": ("The depots are over capacity after the holiday.", "Two trucks are stuck in traffic on the ring road.",
                  "Peak season has started."),
        "self": ("I ship with you regularly for my shop.", "My customer is waiting on this delivery."),
    },
    "manufacturing": {
        "staff": ("The line has been running double shifts.", "A machine went down on the night shift.",
                  "Quality flagged a batch this morning."),
        "self": ("Our launch date is close.", "We depend on these parts for our own production."),
    },
    "marketing": {
        "staff": ("The campaign launches on Monday.", "The client changed the brief again.",
                  "The print deadline is tight."),
        "self": ("Our event is coming up fast.", "Our budget for this quarter is fixed."),
    },
    "media": {
        "staff": ("The new release schedule just came out.", "The catalogue update goes live tonight.",
                  "Royalty statements are due this week."),
        "self": ("I'm a big fan of what you publish.", "I mostly use the service on weekends."),
    },
    "nonprofit": {
        "staff": ("The appeal closes on Friday.", "Our volunteers are stretched thin.",
                  "The board wants the figures by Monday."),
        "self": ("I care a lot about your cause.", "I'd like to help more this year."),
    },
    "professional_services": {
        "staff": ("Filing deadlines are close.", "The partners want this wrapped up this week.",
                  "Billing closes at month end."),
        "self": ("My accountant suggested I get in touch.", "I'd like this settled before the deadline."),
    },
    "real_estate": {
        "staff": ("Move-in day is busy for the whole team.", "The maintenance crew is booked solid.",
                  "Leases renew at the end of the month."),
        "self": ("I've just moved into the area.", "We're trying to get settled in."),
    },
    "technology": {
        "staff": ("We're in the middle of a release.", "The on-call engineer is swamped.",
                  "Support volume doubled after the outage."),
        "self": ("My whole team relies on this.", "We had some downtime yesterday."),
    },
    "telecom": {
        "staff": ("There's a network outage in the north of the city.", "New phone launches always swamp us.",
                  "The technicians are all out on jobs."),
        "self": ("I work from home, so I need this working.", "My signal has been patchy all week."),
    },
    "transportation": {
        "staff": ("Rush hour is about to start.", "Half the fleet is in for maintenance.",
                  "The airport counter is swamped."),
        "self": ("I'm in a hurry to get to the airport.", "I rely on you for my daily commute."),
    },
    "travel": {
        "staff": ("Storms are disrupting departures today.", "School holidays start on Friday.",
                  "The counter has a long queue."),
        "self": ("We've been planning this trip for months.", "I'm travelling with my family."),
    },
    "utilities": {
        "staff": ("The storm knocked out power in two districts.", "Billing runs tonight.",
                  "Meter readings are late this month."),
        "self": ("My last bill was higher than usual.", "I'm trying to keep my household costs down."),
    },
}


def context_for(category: str) -> dict[str, tuple[str, ...]]:
    """The context sentences of one category of business and the general ones, by voice ("staff", "self")."""
    own = BY_CATEGORY.get(category, {})
    return {voice: own.get(voice, ()) + GENERAL[voice] for voice in GENERAL}
