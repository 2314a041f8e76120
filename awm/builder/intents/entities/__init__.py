"""Requests about a category's own entities (awm.builder.modules.packs): a bank's cards, disputes, standing
orders and holds; a clinic's appointment slots, procedures and insurance claims; a carrier's shipments, legs,
rate quotes and exceptions. One module per category, registering its requests on import; each request is
registered for exactly the category whose entity module declares its tables, and needs those tables; the infeasible ones hit a rule the tools enforce (a card blocked as lost, a
charge or a claim past its window, a quote that lapsed)."""

from awm.builder.categories.agriculture import requests as agriculture  # noqa: F401  (registers)
from awm.builder.categories.automotive import requests as automotive  # noqa: F401  (registers)
from awm.builder.categories.banking import requests as banking  # noqa: F401  (registers)
from awm.builder.categories.commerce import requests as commerce  # noqa: F401  (registers)
from awm.builder.categories.education import requests as education  # noqa: F401  (registers)
from awm.builder.categories.energy import requests as energy  # noqa: F401  (registers)
from awm.builder.categories.fintech import requests as fintech  # noqa: F401  (registers)
from awm.builder.categories.fitness import requests as fitness  # noqa: F401  (registers)
from awm.builder.categories.food_and_beverage import requests as food_and_beverage  # noqa: F401  (registers)
from awm.builder.categories.government import requests as government  # noqa: F401  (registers)
from awm.builder.categories.healthcare import requests as healthcare  # noqa: F401  (registers)
from awm.builder.categories.hospitality import requests as hospitality  # noqa: F401  (registers)
from awm.builder.categories.human_resources import requests as human_resources  # noqa: F401  (registers)
from awm.builder.categories.insurance import requests as insurance  # noqa: F401  (registers)
from awm.builder.categories.logistics import requests as logistics  # noqa: F401  (registers)
from awm.builder.categories.manufacturing import requests as manufacturing  # noqa: F401  (registers)
from awm.builder.categories.marketing import requests as marketing  # noqa: F401  (registers)
from awm.builder.categories.media import requests as media  # noqa: F401  (registers)
from awm.builder.categories.nonprofit import requests as nonprofit  # noqa: F401  (registers)
from awm.builder.categories.professional_services import requests as professional_services  # noqa: F401  (registers)
from awm.builder.categories.real_estate import requests as real_estate  # noqa: F401  (registers)
from awm.builder.categories.technology import requests as technology  # noqa: F401  (registers)
from awm.builder.categories.telecom import requests as telecom  # noqa: F401  (registers)
from awm.builder.categories.transportation import requests as transportation  # noqa: F401  (registers)
from awm.builder.categories.travel import requests as travel  # noqa: F401  (registers)
from awm.builder.categories.utilities import requests as utilities  # noqa: F401  (registers)
