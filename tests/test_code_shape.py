"""The house rules that keep the code readable (CONVENTIONS.md, "Style"): no module over 500 lines and
no function over 80 lines, outside migrations and benchmarks."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
APPS = ("brain", "intelligence", "tickets", "config")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def _sources():
    for app in APPS:
        for path in sorted((REPO / app).rglob("*.py")):
            parts = path.relative_to(REPO).parts
            if "migrations" in parts or "benchmarks" in parts:  # a benchmarks package: harnesses, not product
                continue
            yield path


def test_no_module_is_over_500_lines():
    long = {
        str(path.relative_to(REPO)): n
        for path in _sources()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_80_lines():
    long = {}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if node.end_lineno - start + 1 > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(REPO)}:{node.name}"] = node.end_lineno - start + 1
    assert long == {}
