"""Requests about a category's own entities (awm.builder.modules.packs): a bank's cards, disputes, standing
orders and holds; a clinic's appointment slots, procedures and insurance claims; a carrier's shipments, legs,
rate quotes and exceptions. One module per category, registering its requests on import; each request is
registered for exactly the category whose entity module declares its tables, and needs those tables; the infeasible ones hit a rule the tools enforce (a card blocked as lost, a
charge or a claim past its window, a quote that lapsed)."""

from awm.builder import categories

# discovers: awm.builder.categories.*.requests
categories.modules("requests")  # registers each category's requests, in name order
