"""The rows `brain_bench context` loads and the conversations it sends: agent memories, the agents' own notes and
Client Brain rows, worded from one Zipf-distributed vocabulary (so full-text matching is not degenerate)."""

from __future__ import annotations

import random

WORDS = (
    "refund invoice parcel delivery tracking warranty return exchange discount coupon order account password "
    "login billing subscription plan premium upgrade downgrade cancel shipping courier address payment card "
    "charge receipt promotion campaign budget bid audience creative conversion click impression spend report "
    "weekly monthly daily region store manager customer agent escalate priority urgent delay damaged missing "
    "replacement voucher loyalty points membership renewal contract quote estimate schedule appointment "
    "install repair battery screen laptop phone charger cable headphones jacket boots tent backpack stove "
    "size colour stock warehouse supplier holiday weekend morning evening email chat callback survey rating"
).split()
# Natural text has a long tail: the domain words above plus 6,000 generated words, drawn with Zipf-like
# frequencies (a common word matches many rows, a rare one few), so full-text matching is not degenerate.
_SYLLABLES = "ka lo mi ne ru sa te vo pi da fe gu ho ji ly ma no qu ri su ta ve wo xi ya ze".split()


def _vocabulary() -> tuple[list[str], list[float]]:
    rng = random.Random(12345)
    generated = set()
    while len(generated) < 6000:
        generated.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    words = WORDS + sorted(generated)
    rng.shuffle(words)
    weights, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / (rank + 30) ** 1.05  # offset: no single word dominates (stop words are dropped anyway)
        weights.append(total)
    return words, weights


VOCABULARY, CUMULATIVE_WEIGHTS = _vocabulary()
STRENGTHS = ["hard_rule"] * 2 + ["preference"] * 4 + ["heuristic"] * 3 + ["context_note"]
STATUSES = ["active"] * 7 + ["draft", "stale", "archived"]
PROVIDERS = ["meta_ads", "google_ads", "tiktok_ads", "dv360"]


def sentence(rng: random.Random, low: int, high: int) -> str:
    words = rng.choices(VOCABULARY, cum_weights=CUMULATIVE_WEIGHTS, k=rng.randint(low, high))
    return " ".join(words).capitalize() + "."


def agent_memory_rows(rng, agents, count):
    for i in range(count):
        agent = agents[i % len(agents)]
        row = {
            "scope_kind": "agent",
            "scope_id": str(agent.pk),
            "type": "agent_memory",
            "text": f"{sentence(rng, 6, 16)} (rule {i})",
            "strength": rng.choice(STRENGTHS),
            "status": rng.choice(STATUSES),
            "category": rng.choice(["fact", "preference", "correction", "instruction"]),
            "source": rng.choice(["manual", "suggested", "derived"]),
            "confidence": round(rng.uniform(0.5, 1.0), 3),
        }
        if rng.random() < 0.3:
            row["provider"] = rng.choice(PROVIDERS)
        if rng.random() < 0.15:
            row["campaign_ids"] = [f"c{rng.randint(1, 50)}"]
        yield row


def agent_note_rows(rng, agents, count):
    for i in range(count):
        mined = rng.random() < 0.3
        yield {
            "scope_kind": "agent",
            "scope_id": str(agents[i % len(agents)].pk),
            "type": "chat" if mined else "note",
            "surface": "chat" if mined else "memory_append",
            "strength": "" if mined else "context_note",
            "text": f"{sentence(rng, 6, 16)} (note {i})",
            "provenance": [{"kind": "run", "id": f"run-{rng.randint(1, 500)}"}],
        }


def client_brain_rows(rng, count):
    for i in range(count):
        kind = rng.random()
        if kind < 0.5:
            fact = f"{sentence(rng, 5, 14)} (fact {i})"
            yield {"scope_kind": "tenant", "type": "business", "payload": {"fact": fact}, "text": fact}
        elif kind < 0.75:
            pattern, resolution = sentence(rng, 4, 9), sentence(rng, 4, 10)
            freq = rng.randint(1, 20)
            text = f"Issue: {pattern}; best resolution: {resolution}"
            payload = {"pattern": pattern, "best_resolution": resolution, "frequency": freq}
            yield {"scope_kind": "tenant", "type": "issues", "payload": payload, "text": text}
        elif kind < 0.9999:
            trigger, action = sentence(rng, 3, 8), sentence(rng, 4, 10)
            text = f"When {trigger}: {action}"
            payload = {"trigger": trigger, "action": action}
            yield {"scope_kind": "tenant", "type": "process", "payload": payload, "text": text}
        else:
            yield {
                "scope_kind": "tenant",
                "type": "voice",
                "payload": {"formality": "neutral"},
                "text": "formality: neutral",
            }
