"""The operator UI's sections: each app registers its part of the UI from its AppConfig.ready().

A section is a module with `nav_item(request)` (its main-navigation entry, or None) and `home_cards(tenant)`
(the overview page's cards), and optionally `setup_steps(tenant)`, `week_changes(tenant, since)`,
`client_brain_charts(tenant)` and `first_agent(tenant)`. The tenancy layer asks them by name, so it imports
no app above it. Sections come in the order of their `position` (the navigation's order), not in the order
the apps load: today 10 the agents (intelligence), 20 the Client Brain (brain), 30 the helpdesk (tickets).
"""

from types import ModuleType

_SECTIONS: dict[str, tuple[int, ModuleType]] = {}


def register_section(module: ModuleType, *, position: int) -> None:
    """Add `module` to the operator UI at `position` (lower first). Idempotent: ready() may run again."""
    _SECTIONS[module.__name__] = (position, module)


def operator_ui_sections() -> list[ModuleType]:
    """The registered sections in navigation order."""
    return [module for _, module in sorted(_SECTIONS.values(), key=lambda entry: entry[0])]
