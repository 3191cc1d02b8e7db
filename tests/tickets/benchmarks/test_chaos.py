"""Chaos (issue 15, finding 4): 200 tickets solved through a real worker on Redis and again on RabbitMQ, the
worker SIGKILLed three times each: none lost, none learned twice, none stuck once the lease has passed.

Marked `chaos` (and `worker`); CI runs it with BRAIN_REQUIRE_BROKER=1, so a missing broker fails it. The
lease is driven short through settings; the kill points come from a fixed seed."""

import os

import pytest

from tests.conftest import BROKER_URL, broker_or_skip
from tickets.benchmarks.chaos import amqp_url, chaos_run

TICKETS = int(os.environ.get("BRAIN_CHAOS_TICKETS", "200"))
KILLS = int(os.environ.get("BRAIN_CHAOS_KILLS", "3"))


@pytest.mark.chaos
@pytest.mark.worker
@pytest.mark.parametrize("broker", [BROKER_URL, amqp_url()], ids=["redis", "rabbitmq"])
def test_a_worker_sigkilled_three_times_loses_duplicates_and_strands_no_learning(
    tenant, transactional_db, settings, broker
):
    broker_or_skip(broker)
    settings.BRAIN_LEARNING_LEASE, settings.BRAIN_LEARNING_QUEUE_LEASE = 4, 12
    if broker.startswith("redis"):
        import redis

        redis.Redis.from_url(broker).flushdb()
    figures = chaos_run(
        tenant=tenant, broker=broker, tickets=TICKETS, kills=KILLS, lease=4, queue_lease=12, seed=15
    )
    assert (figures.tickets, figures.kills) == (TICKETS, KILLS)
    assert (figures.lost, figures.duplicated, figures.stuck) == (0, 0, 0), figures
