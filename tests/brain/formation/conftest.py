"""Shared by the personal-data tests: the model's availability and a test process that filters as a worker does."""

import pytest

from brain.formation import pii_model

needs_model = pytest.mark.skipif(
    pii_model.model_unavailable() is not None,
    reason=f"personal-data model: {pii_model.model_unavailable()} (make install installs it)",
)


@pytest.fixture
def worker():
    """This test process filters as a worker does: with the model."""
    with pii_model.used():
        yield
