"""What the Dagster UI shows per domain, read in a real browser, on a corpus built as `make run` builds it
(one run over a range of two domains) through the LLM backend, where one environment's tools stage got
unsafe code at every attempt: each domain partition's own check statuses and metadata, and the walk from
the catalog's failures list to the failing partition, the reason, every attempt's error and the upstream
lineage. The walk's screenshots are saved as test artifacts; docs/failures.md shows them."""

import re

from tests.e2e.browser import (
    ARTIFACTS,
    BROWSER_ARGS,
    CHROMIUM,
    check_partition_detail,
    close_dialog,
    markdown_text,
    metadata_value,
    needs_chromium,
    new_page,
    open_check_partitions,
    open_page,
    scroll_to,
    visible_text,
)
from tests.e2e.conftest import WALK_DOMAINS, WALK_FAILING_ENV, WALK_FAILING_STAGE

pytestmark = needs_chromium

PASSED_DOMAIN, FAILING_DOMAIN = WALK_DOMAINS
STAGE = WALK_FAILING_STAGE
WALK_SHOTS = ("walk-1-catalog-failures.png", "walk-2-failing-partition.png", "walk-3-attempt-errors.png",
              "walk-4-yield-check.png", "walk-5-yield-failed-environments.png", "walk-6-upstream-lineage.png")


def test_each_domain_partition_shows_its_own_check_statuses_and_metadata(failed_environment_corpus):
    from playwright.sync_api import sync_playwright

    url, _ = failed_environment_corpus
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        page = new_page(browser, viewport={"width": 1500, "height": 1000})

        # a blocking check: both domains Passed, none Skipped (a range run used to record no partition)
        open_check_partitions(page, url, STAGE, f"{STAGE}_valid")
        for label in ("Passed (2)", "Failed (0)", "Skipped (0)", "Execution Failed (0)"):
            assert page.get_by_text(label, exact=True).is_visible(), label

        # the WARN yield check: the domain with the failed environment names it; the other passed
        open_check_partitions(page, url, STAGE, f"{STAGE}_yield")
        assert page.get_by_text("Passed (1)", exact=True).is_visible()
        assert page.get_by_text("Failed (1)", exact=True).is_visible()
        failing = check_partition_detail(page, FAILING_DOMAIN)
        assert f"1 of 2 environment(s) passed {STAGE}; failed: {WALK_FAILING_ENV}" in failing
        assert re.search(r"failed_environment_ids\s+" + WALK_FAILING_ENV, failing)
        assert "Failed" in failing and "Passed" not in failing
        passed = check_partition_detail(page, PASSED_DOMAIN)
        assert f"2 of 2 environment(s) passed {STAGE}" in passed and "Passed" in passed and "Failed" not in passed
        assert re.search(r"failed_environment_ids\s+none", passed)

        # each partition's materialization describes its own domain only
        for domain, other in ((PASSED_DOMAIN, FAILING_DOMAIN), (FAILING_DOMAIN, PASSED_DOMAIN)):
            open_page(page, f"{url}/assets/verification_reports?view=partitions&partition={domain}")
            metadata_value(page, "domain").wait_for()
            assert metadata_value(page, "domain").inner_text().strip() == domain
            assert metadata_value(page, "environments").inner_text().strip() == "2"
            text = page.locator("body").inner_text()
            assert f"{domain}__00" in text and f"{other}__0" not in text, domain
        assert metadata_value(page, "skipped (upstream failed)").inner_text().strip() == "1"
        browser.close()


def test_a_failed_environment_traced_from_the_catalog_to_its_reason_and_lineage(failed_environment_corpus):
    from playwright.sync_api import sync_playwright

    url, _ = failed_environment_corpus
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        page = new_page(browser, viewport={"width": 1920, "height": 1000})

        # 1. the catalog's failures list: the environment, its stage, the check that caught it, a link
        open_page(page, f"{url}/assets/environment_catalog")
        row = page.get_by_role("row").filter(has_text=WALK_FAILING_ENV).last
        row.wait_for()
        cells = [c.strip() for c in row.get_by_role("cell").all_inner_texts()]
        assert cells[:4] == [WALK_FAILING_ENV, "failed", STAGE, "tool_code_policy"], cells
        assert cells[4].split() == [STAGE, "/", FAILING_DOMAIN] and "import of 'os' is not allowed" in cells[5]
        link = row.get_by_role("link", name=f"{STAGE} / {FAILING_DOMAIN}")
        scroll_to(row)
        page.screenshot(path=str(ARTIFACTS / WALK_SHOTS[0]))

        # 2. the link opens the failing stage's partition of that domain: the failure and its reason
        link.click()
        page.wait_for_url(re.compile(rf"/assets/{STAGE}\?view=partitions&partition={FAILING_DOMAIN}$"))
        metadata_value(page, "failed_environment_ids").wait_for()
        assert metadata_value(page, "domain").inner_text().strip() == FAILING_DOMAIN
        assert metadata_value(page, "failed_environment_ids").inner_text().strip() == WALK_FAILING_ENV
        assert metadata_value(page, "failed").inner_text().strip() == "1"
        assert metadata_value(page, "built").inner_text().strip() == "1"
        assert metadata_value(page, "attempt").inner_text().strip() == "5"
        assert "import of 'os' is not allowed" in metadata_value(page, "failures").inner_text()
        page.screenshot(path=str(ARTIFACTS / WALK_SHOTS[1]))

        # 3. every attempt's error, each fed back to the next attempt
        errors = metadata_value(page, "attempt_errors")
        scroll_to(errors)
        text = markdown_text(page, errors)
        for n in range(1, 5):
            assert f"attempt {n}, fed back to attempt {n + 1}: " in text, text
        assert "attempt 5, the last: " in text
        assert text.count("import of 'os' is not allowed") == 5
        page.screenshot(path=str(ARTIFACTS / WALK_SHOTS[2]))
        close_dialog(page)

        # 4. the stage's yield check on that partition: a warning naming the environment
        open_check_partitions(page, url, STAGE, f"{STAGE}_yield")
        detail = check_partition_detail(page, FAILING_DOMAIN)
        assert f"failed: {WALK_FAILING_ENV}" in detail
        page.screenshot(path=str(ARTIFACTS / WALK_SHOTS[3]))
        listing = markdown_text(page, metadata_value(page, "failed_environments"))
        assert WALK_FAILING_ENV in listing and "tool_code_policy" in listing and "import of 'os'" in listing
        page.screenshot(path=str(ARTIFACTS / WALK_SHOTS[4]))
        close_dialog(page)

        # 5. the upstream lineage of the failing stage: what it was built from, and those stages' checks
        open_page(page, f"{url}/assets/{STAGE}?view=lineage&lineageScope=upstream&lineageDepth=2")
        nodes = {name: page.locator("div").filter(has=visible_text(page, name)).filter(has_text="Asset checks").last
                 for name in ("schemas", "databases", STAGE)}
        for node in nodes.values():
            node.get_by_text(re.compile(r"\d+ / \d+ Passed")).wait_for()
        assert "2 / 2 Passed" in nodes["databases"].inner_text() and "2 / 2 Passed" in nodes["schemas"].inner_text()
        assert "1 / 2 Passed" in nodes[STAGE].inner_text()  # tools_yield warns on the failing domain
        page.screenshot(path=str(ARTIFACTS / WALK_SHOTS[5]))
        browser.close()
    for name in WALK_SHOTS:
        assert (ARTIFACTS / name).stat().st_size > 10_000, name
