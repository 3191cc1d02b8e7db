"""Benchmarks run by `manage.py brain_bench <name>`.

Each benchmark is a module with `add_arguments(parser)` and `run(options, stdout) -> dict`; the
`BRAIN_BENCHMARKS` setting maps a name to its module so any app can plug one in.
"""
