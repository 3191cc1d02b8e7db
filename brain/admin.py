"""Staff views of the Brain: memories, their history (with gate rejection counts per surface × reason), the graph.

Memories are written only by `promote()` and the formation services, so these pages do not add or edit
rows field by field; status actions go through `memory_set_status` (recorded in the history). Client Brain
rows are read-only in every way here, as on every other surface (DESIGN.md decision 10): no change page,
no delete, and the status actions leave them as they are.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count
from django.utils.timezone import localtime

from config.admin_display import json_table
from tickets.tenancy.managers import AllTenantsAdminMixin

from .client_brain.dashboard import CLIENT_BRAIN_ROW, is_client_brain_row
from .formation.edits import memory_set_status
from .models import (
    AgentMemory,
    AppliedVerdict,
    BrainEdge,
    BrainNode,
    Memory,
    MemoryActivity,
    MemoryHistory,
    MemoryStatus,
    PendingActivity,
    ProviderSpend,
    VerdictSpend,
)


class _ReadOnly:
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Memory)
class MemoryAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    # Columns that fit a 1280 px screen beside the filters (issue 28, item 8): the scope's kind and id in one, the
    # source and the write surface in one, the date as digits; an agent memory's strength is on the Agent
    # memories page (and a filter here), the frequency and the rest on the memory's page.
    list_display = [
        "id",
        "tenant",
        "scope",
        "type",
        "short_text",
        "status",
        "confidence",
        "origin",
        "updated",
    ]
    list_filter = ["tenant", "scope_kind", "type", "status", "strength", "source", "surface"]
    search_fields = ["key", "text"]
    list_select_related = ["tenant"]
    ordering = ["-updated_at", "-id"]
    actions = ["archive", "activate"]
    # The embedding and the search keys are machinery, not something staff read; JSON shows as tables.
    exclude = ["embedding", "search_vector", "tenant_lexemes", "tenant_trigrams", "payload", "provenance"]

    @admin.display(description="payload")
    def payload_table(self, obj: Memory):
        return json_table(obj.payload)

    @admin.display(description="learned from")
    def provenance_table(self, obj: Memory):
        return json_table(obj.provenance)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # Every field is read-only here (the change permission exists for the status actions): no Save.
        extra_context = {
            **(extra_context or {}),
            "show_save": False,
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
        }
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description="scope", ordering="scope_kind")
    def scope(self, obj: Memory) -> str:
        return f"{obj.scope_kind} {obj.scope_id}".strip()

    @admin.display(description="source · surface", ordering="source")
    def origin(self, obj: Memory) -> str:
        return " · ".join(part for part in (obj.source, obj.surface) if part)

    @admin.display(description="updated", ordering="updated_at")
    def updated(self, obj) -> str:
        return localtime(obj.updated_at).strftime("%Y-%m-%d %H:%M")

    @admin.display(description="text")
    def short_text(self, obj: Memory) -> str:
        return (obj.key + ": " if obj.key else "") + obj.text[:100]

    def _set_status(self, request, queryset, status: str) -> None:
        suspended = queryset.filter(CLIENT_BRAIN_ROW).count()
        if suspended:
            self.message_user(
                request,
                f"{suspended} Client Brain memor{'y' if suspended == 1 else 'ies'} left unchanged: Client "
                "Brain mutation is suspended.",
                messages.WARNING,
            )
        queryset = queryset.exclude(CLIENT_BRAIN_ROW)
        for memory in queryset:
            memory_set_status(
                tenant_id=memory.tenant_id,
                memory_id=memory.pk,
                status=status,
                actor=f"user:{request.user.pk}",
            )
        self.message_user(request, f"{queryset.count()} memories set to {status}.", messages.SUCCESS)

    @admin.action(description="Archive selected memories")
    def archive(self, request, queryset):
        self._set_status(request, queryset.exclude(status=MemoryStatus.SUPERSEDED), MemoryStatus.ARCHIVED)

    @admin.action(description="Activate selected memories")
    def activate(self, request, queryset):
        self._set_status(request, queryset.exclude(status=MemoryStatus.SUPERSEDED), MemoryStatus.ACTIVE)

    def has_change_permission(self, request, obj=None) -> bool:
        # Actions need the change permission; the form itself stays read-only (get_readonly_fields).
        # A Client Brain row has no change page at all (view only, no Save button).
        if obj is not None and is_client_brain_row(obj):
            return False
        return request.user.is_active and request.user.is_staff

    def has_delete_permission(self, request, obj=None) -> bool:
        # Checked per object by the delete page and by the bulk "delete selected" action.
        if obj is not None and is_client_brain_row(obj):
            return False
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request, queryset):
        # The last line of defence for the bulk delete: never a Client Brain row.
        super().delete_queryset(request, queryset.exclude(CLIENT_BRAIN_ROW))

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in Memory._meta.fields if f.name not in self.exclude] + [
            "tags",
            "campaign_ids",
            "payload_table",
            "provenance_table",
        ]


@admin.register(MemoryHistory)
class MemoryHistoryAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    """Every formation outcome and edit. Filter action=rejected to see what the gate kept out, and why."""

    list_display = ["at", "tenant", "action", "surface", "reason", "memory", "actor"]
    list_filter = ["action", "surface", "reason", "tenant"]
    search_fields = ["actor", "reason", "memory__text"]
    list_select_related = ["tenant", "memory"]
    date_hierarchy = "at"

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context=extra_context)
        context = getattr(response, "context_data", None)
        if context and "cl" in context:
            rejected = context["cl"].queryset.filter(action=MemoryHistory.Action.REJECTED).order_by()
            counts = list(
                rejected.values("surface", "reason")
                .annotate(count=Count("id"))
                .order_by("-count", "surface", "reason")
            )
            context["rejection_counts"] = counts
            context["rejection_total"] = sum(row["count"] for row in counts)
        return response


@admin.register(MemoryActivity)
class MemoryActivityAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    """Recorded activity per memory (counted by Client Brain recall); no row means none recorded."""

    list_display = ["memory", "tenant", "count", "last_at"]
    list_filter = ["tenant"]
    list_select_related = ["tenant", "memory"]
    ordering = ["-last_at"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PendingActivity)
class PendingActivityAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    """Recorded activity not yet added to the counters (brain.activity: drained on the next read of the
    tenant's activity and by beat's `brain.drain_activity`)."""

    list_display = ["id", "tenant", "memory_ids", "at"]
    list_filter = ["tenant"]
    list_select_related = ["tenant"]
    ordering = ["-id"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # deleting a row loses its counts: only the drain deletes


@admin.register(BrainNode)
class BrainNodeAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["id", "tenant", "kind", "ref", "label", "scope_kind", "scope_id", "created_at"]
    list_filter = ["tenant", "kind", "scope_kind"]
    search_fields = ["ref", "label"]
    list_select_related = ["tenant"]


@admin.register(BrainEdge)
class BrainEdgeAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "tenant",
        "source",
        "relation",
        "target",
        "weight",
        "scope_kind",
        "scope_id",
        "created_at",
    ]
    list_filter = ["tenant", "relation", "scope_kind"]
    search_fields = ["source__ref", "target__ref", "source__label", "target__label"]
    list_select_related = ["tenant", "source", "target"]


# Agent memories (the AgentMemory proxy): the memory table's agent rows, filtered by the spec's taxonomy.
# Like every memory page, no field-by-field edits: status actions go through the service.
@admin.register(AgentMemory)
class AgentMemoryAdmin(MemoryAdmin):
    # Columns that fit a 1280 px screen beside the filters (issue 28, item 8): category and strength in one, the
    # status with the newer memory's id when superseded.
    list_display = [
        "id",
        "tenant",
        "agent_id",
        "short_text",
        "kind",
        "status_line",
        "source",
        "provider",
        "confidence",
        "updated",
    ]
    list_filter = ["tenant", "category", "strength", "status", "source", "provider"]
    search_fields = ["text", "tags", "campaign_ids"]
    actions = ["activate", "mark_stale", "archive"]

    @admin.display(description="agent", ordering="scope_id")
    def agent_id(self, obj: AgentMemory) -> str:
        return obj.scope_id

    @admin.display(description="category · strength", ordering="strength")
    def kind(self, obj: AgentMemory) -> str:
        return f"{obj.get_category_display()} · {obj.get_strength_display()}"

    @admin.display(description="status", ordering="status")
    def status_line(self, obj: AgentMemory) -> str:
        """The status, and the newer memory's id when superseded (its text, as the foreign key showed it, took
        a line of its own)."""
        status = obj.get_status_display()
        return f"{status} by #{obj.superseded_by_id}" if obj.superseded_by_id else status

    @admin.action(description="Mark selected memories stale")
    def mark_stale(self, request, queryset):
        self._set_status(request, queryset.exclude(status="superseded"), "stale")


@admin.register(AppliedVerdict)
class AppliedVerdictAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    """Evaluator verdicts applied (brain/verdicts.py); each nudge is in the memory history (action verdict)."""

    list_display = ["applied_at", "tenant", "trace", "verdict_key", "verdict", "actor"]
    list_filter = ["tenant", "verdict"]
    search_fields = ["trace", "verdict_key"]
    list_select_related = ["tenant"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(VerdictSpend)
class VerdictSpendAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    """What each trace's verdicts have moved each memory by, as a share of one delta (at most 1)."""

    list_display = ["trace", "memory_id", "spent", "last_applied", "tenant"]
    list_filter = ["tenant"]
    search_fields = ["trace"]
    list_select_related = ["tenant"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ProviderSpend)
class ProviderSpendAdmin(_ReadOnly, AllTenantsAdminMixin, admin.ModelAdmin):
    """Each tenant's LLM spend per day (learning and suggestions), against its daily limits."""

    list_display = ["day", "tenant", "calls", "tokens", "limits"]
    list_filter = ["tenant", "day"]
    search_fields = ["tenant__name", "tenant__slug"]
    list_select_related = ["tenant"]
    date_hierarchy = "day"

    @admin.display(description="Daily limits (calls / tokens)")
    def limits(self, obj: ProviderSpend) -> str:
        from .providers import daily_limits

        limits = daily_limits(obj.tenant_id)
        return f"{limits.calls if limits.calls is not None else '∞'} / {limits.tokens if limits.tokens is not None else '∞'}"
