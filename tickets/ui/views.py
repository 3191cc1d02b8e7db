"""The operator UI's Learning page: recent learning attempts, each ticket with what it taught (read-only)."""

from django.shortcuts import render
from django.views import View

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
RESULT_WORDS = {
    "added": "new memory",
    "reinforced": "confirmed a memory again",
    "superseded": "replaced an older memory",
    "rejected": "not kept",
}


class LearningView(TenantViewMixin, View):
    def get(self, request):
        ticket = (request.GET.get("ticket") or "").strip()[:128]
        attempts = [
            {
                "attempt": a,
                "skip": SKIP_WORDS.get(a.skip_reason, a.skip_reason.replace("_", " ")),
                "taught": [
                    {
                        **o,
                        "words": RESULT_WORDS.get(o.get("result", ""), o.get("result", "")),
                        "why": str(o.get("reason") or "").replace("_", " "),
                    }
                    for o in (a.outcomes if isinstance(a.outcomes, list) else [])
                    if isinstance(o, dict)
                ],
            }
            for a in learning_attempts_recent(tenant=request.tenant, ticket_external_id=ticket)
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
