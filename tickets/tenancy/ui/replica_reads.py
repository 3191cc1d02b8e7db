"""The operator pages' reads on a read replica (issue 30), when replicas are configured.

A GET (or HEAD) of a signed-in operator acting in a tenant runs its view on a replica (tickets/tenancy/
replicas.py: the same role, tenant and row-level security) when the replica has replayed the operator's own
last write: after every other request of the session that reached the primary's WAL further (a form's POST,
a status change), the primary's WAL position is kept in the session, and a replica that has not replayed up
to it is passed over for the primary (`primary_stale`): the page after a form shows what the form wrote. A
replica lagging past BRAIN_REPLICA_MAX_LAG_MS is skipped (others' writes are seen within that lag); one that
is down is skipped and logged. A view that writes on a GET is refused on the replica and run again on the
primary (its reads are all it did there). The answer says where its reads went (`X-Brain-Reads`).

With no replica configured the middleware passes every request through untouched (no query).
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections

from .. import replicas

WAL_KEY = "brain_wal_lsn"
SAFE_METHODS = ("GET", "HEAD")


class ReplicaReadsMiddleware:
    """After TenantMiddleware: `request.tenant` is known and the primary's session is held to it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not replicas.configured() or getattr(request, "tenant", None) is None:
            return response
        if request.method not in SAFE_METHODS:
            _remember_write(request)
        elif getattr(request, "brain_reads", None):
            response["X-Brain-Reads"] = request.brain_reads
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        tenant = getattr(request, "tenant", None)
        if not replicas.configured() or request.method not in SAFE_METHODS or tenant is None:
            return None
        if not replicas.primary_may_be_left(tenant.pk):
            replicas.record("primary_wall")
            request.brain_reads = "primary_wall"
            return None
        response = _on_replica(request, tenant.pk, view_func, view_args, view_kwargs)
        request.brain_reads = replicas.last_source.get()
        return response  # None: Django runs the view on the primary


def _on_replica(request, tenant_id: int, view_func, view_args, view_kwargs):
    """The view's response rendered on a replica, or None (recorded why) for the primary."""
    wanted = replicas.lsn_value(request.session.get(WAL_KEY))

    def judge(replay_lsn: str, _rows: list) -> str:
        return "primary_stale" if replicas.lsn_value(replay_lsn) < wanted else "replica"

    def render():
        response = view_func(request, *view_args, **view_kwargs)
        if callable(getattr(response, "render", None)):
            response = response.render()  # a template response reads while it renders
        return response

    probe = f"SELECT {replicas.REPLICA_PROBE}"
    return replicas.read_on_a_replica(tenant_id, probe, [], judge, render)[1]


def _remember_write(request) -> None:
    """The primary's WAL position after a request that may have written, kept in the session (when it moved)."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        position = cursor.fetchone()[0]
    if replicas.lsn_value(position) > replicas.lsn_value(request.session.get(WAL_KEY)):
        request.session[WAL_KEY] = position
