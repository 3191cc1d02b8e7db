"""Sign-in limits (django-axes): failures counted per username and per address, a lock-out that ends.

After BRAIN_SIGNIN_FAILURE_LIMIT failed sign-ins for one username, or from one address, that username (or
address) is locked out for BRAIN_SIGNIN_LOCKOUT_MINUTES; the login page says so and until when. Both the
operator UI's login and the Django admin's go through it. Behind a reverse proxy every request has the
proxy's address: list the proxies in DJANGO_TRUSTED_PROXIES so the per-address count reads the client's from
X-Forwarded-For (tickets/tenancy/signin.client_address); a forwarded header from any other peer is ignored.
"""

from datetime import timedelta

from .env import env_int, env_list

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out sign-in before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("BRAIN_SIGNIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("BRAIN_SIGNIN_LOCKOUT_MINUTES", 15))
# Either parameter locks: one username from many addresses, or many usernames from one address.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_LOCKOUT_CALLABLE = "tickets.tenancy.signin.signin_locked_out"
AXES_RESET_ON_SUCCESS = False  # a success does not wipe the count, or one known password would reset it
AXES_VERBOSE = False
AXES_CLIENT_IP_CALLABLE = "tickets.tenancy.signin.client_address"
TRUSTED_PROXIES = env_list("DJANGO_TRUSTED_PROXIES")
