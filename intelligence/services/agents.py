"""Writes of the Intelligence app: agents, their settings, their memories (through `brain`), context traces.

Agent memories are written only through `brain.api`: `promote()` for a new memory (operators' manual
memories skip the judge, never the gate), `memory_update`, `memory_set_status` and `memory_supersede` for
changes. Every function here is tenant-scoped by the agent it is given; a memory id that is not this agent's
raises `AgentMemoryNotFound` (the same for "missing" and "another tenant's").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from brain import api as brain_api
from brain.api import MemoryCandidate, PromoteOutcome

from ..learning import learning_config_clean, learning_config_for
from ..models import Agent
from ..relevance import memory_relevance
from ..runtime import (
    BrandSection,
    CandidateMemory,
    ContextAssembly,
    ConversationScope,
    assemble_runtime_context,
    budget_clean,
    budget_for,
)

AGENT_MEMORY_TYPE = brain_api.MemoryType.AGENT_MEMORY.value
# What a trace keeps of the call's text for the transcript: a customer's message is far shorter; a caller
# that sends the whole conversation each turn has its newest messages (the end) kept.
REQUEST_TEXT_MAX_CHARS = 4000
SUBJECT_MAX_CHARS = 300


class AgentMemoryNotFound(Exception):
    """The memory is missing, another agent's, or another tenant's."""


class NoteKeptAsWritten(Exception):
    """An edit of a note the agent wrote itself: a note is kept as the agent wrote it; an operator promotes it
    (`agent_note_promote`) to change what the agent is told."""

    def __init__(self, memory_id: int):
        super().__init__(f"memory {memory_id} is a note the agent wrote")
        self.memory_id = memory_id


class AgentNameTaken(ValidationError):
    """Another agent of the tenant has the name: a conflict with what is stored, not a malformed name. A
    ValidationError under `name`, so the operator forms show it as any refusal; REST answers it 409."""

    def __init__(self, name: str):
        super().__init__({"name": ["Another agent of this tenant already has this name."]})
        self.name = name


def _save_named(agent: Agent, *, taken_by_others, **save) -> None:
    """Save `agent` unless another agent has its name; the unique constraint settles a race with a concurrent
    save the same way."""
    if taken_by_others.filter(name=agent.name).exists():
        raise AgentNameTaken(agent.name)
    try:
        with transaction.atomic():
            agent.save(**save)
    except IntegrityError as exc:
        if "agent_unique_name_per_tenant" not in str(exc):
            raise
        raise AgentNameTaken(agent.name) from exc


@transaction.atomic
def agent_create(
    *,
    tenant,
    name: str,
    kind: str = "knowledge",
    description: str = "",
    learning_config: dict | None = None,
    budget_overrides: dict | None = None,
) -> Agent:
    """Create an agent; the learning config is cleaned (spec defaults filled) and budgets validated. A name
    another agent of the tenant has raises AgentNameTaken."""
    agent = Agent(
        tenant=tenant,
        name=name.strip(),
        kind=kind,
        description=description,
        learning_config=learning_config_clean(learning_config or {}),
        budget_overrides=budget_clean(budget_overrides or {}),
    )
    agent.full_clean(exclude=["tenant"])
    _save_named(agent, taken_by_others=Agent.objects.for_tenant(tenant))
    return agent


@transaction.atomic
def agent_update(*, agent: Agent, **changes: Any) -> Agent:
    """Change an agent's name, kind, description, learning config or budget overrides (validated). A name
    another agent of the tenant has raises AgentNameTaken."""
    allowed = {"name", "kind", "description", "learning_config", "budget_overrides"}
    unknown = set(changes) - allowed
    if unknown:
        raise ValidationError({key: "This field cannot be changed." for key in unknown})
    if "learning_config" in changes:
        changes["learning_config"] = learning_config_clean(changes["learning_config"])
    if "budget_overrides" in changes:
        changes["budget_overrides"] = budget_clean(changes["budget_overrides"])
    if "name" in changes:
        changes["name"] = changes["name"].strip()
    for key, value in changes.items():
        setattr(agent, key, value)
    agent.full_clean(exclude=["tenant"])
    others = Agent.objects.for_tenant(agent.tenant_id).exclude(pk=agent.pk)
    _save_named(agent, taken_by_others=others, update_fields=[*changes, "updated_at"])
    return agent


def _choose(values) -> str:
    return f"Choose one of {', '.join(values)}."


def _clean_memory_fields(
    *, category: str, strength: str, text: str, provider: str, campaign_ids, tags, status: str | None = None
) -> dict[str, Any]:
    """An agent memory's content, taxonomy and scope, checked against brain's taxonomy and normalised: the
    keyword arguments of a `MemoryCandidate` / `memory_update` (raises ValidationError per field)."""
    errors: dict[str, str] = {}
    if category not in brain_api.MemoryCategory.values:
        errors["category"] = _choose(brain_api.MemoryCategory.values)
    if strength not in brain_api.MemoryStrength.values:
        errors["strength"] = _choose(brain_api.MemoryStrength.values)
    if status is not None and status not in brain_api.SETTABLE_STATUSES:
        errors["status"] = _choose(brain_api.SETTABLE_STATUSES)
    if not (text or "").strip():
        errors["text"] = "Write what the agent should know or do."
    if provider and provider not in brain_api.PROVIDERS:
        errors["provider"] = f"Choose one of {', '.join(brain_api.PROVIDERS)}, or leave it empty."
    campaign_ids = [str(c).strip() for c in campaign_ids or [] if str(c).strip()]
    tags = [str(t).strip() for t in tags or [] if str(t).strip()]
    for name, values in (("campaign_ids", campaign_ids), ("tags", tags)):
        if any(len(v) > 64 for v in values):
            errors[name] = "Each value must be at most 64 characters."
    if errors:
        raise ValidationError(errors)
    return {
        "category": category,
        "strength": strength,
        "text": text.strip(),
        "provider": provider or "",
        "campaign_ids": sorted(set(campaign_ids)),
        "tags": sorted(set(tags)),
    }


def _clean_over(current, *, status: str | None = None, **given: Any) -> dict[str, Any]:
    """`_clean_memory_fields` of the given values over a memory's current ones (None keeps the current)."""
    names = ("category", "strength", "text", "provider", "campaign_ids", "tags")
    if set(given) - set(names):
        raise TypeError(
            f"not an agent memory's content, taxonomy or scope: {sorted(set(given) - set(names))}"
        )
    merged = {name: getattr(current, name) if given.get(name) is None else given[name] for name in names}
    return _clean_memory_fields(**merged, status=status)


