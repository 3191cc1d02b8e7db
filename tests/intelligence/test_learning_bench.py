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
        "verdicts_per_s",
        "verdicts_to_archive_median",
        "good_final_confidence_mean",
        "moved_outside_trace",
    }
    assert figures["runs"] == 160
    assert figures["suggestions_proposed"] >= 2
    assert figures["suggestions_activated"] >= 1 and figures["suggestions_dismissed"] >= 1
    assert figures["suggestions_dismissed"] == SuggestionDismissal.objects.for_tenant(tenant).count()
    # The misleading feedback kept coming after its dismissal, and nothing came back.
    assert figures["repeats_of_dismissed_dropped"] >= 1
    assert figures["reproposed_after_dismiss"] == 0


def test_verdicts_archive_the_bad_memories_and_move_only_what_was_injected(tenant):
    figures = simulate(tenant, runs=300, rated=0.0, seed=5)
    assert figures["verdicts"] == 300
    assert figures["bad_archived"] == 2 and figures["verdicts_to_archive_median"] >= 1
    assert figures["moved_outside_trace"] == 0
    assert figures["good_final_confidence_mean"] > 0.7  # they started at the unranked 0.7 and mostly passed
