"""The operator UI's Learning page: recent learning attempts, each ticket with what it taught (read-only)."""

from django.shortcuts import render
from django.views import View

from brain import api as brain_api

from ..navigation import learned_chart
from ..selectors import learning_attempts_recent
from ..tenancy.ui.mixins import TenantViewMixin

# A skipped or failed attempt, in the operator's words.
SKIP_WORDS = {
    "ticket_missing": "the ticket was deleted before learning ran",
    "not_terminal": "the ticket was reopened before learning ran",
    "provider_key_missing": "the AI provider's key is not configured",
    "no_evidence": "the ticket had no reply or classification to learn from",
}


class LearningView(TenantViewMixin, View):
    def get(self, request):
        ticket = (request.GET.get("ticket") or "").strip()[:128]
        recent = list(learning_attempts_recent(tenant=request.tenant, ticket_external_id=ticket))
        outcomes = {
            a.pk: [o for o in (a.outcomes if isinstance(a.outcomes, list) else []) if isinstance(o, dict)]
            for a in recent
        }
        # What each kept or confirmed memory says (its key and the codes stay on hover, for support).
        texts = brain_api.client_brain_texts(
            tenant_id=request.tenant.pk,
            memory_ids=[o["memory_id"] for found in outcomes.values() for o in found if o.get("memory_id")],
        )
        attempts = [
            {
                "attempt": a,
                "skip": SKIP_WORDS.get(a.skip_reason, a.skip_reason.replace("_", " ")),
                "taught": [
                    {
                        **o,
                        "text": texts.get(o.get("memory_id")),
                        "words": brain_api.code_label("result", o.get("result", "")),
                        "why": brain_api.code_label("reason", o.get("reason") or ""),
                    }
                    for o in outcomes[a.pk]
                ],
            }
            for a in recent
        ]
        return render(
            request,
            "tickets/learning.html",
            {
                "attempts": attempts,
                "ticket": ticket,
                "chart": learned_chart(request.tenant),
                "nav_client_brain": True,
            },
        )
