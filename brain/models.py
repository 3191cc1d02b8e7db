"""The one memory table (decision 1) and its history.

Every write surface — Client Brain learning, an agent's memories and `memory_append` notes, an App's
learned lessons, chat-mined memory — stores rows here, told apart by scope kind and type. A typed JSON
payload holds the shape of each family; `text` is its rendered form and feeds search.

`brain` never imports `tickets` or `intelligence`: the tenant is referred to by its string name.
Rows are read with `Memory.objects.for_tenant(tenant)`; writes go through `brain.api.promote()`.
"""

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Func
from pgvector.django import VectorField

from tickets.tenancy.managers import TenantScopedManager

EMBEDDING_DIMENSIONS = 384
SEARCH_CONFIG = "english"
# SQL functions (migration 0019): a row's lexemes, and its trigrams, each prefixed with its tenant.
TENANT_LEXEMES_FUNCTION = "brain_tenant_lexemes"
TENANT_TRIGRAMS_FUNCTION = "brain_tenant_trigrams"


class BrainScopeKind(models.TextChoices):
    """Whose memory a row is: the tenant's (Client Brain), one agent's, one App's, one conversation's."""

    TENANT = "tenant", "Tenant"
    AGENT = "agent", "Agent"
    APP = "app", "App"
    CONVERSATION = "conversation", "Conversation"


class MemoryType(models.TextChoices):
    # Client Brain families (spec: client_brain.txt).
    BUSINESS = "business", "Business"
    VOICE = "voice", "Voice"
    ISSUES = "issues", "Issues"
    PROCESS = "process", "Process"
    # Agent memories edited in the Intelligence tab (spec: intelligence_and_learning.txt).
    AGENT_MEMORY = "agent_memory", "Agent memory"
    # Other write surfaces (spec: shared_intelligence.txt).
    NOTE = "note", "Agent note (memory_append)"
    LESSON = "lesson", "App lesson"
    CHAT = "chat", "Chat-mined memory"
    FACT = "fact", "Fact"


# What an agent writes itself into its own scope (memory-append notes, memories mined from its chats): stored
# for reference, never injected (spec: Notes); listed under "Written by the agent" (brain/agent_memories.py).
AGENT_WRITTEN_TYPES = (MemoryType.NOTE.value, MemoryType.CHAT.value)


class MemoryStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ACTIVE = "active", "Active"
    STALE = "stale", "Stale"
    ARCHIVED = "archived", "Archived"
    SUPERSEDED = "superseded", "Superseded"


# The statuses an operator sets directly; "superseded" is reached only by superseding with a newer memory.
SETTABLE_STATUSES = tuple(s for s in MemoryStatus.values if s != MemoryStatus.SUPERSEDED)


class MemoryStrength(models.TextChoices):
    HARD_RULE = "hard_rule", "Rule"
    PREFERENCE = "preference", "Preference"
    HEURISTIC = "heuristic", "Pattern"
    CONTEXT_NOTE = "context_note", "Note"


class MemoryCategory(models.TextChoices):
    FACT = "fact", "Fact"
    PREFERENCE = "preference", "Preference"
    CORRECTION = "correction", "Correction"
    INSTRUCTION = "instruction", "Instruction"


class MemorySource(models.TextChoices):
    MANUAL = "manual", "Manual"
    SUGGESTED = "suggested", "Suggested"
    DERIVED = "derived", "Derived"


class WriteSurface(models.TextChoices):
    """Which write surface proposed a memory; every one of them passes the same gate."""

    CLIENT_BRAIN = "client_brain", "Client Brain learner"
    MEMORY_APPEND = "memory_append", "Agent memory_append"
    APP_LESSON = "app_lesson", "App learned outcome"
    CHAT = "chat", "Chat-mined"
    OPERATOR = "operator", "Operator edit"
    SUGGESTION = "suggestion", "Suggested from feedback"
    IMPORT = "import", "Import / benchmark"


# The GIN indexes' pending-list limit, in kB (PostgreSQL's default is 4096): a lookup reads at most this much
# of entries not yet merged, whoever wrote them.
GIN_PENDING_KB = 64


