"""Recall at scale: lexical, vector and hybrid latency for tenants of 1k, 10k and 100k rows in a big table.

Synthetic memories are generated inside PostgreSQL (INSERT ... SELECT over generate_series: Zipf-ish
words from a fixed vocabulary, clustered unit vectors built with pgvector arithmetic), so loading a
million rows costs no Python per row. The search indexes are dropped before the load and rebuilt after
it, each build timed. Then, per measured tenant: recall latency p50/p95 per method (the query vector is
given, so query embedding is excluded, and measured separately with the configured embedder), the
vector tier under both strategies (HNSW with iterative scans, and the exact per-tenant scan), and the
HNSW tier's recall@10 against the exact scan under the tenant filter.

Runs in its own database (default `brain_bench_scale`): a million rows must not land in the
development database, nor slow other benchmarks' database.
"""

from __future__ import annotations

import random
import time

import numpy as np
from django.conf import settings
from django.db import connection

from brain.benchmarks.common import fresh_tenant, percentile, use_bench_database
from brain.search import recall

MODEL = "synthetic-384"
SEARCH_INDEXES = ("memory_tenant_fts", "memory_tenant_trgm", "memory_embedding_hnsw")
CLUSTERS = 200


def add_arguments(parser) -> None:
    parser.add_argument("--rows", type=int, default=100_000, help="Rows of the largest measured tenant.")
    parser.add_argument(
        "--tenants", type=int, default=10, help="Tenants in the table (3 measured + fillers)."
    )
    parser.add_argument("--total", type=int, default=1_000_000, help="Rows in the whole table.")
    parser.add_argument("--queries", type=int, default=50, help="Queries per method and tenant size.")
    parser.add_argument("--database", default="brain_bench_scale")
    parser.add_argument("--reuse", action="store_true", help="Measure an already loaded database (no load).")
    parser.add_argument("--seed", type=int, default=7)


def _sizes(rows: int) -> list[int]:
    return sorted({max(rows // 100, 1), max(rows // 10, 1), rows})


# --- Loading ------------------------------------------------------------------------------------------------


def _vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 10))))
    return sorted(words)


PHRASES = 4001  # prime, so (g mod PHRASES, g div PHRASES) pairs rarely repeat


def _setup_generators(cursor, rng: random.Random, dims: int = 384) -> None:
    """Tables the generator joins: phrases (Zipf-ish words), cluster centres and noise vectors.

    A row's text is two phrases and its vector a centre plus two noise vectors, picked by its number:
    no per-row randomness in SQL (a toasted word array read per word made 1M rows take an hour).
    """
    np_rng = np.random.default_rng(rng.randint(0, 2**31))
    vocabulary = _vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    cursor.execute("DROP TABLE IF EXISTS bench_phrase, bench_centre, bench_noise")
    cursor.execute("CREATE TABLE bench_phrase (i int PRIMARY KEY, t text)")
    phrases = [" ".join(rng.choices(vocabulary, weights, k=rng.randint(4, 12))) for _ in range(PHRASES)]
    cursor.execute(
        "INSERT INTO bench_phrase SELECT * FROM unnest(%s::int[], %s::text[])",
        [list(range(PHRASES)), phrases],
    )
    for table, count, scale in (("bench_centre", CLUSTERS, 1.0), ("bench_noise", 1009, 0.35)):
        cursor.execute(f"CREATE TABLE {table} (i int PRIMARY KEY, v vector({dims}))")
        vectors = np_rng.normal(size=(count, dims)) * scale / np.sqrt(dims)
        for start in range(0, count, 200):
            chunk = vectors[start : start + 200]
            cursor.execute(
                f"INSERT INTO {table} SELECT * FROM unnest(%s::int[], %s::text[]::vector[])",
                [
                    list(range(start, start + len(chunk))),
                    ["[" + ",".join(f"{x:.5f}" for x in v) + "]" for v in chunk],
                ],
            )


