"""FeatureReranker behind the BRAIN_RERANKER hook: each lever through the real recall, and the time parser."""

from datetime import date

import pytest

from brain.api import recall
from brain.models import Memory
from brain.search.rerankers import FeatureReranker, query_interval, stem

BACKEND = "brain.search.rerankers.FeatureReranker"


def turn(tenant, text, *, position=None, thread="session 1", **payload):
    if position is not None:
        payload.update(position=position, thread=thread)
    return Memory.objects.create(
        tenant=tenant, text=text, type="chat", scope_kind="conversation", scope_id="c1", payload=payload
    )


def ids(results):
    return [r.id for r in results]


def test_a_turn_is_lifted_by_the_neighbour_the_question_names(tenant, settings):
    asked = turn(tenant, "How is the marathon training plan going?", position=0)
    answer = turn(
        tenant, "Great, I stuck to the plan and ran thirty kilometres on Sunday morning.", position=1
    )
    other = turn(tenant, "Dinner plan: pasta.", position=7)
    query = "marathon training plan"
    plain = ids(recall(tenant_id=tenant.pk, query=query, mode="lexical", rerank=False))
    assert plain.index(other.id) < plain.index(answer.id)  # the shorter row wins on words alone
    settings.BRAIN_RERANKER = {"BACKEND": BACKEND, "NEIGHBOURS": 0.5}
    results = recall(tenant_id=tenant.pk, query=query, mode="lexical")
    assert ids(results)[0] == asked.id
    assert ids(results).index(answer.id) < ids(results).index(other.id)
    by_id = {r.id: r for r in results}
    assert by_id[answer.id].explanation["rerank"]["features"]["NEIGHBOURS"] == 1.0
    assert "NEIGHBOURS" not in by_id[other.id].explanation["rerank"]["features"]
    assert by_id[answer.id].explanation["rerank"]["reranker"] == "features"


def test_neighbours_are_turns_of_the_same_thread(tenant, settings):
    turn(tenant, "How is the marathon training plan going?", position=0, thread="session 1")
    later = turn(tenant, "The plan for the garden is set.", position=1, thread="session 2")
    settings.BRAIN_RERANKER = {"BACKEND": BACKEND, "NEIGHBOURS": 0.5}
    results = {r.id: r for r in recall(tenant_id=tenant.pk, query="marathon training plan", mode="lexical")}
    assert "NEIGHBOURS" not in results[later.id].explanation["rerank"]["features"]


def test_the_speaker_the_query_names_comes_first(tenant, settings):
    mel = turn(tenant, "I signed up for a pottery class.", speaker="Melanie")
    caro = turn(tenant, "I signed up for a pottery class this spring with friends.", speaker="Caroline")
    query = "pottery class Caroline signed up for"
    assert ids(recall(tenant_id=tenant.pk, query=query, mode="lexical", rerank=False))[0] == mel.id
    settings.BRAIN_RERANKER = {"BACKEND": BACKEND, "SPEAKER": 0.5}
    assert ids(recall(tenant_id=tenant.pk, query=query, mode="lexical")) == [caro.id, mel.id]


def test_relative_time_is_resolved_against_the_reference_date(tenant, settings):
    may = turn(tenant, "We went camping by the lake with the kids.", occurred_at="2023-05-20")
    july = turn(tenant, "We went camping by the lake.", occurred_at="2023-07-02")
    query = "When did they go camping in May?"
    assert ids(recall(tenant_id=tenant.pk, query=query, mode="lexical", rerank=False))[0] == july.id
    settings.BRAIN_RERANKER = {"BACKEND": BACKEND, "TIME": 0.5, "TIME_SLACK_DAYS": 0}
    found = recall(tenant_id=tenant.pk, query=query, mode="lexical", reference_date=date(2023, 8, 1))
    assert ids(found) == [may.id, july.id]
    # "in May" a year later means May 2024: neither memory is in it.
    later = recall(tenant_id=tenant.pk, query=query, mode="lexical", reference_date=date(2024, 8, 1))
    assert ids(later)[0] == july.id


@pytest.mark.parametrize(
    ("query", "span"),
    [
        ("What happened on October 13, 2023?", (date(2023, 10, 13), date(2023, 10, 13))),
        ("What did Gina find on 1 February, 2023?", (date(2023, 2, 1), date(2023, 2, 1))),
        ("What class did Maria start in December 2023?", (date(2023, 12, 1), date(2023, 12, 31))),
        ("When did Melanie go camping in June?", (date(2023, 6, 1), date(2023, 6, 30))),
        ("When did Melanie go camping in November?", (date(2022, 11, 1), date(2022, 11, 30))),
        ("How many beach trips in 2023?", (date(2023, 1, 1), date(2023, 12, 31))),
        ("Where did John travel last year?", (date(2022, 1, 1), date(2022, 12, 31))),
        ("What did she do last month?", (date(2023, 7, 1), date(2023, 7, 31))),
        ("What may she bring?", None),
    ],
)
def test_query_interval(query, span):
    assert query_interval(query, date(2023, 8, 15)) == span


def test_stems_join_word_forms():
    assert stem("painting") == stem("painted") == stem("paints") == stem("paint")
    assert stem("races") == stem("race")
    assert stem("running") == stem("run")


def test_unknown_options_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="NEIGHBOURS"):
        FeatureReranker(NEIGHBOR=0.3)
