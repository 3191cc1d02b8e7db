"""Start, stop or show the embedded PostgreSQL (used when DATABASE_URL is unset)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config import embedded_db


class Command(BaseCommand):
    help = "Manage the embedded PostgreSQL: start, stop or status."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["start", "stop", "status"])

    def handle(self, *args, action, **options):
        db = settings.DATABASES["default"]
        data_dir = db.get("EMBEDDED_DATA_DIR")
        if not data_dir:
            raise CommandError("DATABASE_URL is set: the embedded PostgreSQL is not in use.")
        if action == "start":
            server = embedded_db.prepare(data_dir, db["EMBEDDED_DATABASE"])
            self.stdout.write(
                self.style.SUCCESS(f"Running: data {server.data_dir}, socket {server.socket_dir}")
            )
        elif action == "stop":
            stopped = embedded_db.stop(data_dir)
            self.stdout.write("Stopped." if stopped else "It was not running.")
        else:
            server = embedded_db.server_for(data_dir)
            state = "running" if embedded_db.is_running(server) else "stopped"
            self.stdout.write(f"{state}: data {server.data_dir}, socket {server.socket_dir}")
