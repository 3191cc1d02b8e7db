"""The tenant-isolation matrix's registry: every /api/v1 route and how to make an object for it.

`tests/tickets/test_isolation.py` requests every route with another tenant's key (and, for detail
routes, this tenant's ids) and expects 404 or 403, never data. A test there fails when a route under
/api/v1 has no entry here, so a new endpoint cannot ship without its cross-tenant test.

Each entry: route name -> Route(methods, make) where `make(tenant)` returns the URL kwargs for an
object of `tenant` (or {} for a route without ids), and `body` is a plausible request body.
"""

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Route:
    methods: tuple[str, ...]
    make: Callable[..., dict] = lambda tenant: {}
    body: dict = field(default_factory=dict)
    # Routes without ids answer with the caller's own tenant's data: for those the matrix checks that
    # nothing of the victim tenant appears in the answer.
    tenant_relative: bool = False


def _api_key(tenant):
    from tickets.tenancy import services as tenancy_services

    key, _ = tenancy_services.api_key_create(tenant=tenant, name="victim key")
    return {"pk": key.pk}


def _membership(tenant):
    from tests.tickets.factories import MembershipFactory, UserFactory

    membership = MembershipFactory(tenant=tenant, user=UserFactory())
    return {"pk": membership.pk}


def _victim_memory(tenant):
    """A memory of the victim tenant that names it: a search leaking it would show the name."""
    from brain.embedders import get_embedder
    from brain.models import Memory

    text = f"{tenant.name} refund policy: refunds within 14 days."
    embedder = get_embedder()
    Memory.objects.create(
        tenant=tenant, type="fact", key="refund policy", text=text,
        embedding=embedder.embed([text])[0], embedding_model=embedder.name,
    )  # fmt: skip
    return {}


def _victim_formed_memory(tenant):
    """A memory promoted in the victim's agent 7 scope, linked to a run; returns its pk for detail routes."""
    from brain.api import promote
    from brain.types import MemoryCandidate

    outcome = promote(
        MemoryCandidate(
            tenant_id=tenant.pk, type="note", scope_kind="agent", scope_id="7", surface="memory_append",
            text=f"{tenant.name} customers want invoices emailed monthly.", provenance=[{"kind": "run", "id": "v1"}],
        )
    )  # fmt: skip
    return {"pk": outcome.memory_id}


def _ticket(tenant):
    from tickets import services

    ticket, _ = services.ticket_upsert(tenant=tenant, external_id="VICTIM-1", subject="Victim's ticket")
    return {"external_id": ticket.external_id}


def _learning_attempt(tenant):
    from tickets.models import LearningAttempt

    attempt = LearningAttempt.objects.create(tenant=tenant, ticket_external_id="VICTIM-1")
    return {"pk": attempt.pk}


def _agent(tenant):
    from intelligence.services import agent_create

    agent = agent_create(tenant=tenant, name=f"{tenant.name} victim agent")
    return {"pk": agent.pk}


def _agent_pk(tenant):
    return {"agent_pk": _agent(tenant)["pk"]}


def _agent_memory(tenant):
    from intelligence.models import Agent
    from intelligence.services import agent_memory_add

    agent = Agent.objects.all_tenants().get(pk=_agent(tenant)["pk"])
    outcome = agent_memory_add(
        agent=agent, actor="process:test", category="fact", strength="hard_rule", status="active",
        text=f"{tenant.name} never discounts premium plans.",
    )  # fmt: skip
    return {"agent_pk": agent.pk, "pk": outcome.memory_id}


