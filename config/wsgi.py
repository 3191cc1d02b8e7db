import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
application = get_wsgi_application()

# The cycle collector, tuned for a request-serving process. Everything imported so far lives as long as
# the process: frozen, no collection scans it again. A request allocates thousands of containers that
# reference counting frees; at CPython's default (a young collection every 700 net allocations) a
# runtime-context call paid about 1.6 ms of collections on average, and the occasional full collection
# over the per-process caches stalled a request for 90 ms. Young collections every 50,000 net
# allocations and rarer older ones keep the same collector (cycles are still found) at a fraction of it.
gc.freeze()
gc.set_threshold(50_000, 20, 100)
