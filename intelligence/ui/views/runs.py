"""The Runs page of an action agent (operator UI): recent runs with what their context calls asked (linked to
their traces), the memories their traces injected, their responses and proposed actions, approved or rejected with an optional reason (POST/redirect/GET)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from config.ui import service_refusal

from ... import selectors, transcripts
from ...models import ProposedActionStatus
from ...services import runs
from .agents import AgentScopedView, _actor, actor_names

DECISIONS = {"approve": ProposedActionStatus.APPROVED, "reject": ProposedActionStatus.REJECTED}


class AgentRunsView(AgentScopedView):
    def get(self, request, agent):
        recent = selectors.recent_runs(self.tenant, agent, limit=20)
        previews = transcripts.run_previews(self.tenant, recent, last=3)
        for run in recent:  # what each of the run's latest context calls asked, with its trace
            run.preview = previews[run.pk]
        return render(
            request,
            "intelligence/runs.html",
            {
                "agent": agent,
                "runs": recent,
                "tab": "runs",
                "reason_max": runs.REASON_MAX_CHARS,
                "actor_names": actor_names(
                    [a.decided_by for run in recent for a in run.proposed_actions.all() if a.decided_by]
                ),
                "nav_agents": True,
            },
        )


class ProposedActionDecideView(AgentScopedView):
    """POST decision=approve|reject, reason=...: final once taken."""

    def post(self, request, agent, run_id: int, action_id: int):
        run = selectors.run_for_tenant(self.tenant, run_id)
        if run is None or run.agent_id != agent.pk:
            raise Http404("No such run for this agent.")
        action = selectors.proposed_action_for_run(run, action_id)
        if action is None:
            raise Http404("No such proposed action in this run.")
        decision = DECISIONS.get(request.POST.get("decision", ""))
        if decision is None:
            messages.error(request, "Choose approve or reject.")
        else:
            with service_refusal(request):
                try:
                    action = runs.proposed_action_decide(
                        action=action,
                        decision=decision,
                        actor=_actor(request),
                        reason=request.POST.get("reason", ""),
                    )
                except runs.ActionAlreadyDecided as exc:
                    messages.error(
                        request, f"This action was already {exc.action.status}; a decision is final."
                    )
                else:
                    messages.success(
                        request,
                        f"{action.get_status_display()}: {action.action_type.replace('_', ' ')} of run {run.pk}.",
                    )
        return HttpResponseRedirect(reverse("intelligence-runs", args=[agent.pk]) + f"#run-{run.pk}")
