"""Migration 0006 sets pg_trgm's operator costs: silent when they are already right (the embedded server sets
them in template1), and, for a role that may not alter them, a note that says what to run, as whom, not a
failure (issue 28, item 7)."""

import importlib

from django.db import connection

migration = importlib.import_module("brain.migrations.0006_trigram_operator_cost")


class Editor:
    """What RunPython hands the function: only `connection` is read."""

    def __init__(self, connection):
        self.connection = connection


def word_similarity_cost() -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT procost FROM pg_proc WHERE proname = 'word_similarity_op'")
        return cursor.fetchone()[0]


def test_the_trigram_operators_cost_100_after_migrating(db):
    assert word_similarity_cost() == 100


def test_costs_already_right_say_nothing(db, capsys):
    """The application's runtime role owns nothing, yet with the costs already 100 there is nothing to do."""
    migration.set_cost(100)(None, Editor(connection))
    assert capsys.readouterr().err == ""


def test_a_role_without_rights_is_told_what_to_run_and_as_whom(db, capsys):
    """Undoing the migration (cost 1) as the runtime role, which does not own pg_trgm (as on managed services)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, current_database()")
        role, database = cursor.fetchone()
    migration.set_cost(1)(None, Editor(connection))
    note = capsys.readouterr().err
    assert f"this role ({role}) may not change them" in note
    assert f"in database {database}, run: ALTER FUNCTION word_similarity_op(text, text) COST 1;" in note
    assert "As postgres," in note  # the embedded server's superuser owns the extension
    assert word_similarity_cost() == 100