class Memory(models.Model):
    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="memories")
    scope_kind = models.CharField(
        max_length=16, choices=BrainScopeKind.choices, default=BrainScopeKind.TENANT
    )
    # The scope's owner: an agent id, an App id, a conversation id; "" for the tenant scope.
    scope_id = models.CharField(max_length=64, blank=True, default="")
    # Stored as text, not constrained to MemoryType: historical rows may hold unsupported values,
    # which the dashboard shows as legacy memory format.
    type = models.CharField(max_length=32, db_index=False)
    key = models.CharField(max_length=255, blank=True, default="")
    payload = models.JSONField(default=dict, blank=True)
    text = models.TextField(blank=True, default="")
    # May hold legacy invalid values (NaN, infinity, < 0, > 1); every read path admits only finite
    # values in its range (decision 4). Null means "never graded".
    confidence = models.FloatField(null=True, blank=True, default=0.7)
    status = models.CharField(max_length=16, choices=MemoryStatus.choices, default=MemoryStatus.ACTIVE)
    strength = models.CharField(max_length=16, choices=MemoryStrength.choices, blank=True, default="")
    category = models.CharField(max_length=16, choices=MemoryCategory.choices, blank=True, default="")
    source = models.CharField(max_length=16, choices=MemorySource.choices, default=MemorySource.DERIVED)
    surface = models.CharField(max_length=24, choices=WriteSurface.choices, default=WriteSurface.IMPORT)
    # Applicability scope of agent memories: empty means "applies everywhere".
    provider = models.CharField(max_length=32, blank=True, default="")
    campaign_ids = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    tags = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    # Recorded activity lives in MemoryActivity: counting it here rewrote every index entry of the row.
    # How many times formation saw this memory again (reinforcements + 1).
    frequency = models.PositiveIntegerField(default=1)
    provenance = models.JSONField(default=list, blank=True)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True, default="")
    search_vector = models.GeneratedField(
        expression=SearchVector("key", weight="A", config=SEARCH_CONFIG)
        + SearchVector("text", weight="B", config=SEARCH_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    # The search keys the lexical tiers find a tenant's rows by, each carrying the tenant ("12:refund"), so
    # a GIN posting list, and the work of reading it, belongs to one tenant: a tenant's search never reads
    # another's postings, whose size told when some tenant held a word (issue 29; brain/search/sql.py).
    # `search_vector`'s lexemes, and the pg_trgm trigrams of key and text (SQL functions of migration 0019).
    tenant_lexemes = models.GeneratedField(
        expression=Func(F("tenant"), F("key"), F("text"), function=TENANT_LEXEMES_FUNCTION),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    tenant_trigrams = models.GeneratedField(
        expression=Func(F("tenant"), F("key"), F("text"), function=TENANT_TRIGRAMS_FUNCTION),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=False)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantScopedManager()

    class Meta:
        verbose_name_plural = "memories"
        indexes = [
            models.Index(
                fields=["tenant", "scope_kind", "scope_id", "status"], name="memory_tenant_scope_status"
            ),
            models.Index(fields=["tenant", "type", "confidence"], name="memory_tenant_type_conf"),
            # The lexical tiers' indexes: their keys carry the tenant (the columns keep no statistics: 0019).
            # Each GIN index's pending list (new entries not yet merged, read whole by every lookup) is held to
            # GIN_PENDING_KB: at PostgreSQL's 4 MB, other tenants' recent writes added up to 512 pages to each
            # lookup (0026).
            GinIndex(
                fields=["tenant_lexemes"], name="memory_tenant_lexemes", gin_pending_list_limit=GIN_PENDING_KB
            ),
            GinIndex(
                fields=["tenant_trigrams"],
                name="memory_tenant_trigrams",
                gin_pending_list_limit=GIN_PENDING_KB,
            ),
            # btree_gin lets the tenant lead the GIN index (the formation judge's `%`).
            GinIndex(
                fields=["tenant", "key", "text"],
                name="memory_tenant_trgm",
                opclasses=["int8_ops", "gin_trgm_ops", "gin_trgm_ops"],
                gin_pending_list_limit=GIN_PENDING_KB,
            ),
            # No HNSW index over every tenant: each large tenant's vectors have a graph of their own, a
            # partial index made by brain.search.graphs (migration 0023).
        ]

    def __str__(self) -> str:
        return f"[{self.type}] {self.key or self.text[:60]}"


class MemoryHistory(models.Model):
    """Every change to a memory: what, who or which process, when, before and after."""

    class Action(models.TextChoices):
        ADDED = "added", "Added"
        REINFORCED = "reinforced", "Reinforced"
        SUPERSEDED = "superseded", "Superseded"
        REJECTED = "rejected", "Rejected"
        UPDATED = "updated", "Updated"
        STATUS_CHANGED = "status_changed", "Status changed"
        VERDICT = "verdict", "Verdict applied"
        ARCHIVED = "archived", "Archived"
        EMBEDDED = "embedded", "Embedded"
        # An operator made this note of an agent's a memory of their own (`after["memory_id"]`).
        PROMOTED = "promoted", "Promoted to an operator memory"

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    # Kept when the memory is gone; null for rejections (nothing was written).
    memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="history"
    )
    action = models.CharField(max_length=20, choices=Action.choices)
    actor = models.CharField(max_length=120, help_text="user:<id>, api-key:<prefix>, or process:<name>")
    surface = models.CharField(max_length=24, blank=True, default="")
    reason = models.CharField(max_length=64, blank=True, default="")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        verbose_name_plural = "memory history"
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["tenant", "memory", "-at"], name="history_tenant_memory"),
            models.Index(fields=["tenant", "action", "surface", "reason"], name="history_tenant_action"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.memory_id or '-'} by {self.actor}"


# --- The BrainGraph (spec: shared_intelligence.txt, "A graph, not just a flat list") ------------------


class GraphNodeKind(models.TextChoices):
    """What a node stands for: a memory, or a piece of provenance or subject matter it links to."""

    MEMORY = "memory", "Memory"
    TICKET = "ticket", "Ticket"
    RUN = "run", "Agent or workflow run"
    CONVERSATION = "conversation", "Conversation"
    TOPIC = "topic", "Topic (a memory key)"


class GraphRelation(models.TextChoices):
    DERIVED_FROM = "derived_from", "derived from"
    SUPERSEDES = "supersedes", "supersedes"
    REINFORCES = "reinforces", "reinforces"
    RELATED_TO = "related_to", "related to"
    CONTRADICTS = "contradicts", "contradicts"
    ABOUT = "about", "about"


class BrainNode(models.Model):
    """One node of a tenant's BrainGraph, unique per (tenant, kind, ref); memory nodes point at their row."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    scope_kind = models.CharField(
        max_length=16, choices=BrainScopeKind.choices, default=BrainScopeKind.TENANT
    )
    scope_id = models.CharField(max_length=64, blank=True, default="")
    kind = models.CharField(max_length=16, choices=GraphNodeKind.choices)
    # The id of what the node stands for: a memory id, a ticket id, a run id, a normalised key.
    ref = models.CharField(max_length=255)
    # One node per memory, unique within the tenant (tenant_id leads the key, as Citus needs: issue 30).
    memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "kind", "ref"], name="brainnode_tenant_kind_ref"),
            models.UniqueConstraint(fields=["tenant", "memory"], name="brainnode_tenant_memory"),
        ]
        indexes = [
            models.Index(fields=["tenant", "scope_kind", "scope_id", "kind"], name="brainnode_tenant_scope"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.ref}"


class BrainEdge(models.Model):
    """A typed relation `source -[relation]-> target` inside one tenant (and the scope it was formed in)."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    scope_kind = models.CharField(
        max_length=16, choices=BrainScopeKind.choices, default=BrainScopeKind.TENANT
    )
    scope_id = models.CharField(max_length=64, blank=True, default="")
    source = models.ForeignKey(BrainNode, on_delete=models.CASCADE, related_name="out_edges")
    target = models.ForeignKey(BrainNode, on_delete=models.CASCADE, related_name="in_edges")
    relation = models.CharField(max_length=16, choices=GraphRelation.choices)
    weight = models.FloatField(default=1.0)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "source", "target", "relation"], name="brainedge_tenant_src_tgt_rel"
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "target", "relation"], name="brainedge_tenant_target"),
            models.Index(
                fields=["tenant", "scope_kind", "scope_id", "relation"], name="brainedge_tenant_scope"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source} -{self.relation}-> {self.target}"


