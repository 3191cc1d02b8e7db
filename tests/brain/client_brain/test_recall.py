"""Initial-run recall, one test per rule of the spec's recall paragraph (client_brain.txt, step 4)."""

import math
from datetime import timedelta

import pytest
from django.utils import timezone

from brain.api import client_brain_context
from brain.client_brain.recall import fetch_tiers, rank
from brain.client_brain.typed import render_value
from brain.models import Memory

from ..factories import activity_of, fact, issue, memory, process, superseded_by, voice


def many_facts(tenant, count, *, text="Generic policy note {i}", confidence=0.9):
    rows = [
        Memory(
            tenant=tenant,
            scope_kind="tenant",
            type="business",
            payload={"fact": text.format(i=i)},
            text=text.format(i=i),
            confidence=confidence(i) if callable(confidence) else confidence,
        )
        for i in range(count)
    ]
    return Memory.objects.bulk_create(rows)


def selected_ids(context):
    return [m.id for family in context.sections.values() for m in family]


def test_recall_admits_only_finite_confidence_within_half_to_one(tenant):
    inside = [fact(tenant, "Low edge", confidence=0.5), fact(tenant, "High edge", confidence=1.0)]
    for value in (0.49, 1.01, -0.2, math.nan, math.inf, -math.inf, None):
        fact(tenant, f"Excluded {value}", confidence=value)
    context = client_brain_context(tenant_id=tenant.id, subject="Excluded edge question")
    assert sorted(selected_ids(context)) == sorted(m.id for m in inside)


