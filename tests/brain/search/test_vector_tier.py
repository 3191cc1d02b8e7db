"""The vector tier finds what the exact scan finds, also for a query between two clusters of rows (the kind
of query an HNSW walk misses most: its true neighbours sit in two clusters the graph barely links)."""

import numpy as np
import psycopg
import pytest
from django.db import connection, connections, transaction

from brain.models import Memory
from brain.search import recall
from brain.search.backends.postgres import candidate_statement
from brain.search.engine import plan_recall
from brain.search.graphs import graph_name, sync_graphs
from brain.search.types import recall_settings
from config.db_backend.base import driver_params

MODEL = "synthetic-384"
CLUSTERS = 12


def planted(tenant, centres, rows_per_centre, rng) -> dict[int, np.ndarray]:
    """Rows of `tenant` around `centres` (each a centre plus noise, cosine about 0.9 to it): {id: vector}."""
    vectors = []
    for centre in centres:
        noise = rng.normal(size=(rows_per_centre, centre.size)) * 0.5 / np.sqrt(centre.size)
        vectors.extend(v / np.linalg.norm(v) for v in centre + noise)
    memories = Memory.objects.bulk_create(
        Memory(tenant=tenant, type="fact", text=f"row {i}", embedding=v.tolist(), embedding_model=MODEL)
        for i, v in enumerate(vectors)
    )
    return {memory.id: vector for memory, vector in zip(memories, vectors, strict=True)}


def fresh_tenant_graphs(min_rows: int = 1000) -> None:
    """The tenant graphs rebuilt over the committed rows (brain.search.graphs), by the tables' owner on a
    connection of its own (so a test calling it commits its rows: `transactional_db`): dropped first, so the
    graph holds none of the dead entries that earlier tests' rolled-back rows left (in production, until a
    vacuum), where, with the graph's random levels, a walk now and then could not reach the test's rows."""
    params = driver_params(connections["default"].settings_dict, migration=True)
    with psycopg.connect(**params, autocommit=True) as owner:
        for (name,) in owner.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'brain_memory' AND indexname LIKE 'memory_graph_t%'"
        ).fetchall():
            owner.execute(f"DROP INDEX {name}")
        sync_graphs(min_rows=min_rows, owner=owner)


@pytest.fixture
def clustered(transactional_db, tenant, other_tenant):
    """A small tenant (120 rows) and a larger other tenant (1,200 rows) on the same 12 clusters, and a query
    halfway between two of them. Each has a graph of its own (the bound lowered to 100 rows)."""
    rng = np.random.default_rng(18)
    centres = rng.normal(size=(CLUSTERS, 384))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    rows = planted(tenant, centres, 10, rng)
    planted(other_tenant, centres, 100, rng)
    fresh_tenant_graphs(min_rows=100)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE brain_memory")
    query = centres[0] + centres[1]
    return rows, centres, (query / np.linalg.norm(query)).tolist()


def exact_top(rows: dict[int, np.ndarray], query: list[float], k: int = 10) -> list[int]:
    """The tenant's k nearest rows by cosine, computed here, apart from the code under test."""
    ids = list(rows)
    scores = np.array([rows[i] for i in ids]) @ np.array(query)
    return [ids[i] for i in np.argsort(-scores, kind="stable")[:k]]


def vector_results(tenant, query, limit=10):
    return recall(
        tenant_id=tenant.pk,
        query="between",
        mode="vector",
        limit=limit,
        query_embedding=query,
        embedding_model=MODEL,
    )


def steer_onto_the_hnsw_index(tenant, query) -> None:
    """Make sorting prohibitive for the rest of the caller's transaction, so the planner walks the tenant's
    graph (as it does for a large tenant) instead of sorting this small tenant's rows; check that it does."""
    plan = plan_recall(
        tenant_id=tenant.pk,
        query="between",
        limit=10,
        mode="vector",
        details=True,
        with_embedding=False,
        config=recall_settings(),
        query_embedding=query,
        embedding_model=MODEL,
    )
    sql, params = candidate_statement(plan)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan_text = "\n".join(row[0] for row in cursor.fetchall())
    assert graph_name(tenant.pk) in plan_text and "memory_graph_t" not in plan_text.replace(
        graph_name(tenant.pk), ""
    )


def test_the_vector_tier_finds_the_exact_neighbours_of_a_query_between_two_clusters(
    tenant, clustered, settings
):
    rows, centres, query = clustered
    expected = exact_top(rows, query)
    # The truth is split between the two clusters, so a walk that settles in one of them misses part of it.
    assert {int(np.argmax(centres @ rows[i])) for i in expected} == {0, 1}
    results = vector_results(tenant, query)  # a small tenant: served in memory, by the exact scan
    assert [r.id for r in results] == expected and results[0].explanation["vector_strategy"] == "exact"
    settings.BRAIN_RECALL = {"IN_MEMORY": False}  # PostgreSQL, as for a large tenant
    assert [r.id for r in vector_results(tenant, query)] == expected
    with transaction.atomic():  # the steering's SET LOCALs last for the recall
        steer_onto_the_hnsw_index(tenant, query)
        results = vector_results(tenant, query)
    assert [r.id for r in results] == expected
    assert results[0].explanation["vector_strategy"] == "hnsw"


@pytest.mark.django_db
def test_vectors_travel_exactly_as_pgvector_stores_them():
    """The query's literal gives pgvector the float32 of each value, and the binary form read back (the
    in-memory backend's vectors, MMR's) gives those floats unchanged."""
    from brain.search.sql import vector_from_send, vector_literal

    rng = np.random.default_rng(11)
    values = np.concatenate([rng.normal(0, 0.08, 380), [1e-8, -3.4e38, 0.1, 1 / 3]])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT %s::vector::real[], vector_send(%s::vector)",
            [vector_literal(values), vector_literal(values)],
        )
        stored, sent = cursor.fetchone()
    expected = values.astype(np.float32)
    assert np.array_equal(np.asarray(stored, dtype=np.float32), expected)
    assert np.array_equal(vector_from_send(sent), expected)


@pytest.mark.django_db
def test_many_vectors_parse_at_once_as_each_parses_alone():
    """The PostgreSQL backend reads its vector candidates' vectors in one call (`vectors_from_send`)."""
    from brain.search.sql import vector_from_send, vector_literal, vectors_from_send

    rng = np.random.default_rng(12)
    rows = [rng.normal(0, 0.1, 384) for _ in range(5)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT vector_send(v::vector) FROM unnest(%s::text[]) AS v", [[vector_literal(r) for r in rows]]
        )
        sent = [row[0] for row in cursor.fetchall()]
    together = vectors_from_send(sent)
    assert together.dtype == np.float32
    assert np.array_equal(together, np.stack([vector_from_send(one) for one in sent]))
    with connection.cursor() as cursor:
        cursor.execute("SELECT vector_send('[1,2,3]'::vector)")
        (three,) = cursor.fetchone()
    assert np.array_equal(vectors_from_send([three, three]), np.array([[1, 2, 3]] * 2, dtype=np.float32))
