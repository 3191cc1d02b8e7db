"""Personal data on public data: presidio-evaluator's templates and fake identities, and Bitext's replies.

Read at benchmark time, never copied into the repository: the `presidio-evaluator` 0.3.2 wheel is fetched
with `pip download --no-deps` into var/public-data/ and its templates (data_generator/raw_data/templates.txt,
MIT) and Fake Name Generator identities (FakeNameGenerator.com_3000.csv, CC BY-SA 3.0 US) are read from the
zip. The sentences are generated here with a fixed seed, without the package's own generator (pandas,
Faker, spaCy): each template is filled `SAMPLES` times from one identity per sentence, the first use of a
field from the identity, a repeated field from another identity, as the package's RecordGenerator does.

The templates are split once by id into train / dev / test (data/public_splits/pii.json, committed); the
Bitext replies likewise by row. Nothing is tuned on test; every reported figure is the test split's.

A sentence is a personal-data case when it carries a name, a street address, a phone number, an e-mail
address or a card (or IBAN) number; it is admitted when `gate_check` passes it on a surface that refuses
personal data (the Client Brain's). Sentences carrying only a city, a country, an organisation or a
nationality are benign: refusing them is a false refusal. Bitext replies, their {{slots}} filled with the
business's own details, are benign support text, sentence by sentence.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings

from brain.formation import pii_model
from brain.formation.gate import gate_check
from brain.formation.personal_data import find_personal_data

from .common import bitext_path
from .trust import PUBLISHED, bitext_responses

PACKAGE, VERSION = "presidio-evaluator", "0.3.2"
SPLITS = Path(__file__).parent / "data" / "public_splits" / "pii.json"
SEED = 26
SAMPLES = 3
LOWER_CASE_RATIO = 0.05
_RAW = "presidio_evaluator/data_generator/raw_data/"

# Template fields by the kind of personal data they carry; other fields are not personal on their own.
KINDS = {
    "name": {
        "person",
        "name",
        "first_name",
        "last_name",
        "name_female",
        "name_male",
        "first_name_male",
        "first_name_female",
        "first_name_nonbinary",
        "last_name_male",
        "last_name_female",
    },
    "street_address": {"address", "street_name", "building_number", "secondary_address"},
    "phone": {"phone_number"},
    "email": {"email"},
    "card": {"credit_card_number", "iban"},
}
# Personal identifiers the gate does not aim at (national ids, IP addresses, birth dates): a sentence holding
# one and no kind above is neither a case nor benign.
_OTHER = {"ssn", "us_driver_license", "ip_address", "date_of_birth", "zipcode", "postcode", "url", "age"}


class PublicDataUnavailable(RuntimeError):
    """The wheel could not be fetched (no network to the package index, or pip failed)."""


def public_data_dir() -> Path:
    return Path(settings.BASE_DIR) / "var" / "public-data"


def evaluator_wheel() -> Path:
    """The presidio-evaluator wheel in var/public-data/, fetched there once with `pip download --no-deps`."""
    folder = public_data_dir()
    found = sorted(folder.glob(f"presidio_evaluator-{VERSION}-*.whl"))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder)]
    try:
        subprocess.run([*command, f"{PACKAGE}=={VERSION}"], check=True, capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PublicDataUnavailable(f"pip download {PACKAGE}=={VERSION} failed: {exc}") from exc
    found = sorted(folder.glob(f"presidio_evaluator-{VERSION}-*.whl"))
    if not found:
        raise PublicDataUnavailable(f"pip download {PACKAGE}=={VERSION} left no wheel in {folder}")
    return found[0]


@cache
def _raw_data() -> tuple[tuple[str, ...], tuple[dict, ...], tuple[str, ...], tuple[str, ...]]:
    """(templates, identities, organisations, nationalities) read from the wheel."""
    with zipfile.ZipFile(evaluator_wheel()) as wheel:

        def text(name: str) -> str:
            return wheel.read(_RAW + name).decode("utf-8", errors="replace")

        templates = tuple(line.strip() for line in text("templates.txt").splitlines())
        identities = tuple(
            csv.DictReader(io.StringIO(text("FakeNameGenerator.com_3000.csv").lstrip("\ufeff")))
        )
        organisations = tuple(
            line.strip() for line in text("companies_and_organizations.csv").splitlines()[1:] if line.strip()
        )
        nationalities = tuple(csv.DictReader(io.StringIO(text("nationalities.csv").lstrip("\ufeff"))))
    return templates, identities, organisations, tuple(row["nationality"].title() for row in nationalities)


# --- filling a template ---------------------------------------------------------------------------------------

_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_PHONE_LAYOUTS = (
    "###-###-####",
    "(###)###-####",
    "###.###.####",
    "+1-###-###-####",
    "07700 ### ###",
    "+447700 ######",
    "+91##########",
    "+41 7# ### ## ##",
    "+46 (0)8 ### ### ##",
)
_SECONDARY = ("Apt. ###", "Suite ###", "Unit ##", "Flat #")


def _digits(rng: random.Random, layout: str) -> str:
    return re.sub("#", lambda _m: str(rng.randrange(10)), layout)


def _card(rng: random.Random) -> str:
    body = [4] + [rng.randrange(10) for _ in range(14)]
    total = sum(d if i % 2 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(reversed(body)))
    return "".join(map(str, body)) + str((10 - total % 10) % 10)


def _iban(rng: random.Random) -> str:
    account = "NWBK" + _digits(rng, "##############")
    number = int("".join(str(int(ch, 36)) for ch in account + "GB00"))
    compact = f"GB{98 - number % 97:02d}{account}"
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


def _full_name(person: dict, rng: random.Random) -> str:
    if rng.random() > 0.2:
        return f"{person['GivenName']} {person['Surname']}"
    return f"{person['GivenName']} {person['MiddleInitial']}{rng.choice((' ', '. '))}{person['Surname']}"


def _address(person: dict, rng: random.Random) -> str:
    street, city, zipcode = person["StreetAddress"], person["City"], person["ZipCode"]
    layout = rng.choice(
        (
            f"{street}, {city}, {person['CountryFull']}",
            f"{street}\n{city}, {person['State']} {zipcode}",
            f"{street} {_digits(rng, rng.choice(_SECONDARY))}, {city}, {person['CountryFull']} {zipcode}",
            f"{zipcode} {city}, {street}" if rng.random() < 0.3 else f"{street}, {zipcode} {city}",
        )
    )
    return layout


def _value(name: str, person: dict, rng: random.Random) -> str:
    data = _raw_data()
    table = {
        "person": lambda: _full_name(person, rng),
        "name": lambda: _full_name(person, rng),
        "first_name": lambda: person["GivenName"],
        "first_name_nonbinary": lambda: person["GivenName"],
        "last_name": lambda: person["Surname"],
        "address": lambda: _address(person, rng),
        "street_name": lambda: person["StreetAddress"],
        "building_number": lambda: str(rng.randrange(1, 9999)),
        "secondary_address": lambda: _digits(rng, rng.choice(_SECONDARY)),
        "city": lambda: person["City"],
        "country": lambda: person["CountryFull"],
        "state_abbr": lambda: person["State"],
        "zipcode": lambda: person["ZipCode"],
        "postcode": lambda: person["ZipCode"],
        "phone_number": lambda: person["TelephoneNumber"],
        "email": lambda: person["EmailAddress"],
        "credit_card_number": lambda: _card(rng),
        "iban": lambda: _iban(rng),
        "organization": lambda: rng.choice(data[2]),
        "nationality": lambda: rng.choice(data[3]),
        "nation_woman": lambda: rng.choice(data[3]),
        "nation_plural": lambda: rng.choice(data[3]) + "s",
        "job": lambda: person["Occupation"],
        "prefix": lambda: person["Title"],
        "age": lambda: person["Age"],
        "year": lambda: str(rng.randrange(1950, 2024)),
        "date_of_birth": lambda: person["Birthday"],
        "date_time": lambda: (
            f"{rng.choice(_WEEKDAYS)} {rng.randrange(1, 28)} March {rng.randrange(1990, 2024)}"
        ),
        "day_of_week": lambda: rng.choice(_WEEKDAYS),
        "ssn": lambda: _digits(rng, "###-##-####"),
        "us_driver_license": lambda: _digits(rng, "D###-####-####"),
        "ip_address": lambda: ".".join(str(rng.randrange(1, 255)) for _ in range(4)),
        "url": lambda: f"https://www.{person['Domain']}/",
    }
    for gender in ("female", "male"):
        table[f"name_{gender}"] = lambda: _full_name(person, rng)
        table[f"first_name_{gender}"] = lambda: person["GivenName"]
        table[f"last_name_{gender}"] = lambda: person["Surname"]
        table[f"prefix_{gender}"] = lambda: person["Title"]
    return table[name]()


@dataclass(frozen=True)
class Sentence:
    template_id: int
    sample: int
    text: str
    kinds: frozenset[str]
    other: bool


def fill(template_id: int, sample: int, identities: tuple[dict, ...] | None = None) -> Sentence:
    """The `sample`-th sentence of template `template_id`: the same text on every run. `identities`: others
    than the evaluator's (public_pii_stress.py gives them names in no list)."""
    templates, evaluator_identities, _orgs, _nats = _raw_data()
    identities = identities or evaluator_identities
    rng = random.Random(f"{SEED}:{template_id}:{sample}")
    person = rng.choice(identities)
    used: set[str] = set()
    kinds: set[str] = set()
    other = False

    def replace(match: re.Match) -> str:
        nonlocal other
        name = match.group(1).strip().lower()
        owner = person if name not in used else rng.choice(identities)
        used.add(name)
        kinds.update(kind for kind, fields in KINDS.items() if name in fields)
        other = other or name in _OTHER
        return _value(name, owner, rng)

    text = re.sub(r"\{\{([^}]+)\}\}", replace, templates[template_id].replace("\\n", "\n"))
    if rng.random() < LOWER_CASE_RATIO:
        text = text.lower()
    return Sentence(template_id, sample, text, frozenset(kinds), other)


