"""Issue 28, item 4: the operators' search boxes go through the retrieval engine (brain.search_box) — typos,
stems, meaning — best match first, with the page's other filters kept, inside the tenant."""

import re

import pytest

from brain.api import agent_memory_list
from brain.client_brain.insights import client_brain_search
from brain.embedders import clear_query_cache, get_embedder
from brain.models import Memory
from brain.onnx_minilm import OnnxMiniLMEmbedder
from tests.brain.factories import fact, issue, process
from tests.intelligence.factories import add_memory, make_agent
from tests.loopback import LoopbackOpenAI

pytestmark = pytest.mark.django_db


def embedded(*memory_ids):
    """Give rows their vectors now (the pipeline does it after the commit, which these tests never reach)."""
    embedder = get_embedder()
    for row in Memory.objects.all_tenants().filter(id__in=memory_ids):
        row.embedding = embedder.embed([row.text])[0]
        row.embedding_model = embedder.name
        row.save(update_fields=["embedding", "embedding_model"])


def found(agent, **criteria):
    return [m.id for m in agent_memory_list(tenant_id=agent.tenant_id, agent_id=agent.pk, **criteria).items]


@pytest.fixture
def support(tenant):
    agent = make_agent(tenant, name="Support assistant")
    rows = {
        "parcel": add_memory(agent, "Tickets about late parcels resolve once a tracking link is shared."),
        "warranty": add_memory(agent, "Tent poles carry a two-year warranty; send a replacement pole."),
        "refund": add_memory(agent, "Never promise a refund before the billing team has confirmed it."),
        "tone": add_memory(
            agent, "Greet customers by first name and keep answers short.", strength="preference"
        ),
    }
    return agent, rows


def test_the_intelligence_search_finds_misspelt_words(support):
    agent, rows = support
    assert found(agent, search="parcle") == [rows["parcel"]]
    assert found(agent, search="waranty") == [rows["warranty"]]


def test_the_intelligence_search_finds_other_forms_of_a_word(support):
    agent, rows = support
    assert found(agent, search="refunded") == [rows["refund"]]
    assert found(agent, search="parcel") == [rows["parcel"]]  # "parcels" in the memory


def test_the_intelligence_search_ranks_the_best_match_first(support):
    agent, rows = support
    closer = add_memory(agent, "Share the tracking link of a late parcel before anything else.")
    ranked = found(agent, search="parcel tracking link")
    assert set(ranked) == {rows["parcel"], closer}
    also = found(agent, search="promise refund billing")
    assert also[0] == rows["refund"]


def test_the_intelligence_search_keeps_every_other_filter(support):
    agent, rows = support
    draft = add_memory(agent, "A parcel lost in transit is refunded after 10 days.", status="draft")
    scoped = add_memory(agent, "Meta parcel-tracking ads stop when stock is out.", provider="meta_ads")
    assert set(found(agent, search="parcle")) == {rows["parcel"], draft, scoped}
    assert found(agent, search="parcle", status="draft") == [draft]
    assert found(agent, search="parcle", scope="meta_ads") == [scoped]
    assert set(found(agent, search="parcle", scope="unscoped")) == {rows["parcel"], draft}
    assert found(agent, search="parcle", strength="preference") == []
    assert found(agent, search="parcle", source="suggested") == []


def test_the_intelligence_search_still_finds_a_part_of_a_word_and_a_tag(support):
    agent, rows = support
    tagged = add_memory(agent, "Escalate to the courier after five working days.", tags=["shipping"])
    assert found(agent, search="arcel") == [rows["parcel"]]  # a substring, as the box did before
    assert found(agent, search="shipping") == [tagged]


def test_the_intelligence_search_pages_its_matches(support):
    agent, _ = support
    for n in range(5):
        add_memory(agent, f"Parcel rule number {n}: keep the tracking page {n} up to date for region R{n}.")
    first = agent_memory_list(tenant_id=agent.tenant_id, agent_id=agent.pk, search="parcle", limit=4)
    second = agent_memory_list(
        tenant_id=agent.tenant_id, agent_id=agent.pk, search="parcle", limit=4, offset=4
    )
    assert first.total == second.total == 6
    assert len(first.items) == 4 and len(second.items) == 2
    assert not {m.id for m in first.items} & {m.id for m in second.items}


