"""Agents, their context traces, and the conversations / runs that will carry operator feedback.

Agent memories are not here: they are rows of the one memory table (brain.Memory, scope kind "agent",
scope id = the agent's id, type "agent_memory"), read through `brain.api` and written through `promote()`.
"""

from django.db import models

from tickets.tenancy.managers import TenantScopedManager

from .learning import LEARNING_CONFIG_DEFAULTS


def _learning_defaults() -> dict:
    return dict(LEARNING_CONFIG_DEFAULTS)


class AgentKind(models.TextChoices):
    KNOWLEDGE = "knowledge", "Knowledge agent"
    ACTION = "action", "Action agent"


class Agent(models.Model):
    """An AI agent of a tenant. `learning_config` and `budget_overrides` hold only cleaned values
    (see `intelligence.learning.learning_config_clean` and `intelligence.runtime.budget_clean`)."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=16, choices=AgentKind.choices, default=AgentKind.KNOWLEDGE)
    description = models.TextField(blank=True, default="")
    learning_config = models.JSONField(default=_learning_defaults, blank=True)
    # Per-agent overrides of BRAIN_CONTEXT_BUDGET (e.g. {"tier_hard_rule": 2000}); empty = the settings.
    budget_overrides = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantScopedManager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="agent_unique_name_per_tenant")
        ]
        indexes = [models.Index(fields=["tenant", "name"], name="agent_tenant_name")]

    def __str__(self) -> str:
        return self.name


class ContextTrace(models.Model):
    """What one runtime-context call injected: the id a later verdict refers to.

    `sections` maps section name -> {"memory_ids": [...], "chars": n, "budget": n, "truncated": bool};
    `omitted` maps reason -> memory ids for the first OMITTED_DETAIL_LIMIT omissions, in the assembly's
    order, and `omitted_counts` counts every omission per reason. `request_text` is what the call carried
    (the customer's message: the conversation text, or a ticket's subject and latest message), at most
    REQUEST_TEXT_MAX_CHARS, its end kept; the transcript of a conversation or run is read from it. Traces
    stored before it existed have only `request_summary["query_excerpt"]` (200 characters).
    """

    # No index of its own: trace_tenant_agent_created leads with the tenant (one index less per call).
    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="context_traces")
    created_at = models.DateTimeField(auto_now_add=True)
    request_summary = models.JSONField(default=dict, blank=True)
    request_text = models.TextField(blank=True, default="")
    sections = models.JSONField(default=dict, blank=True)
    injected_memory_ids = models.JSONField(default=list, blank=True)
    omitted = models.JSONField(default=dict, blank=True)
    omitted_counts = models.JSONField(default=dict, blank=True)
    total_chars = models.PositiveIntegerField(default=0)
    budget = models.JSONField(default=dict, blank=True)
    # "api" (the runtime endpoint) or "preview" (the Intelligence tab's budget preview).
    origin = models.CharField(max_length=16, default="api")

    objects = TenantScopedManager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["tenant", "agent", "-created_at"], name="trace_tenant_agent_created")]

    def __str__(self) -> str:
        return f"trace {self.pk} for agent {self.agent_id}"


class FeedbackRating(models.IntegerChoices):
    POSITIVE = 1, "Positive"
    NEGATIVE = -1, "Negative"


class FeedbackFields(models.Model):
    """Operator feedback (spec: Feedback Loop), the signal that drives memory suggestions later."""

    feedback_rating = models.SmallIntegerField(choices=FeedbackRating.choices, null=True, blank=True)
    feedback_comment = models.TextField(blank=True, default="")
    feedback_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=models.Q(feedback_rating__isnull=True) | models.Q(feedback_rating__in=[1, -1]),
                name="%(class)s_feedback_rating_1_or_minus_1",
            )
        ]


class Conversation(FeedbackFields):
    """A knowledge agent's conversation. `context_trace` is what its prompt was given."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True, default="")
    # The caller's conversation id (the runtime context call's `conversation_id`): unique per agent.
    external_id = models.CharField(max_length=128, blank=True, default="")
    context_trace = models.ForeignKey(
        ContextTrace, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta(FeedbackFields.Meta):
        ordering = ["-created_at", "-id"]
        constraints = [
            *FeedbackFields.Meta.constraints,
            models.UniqueConstraint(
                fields=["tenant", "agent", "external_id"],
                condition=~models.Q(external_id=""),
                name="conversation_unique_external_id",
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "agent", "-created_at"], name="conversation_tenant_agent"),
            models.Index(
                fields=["tenant", "feedback_rating", "feedback_at"], name="conversation_tenant_feedback"
            ),
        ]

    def __str__(self) -> str:
        return self.title or f"conversation {self.pk}"


class RunOutcome(models.TextChoices):
    SUCCESS = "success", "Success"
    FAILURE = "failure", "Failure"