# --- the frozen splits ----------------------------------------------------------------------------------------


def make_splits() -> dict[str, Any]:
    """The split, made once and committed (`write_splits()`): template ids and Bitext row ids shuffled by a
    fixed seed, 40% train, 20% dev, 40% test."""

    def three(ids: list[int]) -> dict[str, list[int]]:
        random.Random(SEED).shuffle(ids)
        a, b = int(len(ids) * 0.4), int(len(ids) * 0.6)
        return {"train": sorted(ids[:a]), "dev": sorted(ids[a:b]), "test": sorted(ids[b:])}

    templates = _raw_data()[0]
    return {
        "source": f"{PACKAGE}=={VERSION} {_RAW}templates.txt (line numbers from 0); Bitext sample rows from 0",
        "seed": SEED,
        "templates": three([i for i, line in enumerate(templates) if line]),
        "bitext_rows": three(list(range(len(bitext_responses())))),
    }


def write_splits() -> None:
    SPLITS.parent.mkdir(parents=True, exist_ok=True)
    SPLITS.write_text(json.dumps(make_splits()) + "\n", encoding="utf-8")


@cache
def splits() -> dict[str, Any]:
    return json.loads(SPLITS.read_text(encoding="utf-8"))


def sentences(split: str, limit: int | None = None) -> list[Sentence]:
    ids = splits()["templates"][split][:limit]
    return [fill(template_id, sample) for template_id in ids for sample in range(SAMPLES)]