ROUTES: dict[str, Route] = {
    "current-tenant": Route(("GET",), tenant_relative=True),
    "api-key-list": Route(("GET", "POST"), tenant_relative=True, body={"name": "x"}),
    "api-key-detail": Route(("GET",), _api_key),
    "api-key-revoke": Route(("POST",), _api_key),
    "member-list": Route(("GET",), tenant_relative=True),
    "member-detail": Route(("GET", "PUT", "PATCH", "DELETE"), _membership, body={"role": "viewer"}),
    # Helpdesk integration (tickets/rest/views.py).
    "ticket-list": Route(
        ("GET", "POST"), tenant_relative=True, body={"external_id": "VICTIM-1", "subject": "x"}
    ),
    "ticket-detail": Route(
        ("GET", "PUT", "PATCH"), _ticket, body={"subject": "taken over", "status": "solved"}
    ),
    "ticket-status": Route(("POST",), _ticket, body={"status": "solved"}),
    "ticket-messages": Route(
        ("GET", "POST"), _ticket, body={"direction": "outbound", "body": "We refunded it."}
    ),
    "ticket-classifications": Route(("GET", "POST"), _ticket, body={"category": "billing"}),
    "ticket-approvals": Route(
        ("GET", "POST"), _ticket, body={"proposed_action": "Refund", "decision": "approved"}
    ),
    "learning-attempt-list": Route(("GET",), tenant_relative=True),
    "learning-attempt-detail": Route(("GET",), _learning_attempt),
    # The body must not name the victim: the answer echoes the query.
    "brain-search": Route(("POST",), _victim_memory, tenant_relative=True, body={"query": "refund policy"}),
    "brain-ask": Route(
        ("POST",), _victim_memory, tenant_relative=True, body={"question": "What is the refund policy?"}
    ),
    # Agents, their memories and the runtime context (intelligence/rest/urls.py).
    "agent-list": Route(
        ("GET", "POST"), lambda t: _agent(t) and {}, tenant_relative=True, body={"name": "intruder agent"}
    ),
    "agent-detail": Route(("GET", "PUT", "PATCH"), _agent, body={"name": "taken over"}),
    "agent-context": Route(("POST",), _agent_pk, body={"conversation": "premium plan discount"}),
    "agent-memory-list": Route(
        ("GET", "POST"), _agent_pk, body={"category": "fact", "strength": "hard_rule", "content": "x y z"}
    ),
    "agent-memory-detail": Route(("GET", "PATCH"), _agent_memory, body={"content": "taken over"}),
    "agent-memory-status": Route(("POST",), _agent_memory, body={"status": "archived"}),
    "agent-memory-supersede": Route(("POST",), _agent_memory, body={"content": "replaced by intruder"}),
    "agent-memory-promote": Route(
        ("POST",), _agent_memory, body={"category": "preference", "strength": "preference"}
    ),
    # Formation write surfaces and the graph (brain/rest/views/formation.py). Bodies never name the victim.
    "brain-memory-append": Route(
        ("POST",),
        lambda t: _victim_formed_memory(t) and {},
        tenant_relative=True,
        body={"agent_id": "7", "text": "Customers want invoices emailed monthly."},
    ),
    "brain-lessons": Route(
        ("POST",),
        lambda t: _victim_formed_memory(t) and {},
        tenant_relative=True,
        body={
            "app_id": "7",
            "template": "When {situation}, {action}.",
            "values": {"situation": "late", "action": "apologise"},
        },
    ),
    "brain-chat-mine": Route(
        ("POST",),
        lambda t: _victim_formed_memory(t) and {},
        tenant_relative=True,
        body={
            "conversation_id": "c1",
            "agent_id": "7",
            "messages": [{"role": "user", "content": "I prefer email."}],
        },
    ),
    "brain-memory-neighbours": Route(("GET",), _victim_formed_memory),
}


def register(name: str, route: Route) -> None:
    ROUTES[name] = route


# --- Client Brain (brain/rest/urls.py) ------------------------------------------------------
def _client_brain_memory(tenant):
    from brain.models import Memory

    memory = Memory.objects.create(
        tenant=tenant,
        scope_kind="tenant",
        type="business",
        key="refund policy",
        payload={"fact": f"{tenant.name} refunds within 30 days"},
        text=f"{tenant.name} refunds within 30 days",
        confidence=0.9,
    )
    return {"pk": memory.pk}


def _client_brain_victim(tenant):
    _client_brain_memory(tenant)
    return {}


ROUTES.update(
    {
        # The bodies must not name the victim: answers echo the query words.
        "client-brain-context": Route(
            ("POST",), _client_brain_victim, tenant_relative=True, body={"subject": "refund policy"}
        ),
        "client-brain-copilot": Route(
            ("GET",), _client_brain_victim, tenant_relative=True, body={"q": "refund"}
        ),
        "client-brain-memory-list": Route(("GET", "POST"), _client_brain_victim, tenant_relative=True),
        "client-brain-memory-stats": Route(("GET",), _client_brain_victim, tenant_relative=True),
        "client-brain-memory-reset": Route(("POST", "DELETE"), _client_brain_victim, tenant_relative=True),
        "client-brain-memory-detail": Route(
            ("GET", "PUT", "PATCH", "DELETE"), _client_brain_memory, body={"fact": "taken over"}
        ),
    }
)
ROUTES.update(
    {
        f"client-brain-{feature}": Route(("POST",), _client_brain_victim, tenant_relative=True)
        for feature in ("prune", "contribute", "bootstrap")
    }
)


