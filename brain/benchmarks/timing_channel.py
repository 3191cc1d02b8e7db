"""The timing channel between tenants (issue 29, item 9): is a search slower for a word another tenant holds?

Two tenants in one table, in the benchmark's own database (default `brain_bench_timing`): the victim, `--rows`
rows of which `--share` hold a secret word, and the attacker, `--attacker-rows` rows of its own, none holding
the secret word or the control word (a word no tenant holds; both are random words of one length, of letters
no word of the rows has). The two tenants' rows are interleaved in the table, as tenants writing at the same time
leave them, loaded with COPY (brain.benchmarks.bulk_load); `--reuse` measures a loaded database again.

The attacker searches for the two words in alternating rounds (which word goes first alternates too), under
the tenant wall as the runtime role, as its API key would: through `recall()` with the arguments the REST
search endpoint passes (`--modes`), and with `--http` also as POSTs to /api/v1/brain/search with an API key
of the attacker's (Django's test client, in this process: the whole request, key lookup, serializers and
all). Before each search the planner's cached statistics are dropped, as any write to the attacker's own
memories drops them (the attacker can write): every search is planned afresh, as an attacker's first
probe of a word is. Printed per path: median and p95 of each word, and the ratio of the medians (secret /
control); 1.0 is no channel.

`--explain` also prints, per word, the work of the statements one search sends to PostgreSQL: each run
again under `EXPLAIN (ANALYZE, BUFFERS)`, its plan's nodes and the shared buffers it touched
(brain.benchmarks.statement_work).
"""

from __future__ import annotations

import random
import time

from django.conf import settings
from django.db import connection

from brain.benchmarks.bulk_load import memories_bulk_load_for_benchmark
from brain.benchmarks.common import fresh_tenant, percentile, use_bench_database
from brain.benchmarks.statement_work import search_work
from brain.search import recall
from brain.search.plan import LEXICAL_STATS
from config.db_backend.base import migration_role
from tickets.tenancy.wall import bypass_suspended, tenant_scope

VICTIM, ATTACKER = "timing-victim", "timing-attacker"
SEARCH_URL = "/api/v1/brain/search"


def add_arguments(parser) -> None:
    parser.add_argument("--rows", type=int, default=100_000, help="The victim's rows.")
    parser.add_argument(
        "--share", type=float, default=0.97, help="The share of the victim's rows holding the word."
    )
    parser.add_argument("--attacker-rows", type=int, default=10_000, help="The attacker's own rows.")
    parser.add_argument("--rounds", type=int, default=200, help="Rounds per path (each searches both words).")
    parser.add_argument(
        "--modes", default="lexical,hybrid", help="Recall modes timed through recall(), comma-separated."
    )
    parser.add_argument("--http", action="store_true", help="Also time POST /api/v1/brain/search (hybrid).")
    parser.add_argument(
        "--explain", action="store_true", help="Print each statement's plan and buffers per word."
    )
    parser.add_argument("--database", default="brain_bench_timing")
    parser.add_argument("--reuse", action="store_true", help="Measure an already loaded database (no load).")
    parser.add_argument("--seed", type=int, default=29)


# --- The rows ------------------------------------------------------------------------------------------------


def _word(rng: random.Random, length: int, letters: tuple[str, str]) -> str:
    consonants, vowels = letters
    return "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(length // 2))


def words(seed: int) -> tuple[list[str], str, str]:
    """The rows' vocabulary, the secret word and the control word. The two words are of one length and of
    letters no word of the vocabulary has: the searcher's own rows hold none of their lexemes or trigrams,
    so its rows treat the two alike, and a difference between them is the other tenant's doing."""
    rng = random.Random(seed)
    vocabulary = sorted({_word(rng, rng.choice((4, 6, 8)), ("bcdfghklmnprstvw", "eou")) for _ in range(4000)})
    secret = control = ""
    while secret == control:
        secret, control = (_word(rng, 10, ("jqxz", "ai")) for _ in range(2))
    return vocabulary, secret, control


def _rows(rng: random.Random, vocabulary: list[str], count: int, word: str | None, share: float):
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    for _ in range(count):
        text = rng.choices(vocabulary, weights, k=rng.randint(6, 14))
        if word is not None and rng.random() < share:
            text.insert(rng.randrange(len(text) + 1), word)
        yield {"scope_kind": "tenant", "type": "fact", "key": " ".join(text[:2]), "text": " ".join(text)}


def load(options: dict, stdout) -> tuple:
    vocabulary, secret, _ = words(options["seed"])
    rng = random.Random(options["seed"] + 1)
    victim, attacker = fresh_tenant(VICTIM), fresh_tenant(ATTACKER)
    chunks = 20  # the two tenants' rows interleaved in the heap, chunk by chunk
    started = time.perf_counter()
    for chunk in range(chunks):
        for tenant, total, word in (
            (victim, options["rows"], secret),
            (attacker, options["attacker_rows"], None),
        ):
            count = total // chunks + (1 if chunk < total % chunks else 0)
            rows = _rows(rng, vocabulary, count, word, options["share"])
            memories_bulk_load_for_benchmark(tenant_id=tenant.pk, rows=rows)
    stdout.write(
        f"  loaded {options['rows'] + options['attacker_rows']:,} rows in {time.perf_counter() - started:.0f}s"
    )
    with migration_role(connection), connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE brain_memory")
    return victim, attacker


