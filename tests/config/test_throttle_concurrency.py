"""The per-key throttle counts atomically (issue 15, finding 7): 16 clients at once on one key get no more
than the configured rate through, on a live server, with the local-memory cache and with Redis."""

import os
import threading

import httpx
import pytest
from django.core.cache import cache

from tests.conftest import broker_or_skip
from tickets.tenancy import services

RATE = 40
CLIENTS = 16
REQUESTS_PER_CLIENT = 6  # 96 requests in all, well past the rate
REDIS_CACHE_URL = os.environ.get("BRAIN_TEST_CACHE_URL", "redis://127.0.0.1:6379/7")


@pytest.fixture
def throttled(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api_key": f"{RATE}/min"},
    }
    return settings


def _hammer(base_url: str, full_key: str) -> list[int]:
    """CLIENTS threads, released together, each sending REQUESTS_PER_CLIENT requests with the same key."""
    statuses: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client():
        with httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {full_key}"}, timeout=30
        ) as http:
            start.wait()
            for _ in range(REQUESTS_PER_CLIENT):
                code = http.get("/api/v1/tenant").status_code
                with lock:
                    statuses.append(code)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def _assert_the_rate_holds(live_server, tenant):
    cache.clear()
    _, full_key = services.api_key_create(tenant=tenant, name="shared by many clients")
    statuses = _hammer(live_server.url, full_key)
    assert len(statuses) == CLIENTS * REQUESTS_PER_CLIENT
    assert set(statuses) <= {200, 429}, statuses
    assert statuses.count(200) == RATE


def test_sixteen_concurrent_clients_get_no_more_than_the_rate_with_the_local_memory_cache(
    transactional_db, live_server, tenant, throttled
):
    throttled.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    _assert_the_rate_holds(live_server, tenant)


def test_sixteen_concurrent_clients_get_no_more_than_the_rate_with_redis(
    transactional_db, live_server, tenant, throttled
):
    broker_or_skip(REDIS_CACHE_URL)
    throttled.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_CACHE_URL}
    }
    try:
        _assert_the_rate_holds(live_server, tenant)
    finally:
        cache.clear()


def test_a_throttled_answer_says_when_to_retry(transactional_db, live_server, tenant, throttled):
    cache.clear()
    _, full_key = services.api_key_create(tenant=tenant, name="one client")
    with httpx.Client(base_url=live_server.url, headers={"Authorization": f"Bearer {full_key}"}) as http:
        answers = [http.get("/api/v1/tenant") for _ in range(RATE + 1)]
    assert [a.status_code for a in answers].count(200) == RATE
    refused = answers[-1]
    assert refused.status_code == 429
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert "throttled" in refused.json()["error"]["code"]
