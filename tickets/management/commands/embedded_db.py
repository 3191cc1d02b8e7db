"""Start, stop or show the embedded PostgreSQL (used when DATABASE_URL is unset), and its hot standby."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config import embedded_db, embedded_replica


class Command(BaseCommand):
    help = (
        "Manage the embedded PostgreSQL: start, stop or status; `replica start|stop|status` for its hot standby"
        " (streaming replication; the application reads from it with DATABASE_REPLICA_URLS=embedded)."
    )

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["start", "stop", "status", "replica"])
        parser.add_argument("replica_action", nargs="?", choices=["start", "stop", "status"])

    def handle(self, *args, action, replica_action=None, **options):
        db = settings.DATABASES["default"]
        data_dir = db.get("EMBEDDED_DATA_DIR")
        if not data_dir:
            raise CommandError("DATABASE_URL is set: the embedded PostgreSQL is not in use.")
        if action == "replica":
            if replica_action is None:
                raise CommandError("Say what to do with the replica: embedded_db replica start|stop|status.")
            return self._replica(data_dir, replica_action)
        if replica_action is not None:
            raise CommandError(f"Unexpected argument {replica_action!r} after {action!r}.")
        if action == "start":
            server = embedded_db.prepare(data_dir, db["EMBEDDED_DATABASE"])
            self.stdout.write(
                self.style.SUCCESS(f"Running: data {server.data_dir}, socket {server.socket_dir}")
            )
        elif action == "stop":
            if embedded_replica.stop(data_dir):  # its standby first: it would only wait for the primary
                self.stdout.write("Replica stopped.")
            stopped = embedded_db.stop(data_dir)
            self.stdout.write("Stopped." if stopped else "It was not running.")
        else:
            server = embedded_db.server_for(data_dir)
            state = "running" if embedded_db.is_running(server) else "stopped"
            self.stdout.write(f"{state}: data {server.data_dir}, socket {server.socket_dir}")

    def _replica(self, data_dir: str, action: str) -> None:
        if action == "start":
            server = embedded_replica.start(data_dir)
            self.stdout.write(
                self.style.SUCCESS(
                    f"Replica streaming: data {server.data_dir}, socket {server.socket_dir}."
                    " Reads go to it with DATABASE_REPLICA_URLS=embedded."
                )
            )
        elif action == "stop":
            stopped = embedded_replica.stop(data_dir)
            self.stdout.write("Replica stopped." if stopped else "The replica was not running.")
        else:
            server = embedded_replica.replica_server(data_dir)
            state = "running" if embedded_replica.is_running(server) else "stopped"
            self.stdout.write(f"replica {state}: data {server.data_dir}, socket {server.socket_dir}")
