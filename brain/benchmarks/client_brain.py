"""Client Brain recall latency at scale: `measure_recall_latency()` (wrapped by `brain_bench client-brain`).

Rows are bulk-loaded with COPY into a dedicated, throw-away tenant (typed rows of the four families with
synthetic support vocabulary, a few legacy and invalid-confidence rows), the table is VACUUM ANALYZEd, then
`client_brain_context()` — the whole initial-run pipeline: both tiers, ranking, typed admission, caps,
rendering and counting activity (an upsert into the counter table) — runs for many ticket-like
queries. The tenant and its rows are removed at the end, whatever happens.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
import uuid
from collections.abc import Callable

import numpy as np
from django.db import connection, transaction
from django.db.models import JSONField
from django.utils import timezone
from psycopg.types.json import Jsonb

from brain.benchmarks.bulk_load import copy_into
from brain.benchmarks.search_box import literal_latency
from brain.client_brain.recall import assemble_context, client_brain_context, tenant_model
from brain.client_brain.typed import render_value
from brain.models import EMBEDDING_DIMENSIONS, Memory, MemoryActivity
from config.db_backend.base import migration_role

# A support-desk vocabulary: queries draw from the same words, so the keyword tier has real work.
NOUNS = """order parcel refund invoice warranty subscription delivery courier tracking label return exchange
voucher discount coupon account password login payment card charge receipt grinder kettle filter beans
machine espresso milk frother carafe lid hopper battery charger cable adapter screen app update firmware
address postcode customs duty pallet shipment depot warehouse bundle gift trial plan upgrade downgrade
cancellation pause renewal reminder email newsletter survey review rating complaint manager supervisor
policy deadline weekend holiday store branch hotline chat agent ticket escalation approval credit debit
invoice vat tax quote contract supplier stock backorder preorder size colour model serial batch""".split()
VERBS = """ships arrives breaks leaks fails expires renews cancels pauses charges refunds replaces resets
updates delays returns exchanges approves escalates confirms sends resends blocks unlocks verifies""".split()
QUALIFIERS = """same-day next-day express standard free premium basic damaged missing late broken duplicate
international domestic partial full monthly yearly weekly urgent first second""".split()
WORDS = NOUNS + VERBS + QUALIFIERS


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()


def _row(rng: random.Random, i: int) -> tuple[str, dict, float]:
    roll = rng.random()
    if roll < 0.01:
        confidence = rng.choice([math.nan, math.inf, -0.5, 1.7])
    else:
        confidence = round(rng.uniform(0.3, 1.0), 3)
    kind = rng.random()
    if kind < 0.65:
        return "business", {"fact": f"{_sentence(rng, rng.randint(6, 12))} #{i}"}, confidence
    if kind < 0.70:
        fields = {"formality": rng.choice(["formal", "neutral", "casual"])} if rng.random() < 0.7 else {}
        fields["tone"] = rng.choice(["warm", "friendly", "professional", "direct"])
        return "voice", fields, confidence
    if kind < 0.85:
        return (
            "issues",
            {
                "pattern": _sentence(rng, 6),
                "best_resolution": _sentence(rng, 8),
                "frequency": rng.randint(1, 40),
            },
            confidence,
        )
    if kind < 0.98:
        return "process", {"trigger": _sentence(rng, 5), "action": _sentence(rng, 7)}, confidence
    return "faq", {"q": _sentence(rng, 5)}, confidence  # legacy format


def _unit_vectors(rng: random.Random, count: int) -> list[str]:
    """`count` random unit vectors in pgvector's text form: production rows always carry an embedding
    (promote() stores one), and a row's embedding puts it in the HNSW index, which every non-HOT
    update of the row has to extend."""
    vectors = np.random.default_rng(rng.randint(0, 2**31)).normal(size=(count, EMBEDDING_DIMENSIONS))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return ["[" + ",".join(map(str, row)) + "]" for row in np.round(vectors, 5).tolist()]


def _copy_rows(tenant_id: int, start: int, stop: int, rng: random.Random) -> None:
    fields = [f for f in Memory._meta.concrete_fields if not f.primary_key and not f.generated]
    defaults = {f.column: f.get_default() for f in fields}
    now = timezone.now()
    columns = [f.column for f in fields]
    json_columns = {f.column for f in fields if isinstance(f, JSONField)}
    embeddings = _unit_vectors(rng, stop - start)
    with copy_into(Memory._meta.db_table, ", ".join(columns)) as copy:
        for i in range(start, stop):
            type_, payload, confidence = _row(rng, i)
            values = {
                **defaults,
                "tenant_id": tenant_id,
                "scope_kind": "tenant",
                "type": type_,
                "key": f"{type_}:{i}",
                "payload": payload,
                "text": render_value(type_, payload),
                "confidence": confidence,
                "surface": "import",
                "embedding": embeddings[i - start],
                "embedding_model": "bench-random-unit",
                "created_at": now,
                "updated_at": now,
            }
            copy.write_row([Jsonb(values[c]) if c in json_columns else values[c] for c in columns])
    # Prior recorded activity of 0–50 per row, as a counter row (none when it is 0, as in production).
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(%s)", [rng.random()])
        cursor.execute(
            f"""INSERT INTO {MemoryActivity._meta.db_table} (memory_id, tenant_id, count, last_at)
            SELECT id, tenant_id, count, now() FROM (
              SELECT m.id, m.tenant_id, floor(random() * 51)::int AS count
              FROM {Memory._meta.db_table} m
              WHERE m.tenant_id = %s::bigint
                AND NOT EXISTS (SELECT 1 FROM {MemoryActivity._meta.db_table} a WHERE a.memory_id = m.id)
            ) drawn WHERE count > 0""",
            [tenant_id],
        )


# Word forms no stored row holds: what a new ticket brings that no earlier query of the process has looked up.
_SYLLABLES = "ka lo mi ne ru sa te vo pi da fe gu ho ji ly ma no qu ri su ta ve wo xi ya ze".split()
# The part of the nouns that warm-up queries never use, so the timed ones bring stored words warm-up never saw.
HELD_OUT_SHARE = 0.3


class QueryStream:
    """Ticket-like queries, each new to the process: never run before, and each with a word never seen
    before (by this stream) that no stored row holds.

    Warm-up queries draw their nouns from one part of the vocabulary; timed queries add nouns from the
    held-out part (stored in rows, never in a warm-up query) and a generated word. So per-process caches of
    terms, windows or plans cannot serve a timed query from an earlier one, as they would if every query
    came from the 170 words a warm-up had already looked up.
    """

    def __init__(self, rng: random.Random):
        self.rng = rng
        nouns = sorted(NOUNS)
        rng.shuffle(nouns)
        cut = round(len(nouns) * HELD_OUT_SHARE)
        self.held_out, self.warm_nouns = nouns[:cut], nouns[cut:]
        self.seen_words: set[str] = set()
        self.run: set[tuple[str, str]] = set()

    def _unseen_word(self) -> str:
        while True:
            word = "".join(self.rng.choice(_SYLLABLES) for _ in range(self.rng.randint(3, 5)))
            if word not in self.seen_words and word not in WORDS:
                self.seen_words.add(word)
                return word

    def _query(self, nouns: list[str], extra: list[str]) -> tuple[str, str]:
        rng = self.rng
        subject = " ".join([*(rng.choice(nouns) for _ in range(rng.randint(1, 3))), *extra])
        message = (
            f"Hi, my {rng.choice(nouns)} {rng.choice(VERBS)} and the {rng.choice(nouns)} is"
            f" {rng.choice(QUALIFIERS)}."
        )
        return subject.capitalize(), message

    def take(self, count: int, *, timed: bool) -> list[tuple[str, str]]:
        """`count` queries never run before: timed ones with a held-out noun and an unseen word each,
        warm-up ones from the warm-up nouns (and unseen words of their own)."""
        queries = []
        while len(queries) < count:
            extra = [self.rng.choice(self.held_out)] if timed else []
            query = self._query(self.warm_nouns if not timed else NOUNS, [*extra, self._unseen_word()])
            if query not in self.run:
                self.run.add(query)
                queries.append(query)
        return queries


def _scanned_totals(tenant_id: int) -> None:
    """The baseline's aggregates: the grouped scan of every row the dashboard ran before the tally (issue 17),
    which each process repeated on its first view after any write to the tenant's rows."""
    from django.db.models import Count, Sum

    from brain.client_brain.dashboard import VALID_CONFIDENCE, client_brain_stored
    from brain.client_brain.typed import typed_condition

    list(
        client_brain_stored(tenant_id=tenant_id)
        .order_by()
        .values("type", "status")
        .annotate(
            stored=Count("id"),
            typed_rows=Count("id", filter=typed_condition()),
            valid=Count("id", filter=VALID_CONFIDENCE),
            confidence_sum=Sum("confidence", filter=VALID_CONFIDENCE),
        )
    )


