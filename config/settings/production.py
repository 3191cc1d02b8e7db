"""Production: DEBUG off, secure cookies and HTTPS. `manage.py check --deploy` is clean with these."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403
from .env import env_bool, env_int, env_str

DEBUG = False
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
MIN_SECRET_KEY_LENGTH = 50  # what Django's own deploy check (security.W009) asks for
if not SECRET_KEY or SECRET_KEY.startswith("dev-insecure") or len(SECRET_KEY) < MIN_SECRET_KEY_LENGTH:
    raise ImproperlyConfigured(
        f"Set DJANGO_SECRET_KEY to a random value of at least {MIN_SECRET_KEY_LENGTH} characters in "
        "production (e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))')."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Invitations go out by mail (DJANGO_EMAIL_HOST and friends, config/settings/email.py); their one-time links
# are never shown on the members page.
EMAIL_BACKEND = env_str("DJANGO_EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
BRAIN_INVITATION_LINK_SHOWN = False
