"""50 concurrent promotes of one fact (and of paraphrases of it) leave exactly one memory, with no deadlock.

Against the real PostgreSQL with committed transactions: from threads of this process, and from separate
processes. The guarantee comes from promote()'s advisory lock per tenant + scope.
"""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.db import connection

from brain.api import promote
from brain.models import Memory, MemoryHistory
from brain.types import MemoryCandidate
from tickets.tenancy.wall import tenant_scope

pytestmark = pytest.mark.django_db(transaction=True)

REPO = Path(__file__).resolve().parents[3]
N = 50

SAME = ["Acme ships orders within two business days."] * N
PARAPHRASES = [
    "Acme ships orders within two business days.",
    "Acme ships all orders within two business days.",
    "acme ships orders within two business days!",
    "Orders from Acme ship within two business days.",
    "Acme ships every order within two business days.",
    "Acme usually ships orders within two business days.",
    "Acme ships customer orders within two business days.",
    "Within two business days, Acme ships orders.",
    "ACME SHIPS ORDERS WITHIN TWO BUSINESS DAYS",
    "Acme ships its orders within two working business days.",
] * (N // 10)


def _promote_all_in_threads(tenant_id: int, texts: list[str]) -> list[str]:
    barrier = threading.Barrier(len(texts))
    results: list[str] = []
    errors: list[BaseException] = []

    def work(text: str) -> None:
        try:
            barrier.wait(timeout=60)
            with tenant_scope(tenant_id):  # as a request or a task would (the tenant wall)
                outcome = promote(
                    MemoryCandidate(tenant_id=tenant_id, type="fact", text=text, actor="process:thread")
                )
            results.append(outcome.result)
        except BaseException as exc:  # reported below; a thread must not swallow a deadlock error
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a promote never finished"
    assert not errors, errors[:3]
    return results


@pytest.mark.parametrize("texts", [SAME, PARAPHRASES], ids=["same-fact", "paraphrases"])
def test_50_concurrent_promotes_from_threads_leave_exactly_one_memory(tenant, texts):
    results = _promote_all_in_threads(tenant.pk, texts)
    assert sorted(results) == ["added"] + ["reinforced"] * (N - 1)
    memory = Memory.objects.for_tenant(tenant).get()
    assert memory.frequency == N
    assert MemoryHistory.objects.for_tenant(tenant).filter(action="reinforced").count() == N - 1


WORKER = """
import json, sys, threading
import django
django.setup()
from django.db import connection
from brain.api import promote
from brain.types import MemoryCandidate
from tickets.tenancy.wall import tenant_scope
tenant_id, texts = int(sys.argv[1]), json.loads(sys.argv[2])
barrier = threading.Barrier(len(texts))
results = []
def work(text):
    barrier.wait()
    try:
        with tenant_scope(tenant_id):
            results.append(promote(MemoryCandidate(tenant_id=tenant_id, type="fact", text=text, actor="process:proc")).result)
    finally:
        connection.close()
threads = [threading.Thread(target=work, args=(t,)) for t in texts]
[t.start() for t in threads]
[t.join() for t in threads]
print(json.dumps(results))
"""


def _env() -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "BRAIN_DB_NAME": connection.settings_dict["NAME"],
        # The processes share one embedder among themselves; the dependency-free one starts fastest.
        "BRAIN_EMBEDDER": "hashing",
    }
    if connection.settings_dict.get("EMBEDDED_DATA_DIR") is None and os.environ.get("DATABASE_URL"):
        url = urlparse(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = url._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    return env


@pytest.mark.parametrize("texts", [SAME, PARAPHRASES], ids=["same-fact", "paraphrases"])
def test_50_concurrent_promotes_from_separate_processes_leave_exactly_one_memory(tenant, texts):
    processes, per_process = 5, N // 5  # 5 processes x 10 threads: 50 promotes racing across processes
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                str(tenant.pk),
                json.dumps(texts[i * per_process : (i + 1) * per_process]),
            ],
            cwd=REPO,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        results += json.loads(out.strip().splitlines()[-1])
    assert sorted(results) == ["added"] + ["reinforced"] * (N - 1)
    assert Memory.objects.for_tenant(tenant).get().frequency == N


def test_50_concurrent_promotes_judged_add_by_an_llm_still_leave_one_memory(tenant, settings):
    from tests.loopback import LoopbackOpenAI

    with LoopbackOpenAI() as server:
        server.chat_answers.append({"decision": "add", "target_id": None, "reason": "looks_new"})
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        results = _promote_all_in_threads(tenant.pk, PARAPHRASES)
    assert sorted(results) == ["added"] + ["reinforced"] * (N - 1)
    assert Memory.objects.for_tenant(tenant).get().frequency == N
    assert len([r for r in server.requests if r["path"].endswith("/chat/completions")]) == N
