"""PostgreSQL backend that starts the embedded server on first connection.

Used only when DATABASE_URL is unset. Starting lazily (rather than at settings import) keeps commands
that never touch the database, like `manage.py help` or `check --deploy`, free of a server start.
"""

from django.db.backends.postgresql import base

from config import embedded_db


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        # EMBEDDED_DATABASE names the product's database, created on first use; the test run's
        # database is created by Django's test runner as usual.
        embedded_db.ensure_running(
            self.settings_dict["EMBEDDED_DATA_DIR"], database=self.settings_dict["EMBEDDED_DATABASE"]
        )
        return super().get_new_connection(conn_params)
