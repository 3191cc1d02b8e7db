"""Formation: a replayed stream of candidates (paraphrased duplicates, garbage, secrets, echoes) through promote().

    manage.py brain_bench formation [--n 1000] [--seed 7] [--scopes 4] [--json]

The stream is generated: distinct business facts (slots filled from built-in lists and from the Bitext
customer-support sample's payment methods; the sample is read from ../shared/datasets/, `BRAIN_BITEXT_CSV`,
and the run stops with an error naming the path when it is missing), each replayed as exact repeats and
paraphrases (case and punctuation, filler words, one synonym, clause order), mixed with structural
garbage (bare URLs, table rows, process narration, tool calls, JSON, unfilled templates, too short),
secrets (API keys, tokens, passwords, Luhn-valid card numbers) and echoes of memories injected into the
same run. Distinct facts are kept apart by construction (content-token overlap < 0.5 with every other
fact of their scope), so a second row for one fact is a duplicate and a fact with no row was merged away.

Reports rows written, duplicates written (exact: same normalised text in one scope; near: extra rows of a
fact that already has one, as % of rows), garbage / secrets / echoes admitted, distinct facts lost, and
promotes per second (wall time of the promote() calls, embedding included). Then the labelled entity-pair
corpus (entity_pairs.py) on three surfaces: `entity_pairs`, `entity_pairs_merged` (facts lost, goal 0),
`paraphrase_pairs`, `paraphrase_pairs_merged`. Runs in its own database.
"""

from __future__ import annotations

import csv
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from brain.benchmarks.common import bitext_path, fresh_tenant, use_bench_database
from brain.formation.gate import find_secret
from brain.formation.text import content_tokens, normalise

NAMES = "Maria Chen, Omar Haddad, Lena Fischer, Kwame Mensah, Sofia Rossi, Diego Alvarez, Aiko Tanaka, Priya Nair, Jonas Berg, Fatima Zahra, Liam Walsh, Chloe Martin, Mateo Silva, Ingrid Olsen, Ravi Kumar, Hana Novak, Pedro Costa, Yara Aziz, Noah Cohen, Elif Demir".split(
    ", "
)
COMPANIES = "Northwind, Bluebird Bakery, Helix Labs, Orchard Dental, Summit Freight, Pixel Forge, Green Leaf Cafe, Atlas Legal, Nimbus Travel, Cobalt Gym, Riverstone Hotel, Maple Books".split(
    ", "
)
CITIES = "Lyon, Porto, Leeds, Graz, Malmo, Bilbao, Utrecht, Gdansk, Turin, Cork, Bruges, Tartu".split(", ")
PRODUCTS = "espresso machine, standing desk, trail backpack, robot vacuum, noise-cancelling headset, electric kettle, yoga mat, smart thermostat, cast-iron skillet, e-reader, air purifier, gaming chair".split(
    ", "
)
CHANNELS = ["email", "phone", "SMS", "live chat", "WhatsApp"]
WEEKDAYS = ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays"]
MONTHS = ["January", "March", "April", "June", "September", "November"]
PAYMENTS = ["credit card", "PayPal account", "bank transfer", "gift card"]
DEPTS = ["finance", "logistics", "procurement", "marketing", "IT"]
PROBLEMS = [
    "stops charging overnight",
    "arrived with a cracked lid",
    "makes a grinding noise",
    "loses its wifi connection",
]

TEMPLATES = [
    "{name} prefers to be contacted by {channel} in the morning.",
    "Orders shipped to {city} take {n} business days to arrive.",
    "The {product} comes with a {n} year warranty on parts.",
    "{company} is on the enterprise plan and renews every {month}.",
    "Refunds for the {product} go back to the original {payment} within {n} days.",
    "The {city} warehouse closes early on {weekday}.",
    "{name} reported that the {product} {problem}.",
    "Discount code {code} gives {n} percent off for {company} staff.",
    "{company} requires a purchase order number on every invoice.",
    "{name} manages the {dept} team at {company}.",
    "The {product} is out of stock until {month}.",
    "{company} wants all tickets about the {product} escalated to {name}.",
]
SYNONYMS = {
    "prefers": "likes",
    "contacted": "reached",
    "orders": "parcels",
    "take": "need",
    "arrive": "get there",
    "comes": "ships",
    "reported": "said",
    "requires": "needs",
    "manages": "leads",
    "wants": "asks for",
    "closes": "shuts",
    "gives": "grants",
}
FILLERS = ["Note: ", "FYI, ", "Reminder: ", "For the record, ", "Worth remembering: "]