def test_fallback_tier_fetches_up_to_200_by_confidence_then_newest_then_id(tenant):
    rows = many_facts(tenant, 250, confidence=lambda i: [0.6, 0.9, 0.75][i % 3])
    now = timezone.now()
    # Equal confidence and equal creation time for some rows, so the id tie-break is exercised too.
    for i, row in enumerate(rows):
        Memory.objects.all_tenants().filter(pk=row.pk).update(created_at=now - timedelta(minutes=i // 2))
    candidates, stats = fetch_tiers(tenant_id=tenant.id, subject="", latest_customer_message="")
    assert stats["fallback"] == 200 and stats["keyword"] == 0
    fetched = list(Memory.objects.all_tenants().filter(id__in=[c.id for c in candidates]))
    by_id = {m.id: m for m in fetched}
    keys = [(-by_id[c.id].confidence, -by_id[c.id].created_at.timestamp(), -c.id) for c in candidates]
    assert keys == sorted(keys)
    everything = sorted(
        (-m.confidence, -m.created_at.timestamp(), -m.id) for m in Memory.objects.all_tenants()
    )
    assert keys == everything[:200]


def test_keyword_tier_fetches_up_to_200_candidates_containing_a_ticket_word(tenant):
    many_facts(tenant, 230, text="Invoice copy rule {i}", confidence=0.6)
    many_facts(tenant, 230, text="Unrelated rule {i}", confidence=0.9)
    candidates, stats = fetch_tiers(
        tenant_id=tenant.id, subject="Need my INVOICE", latest_customer_message=""
    )
    assert stats["keyword"] == 200
    keyword_rows = [c for c in candidates if c.tier == "keyword"]
    assert len(keyword_rows) == 200 and all("invoice" in c.text.lower() for c in keyword_rows)


def test_keyword_tier_finds_a_matching_memory_beyond_the_fallback_window(tenant):
    many_facts(tenant, 3000, confidence=0.95)
    needle = fact(tenant, "Warranty claims need the original receipt", confidence=0.55)
    context = client_brain_context(
        tenant_id=tenant.id, subject="Warranty question", latest_customer_message="Is my blender covered?"
    )
    assert context.sections["business"][0].id == needle.id
    assert context.sections["business"][0].tier == "keyword"
    assert context.sections["business"][0].overlap_words == ("warranty",)
    without_words = client_brain_context(tenant_id=tenant.id, subject="Hi", latest_customer_message="ok")
    assert needle.id not in selected_ids(without_words)


def test_keyword_tier_matches_the_memory_key_as_well_as_its_value(tenant):
    many_facts(tenant, 250, confidence=0.95)
    keyed = memory(
        tenant, "business", {"fact": "Ask for the serial number"}, key="dishwasher-returns", confidence=0.5
    )
    context = client_brain_context(tenant_id=tenant.id, subject="Dishwasher broken")
    assert keyed.id in selected_ids(context)


def test_keyword_tier_needs_words_of_at_least_three_characters(tenant):
    many_facts(tenant, 5)
    _, stats = fetch_tiers(tenant_id=tenant.id, subject="an ox", latest_customer_message="is it ok")
    assert stats["keyword"] == 0 and stats["keyword_terms"] == []
    _, stats = fetch_tiers(tenant_id=tenant.id, subject="an ox", latest_customer_message="policy")
    assert stats["keyword_terms"] == ["policy"] and stats["keyword"] == 5


def test_merge_keeps_fallback_order_then_adds_keyword_hits_once(tenant):
    top = many_facts(tenant, 200, confidence=0.9)
    also_matching = fact(tenant, "Refund window is 30 days", confidence=0.95)
    beyond = fact(tenant, "Refund needs approval", confidence=0.51)
    candidates, stats = fetch_tiers(tenant_id=tenant.id, subject="Refund", latest_customer_message="")
    ids = [c.id for c in candidates]
    assert len(ids) == len(set(ids)) == 201
    assert ids[0] == also_matching.id and candidates[0].tier == "fallback"
    assert ids[-1] == beyond.id and candidates[-1].tier == "keyword"
    assert stats["keyword"] == 2 and set(ids[1:200]) <= {m.id for m in top}


def test_voice_memories_are_kept_first(tenant):
    fact(tenant, "Refund window is 30 days", confidence=1.0)
    tone = voice(tenant, formality="formal", confidence=0.5)
    candidates, _ = fetch_tiers(tenant_id=tenant.id, subject="Refund", latest_customer_message="")
    assert rank(candidates, ["refund"])[0].id == tone.id
    context = client_brain_context(tenant_id=tenant.id, subject="Refund")
    assert context.prompt.index(f"[mem:{tone.id}]") < context.prompt.index("Refund window")


def test_non_voice_memories_rank_by_shared_words_then_confidence_then_fetched_order(tenant):
    one_word_high = fact(tenant, "Express shipping costs extra", confidence=0.99)
    two_words = fact(tenant, "Express delivery to Norway takes a week", confidence=0.6)
    one_word_low = fact(tenant, "Norway orders pay customs", confidence=0.7)
    none_high = fact(tenant, "Gift cards never expire", confidence=1.0)
    context = client_brain_context(
        tenant_id=tenant.id, subject="Express delivery", latest_customer_message="to Norway?"
    )
    assert [m.id for m in context.sections["business"]] == [
        two_words.id,
        one_word_high.id,
        one_word_low.id,
        none_high.id,
    ]
    assert context.sections["business"][0].overlap_words == ("delivery", "express", "norway")


def test_equal_overlap_and_confidence_keep_the_fetched_order(tenant):
    older = fact(tenant, "Returns go to the Lyon depot", confidence=0.8)
    newer = fact(tenant, "Returns need a label", confidence=0.8)
    context = client_brain_context(tenant_id=tenant.id, subject="Returns")
    # Fetched order is newest first at equal confidence.
    assert [m.id for m in context.sections["business"]] == [newer.id, older.id]


def test_very_common_words_are_ignored_when_counting_overlap(tenant):
    common = fact(tenant, "Thank you for the order and for your patience", confidence=0.6)
    best = fact(tenant, "Invoices are emailed monthly", confidence=0.9)
    context = client_brain_context(
        tenant_id=tenant.id, subject="the you for", latest_customer_message="and the your"
    )
    assert context.sections["business"][0].id == best.id
    assert all(m.overlap_words == () for m in context.sections["business"])
    assert context.trace["query_words"] == []
    assert common.id in selected_ids(context)


def test_overlap_counts_normalized_unicode_words_and_numbers(tenant):
    low = fact(tenant, "Straße deliveries and café orders: code 2048", confidence=0.55)
    fact(tenant, "Unrelated but confident", confidence=0.99)
    context = client_brain_context(
        tenant_id=tenant.id, subject="ＳＴＲＡＳＳＥ", latest_customer_message="CAFÉ order 2048"
    )
    top = context.sections["business"][0]
    assert top.id == low.id
    assert top.overlap_words == ("2048", "café", "strasse")


def test_overlap_counts_only_words_of_at_least_three_characters(tenant):
    short = fact(tenant, "EU VAT id on file", confidence=0.6)
    high = fact(tenant, "Shipping is free", confidence=0.9)
    context = client_brain_context(tenant_id=tenant.id, subject="EU id", latest_customer_message="")
    assert [m.id for m in context.sections["business"]] == [high.id, short.id]
    context = client_brain_context(tenant_id=tenant.id, subject="VAT", latest_customer_message="")
    assert [m.id for m in context.sections["business"]] == [short.id, high.id]


def test_no_overlap_falls_back_to_the_confidence_ordered_fetched_set(tenant):
    rows = [fact(tenant, f"Policy number {i}", confidence=c) for i, c in enumerate([0.6, 0.9, 0.7, 1.0])]
    context = client_brain_context(tenant_id=tenant.id, subject="Zebra crossing", latest_customer_message="")
    expected = [r.id for r in sorted(rows, key=lambda r: (-r.confidence, -r.id))]
    assert [m.id for m in context.sections["business"]] == expected
    assert context.trace["fetched"]["keyword"] == 0


def test_typed_admission_keeps_unsupported_shapes_out_of_the_prompt(tenant):
    good = fact(tenant, "We ship from Lyon", confidence=0.9)
    memory(tenant, "business", {"fact": "   "}, text="Lyon blank", confidence=1.0)
    memory(tenant, "voice", {"formality": "very formal"}, text="Lyon voice", confidence=1.0)
    memory(tenant, "process", {"trigger": "Lyon"}, text="Lyon trigger only", confidence=1.0)
    context = client_brain_context(tenant_id=tenant.id, subject="Lyon")
    assert selected_ids(context) == [good.id]
    assert context.trace["not_typed"] == 3


def test_caps_are_30_business_1_voice_5_issues_5_process_with_omitted_counts(tenant):
    many_facts(tenant, 34)
    for i in range(3):
        voice(tenant, formality=["formal", "casual", "neutral"][i])
    for i in range(7):
        issue(tenant, f"Pattern {i}", "Fix it")
    for i in range(6):
        process(tenant, f"Trigger {i}", "Act")
    context = client_brain_context(tenant_id=tenant.id, subject="Order")
    counts = {family: len(items) for family, items in context.sections.items()}
    assert counts == {"business": 30, "voice": 1, "issues": 5, "process": 5}
    assert context.omitted == {"business": 4, "voice": 2, "issues": 2, "process": 1}
    assert (
        "Omitted: 4 business facts over the cap; 2 voice memories over the cap; 2 issues over the cap;"
        in context.prompt
    )


def test_a_tenant_may_override_the_caps(tenant):
    tenant.settings = {"client_brain_caps": {"business": 2, "process": 0, "issues": "many"}}
    tenant.save(update_fields=["settings"])
    many_facts(tenant, 5)
    for i in range(7):
        issue(tenant, f"Pattern {i}", "Fix it")
    process(tenant, "Trigger", "Act")
    context = client_brain_context(tenant_id=tenant.id)
    assert context.caps == {"business": 2, "voice": 1, "issues": 5, "process": 0}
    assert [len(context.sections[f]) for f in ("business", "issues", "process")] == [2, 5, 0]
    assert context.omitted["business"] == 3 and context.omitted["process"] == 1


def test_the_one_voice_memory_is_the_formality_one(tenant):
    voice(tenant, tone="warm", confidence=1.0)
    chosen = voice(tenant, formality="casual", tone="friendly", confidence=0.7)
    voice(tenant, formality="formal", confidence=0.6)
    context = client_brain_context(tenant_id=tenant.id, subject="Hello")
    assert [m.id for m in context.sections["voice"]] == [chosen.id]
    assert context.omitted["voice"] == 2


def test_activity_is_counted_for_what_was_selected(tenant):
    chosen = fact(tenant, "Refunds take 5 days")
    for i in range(3):
        voice(tenant, formality="formal" if i == 0 else "casual", confidence=0.9 - i / 10)
    excluded = fact(tenant, "Out of range", confidence=1.5)
    client_brain_context(tenant_id=tenant.id, subject="Refund")
    client_brain_context(tenant_id=tenant.id, subject="Refund")
    assert activity_of(chosen, excluded) == [2, 0]
    voices = Memory.objects.all_tenants().filter(type="voice").order_by("-confidence")
    assert activity_of(*voices) == [2, 0, 0]


def test_continuation_reloads_fresh_live_context(tenant):
    first = fact(tenant, "Store opens at 9")
    initial = client_brain_context(tenant_id=tenant.id, subject="Opening hours")
    assert initial.memory_ids == [first.id]
    Memory.objects.all_tenants().filter(pk=first.pk).update(confidence=0.1)
    second = fact(tenant, "Store opens at 10 since November", confidence=0.9)
    continuation = client_brain_context(tenant_id=tenant.id, subject="Opening hours", mode="continuation")
    assert continuation.mode == "continuation" and continuation.reloaded
    assert continuation.memory_ids == [second.id]


def test_continuation_without_eligible_rows_loads_nothing(tenant):
    memory(tenant, "legacy_faq", {"q": "x"}, text="Opening hours", confidence=0.9)
    fact(tenant, "Opening hours are 9-5", confidence=0.2)
    continuation = client_brain_context(tenant_id=tenant.id, subject="Opening hours", mode="continuation")
    assert not continuation.reloaded and continuation.prompt == "" and continuation.memory_ids == []


def test_recall_reads_only_the_tenants_own_live_client_brain_rows(tenant, other_tenant):
    mine = fact(tenant, "Our returns address is in Lyon")
    fact(other_tenant, "Their returns address is in Oslo", confidence=1.0)
    memory(tenant, "business", {"fact": "Archived returns rule"}, status="archived")
    Memory.objects.create(
        tenant=tenant,
        scope_kind="agent",
        scope_id="7",
        type="business",
        payload={"fact": "Agent returns note"},
        text="Agent returns note",
        confidence=0.9,
    )
    context = client_brain_context(tenant_id=tenant.id, subject="returns address")
    assert context.memory_ids == [mine.id]
    assert "Oslo" not in context.prompt


def test_text_rendered_by_producers_matches_the_typed_value():
    assert render_value("process", {"trigger": "Refund over 100", "action": "Ask a manager"}) == (
        "When Refund over 100: Ask a manager"
    )


def test_the_caps_are_settings(tenant, settings):
    settings.BRAIN_CLIENT_BRAIN_CAPS = {"business": 1, "voice": 1, "issues": 5, "process": 5}
    many_facts(tenant, 3)
    context = client_brain_context(tenant_id=tenant.id)
    assert len(context.sections["business"]) == 1 and context.omitted["business"] == 2


def test_an_unknown_mode_is_refused(tenant):
    import pytest

    with pytest.raises(ValueError, match="initial"):
        client_brain_context(tenant_id=tenant.id, mode="later")


def test_keyword_tier_matches_case_insensitively_beyond_ascii(tenant):
    many_facts(tenant, 250, confidence=0.95)
    needle = fact(tenant, "Das Café schließt um 18 Uhr", confidence=0.5)
    context = client_brain_context(tenant_id=tenant.id, subject="CAFÉ SCHLIESST?")
    assert context.sections["business"][0].id == needle.id
    assert context.sections["business"][0].tier == "keyword"


def test_keyword_tier_compares_the_tenant_as_bigint_so_the_trigram_index_can_take_it(tenant):
    # btree_gin's int8 operator class has no int8 = int4 operator: a plain integer tenant comparison
    # would leave the tenant out of memory_tenant_trgm's index condition (the benchmark shows the plan).
    from brain.client_brain.recall import keyword_candidates

    query = keyword_candidates(tenant_id=tenant.id, terms=["warranty"]).values_list("id")
    sql, params = query.query.sql_with_params()
    assert sql.count('"brain_memory"."tenant_id"') == 1
    assert '"brain_memory"."tenant_id" = %s::bigint' in sql and tenant.id in params


@pytest.mark.parametrize("keyed_rows", [1000, 1])
@pytest.mark.parametrize("window, limit", [(40, 200), (200, 20)])
def test_keyword_tier_in_two_steps_returns_what_one_query_over_all_rows_returns(
    tenant, settings, monkeypatch, window, limit, keyed_rows
):
    """The window step (LIKE over the first rows) and the index step (the rows after it) together give
    exactly the first `limit` matching rows in confidence order, wherever the matches fall: with a small
    window most matches follow it; with a small limit each term has more matches in the window than the
    tier takes (each term keeps only its first `limit`). After the window a term is found through the
    tenant's trigram keys when few rows hold it (`keyed_rows` 1000: every term here), else by walking the
    order (1: every term more than one row holds)."""
    from brain.search.backends import postgres

    monkeypatch.setattr(postgres, "KEYED_TERM_ROWS", keyed_rows)
    settings.BRAIN_CLIENT_BRAIN_KEYWORD_WINDOW = window
    settings.BRAIN_CLIENT_BRAIN_TIER_LIMIT = limit
    many_facts(tenant, 150, text="Invoice rule {i}", confidence=lambda i: 0.5 + (i % 50) / 100)
    many_facts(tenant, 150, text="Unrelated note {i}", confidence=lambda i: 0.5 + (i % 40) / 100)
    many_facts(tenant, 30, text="Key_code {i} spelled with an underscore", confidence=0.7)
    many_facts(tenant, 12, text="Lieferung in die Hauptstraße {i}", confidence=lambda i: 0.5 + i / 25)
    subjects = (
        "invoice", "INVOICE key_code", "unrelated invoice", "keyxcode", "nothing-matches-this",
        "voice",  # inside a longer word
        "Straße",  # searched as "strasse" and "straße", inside "hauptstraße"
        "114",  # digits inside longer numbers too
    )  # fmt: skip
    for subject in subjects:
        _, stats = fetch_tiers(tenant_id=tenant.id, subject=subject, latest_customer_message="")
        candidates, _ = fetch_tiers(tenant_id=tenant.id, subject=subject, latest_customer_message="")
        got = [c.id for c in candidates if c.tier == "keyword"]
        terms = stats["keyword_terms"]
        everything = sorted(
            (m for m in Memory.objects.all_tenants().filter(tenant=tenant)
             if any(t in f"{m.key} {m.text}".lower() for t in terms)),
            key=lambda m: (-m.confidence, -m.created_at.timestamp(), -m.id),
        )[:limit]  # fmt: skip
        fallback_ids = {c.id for c in candidates if c.tier == "fallback"}
        assert got == [m.id for m in everything if m.id not in fallback_ids], subject
    # "_" is a word character, not LIKE's any-character wildcard: "keyxcode" matches nothing.
    _, stats = fetch_tiers(tenant_id=tenant.id, subject="keyxcode", latest_customer_message="")
    assert stats["keyword"] == 0
    _, stats = fetch_tiers(tenant_id=tenant.id, subject="key_code", latest_customer_message="")
    assert stats["keyword"] == min(30, limit)


def test_a_word_no_row_holds_is_answered_by_the_tenants_keys_without_reading_its_rows(tenant, settings):
    """Under the tenant wall `ILIKE` cannot use an index, so a customer's word that no stored row holds read
    every row after the window (150 ms a word on a 100,000-row tenant: README). The tenant's trigram keys
    say first which rows could hold it: none, and no row is read; a few, and only those are."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.BRAIN_CLIENT_BRAIN_KEYWORD_WINDOW = 40  # kept in memory: the first 200 rows (the tier's limit)
    many_facts(tenant, 250, confidence=0.95)
    needle = fact(tenant, "Zorblax kettles are descaled for free", confidence=0.55)
    # The window is read once, by the first call.
    fetch_tiers(tenant_id=tenant.id, subject="hello there", latest_customer_message="")
    with CaptureQueriesContext(connection) as absent:
        _, stats = fetch_tiers(tenant_id=tenant.id, subject="Quuxbarn", latest_customer_message="")
    assert stats["keyword"] == 0
    assert not [q["sql"] for q in absent.captured_queries if "ILIKE" in q["sql"]]
    with CaptureQueriesContext(connection) as rare:
        candidates, _ = fetch_tiers(tenant_id=tenant.id, subject="ZORBLAX?", latest_customer_message="")
    assert [c.id for c in candidates if c.tier == "keyword"] == [needle.id]
    (containment,) = [q["sql"] for q in rare.captured_queries if "ILIKE" in q["sql"]]
    assert f'"brain_memory"."id" IN ({needle.id})' in containment


def test_recall_never_injects_a_superseded_or_archived_row_even_one_it_recalled_before(tenant):
    """Issue 13: recall must never inject a superseded or archived row. The rows kept between calls are
    keyed by the memory state, so a row retired after it was recalled is gone from the very next call."""
    from brain.api import client_brain_context_preview, memory_set_status

    old_voice = voice(tenant, formality="formal", tone="professional", key="voice:formality")
    refund = fact(tenant, "Refunds take five working days", confidence=0.9)
    ticket = {"subject": "Refund question", "latest_customer_message": "When is my refund due?"}
    before = client_brain_context(tenant_id=tenant.id, **ticket)
    assert {old_voice.id, refund.id} <= set(before.memory_ids)

    new_voice = superseded_by(old_voice, {"formality": "casual", "tone": "friendly"}).id
    memory_set_status(tenant_id=tenant.id, memory_id=refund.id, status="archived", actor="test")
    for context in (
        client_brain_context(tenant_id=tenant.id, **ticket),
        client_brain_context(tenant_id=tenant.id, mode="continuation", **ticket),
        client_brain_context_preview(tenant_id=tenant.id, **ticket),
    ):
        assert context.memory_ids == [new_voice]
        assert [m.id for m in context.sections["voice"]] == [new_voice]
        assert "professional" not in context.prompt and "five working days" not in context.prompt


def test_the_keyword_tier_beyond_the_window_skips_archived_and_superseded_rows(tenant, settings):
    """The rows past the kept window are searched in SQL (the trigram index): the same live filter."""
    settings.BRAIN_CLIENT_BRAIN_KEYWORD_WINDOW = 200
    many_facts(tenant, 250, confidence=0.95)
    archived = fact(tenant, "Espressivo descaling voids the warranty", confidence=0.55, status="archived")
    superseded = fact(tenant, "Espressivo grinders ship from Lyon", confidence=0.55, status="superseded")
    live = fact(tenant, "Espressivo kettles ship from Porto", confidence=0.55)
    candidates, stats = fetch_tiers(tenant_id=tenant.id, subject="Espressivo", latest_customer_message="")
    keyword = [c.id for c in candidates if c.tier == "keyword"]
    assert keyword == [live.id]
    assert {archived.id, superseded.id}.isdisjoint(c.id for c in candidates)
