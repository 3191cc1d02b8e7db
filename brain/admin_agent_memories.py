"""Staff view of agent memories: the memory table's agent rows (the `AgentMemory` proxy), filtered by the
spec's taxonomy. Like every memory page, no field-by-field edits: status actions go through the service."""

from __future__ import annotations

from django.contrib import admin

from .admin import MemoryAdmin
from .agent_memories import AgentMemory


@admin.register(AgentMemory)
class AgentMemoryAdmin(MemoryAdmin):
    list_display = [
        "id",
        "tenant",
        "agent_id",
        "short_text",
        "category",
        "strength",
        "status",
        "source",
        "provider",
        "confidence",
        "superseded_by",
        "updated_at",
    ]
    list_filter = ["tenant", "category", "strength", "status", "source", "provider"]
    search_fields = ["text", "tags", "campaign_ids"]
    actions = ["activate", "mark_stale", "archive"]

    @admin.display(description="agent", ordering="scope_id")
    def agent_id(self, obj: AgentMemory) -> str:
        return obj.scope_id

    @admin.action(description="Mark selected memories stale")
    def mark_stale(self, request, queryset):
        self._set_status(request, queryset.exclude(status="superseded"), "stale")