GARBAGE = [
    "https://help.example.com/articles/{n}",
    "www.example.com/orders/{n}",
    "| order {n} | shipped | {n} days |",
    "sku\tqty\tprice\nA-{n}\t2\t19.99",
    "|---|---|---|",
    "I will now check order {n} in the admin panel.",
    "Let me look up the tracking number for order {n}.",
    "I'm going to call the refund tool for ticket {n}.",
    "lookup_order(order_id={n})",
    '{{"name": "get_ticket", "arguments": {{"id": {n}}}}}',
    '{{"order": {n}, "status": "open", "eta": null}}',
    "When {{situation}}, offer the customer a voucher of {n} euros.",
    "Customers in {{{{region}}}} get free returns.",
    "ok {n}",
    "",
]
SECRETS = [
    "Use the staging key sk-proj-{tok} for the billing API.",
    "The exports bucket uses AKIA{upper16}.",
    "Deploy with token ghp_{tok36}.",
    "Send Authorization: Bearer {tok} to the partner API.",
    "The helpdesk admin password: {pw}",
    "Customer card number {card} was charged twice.",
    "Session token eyJhbGciOiJIUzI1NiJ9.eyJ{tok}.{tok} keeps expiring.",
]


@dataclass
class Item:
    kind: str  # fact | garbage | secret | echo
    text: str
    scope_id: str
    fact_id: int | None = None
    injected: list[str] | None = None


def add_arguments(parser) -> None:
    parser.add_argument("--n", type=int, default=1000, help="Candidates in the stream (default 1000).")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scopes", type=int, default=4, help="Agent scopes the facts are spread over.")
    parser.add_argument("--database", default="brain_bench", help="Database to run in (created if missing).")


def dataset_slots(path: Path) -> dict[str, list[str]]:
    """Extra slot values from the Bitext sample's entity values (payment methods)."""
    extra: dict[str, set[str]] = defaultdict(set)
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            value = (row.get("entity_value") or "").strip()
            kind = row.get("entity_type") or ""
            if not value or any(ch.isdigit() for ch in value) or len(value) > 30:
                continue
            if kind in ("payment_method", "payment_type"):
                extra["payment"].add(value.lower())
    return {k: sorted(v) for k, v in extra.items()}


def _luhn_card(rng: random.Random) -> str:
    digits = [4] + [rng.randrange(10) for _ in range(14)]
    total = 0
    for i, d in enumerate(reversed(digits)):
        d = d * 2 if i % 2 == 0 else d
        total += d - 9 if d > 9 else d
    digits.append((10 - total % 10) % 10)
    s = "".join(map(str, digits))
    return " ".join(s[i : i + 4] for i in range(0, 16, 4))


def _paraphrase(text: str, rng: random.Random) -> str:
    choice = rng.randrange(5)
    if choice == 0:
        return text
    if choice == 1:
        return text.lower().rstrip(".") + rng.choice(["", "!", " ."])
    if choice == 2:
        return rng.choice(FILLERS) + text[0].lower() + text[1:]
    if choice == 3:
        words = text.split()
        swappable = [i for i, w in enumerate(words) if w.lower() in SYNONYMS]
        if swappable:
            i = rng.choice(swappable)
            words[i] = SYNONYMS[words[i].lower()]
            return " ".join(words)
        return text.upper()
    return "As of today, " + text[0].lower() + text[1:]


