"""Settings shared by every environment. Environment-specific modules import * from here."""

from .brain import *  # noqa: F401,F403,E402
from .celery import *  # noqa: F401,F403,E402
from .database import (  # noqa: F401,E402
    BRAIN_REPLICA_ALIASES,
    BRAIN_REPLICA_MAX_LAG_MS,
    DATABASE_ROUTERS,
    DATABASES,
)
from .email import *  # noqa: F401,F403,E402
from .env import BASE_DIR, env_bool, env_int, env_list, env_str
from .rest import *  # noqa: F401,F403,E402
from .signin import *  # noqa: F401,F403,E402

SECRET_KEY = env_str("DJANGO_SECRET_KEY", "dev-insecure-secret-key-change-me-in-production-0123456789")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "tickets.tenancy",
    "tickets",
    "tickets.webhooks",
    "brain",
    "intelligence",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.rest.MalformedRequestMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "tickets.tenancy.ui.middleware.TenantMiddleware",
    # With read replicas (DATABASE_REPLICA_URLS), an operator page's reads on one; without, it does nothing.
    "tickets.tenancy.ui.replica_reads.ReplicaReadsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: turns a locked-out sign-in into its page
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tickets.tenancy.ui.context_processors.tenant_context",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").exists() else []
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Request bodies: anything larger answers 413 with a message (see config.rest.exception_handler).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("BRAIN_MAX_REQUEST_BYTES", 1_048_576)

_REDIS_CACHE_URL = env_str("CACHE_URL")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _REDIS_CACHE_URL}
        if _REDIS_CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "brain"}
    )
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # Django's default config gives the `django` logger a console handler of its own (with DEBUG on) and
        # lets it propagate to the root's: each 4xx ("Not Found: /x") was printed twice. The root prints it.
        "django": {"level": "INFO", "handlers": [], "propagate": True},
    },
}
