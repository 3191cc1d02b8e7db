"""The BrainGraph: nodes and typed relations between memories and their provenance (tenant-scoped).

Formation writes the edges (`promote()`): a memory is `derived_from` the ticket, run or conversation it
came from, `about` its key's topic, `supersedes` the memory it replaced, `related_to` or `contradicts`
its close neighbours; a reinforcing source `reinforces` the memory it saw again. Reads are
`graph_neighbours()` (one memory's direct relations, for the API and the admin) and `expand_one_hop()`
(memory ids one relation away, for `recall` to widen a result set).

Writers must already hold a transaction; node and edge creation is idempotent (ON CONFLICT DO NOTHING),
so concurrent promotes touching the same node never fail on the unique constraints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from .models import BrainEdge, BrainNode, GraphNodeKind, GraphRelation, Memory, MemoryStatus

# Relations that join two memories; `expand_one_hop` follows these by default. `supersedes` is left out
# on purpose: recall should not bring back the value a newer memory replaced.
MEMORY_TO_MEMORY_RELATIONS = (GraphRelation.RELATED_TO, GraphRelation.CONTRADICTS, GraphRelation.REINFORCES)


@dataclass(frozen=True)
class GraphNeighbour:
    """One direct relation of a memory: `direction` is "out" (memory -relation-> node) or "in"."""

    relation: str
    direction: str
    node_kind: str
    ref: str
    label: str
    memory_id: int | None
    memory_status: str | None


@dataclass(frozen=True)
class NodeSpec:
    """A node to find or create: (tenant, kind, ref) names it; the rest is written only when it is new."""

    tenant_id: int
    kind: str
    ref: str
    scope_kind: str
    scope_id: str
    memory_id: int | None = None
    label: str = ""


def memory_node_spec(memory: Memory) -> NodeSpec:
    return NodeSpec(
        tenant_id=memory.tenant_id,
        kind=GraphNodeKind.MEMORY,
        ref=str(memory.pk),
        scope_kind=memory.scope_kind,
        scope_id=memory.scope_id,
        memory_id=memory.pk,
        label=(memory.key or memory.text)[:255],
    )


def node_spec(
    *, tenant_id: int, kind: str, ref: str, scope_kind: str, scope_id: str, label: str = ""
) -> NodeSpec:
    return NodeSpec(
        tenant_id=tenant_id,
        kind=kind,
        ref=str(ref)[:255],
        scope_kind=scope_kind,
        scope_id=scope_id,
        label=label,
    )


def node_for_memory(memory: Memory) -> BrainNode:
    return nodes_for([memory_node_spec(memory)])[0]


def node_for(
    *, tenant_id: int, kind: str, ref: str, scope_kind: str, scope_id: str, label: str = ""
) -> BrainNode:
    return nodes_for(
        [
            node_spec(
                tenant_id=tenant_id, kind=kind, ref=ref, scope_kind=scope_kind, scope_id=scope_id, label=label
            )
        ]
    )[0]


_NODE_COLUMNS = (
    "id",
    "tenant_id",
    "scope_kind",
    "scope_id",
    "kind",
    "ref",
    "memory_id",
    "label",
    "created_at",
)
_NODE_VALUES = "(%s, %s, %s, %s, %s, %s, %s, %s)"


def _nodes_sql(count: int) -> str:
    """One round trip for `count` nodes: those inserted, and those standing (a row another transaction is
    inserting right now is not in this statement's snapshot: it is read again, after the insert waited)."""
    return f"""
WITH new AS (
    INSERT INTO {BrainNode._meta.db_table} ({", ".join(_NODE_COLUMNS[1:])})
    VALUES {", ".join([_NODE_VALUES] * count)} ON CONFLICT DO NOTHING
    RETURNING {", ".join(_NODE_COLUMNS)})
SELECT * FROM new
UNION ALL
SELECT {", ".join(_NODE_COLUMNS)} FROM {BrainNode._meta.db_table}
WHERE (tenant_id, kind, ref) IN ({", ".join(["(%s, %s, %s)"] * count)})
"""


def _node_name(spec: NodeSpec) -> tuple[int, str, str]:
    # str(): a TextChoices member hashes by its name, not by its value as the row read back does.
    return (int(spec.tenant_id), str(spec.kind), str(spec.ref))


def nodes_for(specs: Sequence[NodeSpec]) -> list[BrainNode]:
    """The node of each spec, in order, created where missing: one statement for all of them. Idempotent;
    the caller holds a transaction. Nodes are inserted in the order given (a spec given twice, once)."""
    first: dict[tuple[int, str, str], NodeSpec] = {}
    for spec in specs:
        first.setdefault(_node_name(spec), spec)
    if not first:
        return []
    now = timezone.now()
    params: list = []
    for (tenant_id, kind, ref), s in first.items():
        params += [tenant_id, s.scope_kind, s.scope_id, kind, ref, s.memory_id, s.label[:255], now]
    for name in first:
        params += list(name)
    with connection.cursor() as cursor:
        cursor.execute(_nodes_sql(len(first)), params)
        rows = cursor.fetchall()
    found = {}
    for row in rows:
        node = BrainNode.from_db(connection.alias, _NODE_COLUMNS, row)
        found[(node.tenant_id, node.kind, node.ref)] = node
    for tenant_id, kind, ref in first:
        if (tenant_id, kind, ref) not in found:
            found[(tenant_id, kind, ref)] = BrainNode.objects.for_tenant(tenant_id).get(kind=kind, ref=ref)
    return [found[_node_name(spec)] for spec in specs]


@dataclass(frozen=True)
class EdgeSpec:
    source: BrainNode
    target: BrainNode
    relation: str
    weight: float = 1.0


def edge_add(*, source: BrainNode, target: BrainNode, relation: str, weight: float = 1.0) -> None:
    """Add `source -relation-> target` once (idempotent). Both nodes belong to the same tenant."""
    edges_add([EdgeSpec(source=source, target=target, relation=relation, weight=weight)])


def edges_add(edges: Sequence[EdgeSpec]) -> None:
    """`edge_add` for each of `edges`, in order, in one statement. A node's edge to itself is not added."""
    rows = []
    for edge in edges:
        if edge.source.tenant_id != edge.target.tenant_id:
            raise ValueError("a BrainGraph edge never crosses tenants")
        if edge.source.pk == edge.target.pk:
            continue
        rows.append(
            BrainEdge(
                tenant_id=edge.source.tenant_id,
                scope_kind=edge.source.scope_kind,
                scope_id=edge.source.scope_id,
                source=edge.source,
                target=edge.target,
                relation=edge.relation,
                weight=edge.weight,
            )
        )
    if rows:
        BrainEdge.objects.bulk_create(rows, ignore_conflicts=True)


def graph_neighbours(
    *, tenant_id: int, memory_id: int, relations: Sequence[str] | None = None, limit: int = 100
) -> list[GraphNeighbour]:
    """Every direct relation of one memory of `tenant_id`, newest first. [] when it has no node."""
    node = (
        BrainNode.objects.for_tenant(tenant_id).filter(kind=GraphNodeKind.MEMORY, memory_id=memory_id).first()
    )
    if node is None:
        return []
    edges = (
        BrainEdge.objects.for_tenant(tenant_id)
        .filter(Q(source=node) | Q(target=node))
        .select_related("source__memory", "target__memory")
        .order_by("-created_at", "-id")
    )
    if relations:
        edges = edges.filter(relation__in=list(relations))
    result = []
    for edge in edges[:limit]:
        direction, other = ("out", edge.target) if edge.source_id == node.pk else ("in", edge.source)
        memory = other.memory if other.memory_id else None
        result.append(
            GraphNeighbour(
                relation=edge.relation,
                direction=direction,
                node_kind=other.kind,
                ref=other.ref,
                label=other.label,
                memory_id=other.memory_id,
                memory_status=memory.status if memory else None,
            )
        )
    return result


def expand_one_hop(
    tenant_id: int,
    memory_ids: Iterable[int],
    *,
    relations: Sequence[str] = MEMORY_TO_MEMORY_RELATIONS,
    statuses: Sequence[str] = (MemoryStatus.ACTIVE,),
    limit: int | None = None,
) -> list[int]:
    """Ids of memories one relation away from `memory_ids` (either direction), not already in them.

    For `recall(..., expand=True)`: tenant-scoped, only memories in `statuses` (active by default),
    ordered by how many of the seeds point at them, then by id. Two queries whatever the seed count.
    """
    seeds = list(dict.fromkeys(int(i) for i in memory_ids))
    if not seeds:
        return []
    seed_nodes = BrainNode.objects.for_tenant(tenant_id).filter(
        kind=GraphNodeKind.MEMORY, memory_id__in=seeds
    )
    edges = BrainEdge.objects.for_tenant(tenant_id).filter(relation__in=list(relations))
    pairs = list(
        edges.filter(Q(source__in=seed_nodes) | Q(target__in=seed_nodes)).values_list(
            "source__memory_id", "target__memory_id"
        )
    )
    seed_set = set(seeds)
    counts: dict[int, int] = {}
    for a, b in pairs:
        for other, this in ((a, b), (b, a)):
            if this in seed_set and other is not None and other not in seed_set:
                counts[other] = counts.get(other, 0) + 1
    if not counts:
        return []
    allowed = set(
        Memory.objects.for_tenant(tenant_id)
        .filter(pk__in=list(counts), status__in=list(statuses))
        .values_list("pk", flat=True)
    )
    ordered = sorted((m for m in counts if m in allowed), key=lambda m: (-counts[m], m))
    return ordered[:limit] if limit else ordered