def _facts(n_facts: int, scopes: list[str], rng: random.Random, slots: dict) -> list[tuple[str, str]]:
    payments = PAYMENTS + slots.get("payment", [])
    facts: list[tuple[str, str]] = []
    tokens_by_scope: dict[str, list[set[str]]] = defaultdict(list)
    attempts = 0
    while len(facts) < n_facts and attempts < n_facts * 200:
        attempts += 1
        text = rng.choice(TEMPLATES).format(
            name=rng.choice(NAMES),
            company=rng.choice(COMPANIES),
            city=rng.choice(CITIES),
            product=rng.choice(PRODUCTS),
            channel=rng.choice(CHANNELS),
            weekday=rng.choice(WEEKDAYS),
            month=rng.choice(MONTHS),
            payment=rng.choice(payments),
            dept=rng.choice(DEPTS),
            problem=rng.choice(PROBLEMS),
            code=f"SAVE{rng.randrange(10, 99)}{rng.choice('ABCDEFGH')}",
            n=rng.randrange(2, 60),
        )
        scope = rng.choice(scopes)
        tokens = set(content_tokens(text))
        # Distinct by construction: a fact shares less than half its content words with any other.
        if any(len(tokens & other) / len(tokens | other) >= 0.5 for other in tokens_by_scope[scope]):
            continue
        tokens_by_scope[scope].append(tokens)
        facts.append((scope, text))
    return facts


def build_stream(n: int, scopes: list[str], rng: random.Random, slots: dict[str, list[str]]) -> list[Item]:
    n_facts = max(1, int(n * 0.3))
    n_repeats = int(n * 0.3)
    n_garbage = int(n * 0.15)
    n_secrets = int(n * 0.1)
    n_echo = n - n_facts - n_repeats - n_garbage - n_secrets
    facts = _facts(n_facts, scopes, rng, slots)
    items = [Item("fact", text, scope, fact_id=i) for i, (scope, text) in enumerate(facts)]
    for _ in range(n_repeats):
        i = rng.randrange(len(facts))
        items.append(Item("fact", _paraphrase(facts[i][1], rng), facts[i][0], fact_id=i))
    for _ in range(n_garbage):
        items.append(
            Item("garbage", rng.choice(GARBAGE).format(n=rng.randrange(100, 99999)), rng.choice(scopes))
        )
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    for _ in range(n_secrets):
        text = rng.choice(SECRETS).format(
            tok="".join(rng.choice(alphabet) for _ in range(24)),
            tok36="".join(rng.choice(alphabet) for _ in range(36)),
            upper16="".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)),
            pw="".join(rng.choice(alphabet) for _ in range(10)),
            card=_luhn_card(rng),
        )
        items.append(Item("secret", text, rng.choice(scopes)))
    for _ in range(n_echo):
        # The run was handed a memory (tagged) and tries to write it back, slightly reworded, in another scope.
        i = rng.randrange(len(facts))
        injected = f"[mem:{1000 + i}] {facts[i][1]}"
        text = rng.choice(
            [
                facts[i][1],
                facts[i][1].lower(),
                f"As noted in [mem:{1000 + i}], {facts[i][1]}",
                _paraphrase(facts[i][1], rng),
            ]
        )
        items.append(Item("echo", text, rng.choice(scopes), injected=[injected]))
    rng.shuffle(items)
    return items


def run(options, stdout) -> dict:
    slots = dataset_slots(bitext_path())  # before anything else: a missing sample stops the run at once
    use_bench_database(options["database"], stdout)
    rng = random.Random(options["seed"])
    scopes = [f"agent-{i}" for i in range(max(1, options["scopes"]))]
    stream = build_stream(options["n"], scopes, rng, slots)
    tenant = fresh_tenant("bench-formation", "Formation benchmark")
    stdout.write(
        f"stream: {len(stream)} candidates {dict(Counter(i.kind for i in stream))} over {len(scopes)} scopes; "
        f"embedder {settings.BRAIN_EMBEDDER['BACKEND'].rsplit('.', 1)[-1]}, judge {settings.BRAIN_LLM_PROVIDER['BACKEND'].rsplit('.', 1)[-1]}"
    )
    figures = replay(stream, tenant_id=tenant.pk, stdout=stdout)
    figures.update(_entity_pair_figures(stdout))
    return figures


