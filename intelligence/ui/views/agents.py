"""The Intelligence tab (spec: intelligence_and_learning.txt) in the agent detail view, and the agents list.

Every view uses the one tenancy layer (`TenantViewMixin`): viewers read, operators change. Writes call
`intelligence.services`, which write memories only through `brain`'s promote() and memory services. After
each action the view redirects with a message (POST/redirect/GET), so the pages work without JavaScript;
`templates/intelligence/_inplace.js` upgrades forms marked `data-inplace` to swap the page in place.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views import View

from brain import api as brain_api
from config.ui import service_errors
from tickets.tenancy.ui.mixins import TenantViewMixin

from ... import selectors, services, transcripts
from ...runtime import SECTION_TITLES, TIER_ORDER, default_budget
from ..forms import (
    AgentForm,
    AgentMemoryEditForm,
    AgentMemoryForm,
    BudgetOverridesForm,
    BudgetPreviewForm,
    LearningConfigForm,
    MemoryFilterForm,
    SupersedeForm,
)

PAGE_SIZE = 20
STATUS_ACTIONS = {
    "active": ("Activate", "Activated"),
    "stale": ("Mark stale", "Marked stale"),
    "archived": ("Archive", "Archived"),
    "draft": ("Back to draft", "Moved back to draft"),
}


def _actor(request) -> str:
    return f"user:{request.user.pk}"


def actor_names(actors) -> dict[str, str]:
    """`{"3": "Olivia Diaz"}` for the `user:<id>` actors among `actors` (one query), for `actor_words`: the
    user's full name, else the username."""
    ids = {a.partition(":")[2] for a in actors if a.startswith("user:")}
    ids = [int(i) for i in ids if i.isdigit()]
    if not ids:
        return {}
    users = (
        get_user_model().objects.filter(pk__in=ids).values_list("pk", "username", "first_name", "last_name")
    )
    return {str(pk): f"{first} {last}".strip() or username for pk, username, first, last in users}


# The services name a memory's text `text`; the forms call it `content`.
FORM_FIELD_NAMES = {"text": "content"}


def form_errors(form):
    """Run a service for `form`: its refusal becomes the form's errors (config/ui.py)."""
    return service_errors(form, FORM_FIELD_NAMES)


class AgentScopedView(TenantViewMixin, View):
    """The URL's agent is resolved in the request's tenant before the handler runs (the tenancy base's
    "agent" resolver) and handed to it as `agent`: another tenant's agent is a 404 like a missing one."""

    url_parents = {"pk": "agent"}

    def get_memory(self, agent, memory_id: int):
        record = brain_api.agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)
        if record is None:
            raise Http404("No such memory for this agent.")
        return record


def tab_url(agent, **params) -> str:
    url = reverse("intelligence-tab", kwargs={"pk": agent.pk})
    params = {k: v for k, v in params.items() if v not in ("", None)}
    return f"{url}?{urlencode(params)}" if params else url


class AgentListView(TenantViewMixin, View):
    def get(self, request, form=None):
        return render(
            request,
            "intelligence/agent_list.html",
            {"agents": selectors.agents_with_memory_counts(self.tenant), "form": form or AgentForm()},
        )

    def post(self, request):
        form = AgentForm(request.POST)
        if form.is_valid():
            with form_errors(form):  # a taken name too (AgentNameTaken, under `name`)
                agent = services.agent_create(tenant=self.tenant, **form.cleaned_data)
                messages.success(request, f"Created agent “{agent.name}”.")
                return HttpResponseRedirect(tab_url(agent))
        messages.error(request, "The agent was not created; fix the errors below.")
        return self.get(request, form=form)


