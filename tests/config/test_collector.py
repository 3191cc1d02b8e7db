"""The serving process's cycle collector (config/collector.py): a request's garbage cycles are collected
once its response is closed, and the older generations take their turns."""

import gc
import weakref

import pytest
from django.core.signals import request_finished

from config import collector


class _Node:
    pass


def _garbage_cycle() -> weakref.ref:
    """A reference cycle nothing else holds (only the cycle collector can free it), and a way to see it go."""
    node = _Node()
    node.me = node
    return weakref.ref(node)


@pytest.fixture
def installed():
    thresholds = gc.get_threshold()
    collector.install()
    try:
        yield
    finally:
        request_finished.disconnect(dispatch_uid="config.collector")
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_a_requests_garbage_is_collected_when_its_response_closes(client, db, installed):
    cycle = _garbage_cycle()
    assert cycle() is not None  # the allocation threshold (50,000) is far off: nothing collected it yet
    response = client.get("/healthz")
    assert response.status_code == 200
    assert cycle() is None


def test_the_older_generations_take_their_turns(installed):
    gc.collect()
    for _ in range(collector.MIDDLE_EVERY):
        collector.collect_after_response()
    assert gc.get_count()[1] == collector.MIDDLE_EVERY  # young collections only so far
    survivor = _garbage_cycle()
    gc.collect(0)  # the cycle is now in the middle generation, where a young collection never looks
    collector.collect_after_response()
    assert gc.get_count()[1] == 0  # the middle generation's turn
    assert survivor() is None


def test_serving_freezes_what_is_loaded_and_restores_the_collector():
    thresholds = gc.get_threshold()
    with collector.serving():
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (collector.YOUNG_THRESHOLD, collector.MIDDLE_EVERY, collector.FULL_EVERY)
        cycle = _garbage_cycle()
        collector.collect_after_response()
        assert cycle() is None
    assert gc.get_threshold() == thresholds and gc.get_freeze_count() == 0