def test_the_intelligence_search_stays_inside_the_agent_and_the_tenant(support, other_tenant):
    agent, rows = support
    other_agent = make_agent(agent.tenant, name="Other agent")
    add_memory(other_agent, "Parcels for the other agent are tracked by the courier.")
    stranger = make_agent(other_tenant, name="Support assistant")
    add_memory(stranger, "Parcels of Globex customers are tracked on the Globex site.")
    assert found(agent, search="parcle") == [rows["parcel"]]


def test_the_intelligence_search_finds_meaning_with_the_default_embedder(tenant, settings):
    settings.BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder"}
    assert get_embedder().name == OnnxMiniLMEmbedder.name
    agent = make_agent(tenant, name="Support assistant")
    refund = add_memory(agent, "Never promise a refund before the billing team has confirmed it.")
    euros = add_memory(agent, "Report spend and cost per acquisition in euros, rounded to whole numbers.")
    unrelated = add_memory(agent, "Greet customers by first name.")
    callback = add_memory(agent, "Customers on the premium plan get a callback within four business hours.")
    embedded(refund, euros, unrelated, callback)
    # No word in common with the refund rule; "back" is like a part of "callback" (the typo tier), whose
    # meaning is far: the meaning ranks first, and a similarity under the floor lifts nothing.
    assert found(agent, search="money back") == [refund, callback]
    assert found(agent, search="currency") == [euros]
    assert found(agent, search="weather forecast") == []  # nothing near enough: nothing listed


@pytest.fixture
def client_brain(tenant):
    return {
        "warranty": fact(tenant, "We offer a two-year warranty on all tent poles and frames."),
        "parcel": issue(
            tenant, "Parcel stuck at the courier's depot", "Escalate the parcel with the courier"
        ),
        "returns": process(tenant, "A customer asks to return an item", "Send the returns portal link"),
    }


def cb_ids(tenant, query, **filters):
    return [row.id for row in client_brain_search(tenant_id=tenant.pk, query=query, **filters).rows]


def test_the_client_brain_search_finds_misspelt_words(tenant, client_brain):
    assert cb_ids(tenant, "waranty") == [client_brain["warranty"].id]
    assert cb_ids(tenant, "parcle") == [client_brain["parcel"].id]
    assert cb_ids(tenant, "returning") == [client_brain["returns"].id]  # another form of "return"


def test_the_client_brain_search_keeps_the_type_and_status_filters(tenant, client_brain):
    old = fact(tenant, "Warranty claims went through the old portal.", status="archived")
    assert cb_ids(tenant, "waranty") == [client_brain["warranty"].id]  # current rows by default
    assert cb_ids(tenant, "waranty", status="archived") == [old.id]
    assert set(cb_ids(tenant, "waranty", status="all")) == {client_brain["warranty"].id, old.id}
    assert cb_ids(tenant, "waranty", family="process") == []
    assert cb_ids(tenant, "waranty", family="business") == [client_brain["warranty"].id]


def test_the_client_brain_search_lists_legacy_and_invalid_confidence_rows_too(tenant, client_brain):
    legacy = Memory.objects.create(
        tenant=tenant,
        scope_kind="tenant",
        type="faq",
        payload={"q": "x"},
        text="Warranty FAQ",
        confidence=0.5,
    )
    invalid = fact(tenant, "Warranty cards are printed in the box.", confidence=float("nan"))
    found_ids = cb_ids(tenant, "warranty")
    assert found_ids[0] == client_brain["warranty"].id or found_ids[0] == legacy.id
    assert set(found_ids) == {client_brain["warranty"].id, legacy.id, invalid.id}
    assert found_ids[-1] == invalid.id  # recall never returns it: listed after the engine's matches