def _joined_activity(tenant_id: int) -> None:
    """The baseline's recorded activity: every counter row of the tenant joined to its memory."""
    from django.db.models import Sum

    from brain.client_brain.dashboard import OTHER_SURFACE_TYPES, RETIRED_STATUSES

    MemoryActivity.objects.for_tenant(tenant_id).filter(memory__scope_kind="tenant").exclude(
        memory__type__in=OTHER_SURFACE_TYPES
    ).exclude(memory__status__in=RETIRED_STATUSES).aggregate(total=Sum("count"))


def _baseline_view(tenant_id: int, *, after_write: bool) -> None:
    """The dashboard's first page as it ran before the two-part page and the tally (commit 3c1f912): the
    tenant scope's state, the aggregates (scanned just after a write, cached otherwise), recorded activity,
    and the first page as one statement that sorts every current row by activity, confidence and id."""
    from brain.client_brain.dashboard import (
        CURRENT,
        client_brain_rows,
        dashboard_ordered,
        status_condition,
        to_row,
    )
    from brain.memory_state import memory_state

    memory_state(tenant_id, scope_kind="tenant")
    if after_write:
        _scanned_totals(tenant_id)
    _joined_activity(tenant_id)
    rows = client_brain_rows(tenant_id=tenant_id).filter(status_condition(CURRENT))
    [to_row(m) for m in dashboard_ordered(rows)[:101]]


