"""Recall at scale: lexical, vector and hybrid latency for tenants of 1k, 10k and 100k rows in a big table.

Synthetic memories are generated inside PostgreSQL (INSERT ... SELECT over generate_series: Zipf-ish
words from a fixed vocabulary, unit vectors around 200 cluster centres built with pgvector arithmetic), so
loading a million rows costs no Python per row. The search indexes are dropped before the load and rebuilt
after it, each build timed.

Then, per measured tenant, three kinds of query (`_query_sets`): near-copies of stored rows, queries at
cosine 0.5 to their nearest row, and queries between two clusters. Each method (lexical, vector and hybrid;
the vector tier as HNSW with iterative scans and as the exact per-tenant scan) first runs a warm-up set of
its own, then the timed set, which the warm-up never saw: latency p50/p95/p99 per kind (the query vector is
given, so query embedding is excluded; it is measured apart with the configured embedder), the HNSW tier's
recall@10 against the exact scan per kind (`recall_vs_exact`), the share of queries whose exact nearest row is
in hybrid's ten (`hybrid_keeps_nearest`: a near-copy's is its source row), the mean cosine of each kind to its
nearest row (`nearest_cosine`), and the same at other `hnsw.ef_search` values (`--ef-search-sweep`).

Runs in its own database (default `brain_bench_scale`): a million rows must not land in the
development database, nor slow other benchmarks' database.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection

from brain.benchmarks.common import fresh_tenant, percentile, use_bench_database
from brain.search import recall
from brain.search.graphs import PREFIX, graph_name, owner_connection, sync_graphs
from brain.search.types import recall_settings
from config.db_backend.base import migration_role

MODEL = "synthetic-384"
SEARCH_INDEXES = (
    "memory_tenant_lexemes",
    "memory_tenant_trigrams",
    "memory_tenant_trgm",
)
CLUSTERS = 200


def add_arguments(parser) -> None:
    parser.add_argument("--rows", type=int, default=100_000, help="Rows of the largest measured tenant.")
    parser.add_argument(
        "--tenants", type=int, default=10, help="Tenants in the table (3 measured + fillers)."
    )
    parser.add_argument("--total", type=int, default=1_000_000, help="Rows in the whole table.")
    parser.add_argument(
        "--queries",
        type=int,
        default=50,
        help="Queries per kind, method and tenant size (and as many to warm up).",
    )
    parser.add_argument("--database", default="brain_bench_scale")
    parser.add_argument("--reuse", action="store_true", help="Measure an already loaded database (no load).")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--extra-graphs",
        type=int,
        default=0,
        help="Tenant graphs of other (empty) tenants to add while measuring: the planner weighs every one.",
    )
    parser.add_argument(
        "--ef-search-sweep",
        default="100,600,800",
        help="hnsw.ef_search values the vector tier is also measured at (recall and latency per kind); '' skips.",
    )


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
    # Truncating, dropping and building indexes and the generator tables are the schema owner's to do.
    with migration_role(connection), connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'brain_memory' AND indexname = ANY(%s)",
            [list(SEARCH_INDEXES)],
        )
        definitions = dict(cursor.fetchall())
        cursor.execute("TRUNCATE brain_memory CASCADE")
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'brain_memory' AND indexname LIKE %s",
            [PREFIX + "%"],
        )
        graphs = [name for (name,) in cursor.fetchall()]  # the tenant graphs of an earlier load's tenants
        for name in [*definitions, *graphs]:
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
        cursor.execute("DROP TABLE IF EXISTS bench_phrase, bench_noise")
    # The tenants' own HNSW graphs, as `manage.py memory_graphs` builds them (brain.search.graphs).
    began = time.perf_counter()
    sync_graphs(min_rows=int(recall_settings()["TENANT_GRAPH_MIN_ROWS"]), say=stdout.write)
    timings["index_tenant_graphs_s"] = round(time.perf_counter() - began, 1)
    with migration_role(connection), connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE brain_memory")
        # The cluster centres stay: queries between two clusters are built from them (`--reuse` too).
    timings["rows_total"] = offset
    return tenants, timings


# --- Measuring ----------------------------------------------------------------------------------------------


KINDS = ("near_copy", "cosine_half", "between_clusters")


@dataclass(frozen=True)
class Query:
    """One benchmark query: its kind, its words and its vector (unit length)."""

    kind: str
    text: str
    vector: list[float]


def _unit(vector: np.ndarray) -> list[float]:
    return (vector / np.linalg.norm(vector)).tolist()


def _words(text: str, rng: random.Random) -> str:
    words = text.split()
    return " ".join(rng.sample(words, min(len(words), rng.randint(2, 3))))


def _query_sets(cursor, tenant_id: int, count: int, rng: random.Random) -> tuple[list[Query], list[Query]]:
    """Two disjoint sets of `count` queries of each kind (warm-up, timed), none built from the other's rows
    or centres:

    - `near_copy`: a stored row plus a little noise (cosine about 0.93 to that row), words from the row;
    - `cosine_half`: a stored row mixed with a random direction orthogonal to it, cosine 0.5 to the row
      (its nearest row is about as close), words from the row;
    - `between_clusters`: a point on the segment between two cluster centres (40-60% of the way), about
      equally far from both clusters' rows, words from two rows.
    """
    cursor.execute("SELECT id FROM brain_memory WHERE tenant_id = %s", [tenant_id])
    tenant_ids = [row[0] for row in cursor.fetchall()]
    count = min(count, len(tenant_ids) // 8)
    ids = rng.sample(tenant_ids, 8 * count)  # 4 * count rows per set: two kinds from one row, one from two
    cursor.execute("SELECT id, text, embedding::text FROM brain_memory WHERE id = ANY(%s)", [ids])
    rows = {row_id: (text, np.array(json.loads(vector))) for row_id, text, vector in cursor.fetchall()}
    rows = [rows[row_id] for row_id in ids]
    cursor.execute("SELECT v::text FROM bench_centre ORDER BY i")
    centres = [np.array(_unit(np.array(json.loads(v)))) for (v,) in cursor.fetchall()]
    pairs = rng.sample([(a, b) for a in range(len(centres)) for b in range(a + 1, len(centres))], 2 * count)
    np_rng = np.random.default_rng(rng.randint(0, 2**31))
    sets: tuple[list[Query], list[Query]] = ([], [])
    for half, queries in enumerate(sets):
        own = rows[half * 4 * count : (half + 1) * 4 * count]
        for text, vector in own[:count]:
            noisy = vector + np_rng.normal(size=vector.shape) * 0.02
            queries.append(Query("near_copy", _words(text, rng), _unit(noisy)))
        for text, vector in own[count : 2 * count]:
            direction = np_rng.normal(size=vector.shape)
            direction -= direction.dot(vector) * vector
            mixed = 0.5 * vector + np.sqrt(0.75) * direction / np.linalg.norm(direction)
            queries.append(Query("cosine_half", _words(text, rng), _unit(mixed)))
        words = [_words(text, rng) for text, _ in own[2 * count :]]
        for i, (a, b) in enumerate(pairs[half * count : (half + 1) * count]):
            t = rng.uniform(0.4, 0.6)
            point = t * centres[a] + (1 - t) * centres[b]
            queries.append(Query("between_clusters", f"{words[2 * i]} {words[2 * i + 1]}", _unit(point)))
    return sets


@dataclass(frozen=True)
class Timed:
    """One recall, timed: its milliseconds, result ids, the best result's vector score (0 without one) and
    the vector strategy that served it (`exact` under `hnsw` when the tier fell back)."""

    ms: float
    ids: list[int]
    best: float
    strategy: str | None


def _timed(query: Query, tenant_id: int, mode: str, limit: int = 10) -> Timed:
    began = time.perf_counter()
    results = recall(
        tenant_id=tenant_id,
        query=query.text,
        mode=mode,
        limit=limit,
        query_embedding=query.vector,
        embedding_model=MODEL,
    )
    elapsed = (time.perf_counter() - began) * 1000
    top = results[0].explanation if results else {}
    best = top.get("tiers", {}).get("vector", {}).get("score", 0.0)
    return Timed(elapsed, [r.id for r in results], best, top.get("vector_strategy"))


# label -> (recall mode, vector strategy). The exact vector scan runs first: it is the truth recall is
# measured against.
LABELS = {
    "vector_exact": ("vector", "exact"),
    "lexical": ("lexical", "hnsw"),
    "vector": ("vector", "hnsw"),
    "hybrid": ("hybrid", "hnsw"),
    "hybrid_exact": ("hybrid", "exact"),
}


def _spread(latencies: list[float]) -> dict[str, float]:
    return {f"p{q}": round(percentile(latencies, q), 2) for q in (50, 95, 99)}


def _recall_at_10(found: list[list[int]], truth: list[list[int]]) -> float:
    hits = [len(set(a) & set(b)) / max(len(b), 1) for a, b in zip(found, truth, strict=True)]
    return round(sum(hits) / len(hits), 4)


def _keeps_nearest(found: list[list[int]], truth: list[list[int]]) -> float:
    kept = [bool(t) and t[0] in f for f, t in zip(found, truth, strict=True)]
    return round(sum(kept) / max(len(kept), 1), 3)


def _measure_size(tenant_id: int, warmup: list[Query], timed: list[Query], base: dict) -> dict:
    """One tenant: per label, a warm-up pass over its own queries, then the timed queries per kind."""
    out: dict = {
        "latency_ms": {},
        "warmup_p95_ms": {},
        "recall_vs_exact": {},
        "nearest_cosine": {},
        "vector_fell_back": {},
        "hybrid_keeps_nearest": {},
    }
    truth: dict[str, list[list[int]]] = {}
    for label, (mode, strategy) in LABELS.items():
        settings.BRAIN_RECALL = {**base, "VECTOR_STRATEGY": strategy}
        # The warm-up fills the buffer pool and recall's per-process caches with queries the timed pass
        # never repeats: the timed figures are a serving process's, on queries it has not seen.
        first = [_timed(query, tenant_id, mode).ms for query in warmup]
        out["warmup_p95_ms"][label] = round(percentile(first, 95), 2)
        for kind in KINDS:
            runs = [_timed(query, tenant_id, mode) for query in timed if query.kind == kind]
            out["latency_ms"].setdefault(kind, {})[label] = _spread([run.ms for run in runs])
            found = [run.ids for run in runs]
            if label == "vector_exact":
                truth[kind] = found
                out["nearest_cosine"][kind] = round(float(np.mean([run.best for run in runs])), 3)
            if label == "vector":
                out["recall_vs_exact"][kind] = _recall_at_10(found, truth[kind])
                # Queries whose walk found fewer rows than the pool and whose exact scan then found other rows.
                out["vector_fell_back"][kind] = sum(run.strategy == "exact" for run in runs)
            if label == "hybrid":  # the exact nearest row among hybrid's ten: a near-copy's source row
                out["hybrid_keeps_nearest"][kind] = _keeps_nearest(found, truth[kind])
    out["truth"] = truth
    return out


def _sweep(tenant_id: int, timed: list[Query], truth: dict, base: dict, values: list[int]) -> dict:
    """The vector tier (HNSW) at each `hnsw.ef_search` of `values`: recall against the exact scan and
    latency per kind, side by side in one process (the cost of each option)."""
    sweep: dict = {}
    for ef in values:
        settings.BRAIN_RECALL = {**base, "VECTOR_STRATEGY": "hnsw", "HNSW_EF_SEARCH": ef}
        for kind in KINDS:
            runs = [_timed(query, tenant_id, "vector") for query in timed if query.kind == kind]
            sweep.setdefault(str(ef), {})[kind] = {
                "recall_vs_exact": _recall_at_10([run.ids for run in runs], truth[kind]),
                **_spread([run.ms for run in runs]),
            }
    return sweep


def _print_size(size: int, measured: dict, stdout, table: str) -> None:
    """Every line names the table it was measured in (its rows and size) beside the tenant's rows."""
    for kind in KINDS:
        stdout.write(
            f"  {table} {size:>7,} rows  {kind:<16} nearest row at cosine {measured['nearest_cosine'][kind]:.3f}; "
            f"HNSW recall@10 vs exact {measured['recall_vs_exact'][kind]:.3f} "
            f"({measured['vector_fell_back'][kind]} served by the exact scan); the nearest row in hybrid's ten "
            f"{measured['hybrid_keeps_nearest'][kind]:.3f}"
        )
        for label, spread in measured["latency_ms"][kind].items():
            stdout.write(
                f"  {table} {size:>7,} rows  {kind:<16} {label:<13} p50 {spread['p50']:>7.2f}"
                f"  p95 {spread['p95']:>7.2f}  p99 {spread['p99']:>7.2f} ms"
            )
    for ef, kinds in measured.get("ef_search_sweep", {}).items():
        stdout.write(
            f"  {table} {size:>7,} rows  ef_search {ef:>5}: "
            + "; ".join(
                f"{kind} recall {v['recall_vs_exact']:.3f} p50 {v['p50']:.2f} p95 {v['p95']:.2f} ms"
                for kind, v in kinds.items()
            )
        )


