"""Fixtures of the end-to-end tests: one headless Chromium for a whole browser test module
(starting one takes a second or two), its pages closed after each test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from tests.support.browser import Chromium, chromium


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def chromium_process() -> AsyncIterator[Chromium]:
    async with chromium() as running:
        yield running


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium_process: Chromium) -> AsyncIterator[Chromium]:
    """The module's Chromium; the pages a test opens are closed after it."""
    yield chromium_process
    await chromium_process.close_pages()