def _dashboard_latency(tenant_id: int, repeats: int = 40, after_writes: int = 20) -> dict[str, float]:
    """What the dashboard's first page runs (the tenant-wide aggregates and 100 rows), in ms, p50 and p95:
    repeated views, and the first view after a write to the tenant's rows (a confidence changed: the row
    moves between groups of the tally, and the old code rescanned the rows' aggregates). The code before
    issue 17 (`_baseline_view`) is timed in the same run, alternating with the current code."""
    from brain.client_brain.dashboard import client_brain_page, client_brain_stats

    def timed(view: Callable[[], object]) -> float:
        t0 = time.perf_counter()
        view()
        return (time.perf_counter() - t0) * 1000

    def current() -> None:
        client_brain_stats(tenant_id=tenant_id)
        client_brain_page(tenant_id=tenant_id)

    def write() -> None:
        rows = Memory.objects.for_tenant(tenant_id)
        row = rows.filter(scope_kind="tenant").order_by("id")[:1]
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE brain_memory SET confidence = CASE WHEN confidence = 0.555 THEN 0.565 ELSE 0.555 END"
                " WHERE tenant_id = %s AND id = %s",
                [tenant_id, row[0].pk],
            )

    figures: dict[str, list[float]] = {name: [] for name in ("new", "old", "new_after", "old_after")}
    _baseline_view(tenant_id, after_write=True)  # both warm: plans, buffers
    current()
    for _ in range(repeats):
        figures["new"].append(timed(current))
        figures["old"].append(timed(lambda: _baseline_view(tenant_id, after_write=False)))
    for _ in range(after_writes):
        write()
        figures["new_after"].append(timed(current))
        write()
        figures["old_after"].append(timed(lambda: _baseline_view(tenant_id, after_write=True)))
    result = {}
    for name, key in (
        ("new", ""),
        ("old", "baseline_"),
        ("new_after", "after_write_"),
        ("old_after", "baseline_after_write_"),
    ):
        result[f"{key}p50"] = round(statistics.median(figures[name]), 2)
        result[f"{key}p95"] = round(_percentile(figures[name], 0.95), 2)
    return result


def _vacuum() -> None:
    """VACUUM (ANALYZE) the memories and their counters, as autovacuum leaves them in a steady state: right
    after a bulk load the visibility map is empty, so every index-only read (the dashboard's page and counts
    read their indexes alone) still visits the table, until autovacuum gets round to it in the middle of a
    measurement. As the schema's owner, who may vacuum; never inside a transaction (a test's), where VACUUM
    cannot run."""
    if connection.in_atomic_block:
        return
    with migration_role(connection), connection.cursor() as cursor:
        for model in (Memory, MemoryActivity):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")


