"""The import direction of DESIGN.md ("Layout"), held: the contracts in pyproject.toml's [tool.importlinter]
(the layers, brain only through brain.api and brain.api only for the other apps, benchmarks apart, config
imports no app but where it is the wiring, tenancy imports no app, no circles inside a package).
`lint-imports` prints the same report."""

from pathlib import Path

from importlinter import configuration
from importlinter.application.use_cases import lint_imports

REPO = Path(__file__).resolve().parent.parent


def test_the_import_contracts_are_kept(capsys):
    configuration.configure()  # what the lint-imports command does first
    kept = lint_imports(config_filename=str(REPO / "pyproject.toml"), cache_dir=None, no_logo=True)
    assert kept, capsys.readouterr().out
