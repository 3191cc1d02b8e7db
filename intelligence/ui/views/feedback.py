"""Operator UI for feedback and suggestions: an agent's Conversations page (recent conversations and runs with
their latest exchanges — what the customer asked, the memories the prompt was given as `[mem:ID]` chips, the
agent's reply — and thumbs up / down with a comment), a conversation's page (its whole transcript beside its
rating), and its Suggestions queue (activate, edit then activate, dismiss with a reason).

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

from ... import selectors, transcripts
from ...learning import learning_config_for
from ...services import feedback, suggestions
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


def _rows(records, kind: str, previews) -> list[dict]:
    return [
        {"kind": kind, "record": r, "preview": previews[r.pk], "response": _response_of(r)} for r in records
    ]


def _page_context(agent, **extra) -> dict:
    return {
        "agent": agent,
        "comment_max": feedback.COMMENT_MAX_CHARS,
        "threshold": learning_config_for(agent).suggestion_feedback_threshold,
        "suggestion_count": selectors.suggestion_count(agent),
        "nav_agents": True,
        **extra,
    }


class ConversationsView(AgentScopedView):
    """The agent's recent conversations and runs: what the customer asked and the agent answered (the
    latest exchanges, intelligence.transcripts), the memories each prompt was given, and the rating form."""

    def get(self, request, agent):
        conversations = list(selectors.conversations_recent(self.tenant, agent, RECENT))
        runs = list(selectors.runs_recent(self.tenant, agent, RECENT))
        previews = [
            transcripts.conversation_previews(self.tenant, conversations),
            transcripts.run_previews(self.tenant, runs),
        ]
        turns = [turn for found in previews for preview in found.values() for turn in preview.turns]
        return render(
            request,
            "intelligence/conversations.html",
            _page_context(
                agent,
                conversations=_rows(conversations, "conversation", previews[0]),
                runs=_rows(runs, "run", previews[1]),
                brand_titles=transcripts.brand_chip_titles(agent, turns),
            ),
        )


class ConversationDetailView(AgentScopedView):
    """One conversation: its whole transcript (each turn's customer message, the memories its prompt was
    given, the agent's reply, its trace) beside its rating and the rating's history."""

    def get(self, request, agent, record_id: int):
        conversation = selectors.conversation_for_tenant(self.tenant, record_id)
        if conversation is None or conversation.agent_id != agent.pk:
            raise Http404("No such conversation for this agent.")
        preview = transcripts.conversation_previews(self.tenant, [conversation], last=0)[conversation.pk]
        turns = transcripts.conversation_transcript(conversation)
        return render(
            request,
            "intelligence/conversation_detail.html",
            _page_context(
                agent,
                r=conversation,
                kind="conversation",
                label=preview.label,
                turns=turns,
                brand_titles=transcripts.brand_chip_titles(agent, turns),
                history=selectors.feedback_history(conversation),
            ),
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
        next_url = request.POST.get("next", "")
        if not next_url.startswith("/") or next_url.startswith("//"):
            next_url = reverse("intelligence-conversations", args=[agent.pk])
        return HttpResponseRedirect(next_url.split("#")[0] + f"#{self.kind}-{record.pk}")


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
