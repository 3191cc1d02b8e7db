"""Migration 0006 sets pg_trgm's operator costs, and does not fail where the role may not alter them."""

import importlib

from django.db import connection

migration = importlib.import_module("brain.migrations.0006_trigram_operator_cost")


def test_the_trigram_operators_cost_100_after_migrating(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT procost FROM pg_proc WHERE proname = 'word_similarity_op'")
        assert cursor.fetchone()[0] == 100


def test_a_role_without_rights_gets_a_note_not_a_failure(db, capsys):
    """Run the migration's function as a role that does not own pg_trgm (as on managed services): the
    application's runtime role is such a role (it owns nothing)."""

    class Editor:
        pass

    editor = Editor()
    editor.connection = connection
    migration.set_cost(100)(None, editor)
    assert "could not set pg_trgm operator costs" in capsys.readouterr().err
    with connection.cursor() as cursor:
        cursor.execute("SELECT procost FROM pg_proc WHERE proname = 'word_similarity_op'")
        assert cursor.fetchone()[0] == 100
