"""The base of every operator UI view: signed in, inside a tenant, with the role the view needs, and the URL's
parent objects resolved in the tenant before the handler runs."""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View

from ..models import Role, role_at_least
from ..parents import parent_get


class TenantViewMixin(LoginRequiredMixin):
    """For operator UI views: signed in, inside a tenant, with at least `required_role`.

    Viewers may GET; writes (any other method) need `write_role` (operator by default). The URL's
    parents (`url_parents = {"pk": "agent"}`) are resolved in the tenant before the handler runs and
    handed to it by name (`def get(self, request, agent)`); a missing one and another tenant's are 404.
    """

    required_role: str = Role.VIEWER
    write_role: str = Role.OPERATOR
    url_parents: dict[str, str] = {}

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        if request.tenant is None:
            raise PermissionDenied("You are not a member of any tenant yet; ask an admin to add you.")
        needed = (
            self.required_role
            if request.method in ("GET", "HEAD", "OPTIONS")
            else max(
                self.required_role, self.write_role, key=lambda r: {"viewer": 1, "operator": 2, "admin": 3}[r]
            )
        )
        if not role_at_least(request.role, needed):
            raise PermissionDenied(f"This needs the {needed} role in {request.tenant}.")
        self.tenant = request.tenant
        for url_kwarg, name in self.url_parents.items():
            kwargs[name] = parent_get(name, self.tenant, kwargs.pop(url_kwarg))
        return super().dispatch(request, *args, **kwargs)


class TenantRowActionView(TenantViewMixin, View):
    """An admin's POST on one of the tenant's rows (revoke a key, remove a member, withdraw an invitation,
    deactivate a webhook): the row is looked up in the tenant (another tenant's is a 404, like a missing one),
    the subclass's `act(row)` runs and returns the message shown, and the page `redirect_to` follows; an
    exception of `refusals` becomes an error message instead.

    An action that cannot be undone asks first: when `confirmation(row)` gives the page's words, a GET (the
    list's link) or a POST without `confirm=yes` shows the confirmation page (tenant/confirm.html), whose form
    sends `confirm=yes`; only that POST acts. No JavaScript is needed."""

    required_role = Role.ADMIN
    write_role = Role.ADMIN
    model = None
    missing = "No such row."
    redirect_to = ""
    refusals: tuple[type[Exception], ...] = ()

    def act(self, row) -> str:
        raise NotImplementedError

    def confirmation(self, row) -> dict | None:
        """The confirmation page's `title`, `question`, `consequence` and `button`, or None to act at once."""
        return None

    def already_done(self, row) -> str | None:
        """What to say when the action has nothing left to do (a key already revoked): nothing is asked or done."""
        return None

    def _row(self, request, pk: int):
        row = self.model.objects.for_tenant(request.tenant).filter(pk=pk).first()
        if row is None:
            raise Http404(self.missing)
        return row

    def _confirm_page(self, request, words: dict):
        context = {**words, "action_url": request.path, "cancel_url": reverse(self.redirect_to)}
        return render(request, "tenant/confirm.html", context)

    def get(self, request, pk: int):
        row = self._row(request, pk)
        words = self.confirmation(row)
        if words is None:
            return HttpResponseNotAllowed(["POST"])
        done = self.already_done(row)
        if done:
            messages.info(request, done)
            return redirect(self.redirect_to)
        return self._confirm_page(request, words)

    def post(self, request, pk: int):
        row = self._row(request, pk)
        done = self.already_done(row)
        if done:
            messages.info(request, done)
            return redirect(self.redirect_to)
        words = self.confirmation(row)
        if words is not None and request.POST.get("confirm") != "yes":
            return self._confirm_page(request, words)
        try:
            messages.success(request, self.act(row))
        except self.refusals as exc:
            messages.error(request, str(exc))
        return redirect(self.redirect_to)