def test_the_client_brain_search_leaves_other_surfaces_and_tenants_out(tenant, other_tenant, client_brain):
    fact(other_tenant, "Globex gives a warranty of one year.")
    agent = make_agent(tenant, name="Support assistant")
    add_memory(agent, "Warranty questions go to the claims team.")
    Memory.objects.create(tenant=tenant, scope_kind="tenant", type="note", text="A warranty note", payload={})
    assert cb_ids(tenant, "waranty") == [client_brain["warranty"].id]


def test_the_client_brain_search_pages_its_matches(tenant, settings):
    settings.BRAIN_CLIENT_BRAIN_PAGE_SIZE = 3
    for n in range(5):
        fact(tenant, f"Warranty rule {n}: poles of model {n} are covered for {n + 1} years.")
    first = client_brain_search(tenant_id=tenant.pk, query="waranty")
    second = client_brain_search(tenant_id=tenant.pk, query="waranty", offset=first.next_offset)
    assert (first.total, len(first.rows), first.next_offset) == (5, 3, 3)
    assert (len(second.rows), second.next_offset) == (2, None)
    assert not {r.id for r in first.rows} & {r.id for r in second.rows}


def test_a_search_box_still_matches_words_when_the_embedder_fails(tenant, client_brain, settings):
    with LoopbackOpenAI() as server:
        server.fail_next = 100  # every embedding request answers 500
        settings.BRAIN_EMBEDDER = {
            "BACKEND": "brain.embedders.OpenAICompatibleEmbedder",
            "BASE_URL": server.base_url,
            "MODEL": "loopback-embed",
            "API_KEY": "test-key",
        }
        clear_query_cache()
        page = client_brain_search(tenant_id=tenant.pk, query="waranty")
        assert [row.id for row in page.rows] == [client_brain["warranty"].id]
        assert page.by_meaning is False
        assert server.requests  # the model was asked, and failed


def literal_statements(tenant, query) -> tuple[list[int], list[str]]:
    """The rows the Client Brain box lists for `query`, and its literal statements (`key`/`text` ILIKE)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        ids = cb_ids(tenant, query)
    return ids, [q["sql"] for q in captured.captured_queries if 'UPPER("brain_memory"."text"' in q["sql"]]


def test_the_client_brain_box_looks_its_literal_text_up_through_the_tenants_keys(tenant, client_brain):
    """Under the tenant wall ILIKE uses no index: the literal part of the box read every row of a large tenant
    (about 150 ms a search at 100,000 rows). The rows the tenant's trigram keys say may hold the text are
    tested, by id; a text no row's keys hold runs no literal statement."""
    part = fact(tenant, "Courier depots hold parcels for five days.")
    ids, statements = literal_statements(tenant, "ier depo")  # two parts of words
    assert part.id in ids
    # The held rows by id (beside the engine's matches, which the literal part excludes: "NOT (... IN").
    assert len(statements) == 1 and re.search(r'(?<!NOT \()"brain_memory"\."id" IN \(', statements[0])
    ids, statements = literal_statements(tenant, "zqxvw")
    assert ids == [] and statements == []


def test_the_client_brain_box_lists_the_same_rows_with_its_keys_or_without(tenant, client_brain, monkeypatch):
    """The keys narrow the rows tested, never the rows found: with the bound at 0 every held text is tested
    over all of the tenant's rows (the walk), and the box lists the same rows in the same order."""
    import brain.search_box

    fact(tenant, "Courier depots hold parcels for five days.")
    fact(tenant, "Depot staff call the customer before a parcel goes back.", confidence=0.4)
    process(tenant, "A parcel waits at the DEPOT", "Send the depot's opening hours")
    fact(tenant, "Returns are free within 30 days (see the returns_portal).")
    needles = ["depo", "ier depo", "wait", "DEPOT's", "returns_por", "s_po", "30 da", "dépôt", "zqxvw"]
    keyed = {needle: cb_ids(tenant, needle) for needle in needles}
    monkeypatch.setattr(brain.search_box, "KEYED_TERM_ROWS", 0)
    assert {needle: cb_ids(tenant, needle) for needle in needles} == keyed
    assert all(keyed[needle] for needle in needles[:-2]), keyed