class IntelligenceTabView(AgentScopedView):
    """The agent's memories (filters, search, pages), Add Memory, learning settings and the budget preview."""

    def get(self, request, agent):
        return render(request, "intelligence/intelligence_tab.html", self.tab_context(request, agent))

    def tab_context(self, request, agent, *, learning_form=None, budget_form=None) -> dict:
        filters = MemoryFilterForm(request.GET or None)
        valid = filters.is_valid()
        try:
            page_number = max(int(request.GET.get("page", "1")), 1)
        except ValueError:
            page_number = 1
        criteria = {**(filters.validated if valid else {}), "offset": (page_number - 1) * PAGE_SIZE}
        criteria["limit"] = PAGE_SIZE
        page = brain_api.agent_memory_list(tenant_id=agent.tenant_id, agent_id=agent.pk, **criteria)
        paginator = Paginator(range(page.total), PAGE_SIZE)
        page_obj = paginator.get_page(page_number)
        filter_params = {k: v for k, v in (filters.cleaned_data if valid else {}).items() if v}
        counts = brain_api.agent_memory_status_counts(tenant_id=agent.tenant_id, agent_ids=[agent.pk])[
            agent.pk
        ]
        notes = brain_api.agent_memory_list(
            tenant_id=agent.tenant_id, agent_id=agent.pk, written_by="agent", limit=0
        )
        return {
            "agent": agent,
            "memories": page.items,
            "total": page.total,
            "page_obj": page_obj,
            "filters": filters,
            "filtered": bool(filter_params),
            "search": filter_params.get("q", ""),
            "filtered_beyond_search": bool(set(filter_params) - {"q"}),
            "filter_query": urlencode(filter_params),
            "status_counts": counts,
            "memory_count": sum(counts.values()),
            "note_count": notes.total,
            "status_actions": STATUS_ACTIONS,
            "add_form": AgentMemoryForm(),
            "learning_form": learning_form or LearningConfigForm.for_config(agent.learning_config),
            "budget_form": budget_form
            or BudgetOverridesForm(initial=agent.budget_overrides, defaults=default_budget().as_dict()),
            "traces": selectors.recent_traces(self.tenant, agent, limit=5),
            "nav_agents": True,
        }


class AgentMemoryAddView(AgentScopedView):
    """Spec: Creating Memories. Through promote(): operators' manual memories skip the judge, not the gate.
    A viewer is not offered the form (the 403 page says which role it needs)."""

    required_role = "operator"

    def get(self, request, agent, form=None):
        return render(
            request,
            "intelligence/memory_form.html",
            {"agent": agent, "form": form or AgentMemoryForm(), "mode": "add", "nav_agents": True},
        )

    def post(self, request, agent):
        form = AgentMemoryForm(request.POST)
        if form.is_valid():
            with form_errors(form):
                outcome = services.agent_memory_add(agent=agent, actor=_actor(request), **form.validated)
                if outcome.written:
                    verb = {"reinforced": "already known: reinforced"}.get(outcome.result, outcome.result)
                    messages.success(
                        request, f"Memory [mem:{outcome.memory_id}] {verb} ({form.validated['status']})."
                    )
                    return HttpResponseRedirect(tab_url(agent))
                form.add_error("content", f"The formation gate rejected this memory ({outcome.reason}).")
        messages.error(request, "The memory was not added; fix the errors below.")
        return self.get(request, agent, form=form)


class AgentMemoryDetailView(AgentScopedView):
    """One memory: its taxonomy and scope, the supersede chain, its history, and the actions."""

    def get(self, request, agent, memory_id: int, edit_form=None, supersede_form=None):
        try:
            memory = self.get_memory(agent, memory_id)
        except Http404:  # a note the agent wrote has its own page (a [mem:ID] link may name one)
            note = brain_api.agent_memory_get(
                tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id, written_by="agent"
            )
            if note is None:
                raise
            return HttpResponseRedirect(reverse("intelligence-note", args=[agent.pk, note.id]))
        chain = brain_api.agent_memory_chain(
            tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory.id
        )
        history = brain_api.memory_history(tenant_id=agent.tenant_id, memory_id=memory.id, limit=50)
        derived = brain_api.graph_neighbours(
            tenant_id=agent.tenant_id, memory_id=memory.id, relations=["derived_from"]
        )
        return render(
            request,
            "intelligence/memory_detail.html",
            {
                "agent": agent,
                "memory": memory,
                # The agent's notes an operator promoted to this memory (issue 28).
                "promoted_from": [n.memory_id for n in derived if n.direction == "out" and n.memory_id],
                "chain": chain,
                "history": history,
                "actor_names": actor_names([h.actor for h in history]),
                "injections": selectors.memory_injections(self.tenant, agent, memory.id),
                "status_actions": STATUS_ACTIONS,
                "edit_form": edit_form or AgentMemoryEditForm.for_memory(memory),
                "supersede_form": supersede_form or SupersedeForm(initial={"content": memory.text}),
                "nav_agents": True,
            },
        )


class AgentMemoryEditView(AgentMemoryDetailView):
    def post(self, request, agent, memory_id: int):
        memory = self.get_memory(agent, memory_id)
        form = AgentMemoryEditForm(request.POST)
        if form.is_valid():
            with form_errors(form):
                try:
                    changed = services.agent_memory_edit(
                        agent=agent, memory_id=memory.id, actor=_actor(request), **form.validated
                    )
                except brain_api.GateRejected as exc:  # a refusal with its own words: which memory it repeats
                    repeats = f" It repeats [mem:{exc.duplicate_of}]." if exc.duplicate_of else ""
                    form.add_error(
                        "content", f"The formation gate rejected this content ({exc.reason}).{repeats}"
                    )
                else:
                    messages.success(request, f"Saved [mem:{memory.id}]." if changed else "Nothing changed.")
                    return HttpResponseRedirect(reverse("intelligence-memory", args=[agent.pk, memory.id]))
        messages.error(request, "The memory was not saved; fix the errors below.")
        return self.get(request, agent, memory_id, edit_form=form)


