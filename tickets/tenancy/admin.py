"""Admin for tenants, memberships, invitations and API keys."""

from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.utils.html import format_html

from . import services
from .erasure import tenant_erase
from .managers import AllTenantsAdminMixin
from .models import ApiKey, Invitation, Membership, Tenant


class MembershipInline(AllTenantsAdminMixin, admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Tenant)
class TenantAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]
    actions = ["erase_tenants"]

    def has_delete_permission(self, request, obj=None):
        # The admin's delete would cascade into rows it may not delete (Client Brain rows, while pruning is
        # suspended) and leave no record: erasing a tenant is the action below, with a receipt.
        return False

    @admin.action(description="Erase the selected tenants (every row, with a receipt)")
    def erase_tenants(self, request, queryset):
        """Asks for each slug to be typed, then calls the erasure service (tickets.tenancy.erasure), not the
        admin's delete cascade, and shows the receipts."""
        tenants = list(queryset)
        typed = request.POST.get("confirm_slugs")
        if typed is None:
            return TemplateResponse(
                request,
                "admin/tenancy/tenant/erase_confirmation.html",
                {
                    **self.admin_site.each_context(request),
                    "title": "Erase tenants",
                    "tenants": tenants,
                    "opts": self.model._meta,
                    "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
                },
            )
        if sorted(typed.split()) != sorted(t.slug for t in tenants):
            self.message_user(
                request, "Not confirmed: type every selected slug. Nothing was erased.", messages.ERROR
            )
            return None
        for tenant in tenants:
            receipt = tenant_erase(tenant=tenant)
            self.message_user(
                request,
                format_html("<pre>{}</pre>", receipt.as_text()),
                messages.SUCCESS,
            )
        return None


@admin.register(Membership)
class MembershipAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["user", "tenant", "role", "created_at"]
    list_filter = ["tenant", "role"]
    search_fields = ["user__username", "user__email", "tenant__name"]
    autocomplete_fields = ["user", "tenant"]


@admin.register(ApiKey)
class ApiKeyAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    """Creating a key here shows its full secret once, in the confirmation message."""

    list_display = ["name", "tenant", "prefix", "role", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["tenant", "role", ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix", "tenant__name"]
    readonly_fields = ["prefix", "created_by", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke_keys"]

    def get_fields(self, request, obj=None):
        return (
            ["tenant", "name", "role"] if obj is None else ["tenant", "name", "role", *self.readonly_fields]
        )

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is None else ["tenant", *self.readonly_fields]

    def save_model(self, request, obj, form, change):
        if change:
            obj.save(update_fields=["name", "role"])
            return
        key, full_key = services.api_key_create(
            tenant=obj.tenant, name=obj.name, role=obj.role, created_by=request.user
        )
        obj.pk, obj.prefix, obj.secret_hash = key.pk, key.prefix, key.secret_hash
        obj._state.adding = False
        messages.warning(
            request,
            f"The new key is {full_key} — copy it now; it is stored only as a hash and will not be shown again.",
        )

    @admin.action(description="Revoke selected keys")
    def revoke_keys(self, request, queryset):
        for key in queryset:
            services.api_key_revoke(key=key)
        self.message_user(request, f"Revoked {queryset.count()} key(s).")


@admin.register(Invitation)
class InvitationAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    """Read-only: a tenant's admin invites on the Members page, so the one-time link goes to the address."""

    list_display = [
        "email",
        "tenant",
        "role",
        "invited_by",
        "created_at",
        "expires_at",
        "accepted_at",
        "declined_at",
    ]
    list_filter = ["tenant", "role", ("accepted_at", admin.EmptyFieldListFilter)]
    search_fields = ["email", "tenant__name"]
    exclude = ["token_hash"]
    actions = ["withdraw"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description="Withdraw selected invitations")
    def withdraw(self, request, queryset):
        for invitation in queryset:
            services.invitation_revoke(invitation=invitation)
        self.message_user(request, f"Withdrew {queryset.count()} invitation(s); their links no longer work.")