class MemoryActivity(models.Model):
    """Recorded activity of one memory: a mixed contribution/selection counter (it does not show that a
    memory affected an answer). No row means no activity (a count of 0).

    Kept out of `Memory` on purpose: a counter bump there was a non-HOT update that inserted new entries
    into every index of the row (HNSW, both GINs). This narrow table has only its primary key and the
    tenant index, neither holding `count`, so a bump is a HOT update. Written only by
    `brain.activity.memories_record_activity()`.
    """

    memory = models.OneToOneField(Memory, primary_key=True, on_delete=models.CASCADE, related_name="activity")
    # Denormalized from the memory so the tenant leads the table's reads (tenancy convention).
    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    count = models.PositiveIntegerField(default=0)
    last_at = models.DateTimeField()

    objects = TenantScopedManager()

    class Meta:
        verbose_name_plural = "memory activity"

    def __str__(self) -> str:
        return f"memory {self.memory_id}: {self.count}"


class PendingActivity(models.Model):
    """One recorded activity not yet added to the counters: the memories one call put in a prompt.

    Recording inserts this row (no lock on a counter row that every concurrent call of the tenant also
    updates); `brain.activity.activity_drain()` deletes a tenant's rows and adds them to `MemoryActivity` in
    one statement, so each is counted exactly once. Written and drained only by `brain/activity.py`.
    """

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    memory_ids = ArrayField(models.BigIntegerField())
    at = models.DateTimeField()

    objects = TenantScopedManager()

    class Meta:
        verbose_name_plural = "pending activity"

    def __str__(self) -> str:
        return f"{len(self.memory_ids)} memories at {self.at:%Y-%m-%d %H:%M:%S}"


