"""Staff pages for agents, their context traces, conversations and runs. Agent memories are shown by
brain/admin.py (`AgentMemoryAdmin`, over the `AgentMemory` proxy of the one memory table)."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from config.admin_display import json_table
from config.ui import field_cleaner
from tickets.tenancy.managers import AllTenantsAdminMixin

from .learning import learning_config_clean
from .models import (
    Agent,
    AgentRun,
    ContextTrace,
    Conversation,
    ConversationTurn,
    FeedbackHistory,
    ProposedAction,
    SuggestionDismissal,
    SuggestionRun,
)
from .runtime import budget_clean


class AgentAdminForm(forms.ModelForm):
    class Meta:
        model = Agent
        fields = ["tenant", "name", "kind", "description", "learning_config", "budget_overrides"]

    clean_learning_config = field_cleaner(learning_config_clean, "learning_config")
    clean_budget_overrides = field_cleaner(budget_clean, "budget_overrides")


@admin.register(Agent)
class AgentAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    form = AgentAdminForm
    list_display = ["id", "name", "tenant", "kind", "created_at"]
    list_filter = ["tenant", "kind"]
    search_fields = ["name", "description"]
    list_select_related = ["tenant"]


class _ReadOnly:
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ContextTrace)
class ContextTraceAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["id", "tenant", "agent", "origin", "total_chars", "created_at"]
    list_filter = ["tenant", "origin"]
    search_fields = ["agent__name"]
    list_select_related = ["tenant", "agent"]
    # The JSON fields as tables, memory ids linked to their memories.
    exclude = ["request_summary", "sections", "injected_memory_ids", "omitted", "omitted_counts", "budget"]
    readonly_fields = ["request_table", "sections_table", "injected_table", "omitted_table", "counts_table"]

    @admin.display(description="request")
    def request_table(self, obj):
        return json_table(obj.request_summary)

    @admin.display(description="sections")
    def sections_table(self, obj):
        return json_table(obj.sections)

    @admin.display(description="injected memories")
    def injected_table(self, obj):
        return json_table({"memory_ids": obj.injected_memory_ids})

    @admin.display(description="left out (memory ids per reason)")
    def omitted_table(self, obj):
        return json_table(obj.omitted, key="omitted")

    @admin.display(description="left out (counts per reason)")
    def counts_table(self, obj):
        return json_table(obj.omitted_counts)


class FeedbackAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_filter = ["tenant", "feedback_rating"]
    list_select_related = ["tenant", "agent"]
    raw_id_fields = ["agent", "context_trace"]


@admin.register(Conversation)
class ConversationAdmin(FeedbackAdmin):
    list_display = ["id", "tenant", "agent", "title", "feedback_rating", "feedback_at", "created_at"]
    search_fields = ["title", "feedback_comment"]


@admin.register(AgentRun)
class AgentRunAdmin(FeedbackAdmin):
    list_display = ["id", "tenant", "agent", "provider", "feedback_rating", "feedback_at", "created_at"]
    search_fields = ["summary", "feedback_comment"]


@admin.register(ConversationTurn)
class ConversationTurnAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["id", "tenant", "conversation", "context_trace", "responded_at", "created_at"]
    list_filter = ["tenant"]
    list_select_related = ["tenant", "conversation"]
    raw_id_fields = ["conversation", "context_trace"]


@admin.register(ProposedAction)
class ProposedActionAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    """Decisions are taken on the agent's Runs page (or over REST), where learning from them applies."""

    list_display = ["id", "tenant", "run", "action_type", "status", "decided_by", "decided_at"]
    list_filter = ["tenant", "status"]
    search_fields = ["action_type", "recommendation", "reason"]
    list_select_related = ["tenant", "run"]


# Feedback history and suggestion passes / dismissals: written by the services only, read here.
@admin.register(FeedbackHistory)
class FeedbackHistoryAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["id", "tenant", "agent", "conversation", "run", "rating", "rated_at", "actor"]
    list_filter = ["tenant", "rating"]
    search_fields = ["comment", "actor"]
    list_select_related = ["tenant", "agent"]


@admin.register(SuggestionRun)
class SuggestionRunAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["id", "tenant", "agent", "ran_at", "producer", "considered", "outcomes"]
    list_filter = ["tenant", "producer"]
    search_fields = ["agent__name"]
    list_select_related = ["tenant", "agent"]


@admin.register(SuggestionDismissal)
class SuggestionDismissalAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["id", "tenant", "agent", "memory_id", "reason", "actor", "dismissed_at"]
    list_filter = ["tenant"]
    search_fields = ["text", "reason"]
    list_select_related = ["tenant", "agent"]
