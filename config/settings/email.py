"""E-mail (invitations): Django's e-mail backend, configured from the environment.

With `DJANGO_EMAIL_HOST` set, mail goes out over SMTP. Without it (development) mail is printed to the
console and the members page shows the admin each invitation's one-time link to pass on themselves
(`BRAIN_INVITATION_LINK_SHOWN`); production never shows it (config/settings/production.py).
"""

from .env import env_bool, env_int, env_str

EMAIL_HOST = env_str("DJANGO_EMAIL_HOST", "")
EMAIL_PORT = env_int("DJANGO_EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env_bool("DJANGO_EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_int("DJANGO_EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "The Brain <brain@localhost>")
EMAIL_BACKEND = env_str(
    "DJANGO_EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)

BRAIN_INVITATION_LINK_SHOWN = env_bool("BRAIN_INVITATION_LINK_SHOWN", not EMAIL_HOST)
BRAIN_INVITATION_DAYS = env_int("BRAIN_INVITATION_DAYS", 7)
