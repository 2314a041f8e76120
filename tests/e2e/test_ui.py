"""The Dagster UI in a real browser (Debian's Chromium driven by Playwright, no browser download):
open the asset graph, launch a materialization of one partition, wait for success, and save
screenshots of the asset page (metadata, lineage) as test artifacts."""

from awm.dagster_client import DagsterClient
from tests.e2e.browser import (
    ARTIFACTS,
    BROWSER_ARGS,
    CHROMIUM,
    check_partition_detail,
    dismiss_welcome,
    needs_chromium,
    new_page,
    open_check_partitions,
    until_shown,
)
from tests.e2e.graphql import check_partition_statuses, finished_runs

pytestmark = needs_chromium


def test_materialize_a_partition_from_the_ui(dagster_dev):
    from playwright.sync_api import sync_playwright

    url, awm_home = dagster_dev
    DagsterClient(url).add_domain("dental_clinic")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = awm_home / "corpus" / "dental_clinic" / "dental_clinic__00" / "scenario.json"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        page = new_page(browser, viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/asset-groups/awm_pipeline@awm/lineage")
        page.wait_for_load_state("networkidle")
        dismiss_welcome(page)
        # the group's node in the graph expanded (the second visible "awm_pipeline": the first is the sidebar's
        # entry), then the sidebar's entry selected, which zooms the graph to the group: the graph draws only the
        # nodes in view, and with several groups the expanded one can start out of it
        group = page.get_by_text("awm_pipeline", exact=True).filter(visible=True)

        def expand():
            group.nth(1).dblclick()
            group.first.click()

        # the first asset's node shown: the group expanded and in view (done again if the graph was not ready)
        until_shown(expand, page.get_by_text("scenarios", exact=True).filter(visible=True).first)
        for name in ("tasks", "schemas", "databases", "tools"):
            page.get_by_text(name, exact=True).filter(visible=True).first.wait_for()
        page.screenshot(path=str(ARTIFACTS / "asset-graph.png"))

        page.goto(f"{url}/assets/scenarios")
        page.wait_for_load_state("networkidle")
        dismiss_welcome(page)
        page.get_by_role("button", name="Materialize").first.click()
        page.get_by_text("Select a partition or create one").click()
        page.get_by_text("dental_clinic", exact=True).first.click()
        launch = page.get_by_role("button", name="Launch 1 run")
        launch.wait_for()
        launch.click()

        runs = finished_runs(url, {"dagster/partition": "dental_clinic"})  # launched, then finished
        assert [r["status"] for r in runs] == ["SUCCESS"], runs
        assert target.exists(), "the run launched from the UI did not build the scenario"
        page.goto(f"{url}/assets/scenarios")
        page.get_by_text("Latest materialization").wait_for()
        page.get_by_text("environments", exact=True).first.wait_for()  # the materialization's metadata
        page.screenshot(path=str(ARTIFACTS / "asset-page.png"), full_page=True)
        # the one-domain run recorded the checks on the domain's partition: Passed, not Skipped
        expected = {"scenarios_valid": "1 environment(s) checked, no findings",
                    "scenarios_yield": "1 of 1 environment(s) passed scenarios"}
        for check, description in expected.items():
            statuses = check_partition_statuses(url, "scenarios", check,
                                                until=lambda s: "dental_clinic" in s["succeeded"])
            assert "dental_clinic" in statuses["succeeded"] and statuses["skipped"] == [], (check, statuses)
            open_check_partitions(page, url, "scenarios", check)
            assert page.get_by_text("Skipped (0)", exact=True).is_visible()
            detail = check_partition_detail(page, "dental_clinic")
            assert "Passed" in detail and description in detail, detail
        page.goto(f"{url}/assets/scenarios?view=lineage")
        page.get_by_text("tasks", exact=True).first.wait_for()
        page.wait_for_load_state("networkidle")
        page.get_by_text("Loading...").first.wait_for(state="hidden")
        page.screenshot(path=str(ARTIFACTS / "asset-lineage.png"))
        browser.close()
    for name in ("asset-graph.png", "asset-page.png", "asset-lineage.png"):
        assert (ARTIFACTS / name).stat().st_size > 10_000, name
