"""`brain_bench learning`: the simulation frame and its suggestion figures, at a tiny size."""

import pytest
from django.conf import settings

from intelligence.benchmarks.learning import simulate
from intelligence.models import SuggestionDismissal

pytestmark = pytest.mark.django_db(transaction=True)


def test_learning_is_registered():
    assert settings.BRAIN_BENCHMARKS["learning"] == "intelligence.benchmarks.learning"


def test_a_tiny_month_proposes_activates_dismisses_and_never_reproposes(tenant):
    figures = simulate(tenant, runs=160, rated=0.6, misleading=0.4, threshold=4, seed=3)
    assert set(figures) >= {
        "runs",
        "suggestions_proposed",
        "suggestions_activated",
        "suggestions_dismissed",
        "reproposed_after_dismiss",
    }
    assert figures["runs"] == 160
    assert figures["suggestions_proposed"] >= 2
    assert figures["suggestions_activated"] >= 1 and figures["suggestions_dismissed"] >= 1
    assert figures["suggestions_dismissed"] == SuggestionDismissal.objects.for_tenant(tenant).count()
    # The misleading feedback kept coming after its dismissal, and nothing came back.
    assert figures["repeats_of_dismissed_dropped"] >= 1
    assert figures["reproposed_after_dismiss"] == 0
