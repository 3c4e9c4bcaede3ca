"""Headless Chromium for the tests of the HTML pages (Playwright with Debian's chromium).

Never a browser that Playwright downloads: the tests drive ``/usr/bin/chromium`` with the
flags of a closed network, record console errors and every request, and skip (fail under
CI) with the reason when chromium or Playwright is missing. Screenshots go to pytest's
temporary folders, never into the repository.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
# A closed network: no background, update, sync or QUIC traffic from the browser itself.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def playwright_api() -> Any:
    """Playwright's sync API with Debian's chromium, or skip (fail under CI) saying why."""
    missing = None
    if not Path(CHROMIUM).exists():
        missing = f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            from playwright import sync_api
        except ImportError:
            missing = "Playwright for Python is not installed (pip install playwright)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; CI must run the browser tests")
        pytest.skip(missing)
    return sync_api


class Tab:
    """A page that records console errors, uncaught exceptions and every request."""

    def __init__(self, browser: Any, width: int = 1400, height: int = 1000,
                 **options: Any) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           accept_downloads=True, **options)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console",
                     lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def external(self, own: Path) -> list[str]:
        """Requests other than the page itself and what it makes in memory (blob, data)."""
        base = own.as_uri()
        return [url for url in self.requests if url.split("#")[0] != base
                and not url.startswith(("data:", "blob:"))]

    def close(self) -> None:
        self.context.close()


class Chromium:
    """One browser for a test module; `tab` opens a fresh, isolated page."""

    def __init__(self) -> None:
        self.api = playwright_api()
        self._manager = self.api.sync_playwright()
        self._playwright = self._manager.start()
        self.browser = self._playwright.chromium.launch(executable_path=CHROMIUM,
                                                        args=CHROMIUM_ARGS)

    def tab(self, **options: Any) -> Tab:
        return Tab(self.browser, **options)

    def close(self) -> None:
        self.browser.close()
        self._playwright.stop()


def chromium_fixture() -> Iterator[Chromium]:
    """Body of a module-scoped ``chromium`` fixture."""
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()
