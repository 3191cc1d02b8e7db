"""An agent's "Written by the agent" view (issue 28): the notes it wrote itself — `remember` (memory-append)
and chat-mine with its id — which the spec stores "for reference" and never injects.

The list shows each note's text, how it was written, the conversation or run that wrote it, when, and its
history in brief; a note's page shows its whole history and the form that promotes it to a preference or a
rule: a new operator memory through brain's promote() (the gate decides), linked `derived_from` the note,
whose history records the promotion. On the one tenancy layer (`AgentScopedView`): viewers read, operators
promote; a note that is not this agent's (or tenant's) is a 404. POST/redirect/GET, a message after each action.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from brain import api as brain_api

from ... import selectors, services
from ..forms import NOTE_SURFACE_WORDS, STRENGTH_LABELS, NoteFilterForm, NotePromoteForm
from .agents import AgentScopedView, _actor, actor_names, form_errors

PAGE_SIZE = 20


def _page_number(request) -> int:
    try:
        return max(int(request.GET.get("page", "1")), 1)
    except ValueError:
        return 1


def _rows(tenant, agent, notes) -> list[dict]:
    """Each note with the agent's conversation or run its caller's id names (None when the Brain has no such
    record: the id is shown as the agent sent it)."""
    written_in = selectors.records_by_external_id(
        tenant, agent, [i for n in notes for i in (n.conversation_id, n.run_id)]
    )
    return [
        {
            "note": note,
            "written_in": written_in.get(note.conversation_id) or written_in.get(note.run_id),
            "caller_kind": "conversation" if note.conversation_id else "run",
            "caller_id": note.conversation_id or note.run_id,
        }
        for note in notes
    ]


class AgentNotesView(AgentScopedView):
    """The agent's notes, newest first, paginated; filters: how it was written, a search of the text."""

    def get(self, request, agent):
        filters = NoteFilterForm(request.GET or None)
        valid = filters.is_valid()
        page_number = _page_number(request)
        criteria = {**(filters.validated if valid else {}), "written_by": "agent"}
        page = brain_api.agent_memory_list(
            tenant_id=agent.tenant_id,
            agent_id=agent.pk,
            offset=(page_number - 1) * PAGE_SIZE,
            limit=PAGE_SIZE,
            **criteria,
        )
        filter_params = {k: v for k, v in (filters.cleaned_data if valid else {}).items() if v}
        return render(
            request,
            "intelligence/notes.html",
            {
                "agent": agent,
                "rows": _rows(self.tenant, agent, page.items),
                "total": page.total,
                "page_obj": Paginator(range(page.total), PAGE_SIZE).get_page(page_number),
                "filters": filters,
                "filtered": bool(filter_params),
                "filter_query": urlencode(filter_params),
                "surface_words": NOTE_SURFACE_WORDS,
                "actor_names": actor_names([r.actor for r in page.items]),
                "nav_agents": True,
            },
        )


class AgentNoteView(AgentScopedView):
    """One note: what wrote it, its history, the memories it was promoted to, and the promote form."""

    def get_note(self, agent, memory_id: int):
        note = brain_api.agent_memory_get(
            tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id, written_by="agent"
        )
        if note is None:
            raise Http404("No such note written by this agent.")
        return note

    def get(self, request, agent, memory_id: int, form=None, refusal: str = ""):
        note = self.get_note(agent, memory_id)
        history = brain_api.memory_history(tenant_id=agent.tenant_id, memory_id=note.id, limit=50)
        promoted = [
            brain_api.agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=i)
            for i in note.promoted_to_ids
        ]
        return render(
            request,
            "intelligence/note_detail.html",
            {
                "agent": agent,
                "row": _rows(self.tenant, agent, [note])[0],
                "note": note,
                "history": history,
                "actor_names": actor_names([note.actor, *(h.actor for h in history)]),
                "promoted": [m for m in promoted if m is not None],
                "surface_words": NOTE_SURFACE_WORDS,
                "form": form or NotePromoteForm(initial={"content": note.text}),
                "refusal": refusal,
                "nav_agents": True,
            },
        )


class AgentNotePromoteView(AgentNoteView):
    """POST: the note becomes a preference or a rule of the operator's (through the gate). Operators only."""

    def post(self, request, agent, memory_id: int):
        note = self.get_note(agent, memory_id)
        form = NotePromoteForm(request.POST)
        refusal = ""
        if form.is_valid():
            with form_errors(form):
                outcome = services.agent_note_promote(
                    agent=agent, note_id=note.id, actor=_actor(request), **form.validated
                )
                if outcome.written:
                    messages.success(request, _promoted_message(outcome, form.validated))
                    target = outcome.memory_id or outcome.related_memory_id
                    return HttpResponseRedirect(reverse("intelligence-memory", args=[agent.pk, target]))
                refusal = outcome.reason
                form.add_error(
                    "content",
                    f"The formation gate refused this wording: {brain_api.gate_reason_words(refusal)}.",
                )
        messages.error(request, "The note was not promoted; fix the errors below.")
        return self.get(request, agent, memory_id, form=form, refusal=refusal)


def _promoted_message(outcome, values: dict) -> str:
    target = outcome.memory_id or outcome.related_memory_id
    kind = STRENGTH_LABELS.get(values["strength"], values["strength"]).lower()
    if outcome.result == "reinforced":
        return f"An operator memory already says this: [mem:{target}] was confirmed again by the note."
    state = (
        "active: the agent gets it" if values["status"] == "active" else "a draft: activate it after review"
    )
    return f"Promoted the note to [mem:{target}], a {kind} ({state})."
