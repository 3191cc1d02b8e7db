"""`manage.py brain_bench <name> [options]`: run one benchmark registered in `BRAIN_BENCHMARKS`.

A benchmark is a module with `add_arguments(parser)` and `run(options, stdout) -> dict`; it prints its
progress and tables to `stdout` and returns its figures. With `--json` the figures are printed as one
JSON object, last, so scripts can read the final line. Apps add a benchmark by adding a line to the
`BRAIN_BENCHMARKS` setting (name -> dotted module path); nothing here changes.
"""

from __future__ import annotations

import json
from importlib import import_module

from django.conf import settings
from django.core.management.base import CommandError

from tickets.tenancy.wall import CrossTenantCommand


def _benchmarks() -> dict[str, str]:
    return dict(getattr(settings, "BRAIN_BENCHMARKS", {}))


def _help_text(text: str) -> str:
    # argparse formats help with %-style expansion: a benchmark's "<= 2%" would end every --help in a traceback.
    return text.replace("%", "%%")


class Command(CrossTenantCommand):
    help = (
        "Run a Brain benchmark: brain_bench <name> [options]. Names come from the BRAIN_BENCHMARKS setting."
    )

    def add_arguments(self, parser):
        subparsers = parser.add_subparsers(dest="benchmark", metavar="name", required=True)
        self.unavailable: dict[str, str] = {}
        for name, module_path in sorted(_benchmarks().items()):
            try:
                module = import_module(module_path)
            except ImportError as exc:
                # One broken plug-in must not take the other benchmarks down; running it says why.
                self.unavailable[name] = f"{module_path} cannot be imported: {exc}"
                subparsers.add_parser(name, help=_help_text(f"unavailable ({exc})"))
                continue
            doc = (module.__doc__ or "").strip().splitlines()
            sub = subparsers.add_parser(name, help=_help_text(doc[0] if doc else name))
            sub.add_argument(
                "--json", action="store_true", help="Print the figures as one JSON object, last."
            )
            module.add_arguments(sub)

    def handle(self, *args, **options):
        name = options["benchmark"]
        benchmarks = _benchmarks()
        if name not in benchmarks:
            raise CommandError(f"Unknown benchmark {name!r}; known: {', '.join(sorted(benchmarks))}.")
        if name in getattr(self, "unavailable", {}):
            raise CommandError(self.unavailable[name])
        module = import_module(benchmarks[name])
        figures = module.run(options, self.stdout)
        if options.get("json"):
            self.stdout.write(json.dumps(figures, default=str, sort_keys=True))