def _insert_rows(cursor, tenant_id: int, count: int, offset: int) -> None:
    """`count` synthetic memories of one tenant: two phrases of text, a key, a clustered unit vector."""
    cursor.execute(
        f"""
INSERT INTO brain_memory (tenant_id, scope_kind, scope_id, type, key, payload, text, confidence, status,
  strength, category, source, surface, provider, campaign_ids, tags, frequency, provenance,
  embedding, embedding_model, created_at, updated_at)
SELECT %(tenant)s, 'tenant', '', 'fact',
  split_part(p3.t, ' ', 1) || ' ' || split_part(p3.t, ' ', 2), '{{}}'::jsonb, p1.t || ' ' || p2.t,
  0.7, 'active', '', '', 'derived', 'import', '', '{{}}', '{{}}', 1, '[]'::jsonb,
  l2_normalize(c.v + n1.v + n2.v), '{MODEL}', now(), now()
FROM generate_series(%(start)s, %(stop)s) g
JOIN bench_phrase p1 ON p1.i = g %% {PHRASES}
JOIN bench_phrase p2 ON p2.i = (g / {PHRASES}) %% {PHRASES}
JOIN bench_phrase p3 ON p3.i = (g * 7) %% {PHRASES}
JOIN bench_centre c ON c.i = (g * 31) %% {CLUSTERS}
JOIN bench_noise n1 ON n1.i = g %% 1009
JOIN bench_noise n2 ON n2.i = (g / 1009) %% 1009
""",
        {"tenant": tenant_id, "start": offset, "stop": offset + count - 1},
    )