def _entity_pair_figures(stdout) -> dict:
    """The labelled entity-pair corpus on three surfaces, in a tenant of its own (entity_pairs.py)."""
    from dataclasses import asdict

    from brain.benchmarks.entity_pairs import load_pairs, replay_pairs

    tenant = fresh_tenant("bench-entity-pairs", "Entity pairs benchmark")
    figures = asdict(replay_pairs(tenant.pk, load_pairs()))
    examples = figures.pop("merged_entity_examples")
    stdout.write(
        f"entity pairs merged {figures['entity_pairs_merged']}/{figures['entity_pairs']} (facts lost; goal 0), "
        f"paraphrase pairs merged {figures['paraphrase_pairs_merged']}/{figures['paraphrase_pairs']}"
        + ("; e.g. " + " | ".join(examples) if examples else "")
    )
    return figures


def replay(stream: list[Item], *, tenant_id: int, stdout=None) -> dict:
    """Promote every item of `stream` into `tenant_id` (an empty tenant) and measure what was written."""
    from brain.api import promote
    from brain.models import Memory
    from brain.types import MemoryCandidate

    results: Counter = Counter()
    reasons: Counter = Counter()
    admitted: Counter = Counter()
    fact_of_row: dict[int, int] = {}
    started = time.perf_counter()
    for done, item in enumerate(stream, 1):
        outcome = promote(
            MemoryCandidate(
                tenant_id=tenant_id,
                type="note",
                text=item.text,
                surface="import",
                scope_kind="agent",
                scope_id=item.scope_id,
                injected_texts=item.injected or [],
                actor="process:brain_bench",
            )
        )
        results[(item.kind, outcome.result)] += 1
        if outcome.result == "rejected":
            reasons[outcome.reason] += 1
        elif item.kind != "fact":
            admitted[item.kind] += 1
        if outcome.result in ("added", "superseded") and item.fact_id is not None:
            fact_of_row[outcome.memory_id] = item.fact_id
        if stdout is not None and (done % 100 == 0 or done == len(stream)):
            rate = done / (time.perf_counter() - started)
            stdout.write(f"  {done}/{len(stream)} promoted ({rate:.1f}/s)")
    elapsed = time.perf_counter() - started

    rows = list(Memory.objects.for_tenant(tenant_id).values("id", "scope_id", "text", "status"))
    by_text = Counter((r["scope_id"], normalise(r["text"])) for r in rows)
    duplicates_exact = sum(c - 1 for c in by_text.values() if c > 1)
    rows_per_fact = Counter(fact_of_row[r["id"]] for r in rows if r["id"] in fact_of_row)
    near_extra = sum(c - 1 for c in rows_per_fact.values() if c > 1)
    n_facts = len({i.fact_id for i in stream if i.fact_id is not None})
    facts_lost = n_facts - len(rows_per_fact)
    secrets_in_table = sum(1 for r in rows if find_secret(r["text"]))
    figures = {
        "candidates": len(stream),
        "distinct_facts": n_facts,
        "rows_written": len(rows),
        "duplicates_exact": duplicates_exact,
        "duplicates_near_pct": round(100.0 * near_extra / max(1, len(rows)), 2),
        "garbage_admitted": admitted["garbage"],
        "secrets_admitted": admitted["secret"] + secrets_in_table,
        "echoes_admitted": admitted["echo"],
        "facts_lost": facts_lost,
        "promotes_per_s": round(len(stream) / elapsed, 1),
        "seconds": round(elapsed, 2),
        "rejections": dict(reasons.most_common()),
    }
    if stdout is None:
        return figures
    stdout.write("outcomes by kind: " + ", ".join(f"{k}/{r}={c}" for (k, r), c in sorted(results.items())))
    stdout.write("rejections by reason: " + ", ".join(f"{r}={c}" for r, c in reasons.most_common()))
    stdout.write(
        f"rows written {figures['rows_written']} for {n_facts} distinct facts; duplicates exact "
        f"{duplicates_exact}, near {figures['duplicates_near_pct']}%; facts lost (merged) {facts_lost}; garbage admitted "
        f"{figures['garbage_admitted']}; secrets admitted {figures['secrets_admitted']}; echoes admitted "
        f"{figures['echoes_admitted']}; {figures['promotes_per_s']} promotes/s ({elapsed:.1f} s)"
    )
    return figures