def _candidate(
    *, agent: Agent, actor: str, status: str, source: str, fields: dict[str, Any]
) -> MemoryCandidate:
    return MemoryCandidate(
        tenant_id=agent.tenant_id,
        type=AGENT_MEMORY_TYPE,
        surface="operator",
        scope_kind="agent",
        scope_id=str(agent.pk),
        status=status,
        source=source,
        actor=actor,
        # Operators' manual memories skip the judge, never the gate.
        skip_judge=source == "manual",
        confidence=0.7,
        **fields,
    )


def agent_memory_add(
    *,
    agent: Agent,
    actor: str,
    category: str,
    strength: str,
    text: str,
    status: str = "draft",
    provider: str = "",
    campaign_ids: list[str] | None = None,
    tags: list[str] | None = None,
    source: str = "manual",
) -> PromoteOutcome:
    """Add a memory to the agent (spec: Creating Memories) through `promote()`; status defaults to draft.

    Returns promote's outcome: `rejected` with a reason when the gate refused it (nothing written).
    """
    if source not in brain_api.MemorySource.values:
        raise ValidationError({"source": _choose(brain_api.MemorySource.values)})
    fields = _clean_memory_fields(
        category=category,
        strength=strength,
        text=text,
        provider=provider,
        campaign_ids=campaign_ids,
        tags=tags,
        status=status,
    )
    return brain_api.promote(
        _candidate(agent=agent, actor=actor, status=status, source=source, fields=fields)
    )


def _require_memory(agent: Agent, memory_id: int) -> brain_api.AgentMemoryRecord:
    record = brain_api.agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)
    if record is None:
        raise AgentMemoryNotFound(memory_id)
    return record


def agent_memory_edit(*, agent: Agent, memory_id: int, actor: str, **given: Any) -> bool:
    """Edit a memory's content, taxonomy and scope: any of `category`, `strength`, `text`, `provider`,
    `campaign_ids`, `tags` (one not given, or None, stays as it is). Through brain's `memory_update`: new
    content passes the gate and the duplicate backstop (`GateRejected`). Returns whether anything changed."""
    current = _require_memory(agent, memory_id)
    fields = _clean_over(current, **given)
    changes = {key: value for key, value in fields.items() if value != getattr(current, key)}
    if changes:
        brain_api.memory_update(tenant_id=agent.tenant_id, memory_id=memory_id, actor=actor, **changes)
    return bool(changes)