RARE_WORD = "espressivo"


def _explain_rare_word(tenant_id: int, count: int) -> dict:
    """Plant one low-confidence memory with a word no other row has, then EXPLAIN ANALYZE the keyword
    tier for it: which indexes serve it, how long it runs, and whether it finds the row. That is the
    statement over every row (`keyword_candidates`); `keyed` is what the tier runs first for such a word, the
    lookup through the tenant's trigram keys (brain.search.sql.rows_holding_term), its rows then read by id."""
    from brain.client_brain.recall import ORDER, keyword_candidates
    from brain.client_brain.words import keyword_terms
    from brain.search.sql import KEYED_TERM_ROWS, ROWS_HOLDING_SQL, rows_holding_term, term_keys_query

    needle = Memory.objects.create(
        tenant_id=tenant_id,
        scope_kind="tenant",
        type="business",
        key=f"{RARE_WORD}-{count}",
        payload={"fact": f"{RARE_WORD.capitalize()} descaling voids the warranty"},
        text=f"{RARE_WORD.capitalize()} descaling voids the warranty",
        confidence=0.55,
    )
    query = (
        keyword_candidates(tenant_id=tenant_id, terms=keyword_terms(f"{RARE_WORD} question"))
        .order_by(*ORDER)
        .values_list("id")[:200]
    )
    sql, params = query.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    plan = plan[0] if isinstance(plan, list) else plan
    indexes: list[str] = []

    tenant_in_index: list[bool] = []

    def walk(node: dict) -> None:
        if node.get("Index Name") and node["Index Name"] not in indexes:
            indexes.append(node["Index Name"])
        if node.get("Index Name") == "memory_tenant_trgm":
            tenant_in_index.append("tenant_id" in node.get("Index Cond", ""))
        for child in node.get("Plans", []):
            walk(child)

    walk(plan["Plan"])
    found = any(row[0] == needle.pk for row in query)
    over_every_row = {
        "indexes": indexes,
        "tenant_in_trigram_index_cond": bool(tenant_in_index) and all(tenant_in_index),
    }
    indexes = []
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN (ANALYZE, FORMAT JSON) " + ROWS_HOLDING_SQL,
            {"tenant_id": tenant_id, "keys": term_keys_query(tenant_id, RARE_WORD)},
        )
        keyed_plan = cursor.fetchone()[0]
        keyed_plan = keyed_plan[0] if isinstance(keyed_plan, list) else keyed_plan
        walk(keyed_plan["Plan"])
        held = rows_holding_term(cursor, tenant_id=tenant_id, term=RARE_WORD, limit=KEYED_TERM_ROWS)
    return {
        **over_every_row,
        "execution_ms": round(plan["Execution Time"], 2),
        "found": found,
        "keyed": {
            "indexes": indexes,
            "execution_ms": round(keyed_plan["Execution Time"], 2),
            "found": needle.pk in (held or []),
        },
    }


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def _time_recall(
    tenant_id: int, stream: QueryStream, warmup: int, queries: int
) -> tuple[list[float], list[float], list[float]]:
    """Warm-up on its own queries, then `queries` timed calls of each of the read path and the whole
    pipeline, each on a query never run before (ms): (recall, read path, read path's Python CPU time)."""
    for subject, message in stream.take(warmup, timed=False):
        client_brain_context(tenant_id=tenant_id, subject=subject, latest_customer_message=message)
    samples, read_samples, cpu_samples = [], [], []
    for subject, message in stream.take(queries, timed=True):
        c0, t0 = time.process_time(), time.perf_counter()
        context = assemble_context(tenant_id=tenant_id, subject=subject, latest_customer_message=message)
        t1, c1 = time.perf_counter(), time.process_time()
        assert context.memory_ids, "the benchmark tenant must yield context"
        read_samples.append((t1 - t0) * 1000)
        cpu_samples.append((c1 - c0) * 1000)
    for subject, message in stream.take(queries, timed=True):
        t0 = time.perf_counter()
        client_brain_context(tenant_id=tenant_id, subject=subject, latest_customer_message=message)
        samples.append((time.perf_counter() - t0) * 1000)
    return samples, read_samples, cpu_samples


