"""Street addresses, phone numbers and names of many countries: admitted through the gate, per locale.

`brain_bench pii-locales [--per-locale 5] [--split dev] [--json]`. Two generators of fake personal data, each
in its own locales' formats, in fixed sentence frames, through `gate_check` with the personal-data model in use
(as in a worker):

- Faker (the package the filter's word lists come from), every locale: the address formats that
  brain/formation/addresses.py was written from and the names of those lists, so a regression measure, not
  evidence;
- Mimesis 22.2.0 (MIT; its wheel fetched with `pip download --no-deps` into var/public-data/ and read from
  there, nothing copied into the repo), every locale: formats and name lists nothing here was written from, the
  out-of-sample figure. Its street line alone, and with its town and postcode.

Phone numbers of fewer than seven digits (Faker's short service numbers, "960") are left out. The control is
benign text: the wide benign set's `--split` (public_benign.py; Django's messages in 100 languages, ChatterBot's
in 28) refused as personal data.
"""

from __future__ import annotations

import re
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from brain.formation import pii_model
from brain.formation.gate import gate_check
from brain.formation.personal_data import find_personal_data

from . import public_benign, public_corpora
from .trust import PUBLISHED

SEED = 2612
PER_LOCALE = 5
ADDRESS_FRAMES = (
    "Please send the replacement to {} before Friday.",
    "New delivery details: {}",
    "{}",
)
PHONE_FRAMES = ("You can reach me at {} after six.", "Mobile: {}", "{} is my number, call me back.")
NAME_FRAMES = ("Hi, this is {} and my order is late.", "Thanks, {}", "The parcel was signed for by {}.")


def add_arguments(parser) -> None:
    parser.add_argument(
        "--per-locale", type=int, default=PER_LOCALE, help="Addresses, phones and names per locale."
    )
    parser.add_argument(
        "--split", default="dev", choices=public_benign.SPLITS, help="Split of the benign control."
    )


def _enough_digits(phone: str) -> bool:
    return len(re.sub(r"\D", "", phone)) >= 7


def faker_items(per_locale: int = PER_LOCALE) -> Iterator[tuple[str, str, str]]:
    """(kind, locale, value) of Faker's every locale, seeded."""
    import warnings

    from faker import Faker
    from faker.config import AVAILABLE_LOCALES

    for locale in sorted(AVAILABLE_LOCALES):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated locales say so
            fake = Faker(locale)
        fake.seed_instance(SEED)
        for _ in range(per_locale if hasattr(fake, "address") else 0):  # a few locales lack a provider
            yield "address", locale, fake.address().replace("\n", ", ")
        for _ in range(per_locale if hasattr(fake, "phone_number") else 0):
            if _enough_digits(phone := fake.phone_number()):
                yield "phone", locale, phone
        for _ in range(per_locale if hasattr(fake, "name") else 0):
            yield "name", locale, fake.name()


@cache
def _mimesis_dir() -> Path:
    """Mimesis unpacked from its pinned wheel (its data files are read from disk, not from a zip)."""
    wheel = public_corpora.wheel("mimesis")
    target = wheel.parent / wheel.name.removesuffix(".whl")
    if not (target / "mimesis" / "__init__.py").exists():
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
    return target


@contextmanager
def _mimesis():
    folder = str(_mimesis_dir())
    sys.path.insert(0, folder)
    try:
        import mimesis

        yield mimesis
    finally:
        sys.path.remove(folder)


def mimesis_items(per_locale: int = PER_LOCALE) -> Iterator[tuple[str, str, str]]:
    """(kind, locale, value) of Mimesis's every locale, seeded: "address" (the street line), "address_town"
    (with postcode and town), "phone", "name"."""
    with _mimesis() as mimesis:
        for locale in mimesis.Locale:
            address = mimesis.Address(locale=locale, seed=SEED)
            person = mimesis.Person(locale=locale, seed=SEED)
            for _ in range(per_locale):
                yield "address", locale.value, address.address()
                yield (
                    "address_town",
                    locale.value,
                    f"{address.address()}, {address.postal_code()} {address.city()}",
                )
            for _ in range(per_locale):
                if _enough_digits(phone := person.phone_number()):
                    yield "phone", locale.value, phone
            for _ in range(per_locale):
                yield "name", locale.value, person.full_name()


def _frames(kind: str) -> tuple[str, ...]:
    return {"phone": PHONE_FRAMES, "name": NAME_FRAMES}.get(kind, ADDRESS_FRAMES)


def admitted_figures(items: Iterator[tuple[str, str, str]]) -> dict[str, Any]:
    """Per kind: cases, admitted, and the locales with any admitted (admitted / cases, one example value)."""
    cases: Counter[str] = Counter()
    admitted: Counter[str] = Counter()
    by_locale: dict[str, dict[str, list]] = {}
    for kind, locale, value in items:
        frames = _frames(kind)
        text = frames[cases[kind] % len(frames)].format(value)  # each kind's frames in turn
        passed = gate_check(text=text, published_contacts=PUBLISHED).passed
        cases[kind] += 1
        admitted[kind] += passed
        entry = by_locale.setdefault(kind, {}).setdefault(locale, [0, 0, None])
        entry[0] += 1
        if passed:
            entry[1] += 1
            entry[2] = entry[2] or value
    return {
        kind: {
            "cases": cases[kind],
            "admitted": admitted[kind],
            "admitted_pct": round(100 * admitted[kind] / max(1, cases[kind]), 2),
            "locales": len(by_locale[kind]),
            "admitting_locales": {
                locale: {"admitted": a, "cases": n, "example": example}
                for locale, (n, a, example) in sorted(by_locale[kind].items())
                if a
            },
        }
        for kind in sorted(cases)
    }


def benign_refused(split: str) -> dict[str, Any]:
    texts = [case.text for case in public_benign.wide_cases_in(split)]
    refused = Counter(
        hit.kind for text in texts if (hit := find_personal_data(text, published=PUBLISHED)) is not None
    )
    return {"split": split, "texts": len(texts), "refused": sum(refused.values()), "by_kind": dict(refused)}


def run(options, stdout) -> dict:
    per_locale = options.get("per_locale") or PER_LOCALE
    started = time.perf_counter()
    with pii_model.used():
        figures = {
            "per_locale": per_locale,
            "faker": admitted_figures(faker_items(per_locale)),
            "mimesis": admitted_figures(mimesis_items(per_locale)),
            "benign": benign_refused(options.get("split") or "dev"),
        }
    figures["seconds"] = round(time.perf_counter() - started, 1)
    for source in ("faker", "mimesis"):
        for kind, f in figures[source].items():
            worst = sorted(f["admitting_locales"].items(), key=lambda item: -item[1]["admitted"])[:8]
            stdout.write(
                f"{source} {kind}: admitted {f['admitted']}/{f['cases']} ({f['admitted_pct']}%) over "
                f"{f['locales']} locales; most admitted: "
                + (", ".join(f"{loc} {v['admitted']}/{v['cases']}" for loc, v in worst) or "none")
            )
    benign = figures["benign"]
    stdout.write(
        f"benign ({benign['split']} split of the wide set): {benign['refused']}/{benign['texts']} refused as "
        f"personal data; {figures['seconds']} s"
    )
    return figures
