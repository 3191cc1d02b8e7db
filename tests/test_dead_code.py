"""No dead code in the product: vulture at 60% confidence reports nothing in brain, intelligence, tickets or
config (outside migrations and benchmarks).

60% is vulture's confidence for an unused function, method, class, property or variable (an unused import
is 90%, unreachable code and an unused argument 100%), so it is the level that finds a dead function.

What counts as a use: any code of the four apps, their migrations, benchmarks and tests; and a name that
Django, DRF or Celery reach by name rather than by a Python reference, which vulture cannot see:
- a string literal that is an identifier or a dotted path (settings' dotted paths, `list_display`,
  `update_fields`, `handler404`, admin `actions`, a migration's `RunPython` target...);
- a name inside a template's `{{ }}` or `{% %}`;
- the frameworks' hooks and options (`has_change_permission`, `validate_<field>`, `list_display`...),
  listed below, what a decorator registers (`@admin.register`, `@register.filter`, a signal's `connect`),
  and a settings module's upper-case names (Django reads them).
A name listed below that nothing defines any more is reported too, so the list does not outlive its reason.
"""

import ast
import re
from fnmatch import fnmatch
from pathlib import Path

from vulture import Vulture

REPO = Path(__file__).resolve().parent.parent
APPS = ("brain", "intelligence", "tickets", "config")
MIN_CONFIDENCE = 60
# Names the frameworks call or read by name (a pattern where the framework's own rule is a pattern).
FRAMEWORK_NAMES = {
    # Django: apps, admin, forms, models, URLconfs, checks, the database backend.
    "*Config", "ready", "urlpatterns", "handler404", "abstract", "creation_class", "app_configs",
    "list_display", "list_filter", "list_select_related", "search_fields", "raw_id_fields", "date_hierarchy",
    "autocomplete_fields", "prepopulated_fields", "formfield_overrides", "inlines", "can_delete",
    "show_change_link", "has_add_permission", "has_change_permission", "get_fields", "get_readonly_fields",
    "save_model", "adding", "site_header", "site_title", "index_title", "enable_nav_sidebar", "clean_*",
    # A database router (DATABASE_ROUTERS, tickets/tenancy/replicas.py).
    "db_for_read", "db_for_write", "allow_relation", "allow_migrate",
    # A middleware's hook (tickets/tenancy/ui/replica_reads.py).
    "process_view",
    # Django REST framework and drf-spectacular: views, serializers, pagination, authentication, schema.
    "serializer_class", "pagination_class", "lookup_field", "lookup_value_regex", "filterset_fields",
    "read_only_fields", "retrieve", "partial_update", "destroy", "perform_create", "perform_update",
    "validate_*", "max_limit", "get_limit", "get_offset", "authenticate", "authenticate_header",
    "get_rate", "allow_request", "has_permission", "is_anonymous", "target_class", "get_security_definition",
    "auto_schema", "*Scheme", "generator", "public", "default_error_messages", "get_schema_operation_parameters",
    # django-filter: a filter's form field, the base of a backend's generated FilterSets.
    "field_class", "filterset_base",
    # SerializerMethodField(): DRF calls get_<field>.
    "get_tag", "get_role", "get_proposed_actions",
    # A dataclass field that a serializer field of the same name reads.
    "memory_status",
    # django-axes' lock-out callable receives these by keyword.
    "original_response",
    # The choices of the taxonomy: values stored in the database, read through `.choices`.
    "INSTRUCTION", "SUGGESTED", "SUGGESTION", "VERDICT", "POSITIVE", "NEGATIVE",
    # torch.nn.Module.forward (the ONNX export traces it); onnxruntime's SessionOptions; Celery's app state.
    "forward", "inter_op_num_threads", "execution_mode", "_pool", "_producer_pool", "_backend_cache",
    # Presidio's SpacyNlpEngine reads the pipelines it is handed (brain/formation/pii_model.py).
    "nlp",
}  # fmt: skip
IGNORE_DECORATORS = [
    "@admin.register",
    "@admin.action",
    "@admin.display",
    "@register.filter",
    "@register.simple_tag",
    "@register.inclusion_tag",
    "@receiver",
    "@shared_task",
    "@app.task",
    "@*.register",
    "@*.connect",
    "@action",
]

NAME_OR_PATH = re.compile(r"-?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
TEMPLATE_TAG = re.compile(r"{{(.*?)}}|{%(.*?)%}", re.S)
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _is_product(path: Path) -> bool:
    parts = path.relative_to(REPO).parts
    return parts[0] in APPS and "migrations" not in parts and "benchmarks" not in parts


def _read_by_framework(item) -> bool:
    path = Path(item.filename).resolve().relative_to(REPO)
    if path.parts[:2] == ("config", "settings") and item.name.isupper():
        return True
    return any(fnmatch(item.name, pattern) for pattern in FRAMEWORK_NAMES)


def _names_in_strings(paths: list[Path]) -> set[str]:
    names = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if NAME_OR_PATH.fullmatch(node.value.strip()):
                    names.update(IDENTIFIER.findall(node.value))
    return names


def _names_in_templates() -> set[str]:
    names = set()
    for app in (*APPS, "templates"):
        for path in (REPO / app).rglob("*.html"):
            for match in TEMPLATE_TAG.finditer(path.read_text()):
                names.update(IDENTIFIER.findall(match.group(1) or match.group(2)))
    return names


def test_vulture_reports_no_dead_code_in_the_product():
    this_list = Path(__file__).resolve()  # its strings are the names above, not uses
    sources = [path for app in (*APPS, "tests") for path in (REPO / app).rglob("*.py") if path != this_list]
    vulture = Vulture(ignore_decorators=IGNORE_DECORATORS)
    vulture.scavenge([str(REPO / app) for app in (*APPS, "tests")])
    by_name = _names_in_strings(sources) | _names_in_templates()
    unused = [
        item
        for item in vulture.get_unused_code(min_confidence=MIN_CONFIDENCE)
        if _is_product(Path(item.filename).resolve()) and item.name not in by_name
    ]
    assert sorted(item.get_report() for item in unused if not _read_by_framework(item)) == []


def test_every_framework_name_listed_is_still_defined():
    vulture = Vulture()
    vulture.scavenge([str(REPO / app) for app in APPS])
    kinds = (
        "defined_attrs",
        "defined_classes",
        "defined_funcs",
        "defined_methods",
        "defined_props",
        "defined_vars",
    )
    defined = {item.name for kind in kinds for item in getattr(vulture, kind)}
    assert (
        sorted(pattern for pattern in FRAMEWORK_NAMES if not any(fnmatch(n, pattern) for n in defined)) == []
    )
