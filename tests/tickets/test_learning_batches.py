"""Learning throughput (issue 18): a ticket's candidates are embedded in one call and promoted together.

The embedder is a real one (the hashing embedder) registered through settings, counting the calls made into
it; the statements are counted with CaptureQueriesContext around the learning task.
"""

import uuid

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from brain.embedders import HashingEmbedder, get_embedder
from brain.models import Memory
from tickets import services
from tickets.models import LearningAttempt
from tickets.tasks import learn_from_ticket

from .learning_helpers import ticket_with_evidence

# Statements one learning attempt may send per candidate it reinforces, all included (the attempt's claim, the
# evidence, recall, the neighbours, the writes, the record). Before issue 18 this ticket's 4 took 127 (recall's
# six, four neighbour queries, a transaction and a ledger read per candidate); then 16 each; with the ticket's
# reinforcements written together and the attempt closed by its record, 34 in all.
REINFORCE_STATEMENTS_PER_CANDIDATE = 9


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder under a name of its own (so no earlier test's cached vector answers), keeping
    the texts of each call made into it."""

    def __init__(self, **options):
        super().__init__(**options)
        self.name = f"counting-{options['RUN']}"
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return super().embed(texts)


@pytest.fixture
def counting_embedder(settings):
    settings.BRAIN_EMBEDDER = {
        "BACKEND": "tests.tickets.test_learning_batches.CountingEmbedder",
        "RUN": uuid.uuid4().hex,
    }
    return get_embedder()


def solved(ticket, capture):
    """The ticket solved, its learning attempt run (eagerly, in this process)."""
    with capture(execute=True):
        services.ticket_transition(ticket=ticket, status="solved")
    return ticket


def test_a_tickets_candidates_are_embedded_in_one_call_and_the_stored_vector_is_that_one(
    tenant, counting_embedder, django_capture_on_commit_callbacks
):
    ticket = solved(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    attempt = LearningAttempt.objects.for_tenant(tenant).get()
    assert attempt.status == "succeeded" and attempt.candidates >= 4 and attempt.added >= 4
    rows = list(Memory.objects.for_tenant(tenant).order_by("id"))
    assert len(counting_embedder.calls) == 1  # one call into the embedder for the whole ticket
    assert sorted(counting_embedder.calls[0]) == sorted(row.text for row in rows)
    direct = HashingEmbedder().embed([row.text for row in rows])
    for row, vector in zip(rows, direct, strict=True):
        # The vector the judge and the backstop compared is the one stored: never embedded twice.
        assert row.embedding_model == counting_embedder.name
        assert np.allclose(np.asarray(row.embedding), np.asarray(vector, dtype=np.float32), atol=1e-6)

    learn_from_ticket.apply(args=(tenant.pk, ticket.pk))  # the same texts again: answered by the cache
    assert len(counting_embedder.calls) == 1


def test_statements_per_reinforced_candidate_stay_bounded(
    tenant, counting_embedder, django_capture_on_commit_callbacks
):
    ticket = solved(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as queries:
        learn_from_ticket.apply(args=(tenant.pk, ticket.pk))
    second = LearningAttempt.objects.for_tenant(tenant).order_by("id").last()
    assert second.status == "succeeded" and second.reinforced == second.candidates >= 4
    assert len(queries) <= REINFORCE_STATEMENTS_PER_CANDIDATE * second.candidates, [
        q["sql"][:120] for q in queries.captured_queries
    ]


def test_an_attempt_succeeds_in_the_write_that_records_its_candidates(
    tenant, counting_embedder, django_capture_on_commit_callbacks
):
    """The attempt's outcomes and its success are one UPDATE, in the candidates' transaction: a learning run
    writes its attempt twice (the claim, then that record), with no separate closing write and commit."""
    ticket = solved(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as queries:
        learn_from_ticket.apply(args=(tenant.pk, ticket.pk))
    second = LearningAttempt.objects.for_tenant(tenant).order_by("id").last()
    assert second.status == "succeeded" and second.finished_at and second.lease_expires_at is None
    assert second.reinforced == second.candidates >= 4 and len(second.outcomes) == second.candidates
    writes = [
        q["sql"] for q in queries.captured_queries if q["sql"].startswith('UPDATE "tickets_learningattempt"')
    ]
    assert len(writes) == 2, writes
