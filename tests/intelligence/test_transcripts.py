"""Issue 28, item 3: conversations and traces with the conversation. The context call keeps the customer's
message on its trace; the Conversations page, a conversation's page and the rating show what the customer
asked and the agent answered; a trace says which conversation or run and which question produced it, and
links back; the Traces empty state gives the call that creates a trace instead of pointing at the Context
preview, which stores nothing."""

import pytest
from django.urls import reverse

from intelligence.models import ContextTrace
from intelligence.services.agents import REQUEST_TEXT_MAX_CHARS
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent
from .test_intelligence_tab import signed_in

pytestmark = pytest.mark.django_db

ASKED_1 = "Customer: my parcel has not arrived and the tracking page says nothing."
REPLY_1 = "Sorry about that, Ana. Here is your tracking link; the courier delivers tomorrow."
ASKED_2 = "Customer: the link says the parcel is stuck at the depot since Monday."
REPLY_2 = "I have escalated it with the courier; you will hear from us today."


def context(api, agent, **body):
    response = api.post(reverse("agent-context", kwargs={"agent_pk": agent.pk}), body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def reply(api, conversation_id, text, trace_id):
    response = api.post(
        reverse("conversation-messages", kwargs={"conversation_pk": conversation_id}),
        {"text": text, "trace_id": trace_id},
        format="json",
    )
    assert response.status_code == 201, response.content


@pytest.fixture
def agent(tenant):
    return make_agent(tenant, name="Support assistant")


@pytest.fixture
def chat(api, agent):
    """A two-turn conversation over the API: the customer's messages in the context calls, the replies."""
    add_memory(agent, "Share the parcel tracking link before apologising.")
    first = context(api, agent, conversation=ASKED_1, conversation_id="chat-1")
    reply(api, first["conversation"]["id"], REPLY_1, first["trace_id"])
    second = context(api, agent, conversation=ASKED_2, conversation_id="chat-1")
    reply(api, second["conversation"]["id"], REPLY_2, second["trace_id"])
    return {"id": first["conversation"]["id"], "traces": [first["trace_id"], second["trace_id"]]}


def test_the_context_call_keeps_the_customers_message_on_its_trace(api, agent):
    data = context(api, agent, conversation=ASKED_1, conversation_id="chat-1")
    assert ContextTrace.objects.for_tenant(agent.tenant).get(pk=data["trace_id"]).request_text == ASKED_1
    ticket = context(api, agent, ticket_subject="Where is my parcel?", ticket_message="It is late.")
    trace = ContextTrace.objects.for_tenant(agent.tenant).get(pk=ticket["trace_id"])
    assert trace.request_text == "Subject: Where is my parcel?\n\nIt is late."


def test_a_long_conversation_is_kept_bounded_with_its_newest_messages(api, agent):
    long = "Customer: hello. " * 600 + "Customer: the newest message."
    data = context(api, agent, conversation=long, conversation_id="chat-2")
    kept = ContextTrace.objects.for_tenant(agent.tenant).get(pk=data["trace_id"]).request_text
    assert len(kept) == REQUEST_TEXT_MAX_CHARS
    assert kept.startswith("…") and kept.endswith("Customer: the newest message.")


def test_a_conversations_page_shows_its_transcript_in_order_with_each_turns_trace(tenant, agent, chat):
    page = signed_in(tenant).get(reverse("intelligence-conversation", args=[agent.pk, chat["id"]]))
    html = page.content.decode()
    positions = [html.index(text) for text in (ASKED_1, REPLY_1, ASKED_2, REPLY_2)]
    assert positions == sorted(positions)
    for trace_id in chat["traces"]:
        assert f'href="{reverse("intelligence-trace", args=[agent.pk, trace_id])}"' in html
    assert "2 turns" in html and "chat-1" in html
    assert 'data-testid="up-conversation-' in html  # the rating beside the transcript


def test_a_caller_that_resends_the_whole_conversation_shows_only_what_is_new(api, tenant, agent):
    first = context(api, agent, conversation=ASKED_1, conversation_id="chat-3")
    context(api, agent, conversation=f"{ASKED_1}\nAgent: {REPLY_1}\n{ASKED_2}", conversation_id="chat-3")
    html = (
        signed_in(tenant)
        .get(reverse("intelligence-conversation", args=[agent.pk, first["conversation"]["id"]]))
        .content.decode()
    )
    transcript = html.split('data-testid="transcript"')[1]
    assert transcript.count(ASKED_1) == 1 and ASKED_2 in transcript and "new in this call" in transcript


def test_the_conversations_list_names_a_conversation_by_its_customers_message(tenant, agent, chat):
    html = signed_in(tenant).get(reverse("intelligence-conversations", args=[agent.pk])).content.decode()
    row = html.split(f'data-testid="conversation-{chat["id"]}"')[1].split("</tr>")[0]
    # Its label: the first customer message (its speaker tag left out), not "conversation 11".
    assert f'data-testid="open-conversation-{chat["id"]}">my parcel has not arrived and the tracking' in row
    assert ASKED_2 in row and REPLY_2 in row  # the latest exchange next to the rating form
    assert f'data-testid="down-conversation-{chat["id"]}"' in row
    assert reverse("intelligence-conversation", args=[agent.pk, chat["id"]]) in row


def test_rating_from_a_conversations_page_comes_back_to_it(tenant, agent, chat):
    page = reverse("intelligence-conversation", args=[agent.pk, chat["id"]])
    response = signed_in(tenant).post(
        reverse("intelligence-conversation-feedback", args=[agent.pk, chat["id"]]),
        {"rating": "-1", "comment": "Promised a delivery date.", "next": page},
    )
    assert response.status_code == 302 and response["Location"] == f"{page}#conversation-{chat['id']}"
    html = signed_in(tenant, username="second").get(page).content.decode()
    assert "▼ thumbs down" in html and "Promised a delivery date." in html


def test_a_trace_says_which_conversation_and_question_produced_it_and_links_back(tenant, agent, chat):
    client = signed_in(tenant)
    first, second = chat["traces"]
    html = client.get(reverse("intelligence-trace", args=[agent.pk, second])).content.decode()
    assert ASKED_2 in html and REPLY_2 in html and ASKED_1 not in html
    conversation_page = reverse("intelligence-conversation", args=[agent.pk, chat["id"]])
    assert f'href="{conversation_page}#turn-' in html and f"Conversation {chat['id']} · chat-1" in html
    listing = client.get(reverse("intelligence-traces", args=[agent.pk])).content.decode()
    for trace_id, asked in ((first, ASKED_1), (second, ASKED_2)):
        summary = listing.split(f'data-testid="trace-{trace_id}-asked"')[1].split("</summary>")[0]
        assert asked[:60] in summary and conversation_page in summary


def test_a_runs_traces_link_to_the_run_and_the_run_to_its_traces(api, tenant):
    agent = make_agent(tenant, name="Ads agent", kind="action")
    first = context(api, agent, conversation="Should we raise the spring-sale budget?", run_id="r-1")
    second = context(api, agent, conversation="And the summer campaign's?", run_id="r-1")
    run_id = first["run"]["id"]
    client = signed_in(tenant)
    runs_page = reverse("intelligence-runs", args=[agent.pk])
    for data in (first, second):  # the earlier trace is found through the run's trace list
        html = client.get(reverse("intelligence-trace", args=[agent.pk, data["trace_id"]])).content.decode()
        assert f'href="{runs_page}#run-{run_id}"' in html
    html = client.get(runs_page).content.decode()
    assert "spring-sale budget" in html and "summer campaign" in html
    for data in (first, second):
        assert reverse("intelligence-trace", args=[agent.pk, data["trace_id"]]) in html


def test_a_trace_from_before_whole_messages_shows_its_excerpt(tenant, agent):
    trace = ContextTrace.objects.create(
        tenant=tenant, agent=agent, request_summary={"query_excerpt": "Where is my order 1234?"}
    )
    html = signed_in(tenant).get(reverse("intelligence-trace", args=[agent.pk, trace.pk])).content.decode()
    assert "Where is my order 1234?" in html and "the first 200 characters" in html


def test_the_traces_empty_state_gives_the_call_that_creates_a_trace(tenant, agent):
    html = signed_in(tenant, Role.ADMIN).get(reverse("intelligence-traces", args=[agent.pk])).content.decode()
    empty = html.split('data-testid="traces-empty"')[1]
    assert f"/api/v1/agents/{agent.pk}/context" in empty and '"conversation_id": "chat-1"' in empty
    assert reverse("tenant-api-keys") in empty and reverse("api-docs") in empty
    assert reverse("intelligence-preview", args=[agent.pk]) not in empty  # stores nothing: not a next step
    assert "without storing a trace" in empty


def test_transcript_and_trace_pages_are_tenant_and_agent_scoped(api, tenant, other_tenant, agent, chat):
    other_agent = make_agent(tenant, name="Other agent")
    stranger = signed_in(other_tenant, username="stranger")
    own = signed_in(tenant)
    trace_id = chat["traces"][0]
    for client, agent_id in ((own, other_agent.pk), (stranger, agent.pk)):
        assert (
            client.get(reverse("intelligence-conversation", args=[agent_id, chat["id"]])).status_code == 404
        )
        assert client.get(reverse("intelligence-trace", args=[agent_id, trace_id])).status_code == 404


def test_the_conversations_list_reads_a_bounded_number_of_statements(
    api, tenant, agent, django_assert_max_num_queries
):
    for n in range(6):
        for turn in range(3):
            data = context(
                api, agent, conversation=f"Customer {n}: message {turn}.", conversation_id=f"c-{n}"
            )
            reply(api, data["conversation"]["id"], f"Reply {turn} to {n}.", data["trace_id"])
    client = signed_in(tenant)
    client.get(reverse("intelligence-conversations", args=[agent.pk]))  # the session and caches warm
    with django_assert_max_num_queries(10):
        html = client.get(reverse("intelligence-conversations", args=[agent.pk])).content.decode()
    assert "Customer 5: message 2." in html and "1 earlier turn not shown" in html
