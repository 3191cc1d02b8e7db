"""The embedding pipeline: rows are embedded by a Celery task after commit, idempotently, per tenant;
`manage.py brain_reembed` backfills and switches models."""

import io
import time

import numpy as np
import pytest
from celery.exceptions import Retry
from django.core.cache import cache
from django.core.management import CommandError, call_command

from brain.embedders import EmbedderKeyMissing, HashingEmbedder, TransientEmbedderError, clear_query_cache
from brain.embedding import embed_text_now, embedding_enqueue, memories_embed
from brain.models import Memory
from brain.tasks import embed_memories
from tests.loopback import LoopbackOpenAI

HASHING = HashingEmbedder.name


@pytest.fixture(autouse=True)
def hashing_embedder(settings):
    settings.BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.HashingEmbedder"}
    clear_query_cache()
    cache.clear()


@pytest.fixture
def loopback():
    with LoopbackOpenAI() as server:
        yield server


def use_loopback(settings, server):
    settings.BRAIN_EMBEDDER = {
        "BACKEND": "brain.embedders.OpenAICompatibleEmbedder",
        "BASE_URL": server.base_url,
        "MODEL": "loopback-embed",
        "API_KEY": "test-key",
    }


def memory(tenant, text, key=""):
    return Memory.objects.create(tenant=tenant, type="fact", key=key, text=text)


def reload(row):
    row.refresh_from_db()
    return row