# --- Timing --------------------------------------------------------------------------------------------------


def _api_client(attacker):
    from rest_framework.test import APIClient

    from tickets.tenancy.models import Role
    from tickets.tenancy.services import api_key_create

    _, full_key = api_key_create(tenant=attacker, name="timing channel", role=Role.VIEWER)
    client = APIClient(SERVER_NAME="localhost")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {full_key}")
    return client


def _search_by_recall(attacker_id: int, mode: str):
    def search(word: str) -> None:
        with tenant_scope(attacker_id):
            recall(
                tenant_id=attacker_id, query=word, mode=mode, limit=10, mmr_lambda=None, expand_graph=False
            )

    return search


def _search_by_http(client):
    def search(word: str) -> None:
        response = client.post(SEARCH_URL, {"query": word}, format="json")
        if response.status_code != 200:
            raise RuntimeError(f"{SEARCH_URL} answered {response.status_code}: {response.content[:200]!r}")

    return search


def time_words(search, words_: tuple[str, str], rounds: int) -> dict[str, list[float]]:
    """Each word searched once per round, the order alternating; milliseconds per word. The planner's
    cached statistics are dropped before each search (any write to the searcher's memories drops them)."""
    times: dict[str, list[float]] = {word: [] for word in words_}
    for word in words_:  # a first search of each, untimed: the process's other caches, the buffer pool
        search(word)
    for round_ in range(rounds):
        for word in words_ if round_ % 2 == 0 else words_[::-1]:
            LEXICAL_STATS.clear()
            began = time.perf_counter()
            search(word)
            times[word].append((time.perf_counter() - began) * 1000)
    return times


def _figures(times: dict[str, list[float]], secret: str, control: str) -> dict:
    out = {
        name: {"p50": round(percentile(times[word], 50), 2), "p95": round(percentile(times[word], 95), 2)}
        for name, word in (("secret", secret), ("control", control))
    }
    out["ratio_p50"] = round(out["secret"]["p50"] / out["control"]["p50"], 2)
    return out


def run(options: dict, stdout) -> dict:
    use_bench_database(options["database"], stdout)
    _, secret, control = words(options["seed"])
    if options["reuse"]:
        from django.apps import apps

        attacker = apps.get_model("tenancy", "Tenant").objects.get(slug=ATTACKER)
    else:
        _, attacker = load(options, stdout)
    figures: dict = {"secret": secret, "control": control, "rounds": options["rounds"], "paths": {}}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), count(*) FILTER (WHERE tenant_id = %s) FROM brain_memory", [attacker.pk]
        )
        total, own = cursor.fetchone()
    stdout.write(
        f"{total:,} rows in the table, {own:,} the attacker's; secret {secret!r}, control {control!r}"
    )
    paths = {
        f"recall {mode}": _search_by_recall(attacker.pk, mode) for mode in options["modes"].split(",") if mode
    }
    base = dict(getattr(settings, "BRAIN_RECALL", {}) or {})
    if options["http"]:
        paths["http hybrid"] = _search_by_http(_api_client(attacker))
    with bypass_suspended():  # the command's bypass off: every search is held to the wall, as a key's is
        for name, search in paths.items():
            measured = _figures(time_words(search, (secret, control), options["rounds"]), secret, control)
            figures["paths"][name] = measured
            stdout.write(
                f"  {name:<16} secret p50 {measured['secret']['p50']:>7.2f} p95 {measured['secret']['p95']:>7.2f}"
                f" | control p50 {measured['control']['p50']:>7.2f} p95 {measured['control']['p95']:>7.2f}"
                f" | ratio of medians {measured['ratio_p50']:.2f}"
            )
        if options["explain"]:
            figures["work"] = _explain(attacker.pk, (secret, control), stdout)
    settings.BRAIN_RECALL = base
    return figures


def _explain(attacker_id: int, words_: tuple[str, str], stdout) -> dict:
    work = {}
    for word in words_:
        LEXICAL_STATS.clear()
        with tenant_scope(attacker_id):
            found = search_work(
                lambda w=word: recall(tenant_id=attacker_id, query=w, mode="lexical", limit=10)
            )
        work[word] = [statement.as_dict() for statement in found]
        stdout.write(f"  {word}: {len(found)} statements, shared buffers {sum(s.shared for s in found)}")
        for statement in found:
            stdout.write(f"    {statement.shared:>6} buffers  {statement.nodes}  {statement.sql[:100]}")
    return work
