"""Requests about a category's own entities (awm.builder.modules.packs): a bank's cards, disputes, standing
orders and holds; a clinic's appointment slots, procedures and insurance claims; a carrier's shipments, legs,
rate quotes and exceptions. One module per category, registering its requests on import; each request is
registered for exactly the category whose entity module declares its tables, and needs those tables; the infeasible ones hit a rule the tools enforce (a card blocked as lost, a
charge or a claim past its window, a quote that lapsed)."""

from awm.builder.intents.entities import (  # noqa: F401  (registers)
    agriculture,
    automotive,
    banking,
    commerce,
    education,
    energy,
    fintech,
    fitness,
    food_and_beverage,
    government,
    healthcare,
    hospitality,
    human_resources,
    insurance,
    logistics,
    manufacturing,
    marketing,
    media,
    nonprofit,
    professional_services,
    real_estate,
    technology,
    telecom,
    transportation,
    travel,
    utilities,
)
