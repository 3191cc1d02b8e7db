from django.contrib import admin

from config.admin_display import json_table

from . import services
from .models import Approval, Classification, LearningAttempt, Message, Ticket
from .tenancy.managers import AllTenantsAdminMixin

# --- Tickets, their evidence and learning attempts -------------------------------------------------


class MessageInline(AllTenantsAdminMixin, admin.TabularInline):
    model = Message
    extra = 0
    fields = ["direction", "is_note", "author", "body", "sent_at", "external_id"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True


class ClassificationInline(AllTenantsAdminMixin, admin.TabularInline):
    model = Classification
    extra = 0
    fields = ["category", "intent", "labels", "confidence", "created_at"]
    readonly_fields = fields
    can_delete = False


class ApprovalInline(AllTenantsAdminMixin, admin.TabularInline):
    model = Approval
    extra = 0
    fields = ["proposed_action", "kind", "decision", "decided_by", "decided_at"]
    readonly_fields = fields
    can_delete = False


class LearningAttemptInline(AllTenantsAdminMixin, admin.TabularInline):
    model = LearningAttempt
    extra = 0
    fields = [
        "created_at",
        "trigger",
        "status",
        "skip_reason",
        "candidates",
        "added",
        "reinforced",
        "rejected",
    ]
    readonly_fields = fields
    can_delete = False
    show_change_link = True


@admin.register(Ticket)
class TicketAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    """Read-mostly: status changes made here go through ticket_transition, so they trigger learning."""

    list_display = ["external_id", "subject", "tenant", "status", "requester", "updated_at"]
    list_filter = ["tenant", "status"]
    search_fields = ["external_id", "subject", "requester", "tenant__name"]
    readonly_fields = ["created_at", "updated_at", "status_changed_at"]
    list_select_related = ["tenant"]
    inlines = [ClassificationInline, MessageInline, ApprovalInline, LearningAttemptInline]

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is None else ["tenant", "external_id", *self.readonly_fields]

    def save_model(self, request, obj, form, change):
        if not change:
            ticket, _ = services.ticket_upsert(
                tenant=obj.tenant,
                external_id=obj.external_id,
                subject=obj.subject,
                requester=obj.requester,
                status=obj.status,
            )
            obj.pk, obj._state.adding = ticket.pk, False
            return
        status = obj.status
        obj.save(update_fields=["subject", "requester", "updated_at"])
        if "status" in form.changed_data:
            services.ticket_transition(ticket=obj, status=status)


@admin.register(Message)
class MessageAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["ticket", "tenant", "direction", "is_note", "author", "sent_at"]
    list_filter = ["tenant", "direction", "is_note"]
    search_fields = ["body", "author", "external_id", "ticket__external_id"]
    list_select_related = ["ticket", "tenant"]
    raw_id_fields = ["ticket"]


@admin.register(Classification)
class ClassificationAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["ticket", "tenant", "category", "intent", "confidence", "created_at"]
    list_filter = ["tenant", "category"]
    search_fields = ["category", "intent", "ticket__external_id"]
    list_select_related = ["ticket", "tenant"]
    raw_id_fields = ["ticket"]


@admin.register(Approval)
class ApprovalAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["ticket", "tenant", "kind", "decision", "decided_by", "decided_at"]
    list_filter = ["tenant", "decision", "kind"]
    search_fields = ["proposed_action", "decided_by", "ticket__external_id"]
    list_select_related = ["ticket", "tenant"]
    raw_id_fields = ["ticket"]


@admin.register(LearningAttempt)
class LearningAttemptAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    """What each learning attempt did: skipped (and why), failed (and the error), or what it promoted."""

    list_display = [
        "ticket_external_id",
        "tenant",
        "trigger",
        "status",
        "skip_reason",
        "candidates",
        "added",
        "reinforced",
        "superseded",
        "rejected",
        "tries",
        "created_at",
    ]
    list_filter = ["tenant", "status", "skip_reason", "trigger", "provider"]
    search_fields = ["ticket_external_id", "error", "tenant__name"]
    list_select_related = ["tenant"]
    date_hierarchy = "created_at"
    exclude = ["outcomes"]
    readonly_fields = ["outcomes_table"]

    @admin.display(description="what each candidate became")
    def outcomes_table(self, obj):
        return json_table(obj.outcomes)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
