"""Debian's Chromium driven by Playwright (no browser download), and what the UI tests share."""

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.lanes import PATIENCE_S

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(os.environ.get("AWM_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))

if not CHROMIUM and os.environ.get("CI"):
    raise RuntimeError("CI must install Debian's chromium package for the UI tests")
needs_chromium = pytest.mark.skipif(not CHROMIUM, reason="Debian's chromium package is not installed")

# The pages' default wait: an element is looked for until it shows (its readiness signal), and this is only the
# last resort against a hang (tests/conftest.py, PATIENCE_S); no call passes a shorter timeout.
PATIENCE_MS = int(PATIENCE_S * 1000)

# One attempt of a UI action whose effect is then waited for (`until_shown`): the action is repeated until its
# effect shows, with PATIENCE_S as the last resort, so a click the UI dropped is made again rather than waited on.
ATTEMPT_MS = 20_000

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def new_page(browser, **options):
    """A page whose waits last until what they wait for shows (PATIENCE_MS as the last resort)."""
    page = browser.new_page(**options)
    page.set_default_timeout(PATIENCE_MS)
    page.set_default_navigation_timeout(PATIENCE_MS)
    return page


def dismiss_welcome(page) -> None:
    """Close the UI's welcome dialog: now if it is open, and whenever it opens later, before any action it
    would block (its backdrop takes the clicks; it may appear after the page has settled)."""
    skip = page.get_by_role("button", name="Skip")
    if getattr(page, "_awm_dismisses_welcome", False):
        return  # the handler below closes it before any action
    if skip.count():
        skip.first.click()
    page.add_locator_handler(skip, lambda button: button.first.click())
    page._awm_dismisses_welcome = True


def until_shown(act, shown) -> None:
    """Do `act`, then wait for the locator `shown` to be visible; do it again while it is not. A click the UI drops
    while it renders (the graph's group not yet expanded, a tab re-rendered back to its first) would otherwise be
    waited on until PATIENCE_S; a loaded machine makes an attempt slower, and the next attempt waits again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + PATIENCE_S
    while True:
        act()
        try:
            shown.wait_for(state="visible", timeout=max(1, min(ATTEMPT_MS, (deadline - time.monotonic()) * 1000)))
            return
        except PlaywrightTimeout:
            if time.monotonic() >= deadline:
                raise


def open_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    dismiss_welcome(page)


def visible_text(page, text: str):
    """Elements showing exactly `text` (the UI keeps hidden copies of long names to measure them)."""
    return page.get_by_text(text, exact=True).filter(visible=True)


def metadata_value(page, key: str):
    """The value cell of one row of the metadata table shown on the page."""
    row = page.get_by_role("row").filter(has=page.get_by_role("cell", name=key, exact=True))
    return row.first.get_by_role("cell").nth(1)


def markdown_text(page, cell) -> str:
    """A markdown metadata value: shown in place, or (when long) behind [Show Markdown] in a dialog,
    which is left open."""
    opener = cell.get_by_text("[Show Markdown]")
    if not opener.count():
        return cell.inner_text()
    opener.click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    page.locator(".bp5-overlay-backdrop.bp5-overlay-enter-done").wait_for()  # opened, for the shot
    return dialog.inner_text()


def close_dialog(page) -> None:
    page.keyboard.press("Escape")
    page.locator(".bp5-overlay-backdrop").wait_for(state="detached")


def scroll_to(element) -> None:
    """Bring an element to the middle of its scrolling area without scrolling sideways."""
    element.evaluate("e => { e.scrollIntoView({block: 'center', inline: 'nearest'});"
                     " for (let p = e.parentElement; p; p = p.parentElement) p.scrollLeft = 0; }")


def open_check_partitions(page, url: str, asset: str, check: str) -> None:
    open_page(page, f"{url}/assets/{asset}?view=checks&checkDetail={check}")
    # the check's own tabs (beside "Execution history"): the asset's Partitions tab shows first, and the
    # check's panel renders later, so "the last Partitions tab" could still be the asset's
    check_tabs = page.get_by_role("tablist").filter(has=page.get_by_role("tab", name="Execution history"))
    until_shown(check_tabs.get_by_role("tab", name="Partitions").click,
                page.get_by_text(re.compile(r"^Passed \(\d+\)$")).filter(visible=True).first)


def check_partition_detail(page, partition: str) -> str:
    """Click a partition in the check's Partitions view; return the text of its detail panel (status,
    latest execution, description, metadata)."""
    visible_text(page, partition).last.click()
    panel = (page.locator("div").filter(has=page.get_by_text("Latest execution", exact=True))
             .filter(has=page.get_by_text("Description", exact=True)).last)
    panel.wait_for()
    panel.get_by_text(partition, exact=True).first.wait_for()
    return panel.inner_text()
