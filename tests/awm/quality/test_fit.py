"""The rules of awm/quality/fit.py on tasks the builder once wrote (each a misfit found in the default corpus
before worlds had to fit their kind), and on the fitting requests beside them."""

import pytest

from awm.quality.fit import RULES, World, fit_report, world_misfits


def _world(kind: str, category: str = "technology", modules=(), price_range=(25.0, 3000.0), tasks=(), items=(),
           party_kind: str = "person"):
    return World("x__00", category, kind, tuple(modules), price_range, tuple(tasks), tuple(items), party_kind)


@pytest.mark.parametrize(
    ("world", "rule"),
    [
        (_world("service", modules=("support", "accounts")), "module"),
        (_world("service", modules=("inventory",)), "module"),
        (_world("booking", "food_and_beverage", modules=("inventory",)), "module"),
        (_world("program", "education", price_range=(40.0, 250.0)), "price range"),
        (_world("service", "real_estate", tasks=(
            "We may be running short of 'Irrigation Repair' at Lake Maryport Managed Property. If so (below the "
            "reorder level), book in 10 more units; if not, report the quantity on hand.",)), "stock"),
        (_world("made_to_order", "hospitality", tasks=(
            "Shift 6 'Menu Tasting Session' units across from West Kitchen to Melton Kitchen, adjusting both stock "
            "counts.",)), "stock"),
        (_world("financial", "banking", tasks=(
            "'Travel Money Card' might be overpriced. If its price is more than 180.00, take 10% off; otherwise, "
            "leave the price alone and let me know what it is.",)), "price"),
        (_world("gift", "nonprofit", tasks=(
            "Refund the captured payment on their gift order GIF-1004 with the reason 'billing error'.",)), "refund"),
        (_world("gift", "nonprofit", tasks=(
            "Their gift order GIF-1013 arrived damaged. I need you to record its return and place a replacement gift "
            "order for them at the same chapter office with exactly the same items and quantities.",)), "refund"),
        (_world("goods", "commerce", tasks=(
            "Would you find the latest fee on their checking account and give it back as a credit?",)), "account"),
        (_world("service", "utilities", tasks=(
            "If my wallet account holds at least 750.00, transfer 750.00 from it to my checking account.",)),
         "account"),
        (_world("service", "human_resources", party_kind="organisation", tasks=(
            "Paul Carter (paul.carter@example.com) is moving to Lake Sara: change the city on their record to Lake "
            "Sara, make 18 Oak Avenue, Lake Sara 52196 their primary home address, and move every client engagement "
            "of theirs that is still open to the office in Lake Sara.",)), "household"),
        (_world("service", "logistics", party_kind="organisation", tasks=(
            "My spouse usually handles these things. Please cancel my shipment SHI-1022.",)), "household"),
        # who the customers are is read whatever the items are (a kind the catalogue does not know)
        (_world("", "logistics", party_kind="organisation", tasks=(
            "Hi, I'm Ann Lee. I've just moved house: cancel my shipment SHI-1022.",)), "household"),
    ],
)
def test_each_rule_names_the_misfit_it_finds(world, rule):
    found = world_misfits(world)
    assert [m.rule for m in found] == [rule]
    assert found[0].env_id == "x__00"


def test_fitting_worlds_and_requests_pass_every_rule():
    fitting = [
        _world("goods", "commerce", modules=("inventory", "promotions"), tasks=(
            "Add 12 units of 'Trail Runner' to the stock at the North store.",
            "Align the price of 'Trail Runner' with the current price of 'Road Runner'.",
            "Process the return of my order ORD-1002, which arrived damaged, and send me the same again.")),
        _world("financial", "banking", modules=("accounts",), tasks=(
            "If my savings account holds at least 750.00, transfer it to my checking account.",
            "Refund the fee on application APP-1002 with the reason 'fee waived'.")),
        _world("program", "education", price_range=(2500.0, 65000.0)),
        # names and addresses are not read as requests: an item called a restock, a customer called Price
        _world("service", "hospitality", items=("Beverage Cart Restock",), tasks=(
            "Put together a catering order with Economy Meal Tray (quantity 3) and Beverage Cart Restock.",)),
        _world("unpaid", "nonprofit", tasks=("Hi, writing from trevor.price@example.org: book me on the day.",
                                             "We heard from Tara Price. Please book them on the day.")),
        _world("made_to_order", "marketing", tasks=("We have the parts on hand; start the job.",)),
        # a person's home is theirs to have; a client company's office address is no household
        _world("goods", "commerce", tasks=("Make 12 Elm Street, Omaha 68102 my primary home address.",
                                           "My spouse usually handles these things. Cancel my order ORD-1002.")),
        _world("service", "human_resources", party_kind="organisation", tasks=(
            "Add a new work address for them at 12 Elm Street, Omaha 68102 and make it the primary one.",
            "I look after our company's account with you. Please cancel our engagement ENG-1003.")),
    ]
    report = fit_report(fitting)
    assert report["misfits"] == 0, report["examples"]


def test_the_report_counts_per_rule_and_keeps_a_few_examples():
    worlds = [_world("service", modules=("accounts", "inventory"), tasks=("Restock 'Firewall Setup'.",) * 5)]
    report = fit_report(worlds, examples=2)
    assert set(report["by_rule"]) == set(RULES)
    assert report["by_rule"]["module"] == 2 and report["by_rule"]["stock"] == 5
    assert report["misfits"] == 7 and report["environments_with_misfits"] == 1
    assert report["tasks_with_misfits"] == 1  # the same instruction five times is one task text
    assert len(report["examples"]["stock"]) == 2