class AgentMemoryStatusView(AgentScopedView):
    """POST status=active|stale|archived|draft; back to where the operator came from."""

    def post(self, request, agent, memory_id: int):
        memory = self.get_memory(agent, memory_id)
        status = request.POST.get("status", "")
        if status not in STATUS_ACTIONS:
            messages.error(request, f"Unknown status “{status}”; choose one of {', '.join(STATUS_ACTIONS)}.")
        else:
            try:
                services.agent_memory_set_status(
                    agent=agent, memory_id=memory.id, status=status, actor=_actor(request)
                )
            except brain_api.MemorySuperseded:
                messages.error(request, f"[mem:{memory.id}] was superseded; change the newer memory instead.")
            else:
                messages.success(request, f"{STATUS_ACTIONS[status][1]} [mem:{memory.id}].")
        next_url = request.POST.get("next", "")
        if not next_url.startswith("/") or next_url.startswith("//"):
            next_url = tab_url(agent)
        return HttpResponseRedirect(next_url)


class AgentMemorySupersedeView(AgentMemoryDetailView):
    def post(self, request, agent, memory_id: int):
        memory = self.get_memory(agent, memory_id)
        form = SupersedeForm(request.POST)
        if memory.status == "superseded":
            form.add_error(None, "This memory is already superseded; supersede the newest one in its chain.")
        elif form.is_valid():
            with form_errors(form):
                outcome = services.agent_memory_supersede(
                    agent=agent, memory_id=memory.id, actor=_actor(request), **form.validated
                )
                if outcome.written and outcome.memory_id != memory.id:
                    messages.success(request, f"[mem:{memory.id}] superseded by [mem:{outcome.memory_id}].")
                    return HttpResponseRedirect(
                        reverse("intelligence-memory", args=[agent.pk, outcome.memory_id])
                    )
                form.add_error(
                    "content", f"The newer memory was not written ({outcome.reason or outcome.result})."
                )
        messages.error(request, "The memory was not superseded; fix the errors below.")
        return self.get(request, agent, memory_id, supersede_form=form)


class AgentLearningView(AgentScopedView):
    """The learning settings form (spec: Learning Configuration), stored as the agent's learning config."""

    def post(self, request, agent):
        form = LearningConfigForm(request.POST)
        if form.is_valid():
            with form_errors(form):
                services.agent_update(agent=agent, learning_config=form.cleaned_data)
                messages.success(request, "Saved the learning settings.")
                return HttpResponseRedirect(tab_url(agent) + "#learning")
        messages.error(request, "The learning settings were not saved; fix the errors below.")
        tab = IntelligenceTabView()
        tab.tenant = self.tenant
        return render(
            request, "intelligence/intelligence_tab.html", tab.tab_context(request, agent, learning_form=form)
        )


class AgentBudgetView(AgentScopedView):
    """The agent's budget overrides (spec budgets are the settings; an agent may override any of them)."""

    def post(self, request, agent):
        form = BudgetOverridesForm(request.POST, defaults=default_budget().as_dict())
        if form.is_valid():
            with form_errors(form):
                services.agent_update(agent=agent, budget_overrides=form.overrides())
                messages.success(
                    request,
                    "Saved the budget overrides." if form.overrides() else "Using the default budgets.",
                )
                return HttpResponseRedirect(tab_url(agent) + "#budget")
        messages.error(request, "The budgets were not saved; fix the errors below.")
        tab = IntelligenceTabView()
        tab.tenant = self.tenant
        return render(
            request, "intelligence/intelligence_tab.html", tab.tab_context(request, agent, budget_form=form)
        )


# One colour per section of the stacked bar (the legend repeats them in words).
SECTION_COLOURS = {
    "policy": "#98a2b3",
    "knowledge_base": "#7a5af8",
    "hard_rule": "#3b5bdb",
    "preference": "#15aabf",
    "heuristic": "#40c057",
    "brand": "#f08c00",
}


def budget_bar(used: list[tuple[str, int]], total: int) -> list[dict]:
    """The stacked bar of the total budget from (section name, characters used) pairs: one segment per
    section that used characters, then what is left unused."""
    segments = [
        {
            "name": name,
            "title": SECTION_TITLES.get(name, name).split(" (")[0],
            "chars": chars,
            "percent": round(100 * chars / total, 2) if total else 0,
            "colour": SECTION_COLOURS.get(name, "#667085"),
        }
        for name, chars in used
        if chars
    ]
    free = max(total - sum(chars for _, chars in used), 0)
    if free:
        segments.append(
            {
                "name": "free",
                "title": "Unused",
                "chars": free,
                "percent": round(100 * free / total, 2),
                "colour": "#f2f4f7",
            }
        )
    return segments


