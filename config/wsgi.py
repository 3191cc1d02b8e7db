import os

from django.core.wsgi import get_wsgi_application

from config import collector
from config.parsers import chunked_bodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
application = chunked_bodies(get_wsgi_application())

from brain.api import query_embedder_warm_up  # noqa: E402  (needs the apps loaded)

query_embedder_warm_up()  # before the freeze: the model then lives outside every collection
collector.install()
