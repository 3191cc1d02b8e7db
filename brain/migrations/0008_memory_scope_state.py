"""Stamp every change to brain_memory per scope, so readers can cache what they derive from memories.

A statement-level trigger (with transition tables: one stamp per statement, not per row) gives every
(tenant, scope_kind, scope_id) that an INSERT, UPDATE or DELETE touched a fresh value of a sequence in
`brain_memory_scope_state`; a TRUNCATE re-stamps every scope. Sequence values are never handed out twice,
not even by a transaction that rolls back, so a scope's stamps identify one state of its memories:
`brain.versions.memory_state()` reads them, and a cache keyed by that state can never serve data of
another state. The trigger sees every write path: the ORM, raw SQL, bulk loads and admin edits.

The table has no foreign key to the tenant: Django's test flush truncates the tenant table without
CASCADE. Rows of a deleted tenant are a few bytes each and harmless.
"""

from django.db import migrations

CREATE = """
CREATE SEQUENCE brain_memory_state_seq;
CREATE TABLE brain_memory_scope_state (
    tenant_id bigint NOT NULL,
    scope_kind text NOT NULL,
    scope_id text NOT NULL,
    stamp bigint NOT NULL,
    PRIMARY KEY (tenant_id, scope_kind, scope_id)
);
CREATE FUNCTION brain_memory_stamp_scopes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    fresh bigint := nextval('brain_memory_state_seq');
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE brain_memory_scope_state SET stamp = fresh;
        RETURN NULL;
    END IF;
    -- Sorted, so two statements stamping the same scopes lock their rows in the same order.
    IF TG_OP = 'INSERT' THEN
        INSERT INTO brain_memory_scope_state AS s (tenant_id, scope_kind, scope_id, stamp)
        SELECT DISTINCT tenant_id, scope_kind, scope_id, fresh FROM new_rows ORDER BY 1, 2, 3
        ON CONFLICT (tenant_id, scope_kind, scope_id) DO UPDATE SET stamp = EXCLUDED.stamp;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO brain_memory_scope_state AS s (tenant_id, scope_kind, scope_id, stamp)
        SELECT DISTINCT tenant_id, scope_kind, scope_id, fresh FROM old_rows ORDER BY 1, 2, 3
        ON CONFLICT (tenant_id, scope_kind, scope_id) DO UPDATE SET stamp = EXCLUDED.stamp;
    ELSE
        -- An update may move a row between scopes: both the old and the new scope changed.
        INSERT INTO brain_memory_scope_state AS s (tenant_id, scope_kind, scope_id, stamp)
        SELECT DISTINCT tenant_id, scope_kind, scope_id, fresh FROM (
            SELECT tenant_id, scope_kind, scope_id FROM new_rows
            UNION SELECT tenant_id, scope_kind, scope_id FROM old_rows) touched
        ORDER BY 1, 2, 3
        ON CONFLICT (tenant_id, scope_kind, scope_id) DO UPDATE SET stamp = EXCLUDED.stamp;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER brain_memory_stamp_insert AFTER INSERT ON brain_memory
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION brain_memory_stamp_scopes();
CREATE TRIGGER brain_memory_stamp_update AFTER UPDATE ON brain_memory
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION brain_memory_stamp_scopes();
CREATE TRIGGER brain_memory_stamp_delete AFTER DELETE ON brain_memory
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION brain_memory_stamp_scopes();
CREATE TRIGGER brain_memory_stamp_truncate AFTER TRUNCATE ON brain_memory
    FOR EACH STATEMENT EXECUTE FUNCTION brain_memory_stamp_scopes();
"""

DROP = """
DROP TRIGGER IF EXISTS brain_memory_stamp_insert ON brain_memory;
DROP TRIGGER IF EXISTS brain_memory_stamp_update ON brain_memory;
DROP TRIGGER IF EXISTS brain_memory_stamp_delete ON brain_memory;
DROP TRIGGER IF EXISTS brain_memory_stamp_truncate ON brain_memory;
DROP FUNCTION IF EXISTS brain_memory_stamp_scopes();
DROP TABLE IF EXISTS brain_memory_scope_state;
DROP SEQUENCE IF EXISTS brain_memory_state_seq;
"""


class Migration(migrations.Migration):
    dependencies = [("brain", "0007_memory_activity")]

    operations = [migrations.RunSQL(CREATE, DROP)]