class BudgetPreviewView(AgentScopedView):
    """The agent's context view: for a sample conversation, exactly what the runtime would inject, per section
    (one stacked bar of the total budget, the memories as chips), and what it would leave out, in words.

    The conversation is POSTed (it may hold customer text: it stays out of URLs and logs). Viewers may use it
    too: it reads only and stores no trace.
    """

    write_role = "viewer"

    def get(self, request, agent):
        return self.render_view(request, agent, BudgetPreviewForm())

    def post(self, request, agent):
        form = BudgetPreviewForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Type a sample conversation to see this agent's context.")
        return self.render_view(request, agent, form)

    def render_view(self, request, agent, form):
        template_context = {
            "agent": agent,
            "form": form,
            "nav_agents": True,
        }
        if form.is_bound and form.is_valid():
            assembly, inactive = services.agent_context_assemble(
                agent=agent, request=services.ContextRequest(**form.validated)
            )
            chips = transcripts.memory_chip_records(
                agent, [(s.name, s.memory_ids) for s in assembly.sections]
            )
            template_context.update(
                {
                    "assembly": assembly,
                    "bar": budget_bar([(s.name, s.chars) for s in assembly.sections], assembly.budget.total),
                    "sections": [
                        {
                            "section": s,
                            "title": SECTION_TITLES[s.name],
                            "is_tier": s.name in TIER_ORDER,
                            "colour": SECTION_COLOURS.get(s.name),
                            "memories": [(i, chips.of(s.name, i)) for i in s.memory_ids],
                        }
                        for s in assembly.sections
                    ],
                    "omitted": [(o, chips.agent.get(o.memory_id)) for o in assembly.omitted[:100]],
                    "omitted_more": max(len(assembly.omitted) - 100, 0),
                    "inactive": inactive,
                    "memory_cap": assembly.budget.memory_cap,
                }
            )
        return render(request, "intelligence/budget_preview.html", template_context)


class AgentTracesView(AgentScopedView):
    """Recent runtime calls of the agent (its context traces): the question each was asked and the
    conversation or run it served (intelligence.transcripts), what it injected, what it left out and why."""

    template_name = "intelligence/traces.html"

    def traces(self, agent) -> list:
        return list(selectors.recent_traces(self.tenant, agent, limit=30))

    def get(self, request, agent, **kwargs):
        traces = self.traces(agent, **kwargs)
        served = transcripts.trace_records(self.tenant, agent, traces)
        labels = transcripts.record_labels(self.tenant, served.values())
        chips = transcripts.memory_chip_records(
            agent,
            [(name, data.get("memory_ids", [])) for t in traces for name, data in (t.sections or {}).items()],
        )
        rows = []
        for trace in traces:
            sections = [
                {
                    "name": name,
                    "title": SECTION_TITLES.get(name, name).split(" (")[0],
                    "is_tier": name in TIER_ORDER,
                    "chars": data.get("chars", 0),
                    "budget": data.get("budget", 0),
                    "truncated": data.get("truncated", False),
                    "memories": [(i, chips.of(name, i)) for i in data.get("memory_ids", [])],
                }
                for name, data in (trace.sections or {}).items()
            ]
            rows.append(
                {
                    "trace": trace,
                    "asked": transcripts.asked_of(trace),
                    "served": served.get(trace.pk),
                    "served_label": labels.get(served[trace.pk].key) if trace.pk in served else "",
                    "sections": sections,
                    "omitted": [
                        (reason, [(i, chips.agent.get(i)) for i in ids])
                        for reason, ids in (trace.omitted or {}).items()
                    ],
                    "bar": budget_bar(
                        [(row["name"], row["chars"]) for row in sections],
                        (trace.budget or {}).get("total") or default_budget().total,
                    ),
                }
            )
        return render(
            request,
            self.template_name,
            {
                "agent": agent,
                "rows": rows,
                "nav_agents": True,
                "trace_page": bool(kwargs),
            },
        )


class TraceDetailView(AgentTracesView):
    """One trace: the question it was asked, the conversation or run it served (linked) and the agent's reply
    to that call, with what it injected and left out. Another agent's or tenant's trace is a 404."""

    def traces(self, agent, trace_id: int) -> list:
        trace = selectors.trace_for_tenant(self.tenant, trace_id)
        if trace is None or trace.agent_id != agent.pk:
            raise Http404("No such trace for this agent.")
        return [trace]
