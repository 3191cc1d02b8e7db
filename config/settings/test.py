from .base import *  # noqa: F401,F403

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test users only
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"api_key": "100000/min"}}  # noqa: F405
# Tests embed with the fast, deterministic hashing embedder unless BRAIN_EMBEDDER is set explicitly; the
# embedder contract tests (tests/brain/test_embedders.py) always run the real MiniLM model too.
if not env_str("BRAIN_EMBEDDER"):  # noqa: F405
    BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.HashingEmbedder"}
BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK = True  # the webhook tests receive on a plain-http loopback server
