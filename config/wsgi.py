import os

from django.core.wsgi import get_wsgi_application

from config import collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
application = get_wsgi_application()

from brain.api import query_embedder_warm_up  # noqa: E402  (needs the apps loaded)

query_embedder_warm_up()  # before the freeze: the model then lives outside every collection
collector.install()