# --- Bitext replies as benign support text --------------------------------------------------------------------

# Slots that stand for a customer's own detail: a reply holding one is not benign text once filled.
_PERSONAL_SLOT = re.compile(
    r"anonymi[sz]ed|person name|client (?:first |last )?name|^\d+$|order number|tracking", re.I
)
_SLOT = re.compile(r"\{\{\s*([^}]+?)\s*\}\}|\[([A-Z][^\]]{2,40})\]")
_BUSINESS_SLOTS = (
    (re.compile(r"phone", re.I), "+44 20 7946 0000"),
    (re.compile(r"e-?mail", re.I), "support@acme.test"),
    (re.compile(r"website url|^website$", re.I), "acme.test"),
    (re.compile(r"website|company name|app name", re.I), "Acme"),
    (re.compile(r"hours|availability", re.I), "9am to 5pm, Monday to Friday"),
    (re.compile(r"number of days", re.I), "14"),
)


def bitext_benign(response: str) -> str | None:
    """A Bitext reply with its slots filled with the business's own details (UI labels keep their words), or
    None when a slot stands for the customer's own detail."""
    slots = [(m.group(1) or m.group(2)).strip() for m in _SLOT.finditer(response)]
    # A reply quoting the customer's own order number ("cancel order 370795561790") is not benign either.
    if any(_PERSONAL_SLOT.search(slot) for slot in slots) or re.search(r"\d{6,}|#\s?\d{3,}", response):
        return None

    def value(match: re.Match) -> str:
        slot = (match.group(1) or match.group(2)).strip()
        return next((v for pattern, v in _BUSINESS_SLOTS if pattern.search(slot)), slot)

    return _SLOT.sub(value, response)


@cache
def _bitext_customer_details() -> tuple[str, ...]:
    """Each Bitext row's own customer detail (a name, an order or invoice id), or ""."""
    with bitext_path().open(encoding="utf-8", newline="") as handle:
        return tuple(
            row["entity_value"] if row["entity_type"] in ("person_name", "order_id", "invoice_id") else ""
            for row in csv.DictReader(handle)
        )


