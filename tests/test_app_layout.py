"""Every app has the same rooms, so a newcomer finds a feature's file by its kind (CONVENTIONS.md, "Where code
lives"): rest/ (views, serializers, urls), ui/ (views, urls, and forms where the app has forms), services,
selectors, models, tasks, admin, and tests/<app>/factories.py. A room may be a module or a package that
re-exports its parts. Only brain's facade is called api.py."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
APPS = ("brain", "intelligence", "tickets")
ROOMS = (
    "rest/views",
    "rest/serializers",
    "rest/urls",
    "ui/views",
    "ui/urls",
    "services",
    "selectors",
    "models",
    "tasks",
    "admin",
)
APPS_WITH_FORMS = ("intelligence",)
SKIPPED = {".venv", "var", "node_modules", ".git", "migrations"}
# Apps inside tickets/ (their own labels): the same rooms where they have that kind of code.
SUB_APPS = ("tickets/tenancy", "tickets/webhooks")


def has_room(app: str, room: str) -> bool:
    path = REPO / app / room
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


@pytest.mark.parametrize("app", APPS)
def test_every_app_has_the_same_rooms(app):
    missing = [room for room in ROOMS if not has_room(app, room)]
    assert not missing, f"{app}/ lacks {', '.join(missing)}"
    assert (REPO / "tests" / app / "factories.py").is_file(), f"tests/{app}/factories.py is missing"


@pytest.mark.parametrize("app", APPS_WITH_FORMS)
def test_an_app_with_forms_keeps_them_in_its_ui(app):
    assert has_room(app, "ui/forms")
    assert not (REPO / app / "forms.py").exists()


@pytest.mark.parametrize("app", APPS + SUB_APPS)
def test_rest_and_ui_code_lives_in_its_rooms(app):
    """No REST or UI module beside the rooms: the old layouts (views.py, urls_api.py, *_api.py, ...) are gone."""
    strays = sorted(
        path.name
        for path in (REPO / app).glob("*.py")
        if path.name in ("views.py", "urls.py", "urls_api.py", "serializers.py", "forms.py")
        or path.stem.endswith(("_api", "_views", "_serializers", "_selectors"))
    )
    assert not strays, f"{app}/ still has {', '.join(strays)} beside rest/ and ui/"


def test_only_the_brain_facade_is_called_api_py():
    found = sorted(
        str(path.relative_to(REPO))
        for top in ("brain", "intelligence", "tickets", "config", "clients", "scripts")
        if (REPO / top).is_dir()
        for path in (REPO / top).rglob("api.py")
        if not SKIPPED & set(path.relative_to(REPO).parts)
    )
    assert found == ["brain/api.py"], f"modules called api.py besides brain's facade: {found}"
