"""`brain_bench pii-locales`: addresses and phones of Faker's and Mimesis's locales through the gate."""

import json
from io import StringIO

from django.core.management import call_command

from brain.benchmarks import public_pii_locales


def test_an_admitted_case_is_counted_under_its_locale_and_a_refused_one_is_not():
    figures = public_pii_locales.admitted_figures(
        iter(
            [
                ("address", "ja_JP", "徳島県横浜市戸塚区入谷29丁目17番19号"),
                ("address", "xx", "the back of the shop"),  # no address: admitted
                ("phone", "zh_CN", "15526018159"),
            ]
        )
    )
    assert figures["address"]["cases"] == 2 and figures["address"]["admitted"] == 1
    assert list(figures["address"]["admitting_locales"]) == ["xx"]
    assert figures["phone"] == {
        "cases": 1,
        "admitted": 0,
        "admitted_pct": 0.0,
        "locales": 1,
        "admitting_locales": {},
    }


def test_faker_gives_addresses_of_a_hundred_locales_and_drops_short_service_numbers():
    items = list(public_pii_locales.faker_items(1))
    assert len({locale for kind, locale, _ in items if kind == "address"}) > 100
    assert all(public_pii_locales._enough_digits(value) for kind, _, value in items if kind == "phone")


def test_the_command_reports_both_generators_and_the_benign_control(wheels):
    out = StringIO()
    call_command("brain_bench", "pii-locales", "--per-locale", "1", "--json", stdout=out)
    lines = out.getvalue().strip().splitlines()
    figures = json.loads(lines[-1])
    assert figures["mimesis"]["address"]["locales"] >= 40  # read from its wheel, every locale
    assert {"address", "address_town", "phone"} <= set(figures["mimesis"])
    assert figures["faker"]["address"]["cases"] > 100
    assert figures["benign"]["split"] == "dev" and figures["benign"]["texts"] > 10_000
    assert any(line.startswith("mimesis address:") for line in lines)