# --- Conversations and runs as records, proposed actions, verdicts (intelligence/rest/views/runs.py) ---------
def _victim_run(tenant):
    """An action agent's run of the victim with a proposed action, a response and an injected memory."""
    from intelligence.models import Agent
    from intelligence.services import ContextRequest, agent_create, agent_memory_add
    from intelligence.services.runs import agent_context_open, run_response_record

    agent = agent_create(tenant=tenant, name=f"{tenant.name} action agent", kind="action")
    agent = Agent.objects.all_tenants().get(pk=agent.pk)
    agent_memory_add(
        agent=agent, actor="process:test", category="instruction", strength="hard_rule", status="active",
        text=f"{tenant.name} never raises budgets on Fridays.",
    )  # fmt: skip
    _, _, trace, record = agent_context_open(
        agent=agent, request=ContextRequest(conversation="raise the budget"), run_id="victim-run"
    )
    from intelligence.models import AgentRun

    run = AgentRun.objects.all_tenants().get(pk=record.id)
    run_response_record(
        run=run,
        text=f"{tenant.name}: raising",
        proposed_actions=[{"type": "budget_change", "recommendation": f"{tenant.name} raise by 10%"}],
    )
    return {"run": run, "trace": trace, "action": run.proposed_actions.get()}


def _victim_conversation(tenant):
    from intelligence.models import Agent
    from intelligence.services import ContextRequest
    from intelligence.services.runs import agent_context_open

    agent = Agent.objects.all_tenants().get(pk=_agent(tenant)["pk"])
    _, _, trace, record = agent_context_open(
        agent=agent, request=ContextRequest(conversation="refund question"), conversation_id="victim-conv"
    )
    return {"conversation_pk": record.id}


def _victim_verdict_target(tenant):
    """The victim's run and trace exist; the intruder's body names the victim's trace id (set below)."""
    made = _victim_run(tenant)
    ROUTES["verdicts"].body = {"trace_id": made["trace"].pk, "verdict": "fail", "response_text": "x"}
    return {}


# --- Feedback and suggestions (intelligence/rest/views/feedback.py) --------------------------------------------
def _conversation(tenant):
    from intelligence.models import Agent, Conversation

    agent = Agent.objects.all_tenants().get(pk=_agent(tenant)["pk"])
    return {"pk": Conversation.objects.create(tenant=tenant, agent=agent, title=f"{tenant.name} chat").pk}


def _run(tenant):
    from intelligence.models import Agent, AgentRun

    agent = Agent.objects.all_tenants().get(pk=_agent(tenant)["pk"])
    return {"pk": AgentRun.objects.create(tenant=tenant, agent=agent, summary=f"{tenant.name} run").pk}


def _agent_suggestion(tenant):
    """A suggested draft of the victim's agent, from three thumbs-down ratings (the default threshold)."""
    from intelligence.models import Agent, Conversation
    from intelligence.services.feedback import conversation_feedback_set
    from intelligence.services.suggestions import suggestions_generate

    agent = Agent.objects.all_tenants().get(pk=_agent(tenant)["pk"])
    for _ in range(3):
        convo = Conversation.objects.create(tenant=tenant, agent=agent)
        conversation_feedback_set(
            conversation=convo,
            rating=-1,
            comment=f"{tenant.name} customers want the refund window.",
            actor="t",
        )
    result = suggestions_generate(agent=agent)
    return {"agent_pk": agent.pk, "pk": result.memory_ids[0]}


ROUTES.update(
    {
        "conversation-messages": Route(("POST",), _victim_conversation, body={"text": "taken over"}),
        "run-detail": Route(("GET",), lambda t: {"run_pk": _victim_run(t)["run"].pk}),
        "run-response": Route(("POST",), lambda t: {"run_pk": _victim_run(t)["run"].pk}, body={"text": "x"}),
        "run-outcome": Route(
            ("POST",), lambda t: {"run_pk": _victim_run(t)["run"].pk}, body={"outcome": "failure"}
        ),
        "run-action-approve": Route(
            ("POST",),
            lambda t: (lambda m: {"run_pk": m["run"].pk, "pk": m["action"].pk})(_victim_run(t)),
            body={"reason": "intruder"},
        ),
        "run-action-reject": Route(
            ("POST",),
            lambda t: (lambda m: {"run_pk": m["run"].pk, "pk": m["action"].pk})(_victim_run(t)),
            body={"reason": "intruder"},
        ),
        # Not tenant-relative: the body names the victim's trace, which must be a 404 for the intruder.
        "verdicts": Route(("POST",), _victim_verdict_target),
        "conversation-feedback": Route(("POST",), _conversation, body={"rating": -1, "comment": "intruder"}),
        "run-feedback": Route(("POST",), _run, body={"rating": -1, "comment": "intruder"}),
        "agent-suggestion-list": Route(("GET",), _agent_pk),
        "agent-suggestion-activate": Route(("POST",), _agent_suggestion, body={"content": "taken over"}),
        "agent-suggestion-dismiss": Route(("POST",), _agent_suggestion, body={"reason": "intruder"}),
    }
)
