"""The literal part of the Client Brain search box, with the tenant's trigram keys and without (`brain_bench
client-brain`, per row count).

Under the tenant wall ILIKE uses no index, so the box's literal statement (`key` or `text` ILIKE '%needle%', in
the dashboard's order) read every row of the tenant; `brain.search_box.literal_in_text` first asks the tenant's
trigram keys which rows may hold the needle. Both are timed in the same run, alternating, for a word no row
holds, a phrase one stored row holds, and a word many rows hold (past the keys' bound: the walk, as before).
"""

from __future__ import annotations

import statistics
import time

from django.db.models import Q

from brain.models import Memory

NO_ROW_HOLDS = "zqxvwj"


def _needles(tenant_id: int) -> dict[str, str]:
    """A word no row holds, two words of one stored row, and the most common word of a sample of rows."""
    texts = list(
        Memory.objects.for_tenant(tenant_id)
        .filter(scope_kind="tenant")
        .order_by("id")
        .values_list("text", flat=True)[:200]
    )
    words = [w for text in texts for w in text.lower().split() if w.isascii() and w.isalpha() and len(w) > 4]
    phrase = " ".join(texts[len(texts) // 2].split()[1:3])
    return {"no_row": NO_ROW_HOLDS, "phrase": phrase, "common_word": max(set(words), key=words.count)}


def literal_latency(tenant_id: int, repeats: int = 15) -> dict[str, dict]:
    """{needle kind: {"needle", "keyed_p50_ms", "plain_p50_ms", "found"}}: the literal statement's rows (at
    most 101, as the box reads them) with the keys' narrowing and with the plain condition."""
    from brain.client_brain.dashboard import CURRENT, client_brain_rows, dashboard_ordered, status_condition
    from brain.search_box import literal_in_text

    ordered = dashboard_ordered(client_brain_rows(tenant_id=tenant_id).filter(status_condition(CURRENT)))

    def read(condition: Q) -> list[int]:
        return list(ordered.filter(condition).values_list("id", flat=True)[:101])

    result = {}
    for kind, needle in _needles(tenant_id).items():
        plain = Q(key__icontains=needle) | Q(text__icontains=needle)
        sides = {
            "keyed": lambda needle=needle: literal_in_text(tenant_id=tenant_id, needle=needle),
            "plain": lambda plain=plain: plain,
        }
        timings: dict[str, list[float]] = {name: [] for name in sides}
        found: dict[str, list[int]] = {}
        for _ in range(repeats):
            for name, condition in sides.items():
                started = time.perf_counter()
                found[name] = read(condition())
                timings[name].append((time.perf_counter() - started) * 1000)
        if found["keyed"] != found["plain"]:
            raise RuntimeError(f"the keyed literal search found other rows than the plain one for {needle!r}")
        result[kind] = {
            "needle": needle,
            "found": len(found["keyed"]),
            **{f"{name}_p50_ms": round(statistics.median(values[1:]), 2) for name, values in timings.items()},
        }
    return result
