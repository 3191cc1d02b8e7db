"""The tenant wall behind PgBouncer in transaction mode (`BRAIN_DB_POOLER=transaction`; README, "Scale-out").

A transaction pooler hands the server connection to another client after every transaction, so a setting made
for the session would reach another client's transaction: one tenant's requests could see another's rows, or
the wall's pass. So behind one, nothing is set for the session. A connection wrapper still remembers its tenant
and bypass (`wall.tenant_set`, `wall.tenant_bypass`), and this execute wrapper, which the database backend
installs on every pooled connection, gives them to each transaction as it starts, transaction-local:
`set_config('brain.tenant_id', ..., true)` and a pass for this transaction alone (`brain_wall_lower(key, reason,
true)`: it opens nothing once the transaction ends, even on the same server connection).

No extra round trip: the setting travels in front of the transaction's first statement, in the same query
string (`SELECT set_config(...); <statement>`; Django's psycopg cursors bind parameters client-side and send it
with the simple query protocol, where the statements of one string are one transaction), and the statement's
result is the one the caller reads. A statement outside a transaction (autocommit) is its own transaction, so
each gets it; inside `atomic()` the first statement does (and the first after a rollback to a savepoint).
Schema statements (migrate, flush) are left as they are: run `migrate` on a direct connection.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.db import transaction

from . import wall

# Statements a transaction's settings matter for (and that may share a query string with another).
_PREFIXED = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|WITH|SAVEPOINT|VALUES|TABLE)\b", re.I)


def transaction_prefix(connection) -> tuple[str, list] | None:
    """The statement that gives a transaction the wrapper's tenant and bypass, or None when it has neither."""
    tenant_id = getattr(connection, "brain_tenant_id", None)
    parts, params = [], []
    if tenant_id is not None:
        parts.append(f"set_config('{wall.TENANT_SETTING}', %s, true)")
        params.append(str(int(tenant_id)))
    if getattr(connection, "brain_bypass", False):
        parts.append("brain_wall_lower(%s, %s, true)")
        reason = getattr(connection, "brain_bypass_reason", "") or "a block with the wall lowered"
        params += [connection.wall_key(), reason]
    return ("SELECT " + ", ".join(parts), params) if parts else None


def state_of(connection) -> tuple:
    return (getattr(connection, "brain_tenant_id", None), getattr(connection, "brain_bypass", False))


class TransactionLocalWall:
    """Execute wrapper: the connection wrapper's tenant and bypass, for each transaction that runs a statement."""

    def __call__(self, execute, sql, params, many, context):
        connection = context["connection"]
        autocommit = connection.get_autocommit()
        state = state_of(connection)
        if (not autocommit and connection.brain_applied == state) or not _PREFIXED.match(sql):
            return execute(sql, params, many, context)
        prefix = transaction_prefix(connection)
        if prefix is None:
            connection.brain_applied = None if autocommit else state
            return execute(sql, params, many, context)
        prefix_sql, prefix_params = prefix
        if many:  # a batch: one transaction for the setting and every row
            with transaction.atomic(using=connection.alias):
                context["cursor"].execute(prefix_sql, prefix_params)
                connection.brain_applied = state
                return execute(sql, params, many, context)
        if params is None:  # the statement was not to be interpolated: its % signs are literal
            sql, params = sql.replace("%", "%%"), ()
        if isinstance(params, Mapping):
            names = [f"brain_wall_{index}" for index in range(len(prefix_params))]
            prefix_sql = prefix_sql.replace("%s", "{}").format(*(f"%({name})s" for name in names))
            params = {**params, **dict(zip(names, prefix_params, strict=True))}
        else:
            params = [*prefix_params, *params]
        result = execute(f"{prefix_sql}; {sql}", params, many, context)
        context["cursor"].nextset()  # the caller reads its statement's result
        if not autocommit:
            connection.brain_applied = state
        return result