def run(options: dict, stdout) -> dict:
    started = time.perf_counter()
    use_bench_database(options["database"], stdout)
    rng = random.Random(options["seed"])
    if options["reuse"]:
        from django.apps import apps

        Tenant = apps.get_model("tenancy", "Tenant")
        tenants = {n: Tenant.objects.get(slug=f"scale-{n}") for n in _sizes(options["rows"])}
        timings = {}
    else:
        stdout.write(f"loading {options['total']:,} rows over {options['tenants']} tenants ...")
        tenants, timings = load(options, stdout)
    base = dict(getattr(settings, "BRAIN_RECALL", {}) or {})
    figures: dict = {"kinds": list(KINDS), "queries_per_kind": options["queries"], **timings}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), pg_relation_size('brain_memory'), pg_indexes_size('brain_memory'),"
            " pg_total_relation_size('brain_memory') FROM brain_memory"
        )
        rows, heap, indexes, total = cursor.fetchone()
    figures |= {"rows_in_table": rows, "table_bytes": heap, "indexes_bytes": indexes, "total_bytes": total}
    table = f"[table {rows:,} rows, {total / 2**30:.2f} GiB]"
    stdout.write(
        f"{rows:,} rows in the table: heap {heap / 2**20:,.0f} MiB, indexes {indexes / 2**20:,.0f} MiB,"
        f" with TOAST {total / 2**20:,.0f} MiB in all"
    )
    sweep_values = [int(v) for v in options["ef_search_sweep"].split(",") if v.strip()]
    extra = _extra_graphs(options["extra_graphs"], stdout)
    figures["tenant_graphs"] = _graph_count()
    stdout.write(f"{figures['tenant_graphs']} tenant graphs on the table ({len(extra)} of empty tenants)")
    try:
        _measure_sizes(tenants, options, rng, base, sweep_values, figures, table, stdout)
    finally:
        _drop_graphs(extra)
    figures["query_embedding_ms"] = _query_embedding(figures.pop("_last_timed"), stdout)
    figures["seconds"] = round(time.perf_counter() - started, 1)
    stdout.write(f"the run took {figures['seconds']:.0f} s")
    return figures