def measure_recall_latency(
    row_counts: tuple[int, ...] = (1000, 10000, 100000),
    *,
    queries: int = 200,
    warmup: int = 20,
    seed: int = 7,
    progress: Callable[[str], None] = print,
) -> dict:
    """Recall latency (ms) of the full initial-run pipeline at each row count, in one dedicated tenant.

    Returns {"recall_p50_ms": {rows: ms}, "recall_p95_ms": {rows: ms}, "recall_mean_ms": {...}, the same
    three for "read_path" (everything but counting activity), "queries": n, "target_p95_ms": 25}.
    `recall_*` is `client_brain_context()` end to end, counting activity included. Rows carry random
    unit-vector embeddings, as production rows carry real ones. Row counts are
    cumulative: the tenant grows between runs. Also reported per row count: the read path's Python CPU
    time (median; the part this process spends, whatever the machine's load), the 1-minute load average
    while measuring, the dashboard's first page (aggregates + 100 rows, median ms of repeated views and of
    views just after a write to the rows), an EXPLAIN ANALYZE of the keyword tier for a word only one
    row has, and the search box's literal part with the tenant's keys and without (`search_box_literal`).
    """
    rng = random.Random(seed)
    stream = QueryStream(random.Random(seed + 1))
    Tenant = tenant_model()
    tenant = Tenant.objects.create(
        name="Client Brain benchmark", slug=f"bench-client-brain-{uuid.uuid4().hex[:10]}"
    )
    result: dict = {"queries": queries, "target_p95_ms": 25}
    for name in ("recall", "read_path"):
        result |= {f"{name}_p50_ms": {}, f"{name}_p95_ms": {}, f"{name}_mean_ms": {}}
    try:
        loaded = 0
        for count in sorted(row_counts):
            started = time.perf_counter()
            with transaction.atomic():
                _copy_rows(tenant.pk, loaded, count, rng)
            loaded = count
            _vacuum()
            progress(
                f"client-brain: {count} rows loaded in {time.perf_counter() - started:.1f} s; measuring {queries} queries"
            )
            samples, read_samples, cpu_samples = _time_recall(tenant.pk, stream, warmup, queries)
            for name, values in (("recall", samples), ("read_path", read_samples)):
                result[f"{name}_p50_ms"][count] = round(statistics.median(values), 2)
                result[f"{name}_p95_ms"][count] = round(_percentile(values, 0.95), 2)
                result[f"{name}_mean_ms"][count] = round(statistics.fmean(values), 2)
            _vacuum()  # recall's 300 calls counted their activity: the counter table as autovacuum leaves it
            dashboard = _dashboard_latency(tenant.pk)
            for name, figure in dashboard.items():
                result.setdefault(f"dashboard_{name}_ms", {})[count] = figure
            result.setdefault("read_path_python_cpu_p50_ms", {})[count] = round(
                statistics.median(cpu_samples), 2
            )
            result.setdefault("load_average_1m", {})[count] = round(os.getloadavg()[0], 2)
            result.setdefault("rare_word_keyword_tier", {})[count] = _explain_rare_word(tenant.pk, count)
            literal = result.setdefault("search_box_literal", {})[count] = literal_latency(tenant.pk)
            progress(f"client-brain: {count} rows: the search box's literal part, keyed / plain: {literal}")
            progress(
                f"client-brain: {count} rows: rare-word keyword tier {result['rare_word_keyword_tier'][count]}"
            )
            progress(
                f"client-brain: {count} rows: dashboard's first page p50 / p95 {dashboard['p50']} /"
                f" {dashboard['p95']} ms (before issue 17: {dashboard['baseline_p50']} /"
                f" {dashboard['baseline_p95']} ms); just after a write to the rows"
                f" {dashboard['after_write_p50']} / {dashboard['after_write_p95']} ms (before:"
                f" {dashboard['baseline_after_write_p50']} / {dashboard['baseline_after_write_p95']} ms)"
            )
            progress(
                f"client-brain: {count} rows: recall p50 {result['recall_p50_ms'][count]} ms,"
                f" p95 {result['recall_p95_ms'][count]} ms (read path alone: p50"
                f" {result['read_path_p50_ms'][count]} ms, p95 {result['read_path_p95_ms'][count]} ms)"
            )
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {MemoryActivity._meta.db_table} WHERE tenant_id = %s", [tenant.pk])
            cursor.execute(f"DELETE FROM {Memory._meta.db_table} WHERE tenant_id = %s", [tenant.pk])
        tenant.delete()
    return result