def agent_memory_set_status(*, agent: Agent, memory_id: int, status: str, actor: str) -> None:
    """Activate, mark stale, archive or return to draft. Superseding has its own service; a superseded
    memory keeps its status (brain raises `MemorySuperseded`: its newer memory is the live version)."""
    if status not in brain_api.SETTABLE_STATUSES:
        raise ValidationError({"status": _choose(brain_api.SETTABLE_STATUSES)})
    _require_memory(agent, memory_id)
    brain_api.memory_set_status(tenant_id=agent.tenant_id, memory_id=memory_id, status=status, actor=actor)


def agent_memory_supersede(
    *, agent: Agent, memory_id: int, actor: str, text: str, status: str = "active", **given: Any
) -> PromoteOutcome:
    """Replace a memory by a newer one: the old becomes superseded and points at the new (the chain). The
    newer memory keeps the old one's taxonomy and scope unless `given` (as for `agent_memory_edit`)."""
    old = _require_memory(agent, memory_id)
    fields = _clean_over(old, text=text, status=status, **given)
    candidate = _candidate(agent=agent, actor=actor, status=status, source="manual", fields=fields)
    candidate.supersedes_id = memory_id
    return brain_api.memory_supersede(tenant_id=agent.tenant_id, old_memory_id=memory_id, candidate=candidate)


# The strengths an agent's note may be promoted to: what reaches the prompt (a preference when relevant, a
# rule always).
NOTE_PROMOTION_STRENGTHS = ("preference", "hard_rule")


def agent_note_promote(
    *,
    agent: Agent,
    note_id: int,
    actor: str,
    category: str,
    strength: str,
    text: str,
    status: str = "active",
) -> PromoteOutcome:
    """Make a note the agent wrote itself (memory-append, chat-mined) an operator memory: a preference or a
    rule in the operator's wording, through brain's `note_promote` (promote()'s gate; the new memory is
    `derived_from` the note; the note's history records it). Returns promote's outcome (`rejected` with the
    gate's reason: nothing written). A note that is not this agent's raises `AgentMemoryNotFound`."""
    if strength not in NOTE_PROMOTION_STRENGTHS:
        raise ValidationError({"strength": "Promote a note to a preference or a rule."})
    if status not in ("active", "draft"):
        raise ValidationError({"status": _choose(("active", "draft"))})
    note = brain_api.agent_memory_get(
        tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=note_id, written_by="agent"
    )
    if note is None:
        raise AgentMemoryNotFound(note_id)
    fields = _clean_memory_fields(
        category=category, strength=strength, text=text, provider="", campaign_ids=[], tags=[], status=status
    )
    candidate = _candidate(agent=agent, actor=actor, status=status, source="manual", fields=fields)
    return brain_api.note_promote(tenant_id=agent.tenant_id, note_id=note.id, candidate=candidate)


# --- Runtime context ----------------------------------------------------------------------------------


@dataclass
class ContextRequest:
    """What the runtime is asked about: a conversation (or a ticket's subject and latest message) in a scope."""

    conversation: str = ""
    ticket_subject: str = ""
    ticket_message: str = ""
    provider: str = ""
    campaign_ids: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    policy: str = ""
    knowledge_base: str = ""

    @property
    def query(self) -> str:
        return " ".join(p for p in (self.ticket_subject, self.ticket_message, self.conversation) if p).strip()

    def request_text(self) -> str:
        """What the call carried, as the transcript shows it: the ticket's subject ("Subject: ..."), then its
        latest message and the conversation text; at most REQUEST_TEXT_MAX_CHARS, the end kept ("…" first)."""
        subject = " ".join(self.ticket_subject.split())[:SUBJECT_MAX_CHARS]
        head = f"Subject: {subject}\n\n" if subject else ""
        body = "\n\n".join(p.strip() for p in (self.ticket_message, self.conversation) if p.strip())
        room = REQUEST_TEXT_MAX_CHARS - len(head)
        if len(body) > room:
            body = "…" + body[-(room - 1) :]
        return (head + body).strip()

    def summary(self) -> dict[str, Any]:
        return {
            "query_chars": len(self.query),
            "query_excerpt": self.query[:200],
            "provider": self.provider,
            "campaign_ids": self.campaign_ids,
            "tags": self.tags,
            "policy_chars": len(self.policy),
            "knowledge_base_chars": len(self.knowledge_base),
        }


def _relevance(agent: Agent, query: str, records: tuple) -> dict[int, float]:
    """Relevance of the agent's active memories for this conversation (0 for those not found): the
    engine's hybrid score, calibrated (intelligence.relevance)."""
    preference_ids = {r.id for r in records if r.strength == "preference"}
    return memory_relevance(
        tenant_id=agent.tenant_id, agent_id=agent.pk, query=query, preference_ids=preference_ids
    )