class AgentRun(FeedbackFields):
    """An action agent's run (a proposed action or recommendation), with the same feedback fields."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="runs")
    summary = models.TextField(blank=True, default="")
    provider = models.CharField(max_length=32, blank=True, default="")
    campaign_ids = models.JSONField(default=list, blank=True)
    # The caller's run id (the runtime context call's `run_id`): unique per agent.
    external_id = models.CharField(max_length=128, blank=True, default="")
    # The latest trace; `trace_ids` lists every trace of the run (a run may ask for context more than once).
    context_trace = models.ForeignKey(
        ContextTrace, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    trace_ids = models.JSONField(default=list, blank=True)
    response_text = models.TextField(blank=True, default="")
    responded_at = models.DateTimeField(null=True, blank=True)
    # The run's measured outcome, posted by the agent or the helpdesk; judged once the agent's
    # "evaluate outcomes after" delay has passed since its action was approved (or, without an approval, since
    # the run responded), unless the run is older than the agent's learning window by then
    # (intelligence/services/runs.py). `outcome_evaluation` says which: {"result": "applied"} or
    # {"result": "ignored", "reason": "outside_learning_window"}.
    outcome = models.CharField(max_length=16, choices=RunOutcome.choices, blank=True, default="")
    outcome_at = models.DateTimeField(null=True, blank=True)
    outcome_evaluated_at = models.DateTimeField(null=True, blank=True)
    outcome_evaluation = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta(FeedbackFields.Meta):
        ordering = ["-created_at", "-id"]
        constraints = [
            *FeedbackFields.Meta.constraints,
            models.UniqueConstraint(
                fields=["tenant", "agent", "external_id"],
                condition=~models.Q(external_id=""),
                name="agentrun_unique_external_id",
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "agent", "-created_at"], name="agentrun_tenant_agent"),
            models.Index(
                fields=["tenant", "feedback_rating", "feedback_at"], name="agentrun_tenant_feedback"
            ),
        ]

    def __str__(self) -> str:
        return f"run {self.pk} of agent {self.agent_id}"


class ConversationTurn(models.Model):
    """One turn of a conversation: the trace that served it (which holds the customer's message the context
    call carried, `ContextTrace.request_text`) and the agent's response (read for citations)."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    context_trace = models.ForeignKey(
        ContextTrace, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    response_text = models.TextField(blank=True, default="")
    responded_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["tenant", "conversation", "created_at"], name="turn_tenant_conversation")
        ]

    def __str__(self) -> str:
        return f"turn {self.pk} of conversation {self.conversation_id}"


class ProposedActionStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class ProposedAction(models.Model):
    """An action an action agent's run proposes (type, payload, recommendation), approved or rejected once by
    an operator. `extraction` records what learning made of the decision ({"result", "reason", "memory_id"})."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    run = models.ForeignKey(AgentRun, on_delete=models.CASCADE, related_name="proposed_actions")
    action_type = models.CharField(max_length=64)
    payload = models.JSONField(default=dict, blank=True)
    recommendation = models.TextField(blank=True, default="")
    status = models.CharField(
        max_length=16, choices=ProposedActionStatus.choices, default=ProposedActionStatus.PROPOSED
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=120, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    extraction = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["tenant", "run"], name="proposedaction_tenant_run")]

    def __str__(self) -> str:
        return f"{self.action_type} ({self.status}) of run {self.run_id}"


# --- Feedback history and suggestions (spec: Feedback Loop; intelligence/services/feedback.py, suggestions.py) -----


class FeedbackHistory(models.Model):
    """Every rating given to a conversation or a run, newest last: re-rating replaces the record's current
    rating (its FeedbackFields) and the earlier ones stay here. Exactly one of `conversation` / `run` is set."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.CASCADE, related_name="feedback_history"
    )
    run = models.ForeignKey(
        AgentRun, null=True, blank=True, on_delete=models.CASCADE, related_name="feedback_history"
    )
    rating = models.SmallIntegerField(choices=FeedbackRating.choices)
    comment = models.TextField(blank=True, default="")
    rated_at = models.DateTimeField()
    actor = models.CharField(max_length=120, blank=True, default="")

    objects = TenantScopedManager()

    class Meta:
        verbose_name_plural = "feedback history"
        ordering = ["rated_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(conversation__isnull=False, run__isnull=True)
                | models.Q(conversation__isnull=True, run__isnull=False),
                name="feedbackhistory_one_record",
            ),
            models.CheckConstraint(condition=models.Q(rating__in=[1, -1]), name="feedbackhistory_rating"),
        ]
        indexes = [models.Index(fields=["tenant", "agent", "rated_at"], name="feedbackhistory_tenant_agent")]

    def __str__(self) -> str:
        return f"rating {self.rating:+d} at {self.rated_at:%Y-%m-%d %H:%M}"


class SuggestionRun(models.Model):
    """One pass of the suggestion task over an agent's feedback. `feedback_through` is the newest rating it
    saw: the next pass counts new ratings after it (the agent's threshold) and proposes only clusters that
    hold at least one of them."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    ran_at = models.DateTimeField()
    feedback_through = models.DateTimeField(null=True, blank=True)
    producer = models.CharField(max_length=32, blank=True, default="")
    considered = models.PositiveIntegerField(default=0)
    # outcome -> count: added, reinforced, rejected, dismissed_before (a near duplicate of a dismissal).
    outcomes = models.JSONField(default=dict, blank=True)
    memory_ids = models.JSONField(default=list, blank=True)

    objects = TenantScopedManager()

    class Meta:
        ordering = ["-ran_at", "-id"]
        indexes = [models.Index(fields=["tenant", "agent", "-ran_at"], name="suggestionrun_tenant_agent")]

    def __str__(self) -> str:
        return f"suggestion pass {self.pk} for agent {self.agent_id}"


class SuggestionDismissal(models.Model):
    """An operator dismissed a suggested memory (it is archived): neither it nor a near duplicate of it is
    proposed again. `text` is the suggestion as it was dismissed."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+", db_index=False)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    memory_id = models.BigIntegerField()
    text = models.TextField()
    reason = models.CharField(max_length=500)
    actor = models.CharField(max_length=120, blank=True, default="")
    dismissed_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        ordering = ["-dismissed_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "memory_id"], name="suggestiondismissal_once")
        ]
        indexes = [models.Index(fields=["tenant", "agent"], name="suggestiondismissal_agent")]

    def __str__(self) -> str:
        return f"dismissed [mem:{self.memory_id}]"
