"""Each large tenant's vectors in a graph of their own (issue 31): built when a tenant reaches the bound,
dropped when it shrinks, rebuilt after an interrupted build, walked only for its own tenant; a tenant
without one is served by the exact scan."""

import threading

import numpy as np
import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections, transaction

from brain.models import Memory
from brain.search import recall
from brain.search.graphs import graph_name, has_graph, plan_graphs, sync_graphs, walk_size
from config.db_backend.base import driver_params

from .test_vector_tier import MODEL, exact_top, fresh_tenant_graphs, steer_onto_the_hnsw_index

pytestmark = pytest.mark.usefixtures("transactional_db")


def rows_of(tenant, count, rng) -> dict[int, np.ndarray]:
    vectors = rng.normal(size=(count, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    memories = Memory.objects.bulk_create(
        Memory(tenant=tenant, type="fact", text=f"row {i}", embedding=v.tolist(), embedding_model=MODEL)
        for i, v in enumerate(vectors)
    )
    return {m.id: v for m, v in zip(memories, vectors, strict=True)}


def graphs_in_catalog() -> dict[str, bool]:
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'brain_memory'::regclass AND c.relname LIKE 'memory_graph_t%%'"""
        )
        return dict(cursor.fetchall())


@pytest.fixture
def no_graphs():
    fresh_tenant_graphs(min_rows=10**9)  # drops every graph, builds none
    yield
    fresh_tenant_graphs(min_rows=10**9)


def test_a_tenant_at_the_bound_gets_a_graph_and_a_smaller_one_does_not(tenant, other_tenant, no_graphs):
    rng = np.random.default_rng(31)
    rows_of(tenant, 60, rng)
    rows_of(other_tenant, 20, rng)
    assert plan_graphs(min_rows=50).build == {tenant.pk: 60}
    lines = []
    sync_graphs(min_rows=50, say=lines.append)
    assert graphs_in_catalog() == {graph_name(tenant.pk): True}
    assert has_graph(tenant.pk) and not has_graph(other_tenant.pk)
    assert lines[0].startswith("tenant graphs: 1 to build, 0 to drop") and "[1/1] built" in lines[1]
    # Run again: nothing to do (a graph built is kept).
    again = sync_graphs(min_rows=50)
    assert again.build == {} and again.drop == () and graphs_in_catalog() == {graph_name(tenant.pk): True}


def test_a_graph_is_dropped_once_its_tenant_holds_less_than_half_the_bound(tenant, no_graphs):
    rows = rows_of(tenant, 60, np.random.default_rng(32))
    sync_graphs(min_rows=50)
    Memory.objects.for_tenant(tenant).filter(
        id__in=list(rows)[:30]
    ).delete()  # 30 left: above half of 50, kept
    assert sync_graphs(min_rows=50).drop == () and has_graph(tenant.pk)
    Memory.objects.for_tenant(tenant).filter(id__in=list(rows)[30:40]).delete()  # 20 left: dropped
    assert sync_graphs(min_rows=50).drop == (tenant.pk,)
    assert graphs_in_catalog() == {} and not has_graph(tenant.pk)


def test_an_interrupted_build_is_dropped_and_built_again(tenant, no_graphs):
    """CREATE INDEX CONCURRENTLY that fails leaves an invalid index: here it waits for a transaction that
    writes to the table until its statement timeout cancels it, as a killed build would end."""
    rows_of(tenant, 60, np.random.default_rng(33))
    params = driver_params(connections["default"].settings_dict, migration=True)
    with psycopg.connect(**params) as writer, psycopg.connect(**params, autocommit=True) as builder:
        writer.execute("SELECT set_config('brain.tenant_id', %s, true)", [str(tenant.pk)])
        writer.execute("UPDATE brain_memory SET confidence = confidence WHERE tenant_id = %s", [tenant.pk])
        builder.execute("SET statement_timeout = 300")
        with pytest.raises(psycopg.errors.QueryCanceled):
            builder.execute(
                f"CREATE INDEX CONCURRENTLY {graph_name(tenant.pk)} ON brain_memory USING hnsw"
                f" (embedding vector_cosine_ops) WHERE tenant_id = {tenant.pk}::bigint"
            )
        writer.rollback()
    assert graphs_in_catalog() == {graph_name(tenant.pk): False}
    assert not has_graph(tenant.pk)  # an invalid index serves no walk
    plan = sync_graphs(min_rows=50)
    assert plan.invalid == (tenant.pk,) and plan.build == {tenant.pk: 60}
    assert graphs_in_catalog() == {graph_name(tenant.pk): True}


def test_recall_walks_the_tenants_own_graph_and_no_other(tenant, other_tenant, settings, no_graphs):
    rng = np.random.default_rng(34)
    rows = rows_of(tenant, 300, rng)
    rows_of(other_tenant, 300, rng)
    sync_graphs(min_rows=100)
    settings.BRAIN_RECALL = {"IN_MEMORY": False}
    query = list(rows.values())[7] + rng.normal(size=384) * 0.02
    query = (query / np.linalg.norm(query)).tolist()
    with transaction.atomic():
        steer_onto_the_hnsw_index(tenant, query)  # the tenant's graph, not the other tenant's
        results = recall(
            tenant_id=tenant.pk,
            query="row",
            mode="vector",
            limit=10,
            query_embedding=query,
            embedding_model=MODEL,
        )
    assert [r.id for r in results] == exact_top(rows, query)
    assert results[0].explanation["vector_strategy"] == "hnsw"


def test_a_tenant_without_a_graph_is_served_by_the_exact_scan(tenant, settings, no_graphs):
    rows = rows_of(tenant, 300, np.random.default_rng(35))
    settings.BRAIN_RECALL = {"IN_MEMORY": False}
    query = list(rows.values())[3].tolist()
    results = recall(
        tenant_id=tenant.pk,
        query="row",
        mode="vector",
        limit=10,
        query_embedding=query,
        embedding_model=MODEL,
    )
    assert [r.id for r in results] == exact_top(rows, query)
    assert results[0].explanation["vector_strategy"] == "exact"


def test_a_narrow_scope_of_a_large_tenant_is_served_exactly_when_the_walk_is_starved(
    tenant, settings, no_graphs
):
    """The tenant's graph holds 2,020 rows; the scope asked for holds 20 of them. Visiting at most 100 entries,
    the walk meets about one of the scope's rows, fewer than it was asked for: starved, the exact scan serves
    (the walk's answer alone would hold a row or two)."""
    rng = np.random.default_rng(36)
    rows_of(tenant, 2000, rng)
    vectors = rng.normal(size=(20, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    scoped = Memory.objects.bulk_create(
        Memory(
            tenant=tenant, type="fact", text=f"agent row {i}", scope_kind="agent", scope_id="a1",
            embedding=v.tolist(), embedding_model=MODEL,
        )
        for i, v in enumerate(vectors)
    )  # fmt: skip
    sync_graphs(min_rows=100)
    settings.BRAIN_RECALL = {"IN_MEMORY": False, "HNSW_EF_SEARCH": 40, "HNSW_MAX_SCAN_TUPLES": 100}
    query = (0.6 * vectors[5] + 0.4 * vectors[9]) / np.linalg.norm(0.6 * vectors[5] + 0.4 * vectors[9])
    with transaction.atomic(), connection.cursor() as cursor:
        # The planner would sort the scope's 20 rows (found through the scope's btree) rather than walk: made
        # to walk, as it does for a scope too large to sort.
        cursor.execute("SET LOCAL enable_sort = off")
        results = recall(
            tenant_id=tenant.pk, query="row", mode="vector", limit=10, query_embedding=query.tolist(),
            embedding_model=MODEL, scope_kind="agent", scope_ids=["a1"],
        )  # fmt: skip
    truth = exact_top({m.id: v for m, v in zip(scoped, vectors, strict=True)}, query.tolist())
    assert [r.id for r in results] == truth
    assert results[0].explanation["vector_strategy"] == "exact"


def test_the_command_reports_its_progress_and_refuses_what_it_cannot_do(
    tenant, other_tenant, no_graphs, capsys
):
    rows_of(tenant, 60, np.random.default_rng(37))
    call_command("memory_graphs", "--min-rows", "50", "--dry-run")
    out = capsys.readouterr().out
    assert (
        f"would build the graph of tenant {tenant.pk} (60 embedded rows)" in out and graphs_in_catalog() == {}
    )
    call_command("memory_graphs", "--min-rows", "50", "--tenant", other_tenant.slug)
    assert graphs_in_catalog() == {}  # the other tenant has no rows
    call_command("memory_graphs", "--min-rows", "50", "--tenant", tenant.slug)
    out = capsys.readouterr().out
    assert f"[1/1] built {graph_name(tenant.pk)} over 60 rows" in out and "tenant graphs up to date" in out
    with pytest.raises(CommandError, match="no tenant with slug 'nobody'"):
        call_command("memory_graphs", "--tenant", "nobody")
    with pytest.raises(CommandError, match="--min-rows must be a positive"):
        call_command("memory_graphs", "--min-rows", "-3")


def test_writes_go_on_while_a_graph_is_built(tenant, no_graphs):
    """The build is concurrent: a row written while it runs is stored, and the graph holds it."""
    rows_of(tenant, 400, np.random.default_rng(38))
    built = threading.Thread(target=sync_graphs, kwargs={"min_rows": 100})
    built.start()
    Memory.objects.create(tenant=tenant, type="fact", text="written during the build")
    built.join(timeout=60)
    assert graphs_in_catalog() == {graph_name(tenant.pk): True}
    assert Memory.objects.for_tenant(tenant).filter(text="written during the build").exists()


def test_a_walk_keeps_candidates_by_the_square_root_of_its_graphs_size(tenant, other_tenant, no_graphs):
    """HNSW_EF_SEARCH is what a 100k-row graph keeps; a 400-row graph keeps sqrt(400 / 100k) of it."""
    rows_of(tenant, 400, np.random.default_rng(39))
    sync_graphs(min_rows=100)
    assert walk_size(tenant.pk, 800, 100_000) == 51  # ceil(800 * 0.0632)
    assert walk_size(tenant.pk, 800, 100) == 1000  # pgvector's bound
    assert walk_size(other_tenant.pk, 800, 100_000) == 800  # no graph: the reference size