def test_a_written_row_is_embedded_by_the_task_once_the_transaction_commits(
    tenant, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        row = memory(tenant, "Refunds for damaged orders are issued within 30 days.")
        embedding_enqueue(tenant_id=tenant.id, memory_ids=[row.id])
    assert reload(row).embedding is None  # nothing is sent before the commit
    assert len(callbacks) == 1
    callbacks[0]()  # the commit: the task runs (eagerly, no broker in tests)
    row = reload(row)
    assert row.embedding_model == HASHING
    assert np.isclose(np.linalg.norm(row.embedding), 1.0, atol=1e-5)
    assert np.allclose(row.embedding, embed_text_now(row.text), atol=1e-6)


def test_rerunning_the_task_writes_nothing_new(tenant):
    rows = [memory(tenant, f"Process rule number {n}: escalate billing disputes") for n in range(3)]
    ids = [r.id for r in rows]
    assert embed_memories.delay(tenant.id, ids).get() == 3
    updated_at = [reload(r).updated_at for r in rows]
    assert embed_memories.delay(tenant.id, ids).get() == 0
    assert memories_embed(tenant_id=tenant.id, memory_ids=ids) == 0
    # Routine embedding is not a change of the memory: no history, no new updated_at.
    assert [reload(r).updated_at for r in rows] == updated_at
    assert not tenant.memories.filter(history__isnull=False).exists()


def test_a_row_whose_text_changed_is_reembedded(tenant):
    row = memory(tenant, "Ship orders with DHL")
    memories_embed(tenant_id=tenant.id, memory_ids=[row.id])
    Memory.objects.all_tenants().filter(pk=row.pk).update(text="Ship orders with UPS from March")
    assert memories_embed(tenant_id=tenant.id, memory_ids=[row.id]) == 1
    assert np.allclose(reload(row).embedding, embed_text_now("Ship orders with UPS from March"), atol=1e-6)


def test_other_tenants_rows_are_untouched(tenant, other_tenant):
    ours = memory(tenant, "Our refund window is 30 days")
    theirs = memory(other_tenant, "Their refund window is 14 days")
    written = memories_embed(tenant_id=tenant.id, memory_ids=[ours.id, theirs.id])
    assert written == 1
    assert reload(ours).embedding is not None
    theirs = reload(theirs)
    assert theirs.embedding is None and theirs.embedding_model == ""


def test_a_blank_text_is_embedded_from_its_key_and_an_empty_row_is_left_alone(tenant):
    keyed = memory(tenant, "   ", key="refund_window")
    empty = memory(tenant, "", key="")
    assert memories_embed(tenant_id=tenant.id, memory_ids=[keyed.id, empty.id]) == 1
    assert np.allclose(reload(keyed).embedding, embed_text_now("refund_window"), atol=1e-6)
    assert reload(empty).embedding is None


def test_a_row_embedded_by_another_model_is_reembedded_with_the_configured_one(tenant, settings, loopback):
    row = memory(tenant, "Greet customers by their first name")
    memories_embed(tenant_id=tenant.id, memory_ids=[row.id])
    use_loopback(settings, loopback)
    assert memories_embed(tenant_id=tenant.id, memory_ids=[row.id]) == 1
    assert reload(row).embedding_model == "openai:loopback-embed"


def test_a_transient_embedder_error_makes_the_task_retry(tenant, settings, loopback):
    use_loopback(settings, loopback)
    row = memory(tenant, "Escalate chargebacks to finance")
    loopback.fail_next = 1
    # Eagerly the retry is requested, not run (a real worker runs it: see the worker test below).
    with pytest.raises(Retry) as caught:
        embed_memories.delay(tenant.id, [row.id]).get()
    assert isinstance(caught.value.exc, TransientEmbedderError)
    assert embed_memories.delay(tenant.id, [row.id]).get() == 1


def test_the_task_does_not_retry_a_missing_key(tenant, settings, loopback):
    use_loopback(settings, loopback)
    settings.BRAIN_EMBEDDER = {**settings.BRAIN_EMBEDDER, "API_KEY": ""}
    row = memory(tenant, "Escalate chargebacks to finance")
    with pytest.raises(EmbedderKeyMissing):
        embed_memories.delay(tenant.id, [row.id]).get()
    assert reload(row).embedding is None


# --- manage.py brain_reembed -------------------------------------------------------------------------


def run_reembed(*args):
    out = io.StringIO()
    call_command("brain_reembed", *args, "--no-progress", stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_brain_reembed_backfills_rows_without_a_vector(tenant, other_tenant):
    rows = [memory(tenant, f"Business fact {n} about opening hours") for n in range(5)]
    rows.append(memory(other_tenant, "Other tenant fact"))
    output = run_reembed("--batch-size", "2")
    assert "embedded 6 of 6 rows" in output and "rows/s" in output
    assert all(reload(r).embedding_model == HASHING for r in rows)
    assert "0 rows to embed" in run_reembed()  # resumable: a re-run finds nothing left


def test_brain_reembed_switches_model_names(tenant, other_tenant, settings, loopback):
    rows = [memory(tenant, f"Voice rule {n}: keep replies short") for n in range(3)]
    rows.append(memory(other_tenant, "Other tenant voice rule"))
    run_reembed()
    use_loopback(settings, loopback)
    output = run_reembed("--batch-size", "3")
    assert "embedded 4 of 4 rows" in output
    assert {reload(r).embedding_model for r in rows} == {"openai:loopback-embed"}
    assert [len(r["body"]["input"]) for r in loopback.requests] == [3, 1]


def test_brain_reembed_limits_itself_to_one_tenant(tenant, other_tenant):
    ours = memory(tenant, "Ours")
    theirs = memory(other_tenant, "Theirs")
    assert "embedded 1 of 1 rows" in run_reembed("--tenant", "acme")
    assert reload(ours).embedding is not None
    assert reload(theirs).embedding is None
    assert "embedded 1 of 1 rows" in run_reembed("--tenant", str(other_tenant.id))
    with pytest.raises(CommandError, match="no tenant with slug 'nope'"):
        run_reembed("--tenant", "nope")


def test_brain_reembed_all_rewrites_current_rows_and_resumes_after_an_id(tenant):
    rows = [memory(tenant, f"Issue {n}: late deliveries in winter") for n in range(4)]
    run_reembed()
    Memory.objects.all_tenants().filter(pk=rows[0].pk).update(
        embedding=[0.0] * 383 + [1.0]
    )  # current model, odd vector
    assert "embedded 0 of 0 rows" in run_reembed()  # not "needing" anything without --all
    assert "embedded 3 of 3 rows" in run_reembed("--all", "--start-after", str(rows[0].id))
    assert reload(rows[0]).embedding[-1] == 1.0  # skipped: before the resume point
    assert "embedded 4 of 4 rows" in run_reembed("--all")
    assert np.allclose(reload(rows[0]).embedding, embed_text_now(rows[0].text), atol=1e-6)


def test_brain_reembed_stops_with_a_message_when_the_embedder_fails_and_a_rerun_resumes(
    tenant, settings, loopback
):
    rows = [memory(tenant, text) for text in ("Embedded first", "Breaks the endpoint", "Left for the re-run")]
    use_loopback(settings, loopback)
    loopback.embedding_fn = lambda text, dims: [0.1] * (1536 if text.startswith("Breaks") else dims)
    with pytest.raises(CommandError, match=f"ignored dimensions=384.*Rows up to id {rows[0].id} are done"):
        run_reembed("--batch-size", "1")
    assert [reload(r).embedding is not None for r in rows] == [True, False, False]
    loopback.embedding_fn = None  # the cause is fixed
    assert "embedded 2 of 2 rows" in run_reembed()


# --- A real worker ------------------------------------------------------------------------------------


def test_a_real_celery_worker_embeds_rows_enqueued_after_commit(celery_worker, tenant, other_tenant):
    rows = [memory(tenant, f"Process rule {n}: refunds above 100 EUR need approval") for n in range(3)]
    theirs = memory(other_tenant, "Not to be touched")
    embedding_enqueue(tenant_id=tenant.id, memory_ids=[r.id for r in rows] + [theirs.id])
    deadline = time.monotonic() + 60
    while Memory.objects.for_tenant(tenant).filter(embedding__isnull=True).exists():
        assert time.monotonic() < deadline, "the worker did not embed the rows within 60 s"
        time.sleep(0.2)
    assert {reload(r).embedding_model for r in rows} == {HASHING}
    assert np.allclose(reload(rows[0]).embedding, embed_text_now(rows[0].text), atol=1e-6)
    assert reload(theirs).embedding is None


@pytest.fixture
def worker_embeds_through_loopback(monkeypatch, loopback):
    """Point the worker (started after this fixture) at the loopback endpoint through its environment."""
    monkeypatch.setenv("BRAIN_EMBEDDER", "openai")
    monkeypatch.setenv("BRAIN_EMBEDDER_BASE_URL", loopback.base_url)
    monkeypatch.setenv("BRAIN_EMBEDDER_MODEL", "loopback-embed")
    monkeypatch.setenv("BRAIN_EMBEDDER_API_KEY", "test-key")
    return loopback


def test_a_real_worker_retries_after_a_transient_endpoint_failure(
    worker_embeds_through_loopback, celery_worker, tenant
):
    loopback = worker_embeds_through_loopback
    loopback.fail_next = 1
    row = memory(tenant, "Refunds above 100 EUR need a manager's approval")
    embedding_enqueue(tenant_id=tenant.id, memory_ids=[row.id])
    deadline = time.monotonic() + 60
    while reload(row).embedding is None:
        assert time.monotonic() < deadline, "the worker did not retry and embed the row within 60 s"
        time.sleep(0.2)
    assert row.embedding_model == "openai:loopback-embed"
    assert len(loopback.requests) == 2  # the failed attempt, then the retry