class AgentMemoryManager(TenantScopedManager):
    def get_queryset(self):
        return super().get_queryset().filter(scope_kind=BrainScopeKind.AGENT, type=MemoryType.AGENT_MEMORY)


class AgentMemory(Memory):
    """The memory table's agent rows, for the admin (decision 1: admin and UI may show families as proxies);
    their selectors and the value they travel as are in brain/agent_memories.py."""

    objects = AgentMemoryManager()

    class Meta:
        proxy = True
        verbose_name = "agent memory"
        verbose_name_plural = "agent memories"


class AppliedVerdict(models.Model):
    """An evaluator verdict applied to the memories injected into one judged record (brain/verdicts.py).

    Unique per (tenant, trace, verdict key): applying the same verdict again finds this row and moves
    nothing. `trace` names the judged record as the caller knows it (a trace "trace:12", a run "run:5", a
    conversation "conversation:3"); brain does not resolve it. The id lists are what the verdict saw (the
    union over the record's traces), kept so a repeat can say what the first one did.
    """

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    trace = models.CharField(max_length=64)
    verdict_key = models.CharField(max_length=64, blank=True, default="")
    verdict = models.CharField(max_length=4, choices=[("pass", "Pass"), ("fail", "Fail")])
    injected_memory_ids = models.JSONField(default=list, blank=True)
    cited_memory_ids = models.JSONField(default=list, blank=True)
    cited_not_injected = models.JSONField(default=list, blank=True)
    actor = models.CharField(max_length=120, default="")
    applied_at = models.DateTimeField()

    objects = TenantScopedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "trace", "verdict_key"], name="appliedverdict_tenant_trace_key"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.verdict} on {self.trace}" + (f" ({self.verdict_key})" if self.verdict_key else "")


class VerdictSpend(models.Model):
    """How far the verdicts on one context trace have moved one memory it injected, as a share of one full
    delta (brain/verdicts.py).

    A trace moves a memory by at most one delta in total, whatever number of verdict keys arrives for it and
    whatever record it is judged through (issue 26): `trace` is always the underlying trace ("trace:12"), never
    the judged run or conversation. Every verdict whose judged record holds the trace spends from this row
    (a cited memory its whole delta, one merely present its partial credit; a record of several traces moves
    the memory by the least left on them and charges each), and a verdict that finds it spent is recorded but
    moves nothing. One row per (tenant, trace, memory), written only under the memory's row lock, so two
    verdicts arriving at once cannot both spend it. `memory_id` is not a foreign key: a row outliving its
    memory is harmless (ids are not reused) and a memory's deletion need not look here. Rows keyed by a run or
    a conversation (before intelligence 0008) were carried over to their traces by that migration.
    """

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    trace = models.CharField(max_length=64)
    memory_id = models.BigIntegerField()
    # Share of one delta moved so far, in [0, 1]; `last_applied` is what the latest verdict moved.
    spent = models.FloatField()
    last_applied = models.FloatField()

    objects = TenantScopedManager()

    class Meta:
        verbose_name_plural = "verdict spend"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "trace", "memory_id"], name="verdictspend_tenant_trace_memory"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.trace} on memory {self.memory_id}: {self.spent:.2f} of one delta"


class ProviderSpend(models.Model):
    """A tenant's LLM spend on one day: provider calls and tokens (issue 15, per-tenant cost limits).

    Counted by `brain.providers` for every call of a metered provider made inside `spend_scope(tenant_id)`
    (learning and suggestions), and checked before each such call against the tenant's daily limits. One row
    per tenant and day (the provider's day: the project's time zone), bumped by one atomic upsert.
    """

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    day = models.DateField()
    calls = models.PositiveIntegerField(default=0)
    tokens = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantScopedManager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant", "day"], name="provider_spend_tenant_day")]
        ordering = ["-day", "tenant_id"]
        verbose_name_plural = "provider spend"

    def __str__(self) -> str:
        return f"{self.day}: {self.calls} calls, {self.tokens} tokens"