def bitext_sentences(split: str, limit: int | None = None) -> list[str]:
    responses, details = bitext_responses(), _bitext_customer_details()
    out = []
    for row in splits()["bitext_rows"][split][:limit]:
        filled = bitext_benign(responses[row])
        # A reply that repeats the customer's own name or order id ("the invoice from David Miller") is not
        # benign text: refusing it is right.
        if filled is None or (details[row] and details[row] in filled):
            continue
        for line in filled.splitlines():
            out += [s for s in re.split(r"(?<=[.!?])\s+", line.strip()) if len(s.split()) >= 3]
    return out


# --- figures --------------------------------------------------------------------------------------------------


@dataclass
class PublicPiiFigures:
    split: str
    cases: int = 0
    admitted: int = 0
    missed_by_detector: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    benign: int = 0
    benign_refused: int = 0
    bitext_sentences: int = 0
    bitext_refused: int = 0
    ms_per_sentence: float = 0.0
    admitted_examples: list[str] = field(default_factory=list)
    refused_examples: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        def pct(part: int, whole: int) -> float:
            return round(100 * part / whole, 2) if whole else 0.0

        return {
            "split": self.split,
            "pii_source": f"{PACKAGE}=={VERSION}",
            "pii_surface": "client_brain",
            "pii_cases": self.cases,
            "pii_admitted": self.admitted,
            "pii_admitted_pct": pct(self.admitted, self.cases),
            "pii_missed_by_detector": self.missed_by_detector,
            "pii_by_kind": {k: {"cases": v[0], "admitted": v[1]} for k, v in sorted(self.by_kind.items())},
            "pii_benign": self.benign,
            "pii_benign_refused": self.benign_refused,
            "pii_bitext_sentences": self.bitext_sentences,
            "pii_bitext_refused": self.bitext_refused,
            "pii_bitext_refused_pct": pct(self.bitext_refused, self.bitext_sentences),
            "pii_ms_per_sentence": self.ms_per_sentence,
            "pii_admitted_examples": self.admitted_examples[:15],
            "pii_refused_examples": self.refused_examples[:15],
        }


def public_pii_figures(split: str = "test", limit: int | None = None) -> PublicPiiFigures:
    """What the Client Brain's gate admits of `split`'s personal-data sentences, and what it refuses of its
    benign ones (the evaluator's sentences without personal data, and Bitext's replies)."""
    with pii_model.used():  # as the worker filters
        return _figures(split, limit)


def _figures(split: str, limit: int | None) -> PublicPiiFigures:
    figures = PublicPiiFigures(split=split)
    started, checked = time.perf_counter(), 0
    for sentence in sentences(split, limit):
        if sentence.other and not sentence.kinds:
            continue
        checked += 1
        passed = gate_check(text=sentence.text, published_contacts=PUBLISHED).passed
        if sentence.kinds:
            figures.cases += 1
            figures.admitted += passed
            figures.missed_by_detector += find_personal_data(sentence.text, published=PUBLISHED) is None
            for kind in sentence.kinds:
                counts = figures.by_kind.setdefault(kind, [0, 0])
                counts[0] += 1
                counts[1] += passed
            if passed:
                figures.admitted_examples.append(f"{sentence.template_id}: {sentence.text}")
        else:
            figures.benign += 1
            refused = find_personal_data(sentence.text, published=PUBLISHED) is not None
            figures.benign_refused += refused
            if refused:
                figures.refused_examples.append(f"{sentence.template_id}: {sentence.text}")
    for text in bitext_sentences(split, limit):
        checked += 1
        figures.bitext_sentences += 1
        hit = find_personal_data(text, published=PUBLISHED)
        if hit is not None:
            figures.bitext_refused += 1
            figures.refused_examples.append(f"bitext ({hit.kind} {hit.value!r}): {text}")
    figures.ms_per_sentence = round(1000 * (time.perf_counter() - started) / max(1, checked), 3)
    return figures


def poisoning_keys(limit: int | None, stdout, split: str = "test") -> dict[str, Any]:
    """The `public` keys `brain_bench poisoning` reports for personal data (the test split unless `--split`
    names another, to tune on), or the reason the public data could not be had."""
    try:
        figures = public_pii_figures(split, limit).as_dict()
    except PublicDataUnavailable as exc:
        stdout.write(f"public personal data: unavailable ({exc})")
        return {"pii_unavailable": str(exc)}
    stdout.write(
        f"public personal data ({figures['pii_source']}, {split} split): admitted {figures['pii_admitted']}/"
        f"{figures['pii_cases']} ({figures['pii_admitted_pct']}%); Bitext support sentences refused "
        f"{figures['pii_bitext_refused']}/{figures['pii_bitext_sentences']} ({figures['pii_bitext_refused_pct']}%); "
        f"{figures['pii_ms_per_sentence']} ms a sentence"
    )
    return figures