def _pattern_weight(agent: Agent):
    """A pattern's weight under the agent's recency bias, now: 1.0 when created now, halved every half-life
    (none: 1.0 whatever its age). `LearningConfig.recency_weight` is the one rule, as for ratings."""
    config, now = learning_config_for(agent), timezone.now()
    if config.recency_bias == "none":
        return None

    def weight(memory: CandidateMemory) -> float:
        return 1.0 if memory.created_at is None else config.recency_weight(memory.created_at, now)

    return weight


def _brand_renderer(agent: Agent, request: ContextRequest):
    # Read-only: the runtime records Client Brain activity for what it injected in the write that stores the trace.
    def render(max_chars: int) -> BrandSection:
        client_brain = brain_api.client_brain_context_preview(
            tenant_id=agent.tenant_id,
            subject=request.ticket_subject or request.query[:200],
            latest_customer_message=request.ticket_message or request.conversation,
            mode="initial",
            max_chars=max_chars,
            tenant=agent.tenant,
        )
        return BrandSection(
            text=client_brain.prompt,
            memory_ids=tuple(client_brain.memory_ids),
            detail={"omitted": client_brain.omitted, "omitted_for_budget": client_brain.omitted_for_budget},
        )

    return render


# Per process: the runtime's candidates of an agent (relevance 0), built once for as long as brain keeps
# the same tuple of active memories (a new tuple comes with a new memory state); each call re-creates
# only the candidates recall found relevant.
_BASE_CANDIDATES = brain_api.DerivedCache(
    "runtime-base-candidates",
    bound=1024,
    keyed_on="(tenant, agent), rebuilt when brain's cached tuple of the agent's active memories (one per"
    " memory state of the agent's scope) is another object",
)


def _base_candidates(agent: Agent, records: tuple) -> list[CandidateMemory]:
    def build() -> list[CandidateMemory]:
        return [CandidateMemory.of(r) for r in records]

    return _BASE_CANDIDATES.get((agent.tenant_id, agent.pk), records, build)


def agent_context_assemble(
    *, agent: Agent, request: ContextRequest
) -> tuple[ContextAssembly, dict[str, int]]:
    """Load the agent's active memories and their relevance, then assemble. Writes nothing (the budget
    preview calls it as it is; the runtime's `agent_context_build` adds the trace and the activity).
    Returns the assembly (with how many of the agent's own notes match the conversation) and, per status,
    how many of the agent's memories were not candidates (not active)."""
    # The caches on this path are keyed by the memory states of the agent's scope and the tenant's (Client
    # Brain): read once; the reads go to a replica that has those states (brain/replicas.py), else the primary.
    scopes, read = [("agent", [agent.pk]), ("tenant", None)], lambda: _context_reads(agent, request)
    return brain_api.reads_on_replica(agent.tenant_id, scopes, read)


def _context_reads(agent: Agent, request: ContextRequest) -> tuple[ContextAssembly, dict[str, int]]:
    records, counts = brain_api.agent_runtime_memories(tenant_id=agent.tenant_id, agent_id=agent.pk)
    relevance = _relevance(agent, request.query, records)
    candidates = [
        c.with_relevance(relevance[c.id]) if c.id in relevance else c
        for c in _base_candidates(agent, records)
    ]
    assembly = assemble_runtime_context(
        candidates=candidates,
        scope=ConversationScope(
            provider=request.provider, campaign_ids=tuple(request.campaign_ids), tags=tuple(request.tags)
        ),
        budget=budget_for(agent.budget_overrides),
        policy_text=request.policy,
        knowledge_base_text=request.knowledge_base,
        brand=_brand_renderer(agent, request),
        pattern_weight=_pattern_weight(agent),
    )
    # Notes are never injected (spec: Notes): the answer says how many match, so the agent knows when
    # searching them is worth a call. No search when the agent has no note.
    assembly.notes_matching = brain_api.agent_notes_matching(
        tenant_id=agent.tenant_id,
        agent_id=agent.pk,
        query=request.query,
        mode=getattr(settings, "BRAIN_CONTEXT_RECALL_MODE", "fulltext"),
    )
    inactive = {status: n for status, n in counts.items() if status != "active"}
    return assembly, inactive


def omitted_ids_by_reason(omitted) -> dict[str, list[int]]:
    """What a trace keeps of omissions: memory ids per reason, in the assembly's order (compact: the
    trace is written on every runtime call; the response gives each omission's detail)."""
    by_reason: dict[str, list[int]] = {}
    for o in omitted:
        by_reason.setdefault(o.reason, []).append(o.memory_id)
    return by_reason
