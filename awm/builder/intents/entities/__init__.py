"""Requests for one category of business, registered from its folder (awm/builder/categories/<category>/requests.py):
about its own entities (awm.builder.modules.packs: a bank's cards, disputes, standing orders and holds; a clinic's
appointment slots, procedures and insurance claims; a carrier's shipments, legs, rate quotes and exceptions), each
for exactly the category whose entity module declares its tables and needing those tables, the infeasible ones
hitting a rule the tools enforce (a card blocked as lost, a charge or a claim past its window, a quote that lapsed);
and over the generic modules, many on a shape of awm/builder/intents/shapes.py, some shared with the other
categories they name. common.py holds the helpers they share."""

from awm.builder import categories

# discovers: awm.builder.categories.*.requests
categories.modules("requests")  # registers each category's requests, in name order
