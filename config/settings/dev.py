from .base import *  # noqa: F401,F403
from .env import env_bool

DEBUG = env_bool("DJANGO_DEBUG", True)
