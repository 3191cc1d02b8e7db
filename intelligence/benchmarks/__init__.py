"""Benchmarks of the agents side, run by `manage.py brain_bench <name>` (registered in `BRAIN_BENCHMARKS`).

Harnesses only: no product module imports this package (tests/test_import_contracts.py holds that).
"""
