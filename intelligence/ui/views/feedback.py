"""Operator UI for feedback and suggestions: an agent's Conversations page (recent conversations and runs, the
memories their prompt was given as `[mem:ID]` chips, the response, thumbs up / down with a comment) and its
Suggestions queue (activate, edit then activate, dismiss with a reason).

On the one tenancy layer (`TenantViewMixin` through `AgentScopedView`): viewers read, operators rate and
review. A conversation, run or suggestion that is not this agent's (or tenant's) is a 404. POST/redirect/GET.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from brain import api as brain_api
from config.ui import service_refusal

from ... import selectors
from ...learning import learning_config_for
from ...runtime import TIER_ORDER
from ...services import feedback, suggestions
from ..forms import STRENGTH_LABELS
from .agents import AgentScopedView, _actor

RECENT = 25
# Where an agent may keep the response its conversation / run produced (the runtime records add one).
RESPONSE_FIELDS = ("response_text", "response", "recommendation")


def _response_of(record) -> str:
    for name in RESPONSE_FIELDS:
        value = getattr(record, name, None)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _chips(trace) -> tuple[list[int], list[int]]:
    """The agent memories (by tier) and the Client Brain rows the trace injected."""
    if trace is None:
        return [], []
    sections = trace.sections or {}
    agent_ids = [i for name in TIER_ORDER for i in (sections.get(name) or {}).get("memory_ids", [])]
    brand_ids = list((sections.get("brand") or {}).get("memory_ids", []))
    return agent_ids, brand_ids


def _rows(records, kind: str) -> list[dict]:
    rows = []
    for record in records:
        agent_ids, brand_ids = _chips(record.context_trace)
        rows.append(
            {
                "kind": kind,
                "record": record,
                "label": (record.title if kind == "conversation" else record.summary)
                or f"{kind} {record.pk}",
                "agent_memory_ids": agent_ids,
                "brand_memory_ids": brand_ids,
                "response": _response_of(record),
            }
        )
    return rows


class ConversationsView(AgentScopedView):
    """The agent's recent conversations and runs with their injected memories, response and feedback."""

    def get(self, request, agent):
        conversations = _rows(selectors.conversations_recent(self.tenant, agent, RECENT), "conversation")
        runs = _rows(selectors.runs_recent(self.tenant, agent, RECENT), "run")
        return render(
            request,
            "intelligence/conversations.html",
            {
                "agent": agent,
                "conversations": conversations,
                "runs": runs,
                "comment_max": feedback.COMMENT_MAX_CHARS,
                "threshold": learning_config_for(agent).suggestion_feedback_threshold,
                "suggestion_count": selectors.suggestion_count(agent),
                "nav_agents": True,
            },
        )


FORM_RATINGS = {"1": 1, "-1": -1}


class _RateView(AgentScopedView):
    kind = "conversation"

    def post(self, request, agent, record_id: int):
        lookup = (
            selectors.conversation_for_tenant if self.kind == "conversation" else selectors.run_for_tenant
        )
        record = lookup(self.tenant, record_id)
        if record is None or record.agent_id != agent.pk:
            raise Http404(f"No such {self.kind} for this agent.")
        # A form sends text: exactly what the thumbs buttons send, not anything int() reads ("01", " 1", "+1").
        rating = FORM_RATINGS.get(request.POST.get("rating", ""))
        with service_refusal(request, "The feedback was not saved: "):
            if self.kind == "conversation":
                feedback.conversation_feedback_set(
                    conversation=record,
                    rating=rating,
                    comment=request.POST.get("comment", ""),
                    actor=_actor(request),
                )
            else:
                feedback.run_feedback_set(
                    run=record, rating=rating, comment=request.POST.get("comment", ""), actor=_actor(request)
                )
            word = "up" if rating == 1 else "down"
            messages.success(request, f"Rated {self.kind} {record.pk} thumbs {word}.")
        return HttpResponseRedirect(
            reverse("intelligence-conversations", args=[agent.pk]) + f"#{self.kind}-{record.pk}"
        )


class ConversationRateView(_RateView):
    kind = "conversation"


class RunRateView(_RateView):
    kind = "run"


class SuggestionsView(AgentScopedView):
    """The review queue: suggested drafts with their evidence, and the latest dismissals."""

    def get(self, request, agent):
        page = selectors.suggestion_queue(agent, limit=100)
        evidence = brain_api.suggestion_evidence(
            tenant_id=agent.tenant_id, memory_ids=[m.id for m in page.items]
        )
        items = [{"memory": m, "evidence": evidence.get(m.id, [])} for m in page.items]
        return render(
            request,
            "intelligence/conversations_suggestions.html",
            {
                "agent": agent,
                "items": items,
                "suggestion_count": page.total,
                "dismissals": selectors.recent_dismissals(agent, limit=10),
                "strengths": brain_api.MemoryStrength.choices,
                "categories": brain_api.MemoryCategory.choices,
                "strength_labels": STRENGTH_LABELS,
                "reason_max": suggestions.REASON_MAX_CHARS,
                "threshold": learning_config_for(agent).suggestion_feedback_threshold,
                "last_run": selectors.last_run(agent),
                "nav_agents": True,
            },
        )


def _back(agent) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("intelligence-suggestions", args=[agent.pk]))


class SuggestionActivateView(AgentScopedView):
    """POST (optional content, category, strength): edit then activate; source stays "suggested"."""

    def post(self, request, agent, memory_id: int):
        edits = {
            "text": request.POST.get("content", "").strip() or None,
            "category": request.POST.get("category") or None,
            "strength": request.POST.get("strength") or None,
        }
        with service_refusal(request, f"[mem:{memory_id}] was not activated: "):
            try:
                suggestions.suggestion_activate(
                    agent=agent, memory_id=memory_id, actor=_actor(request), **edits
                )
            except suggestions.SuggestionNotFound:
                raise Http404("No such suggestion waiting for review.") from None
            except brain_api.GateRejected as exc:
                messages.error(
                    request,
                    f"[mem:{memory_id}] was not activated: the formation gate rejected the edit ({exc.reason}).",
                )
            else:
                messages.success(
                    request, f"Activated [mem:{memory_id}]: the runtime injects it by its strength tier."
                )
        return _back(agent)


class SuggestionDismissView(AgentScopedView):
    """POST reason=...: archived, never proposed again (nor a near duplicate)."""

    def post(self, request, agent, memory_id: int):
        with service_refusal(request, f"[mem:{memory_id}] was not dismissed: "):
            try:
                suggestions.suggestion_dismiss(
                    agent=agent,
                    memory_id=memory_id,
                    reason=request.POST.get("reason", ""),
                    actor=_actor(request),
                )
            except suggestions.SuggestionNotFound:
                raise Http404("No such suggestion waiting for review.") from None
            messages.success(request, f"Dismissed [mem:{memory_id}]; it will not be suggested again.")
        return _back(agent)