def _measure_sizes(tenants, options, rng, base, sweep_values, figures, table, stdout) -> None:
    for size, tenant in sorted(tenants.items()):
        # The generator's centre table belongs to the schema's owner, as the load does.
        with migration_role(connection), connection.cursor() as cursor:
            warmup, timed = _query_sets(cursor, tenant.pk, options["queries"], rng)
        try:
            measured = _measure_size(tenant.pk, warmup, timed, base)
            truth = measured.pop("truth")
            if sweep_values:
                measured["ef_search_sweep"] = _sweep(tenant.pk, timed, truth, base, sweep_values)
        finally:
            settings.BRAIN_RECALL = base
        _print_size(size, measured, stdout, table)
        for key, value in measured.items():
            figures.setdefault(key, {})[str(size)] = value
        figures["_last_timed"] = timed


def _graph_count() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_indexes WHERE tablename = 'brain_memory' AND indexname LIKE %s",
            [PREFIX + "%"],
        )
        return cursor.fetchone()[0]


def _extra_graphs(count: int, stdout) -> list[str]:
    """`count` graphs of tenants that hold no row (ids no tenant has): what the planner weighs on a table
    whose other tenants have graphs of their own, each measured query paying for every one."""
    names = [graph_name(10**12 + n) for n in range(count)]
    if names:
        stdout.write(f"adding {count} tenant graphs of empty tenants ...")
        with owner_connection() as owner:
            for name in names:
                tenant_id = int(name[len(PREFIX) :])
                owner.execute(
                    f"CREATE INDEX IF NOT EXISTS {name} ON brain_memory USING hnsw (embedding vector_cosine_ops)"
                    f" WHERE tenant_id = {tenant_id}::bigint"
                )
    return names


def _drop_graphs(names: list[str]) -> None:
    if names:
        with owner_connection() as owner:
            for name in names:
                owner.execute(f"DROP INDEX IF EXISTS {name}")


def _query_embedding(queries: list[Query], stdout) -> dict:
    """The configured embedder on fresh (uncached) texts, one query at a time, measured apart."""
    from brain.embedders import get_embedder

    embedder = get_embedder()
    embedder.embed(["warm up the model"])
    times = []
    for i, query in enumerate(queries[:30]):
        began = time.perf_counter()
        embedder.embed([f"{query.text} {i}"])
        times.append((time.perf_counter() - began) * 1000)
    figures = {"embedder": embedder.name, **_spread(times)}
    stdout.write(
        f"query embedding ({embedder.name}, uncached, one at a time): p50 {figures['p50']} ms, p95 {figures['p95']} ms"
    )
    return figures
