"""The cycle collector of a request-serving process, tuned for it (config/wsgi.py installs this).

Everything imported before the first request lives as long as the process: it is frozen, and no
collection scans it again. A request's own objects are freed by reference counting, except the reference
cycles Django and DRF build around each request (the request, the view, the serializer's fields and
validators: a few hundred containers a call). At CPython's default (a young collection every 700 net
allocations) a runtime-context call paid for several collections; with a high threshold alone the garbage
piles up and the rare young collection that comes stalls the request it lands in.

So the collections run after each response instead, when its bytes have been sent (Django's
`request_finished` fires when the WSGI server closes the response): a young collection of one request's
garbage (cheap), the middle generation every `MIDDLE_EVERY` responses, and a full collection every
`FULL_EVERY` middle ones: it walks the per-process caches, so it comes rarely. The allocation thresholds
stay as a backstop for a request that allocates a great deal.

What start-up loads is frozen, so the WSGI entry point loads the query embedder first
(`brain.api.query_embedder_warm_up`): a model loaded lazily by the first request (torch's MiniLM with
transformers: hundreds of thousands of containers) would otherwise sit in the oldest generation, and every
full collection walked it. `serving()` gives a benchmark the same regime in its own process. This module
imports no app: it is the process's, not the product's.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.signals import request_finished

YOUNG_THRESHOLD = 50_000  # net container allocations within one request before a collection mid-request
MIDDLE_EVERY = 20  # young collections per middle-generation collection
FULL_EVERY = 1000  # middle-generation collections per full collection (one per 20,000 responses)


def collect_after_response(**_kwargs) -> None:
    """The collection one finished request owes: young, or middle / full when their turn has come."""
    _, young_collections, middle_collections = gc.get_count()
    if middle_collections >= FULL_EVERY:
        gc.collect(2)
    elif young_collections >= MIDDLE_EVERY:
        gc.collect(1)
    else:
        gc.collect(0)


def install() -> None:
    """For a serving process, once its application is loaded."""
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_EVERY, FULL_EVERY)
    request_finished.connect(collect_after_response, dispatch_uid="config.collector")


@contextmanager
def serving() -> Iterator[None]:
    """The collector of a serving process, for a benchmark timing calls in its own process: what is
    loaded so far frozen, the same thresholds; call `collect_after_response()` after each timed call,
    outside its timing, as the server does once a response is sent. Restores the process's collector."""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_EVERY, FULL_EVERY)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