def load(options: dict, stdout) -> dict[int, object]:
    rng = random.Random(options["seed"])
    sizes = _sizes(options["rows"])
    fillers = max(options["tenants"] - len(sizes), 0)
    filler_rows = max(options["total"] - sum(sizes), 0)
    plan = [(f"scale-{n}", n) for n in sizes]
    plan += [(f"scale-filler-{i}", filler_rows // fillers) for i in range(fillers)] if fillers else []
    timings = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'brain_memory' AND indexname = ANY(%s)",
            [list(SEARCH_INDEXES)],
        )
        definitions = dict(cursor.fetchall())
        cursor.execute("TRUNCATE brain_memory CASCADE")
        for name in definitions:
            cursor.execute(f"DROP INDEX IF EXISTS {name}")
        _setup_generators(cursor, rng)
        tenants = {}
        started = time.perf_counter()
        offset = 0
        for slug, count in plan:
            tenant = fresh_tenant(slug)
            for chunk_start in range(0, count, 50_000):
                chunk = min(50_000, count - chunk_start)
                _insert_rows(cursor, tenant.pk, chunk, offset)
                offset += chunk
                stdout.write(f"  loaded {offset:,} rows ({time.perf_counter() - started:.0f}s)")
            if not slug.startswith("scale-filler"):
                tenants[count] = tenant
        timings["load_s"] = round(time.perf_counter() - started, 1)
        cursor.execute("SET maintenance_work_mem = '4GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
        for name in SEARCH_INDEXES:
            if name not in definitions:
                continue
            began = time.perf_counter()
            stdout.write(f"  building {name} ...")
            cursor.execute(definitions[name])
            timings[f"index_{name}_s"] = round(time.perf_counter() - began, 1)
            stdout.write(f"  built {name} in {timings[f'index_{name}_s']}s")
        cursor.execute("VACUUM ANALYZE brain_memory")
        cursor.execute("DROP TABLE IF EXISTS bench_phrase, bench_centre, bench_noise")
    timings["rows_total"] = offset
    return tenants, timings


# --- Measuring ----------------------------------------------------------------------------------------------


def _queries(cursor, tenant_id: int, count: int, rng: random.Random) -> list[tuple[str, list[float]]]:
    """Query texts of 2–3 words taken from the tenant's rows, with a vector near one of the rows."""
    cursor.execute(
        "SELECT text, embedding::text FROM brain_memory WHERE tenant_id = %s ORDER BY id LIMIT 2000",
        [tenant_id],
    )
    rows = cursor.fetchall()
    np_rng = np.random.default_rng(rng.randint(0, 2**31))
    queries = []
    for text, vector_text in rng.sample(rows, min(count, len(rows))):
        words = text.split()
        picked = rng.sample(words, min(len(words), rng.randint(2, 3)))
        vector = np.fromstring(vector_text.strip("[]"), sep=",")
        vector = vector + np_rng.normal(size=vector.shape) * 0.02
        queries.append((" ".join(picked), (vector / np.linalg.norm(vector)).tolist()))
    return queries


def _timed(query: str, vector: list[float], tenant_id: int, mode: str, limit: int = 10):
    began = time.perf_counter()
    results = recall(
        tenant_id=tenant_id,
        query=query,
        mode=mode,
        limit=limit,
        query_embedding=vector,
        embedding_model=MODEL,
    )
    return (time.perf_counter() - began) * 1000, [r.id for r in results]


def run(options: dict, stdout) -> dict:
    use_bench_database(options["database"], stdout)
    rng = random.Random(options["seed"])
    if options["reuse"]:
        from django.apps import apps

        Tenant = apps.get_model("tickets", "Tenant")
        tenants = {n: Tenant.objects.get(slug=f"scale-{n}") for n in _sizes(options["rows"])}
        timings = {}
    else:
        stdout.write(f"loading {options['total']:,} rows over {options['tenants']} tenants ...")
        tenants, timings = load(options, stdout)
    base = dict(getattr(settings, "BRAIN_RECALL", {}) or {})
    figures: dict = {
        "p50_ms": {},
        "p95_ms": {},
        "first_pass_p95_ms": {},
        "vector_recall_at_10_vs_exact": {},
        **timings,
    }
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM brain_memory")
        figures["rows_in_table"] = cursor.fetchone()[0]
    stdout.write(f"{figures['rows_in_table']:,} rows in the table")
    for size, tenant in sorted(tenants.items()):
        with connection.cursor() as cursor:
            queries = _queries(cursor, tenant.pk, options["queries"], rng)
        exact_ids = []
        for label, mode, strategy in (
            ("vector_exact", "vector", "exact"),
            ("lexical", "lexical", "hnsw"),
            ("vector", "vector", "hnsw"),
            ("hybrid", "hybrid", "hnsw"),
            ("hybrid_exact", "hybrid", "exact"),
        ):
            settings.BRAIN_RECALL = {**base, "VECTOR_STRATEGY": strategy}
            # A first pass over the same queries fills the buffer pool and recall's per-process caches:
            # the figures are steady-state latency, as a serving process sees it. The first pass is
            # reported too ("first_pass"): a cold buffer pool and cold caches.
            first = [_timed(query, vector, tenant.pk, mode)[0] for query, vector in queries]
            figures["first_pass_p95_ms"].setdefault(label, {})[size] = round(percentile(first, 95), 2)
            latencies, found = [], []
            for query, vector in queries:
                ms, ids = _timed(query, vector, tenant.pk, mode)
                latencies.append(ms)
                found.append(ids)
            if label == "vector_exact":
                exact_ids = found
            if label == "vector":
                hits = [len(set(a) & set(b)) / max(len(b), 1) for a, b in zip(found, exact_ids, strict=True)]
                figures["vector_recall_at_10_vs_exact"][size] = round(sum(hits) / len(hits), 4)
            figures["p50_ms"].setdefault(label, {})[size] = round(percentile(latencies, 50), 2)
            figures["p95_ms"].setdefault(label, {})[size] = round(percentile(latencies, 95), 2)
            stdout.write(
                f"  {size:>7,} rows  {label:<13} p50 {figures['p50_ms'][label][size]:>7.2f} ms  "
                f"p95 {figures['p95_ms'][label][size]:>7.2f} ms  (first pass p95 "
                f"{figures['first_pass_p95_ms'][label][size]:.2f} ms)"
            )
        stdout.write(
            f"  {size:>7,} rows  HNSW recall@10 vs exact: {figures['vector_recall_at_10_vs_exact'][size]}"
        )
    settings.BRAIN_RECALL = base
    # Query embedding, measured apart: the configured embedder on fresh (uncached) texts.
    from brain.embedders import get_embedder

    embedder = get_embedder()
    embedder.embed(["warm up the model"])
    texts = [f"{q} {i}" for i, (q, _) in enumerate(queries[:30])]
    times = []
    for text in texts:
        began = time.perf_counter()
        embedder.embed([text])
        times.append((time.perf_counter() - began) * 1000)
    figures["query_embedding_ms"] = {
        "embedder": embedder.name,
        "p50": round(percentile(times, 50), 2),
        "p95": round(percentile(times, 95), 2),
    }
    stdout.write(
        f"query embedding ({embedder.name}, uncached): p50 {figures['query_embedding_ms']['p50']} ms, p95 {figures['query_embedding_ms']['p95']} ms"
    )
    return figures
