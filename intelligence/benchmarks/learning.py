"""The learning loop over a simulated month: runs, operator feedback, suggestions reviewed by an operator.

One tenant, one action agent with a few active memories: `--bad` of them steer a run to failure most of the
time (`--fail-rate`), the others to success. Over 30 simulated days ending now, `--runs` runs (default 2,000)
each get a context trace injecting two or three of the memories and an outcome; the simulated operator rates
`--rated` of them (thumbs down with a comment naming the lesson behind a failure, thumbs up with praise for
some successes), through the same service the REST endpoint and the Conversations page call. Every rating
that reaches the agent's threshold runs the suggestion task (eager Celery, in process), as in the product.
After each pass the simulated operator reviews the queue: a suggestion saying one of the true lessons is
activated, one saying a misleading lesson (some comments are wrong) is dismissed; the misleading comments
keep coming after the dismissal, in other words.

Every run is also settled by an evaluator verdict (`brain.api.apply_evaluator_verdict`, the function
`POST /api/v1/verdicts` and matured outcomes call): `pass` when it succeeded, `fail` when it failed, with a
response that cites (`[mem:ID]`) the memory that steered it when one did, else one injected memory half the
time. Runs inject only the memories still active (an archived memory is no longer injected, as in the
runtime).

Figures (JSON keys): `runs`; `verdicts_per_s` (the verdict calls alone); `verdicts_to_archive_median` (verdicts
a bad memory took part in until it was archived, the median over the bad memories archived; `bad_archived`
says how many were); `good_final_confidence_mean` (the good memories at the end); `moved_outside_trace`
(memories whose confidence changed in a verdict they were not injected into, measured by reading every
memory of the agent before and after each verdict: must be 0); `suggestions_proposed` (suggested memories written), `suggestions_activated`,
`suggestions_dismissed`; `reproposed_after_dismiss` — suggestions written or reinforced after a dismissal
that repeat a dismissed text (normalised text equal, or content-word overlap ≥ 0.7, measured here
independently of the product's check), and reinforcements of a dismissed memory after its dismissal: must
be 0; `repeats_of_dismissed_dropped` counts the proposals the product's own check dropped. Run in its own
database (default `brain_bench`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import timedelta

from django.utils import timezone

SLUG = "bench-learning"
DAYS = 30

# Memories of the agent: (text, steers to failure?).
MEMORIES = [
    ("Offer a 50 percent discount to every customer who complains about a delay.", True),
    ("Promise same-day delivery to customers outside the city.", True),
    ("Escalate refund disputes above 200 euros to a team lead.", False),
    ("Ask for the order number before checking a parcel's status.", False),
    ("Confirm the customer's address before sending a replacement.", False),
    ("Answer in the customer's language when it is French or German.", False),
]
# The lesson an operator writes after a failure steered by the bad memory of the same index.
TRUE_LESSONS = [
    "Do not offer discounts above 10 percent for a delivery delay without a team lead.",
    "Only promise same-day delivery inside the city limits.",
]
# Comments that are wrong: the operator dismisses what they propose.
MISLEADING = [
    "Tell customers to ask their bank about refunds instead of refunding them.",
    "Skip the order number and guess the parcel from the customer's name.",
]
PRAISE = ["Customers liked the short answer with the tracking link first."]
OPENERS = ["", "Please ", "Again: ", "Reminder: "]
CLOSERS = ["", " Next time.", " This keeps happening."]


def add_arguments(parser) -> None:
    parser.add_argument("--runs", type=int, default=2000, help="Runs over the month (default 2000).")
    parser.add_argument("--rated", type=float, default=0.3, help="Share of runs an operator rates.")
    parser.add_argument("--bad", type=int, default=2, help="Memories that steer runs to failure (max 2).")
    parser.add_argument("--fail-rate", type=float, default=0.8, help="How often a bad memory fails a run.")
    parser.add_argument("--misleading", type=float, default=0.15, help="Share of down-ratings that mislead.")
    parser.add_argument("--threshold", type=int, default=10, help="The agent's suggestion threshold.")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--database", default="brain_bench", help="Database to run in (created if missing).")


def run(options, stdout) -> dict:
    from brain.benchmarks.common import fresh_tenant, use_bench_database

    use_bench_database(options["database"], stdout)
    tenant = fresh_tenant(SLUG, "Learning benchmark")
    return simulate(
        tenant,
        runs=options["runs"],
        rated=options["rated"],
        bad=options["bad"],
        fail_rate=options["fail_rate"],
        misleading=options["misleading"],
        threshold=options["threshold"],
        seed=options["seed"],
        stdout=stdout,
    )


@dataclass
class _Review:
    activated: int = 0
    dismissed: int = 0
    dismissed_texts: list[tuple[int, str]] = field(default_factory=list)


def _paraphrase(rng: random.Random, text: str) -> str:
    return f"{rng.choice(OPENERS)}{text[0].lower() if rng.random() < 0.5 else text[0]}{text[1:]}{rng.choice(CLOSERS)}"


def _closest(text: str, pools: dict[str, list[str]]) -> str:
    from brain.formation.text import token_jaccard

    scored = [(token_jaccard(text, lesson), kind) for kind, lessons in pools.items() for lesson in lessons]
    return max(scored)[1]


def _review(agent, review: _Review) -> None:
    """The simulated operator: activate true lessons, dismiss misleading ones (praise is activated too)."""
    from intelligence.selectors import suggestion_queue
    from intelligence.services import suggestion_activate, suggestion_dismiss

    pools = {"true": TRUE_LESSONS + PRAISE, "misleading": MISLEADING}
    for memory in suggestion_queue(agent, limit=100).items:
        if _closest(memory.text, pools) == "misleading":
            suggestion_dismiss(
                agent=agent, memory_id=memory.id, reason="Wrong advice.", actor="process:bench"
            )
            review.dismissed += 1
            review.dismissed_texts.append((memory.id, memory.text))
        else:
            suggestion_activate(agent=agent, memory_id=memory.id, actor="process:bench")
            review.activated += 1


def simulate(
    tenant,
    *,
    runs: int,
    rated: float = 0.3,
    bad: int = 2,
    fail_rate: float = 0.8,
    misleading: float = 0.15,
    threshold: int = 10,
    seed: int = 14,
    stdout=None,
) -> dict:
    """The month on `tenant` (an empty tenant): see the module docstring. Returns the figures."""
    from intelligence.models import AgentRun, ContextTrace, SuggestionRun
    from intelligence.services import agent_create, agent_memory_add, run_feedback_set

    rng = random.Random(seed)
    agent = agent_create(
        tenant=tenant,
        name="Bench action agent",
        kind="action",
        learning_config={"suggestion_feedback_threshold": threshold, "learning_window_days": 30},
    )
    memory_ids, bad_ids = [], {}
    for index, (text, steers_to_failure) in enumerate(MEMORIES):
        outcome = agent_memory_add(
            agent=agent,
            actor="process:bench",
            category="instruction",
            strength="hard_rule",
            status="active",
            text=text,
        )
        memory_ids.append(outcome.memory_id)
        if steers_to_failure and len(bad_ids) < bad:
            bad_ids[outcome.memory_id] = TRUE_LESSONS[index]
    review = _Review()
    verdicts = _Verdicts(active=list(memory_ids), bad=set(bad_ids))
    passes_seen = 0
    start = timezone.now() - timedelta(days=DAYS)
    started = time.perf_counter()
    for number in range(runs):
        at = start + timedelta(seconds=DAYS * 86400 * number / max(runs, 1))
        injected = rng.sample(verdicts.active, min(len(verdicts.active), rng.choice((2, 3))))
        trace = ContextTrace.objects.create(
            tenant=tenant,
            agent=agent,
            sections={"hard_rule": {"memory_ids": injected}},
            injected_memory_ids=injected,
        )
        steering = [m for m in injected if m in bad_ids]
        failed = rng.random() < (fail_rate if steering else 1 - fail_rate)
        agent_run = AgentRun.objects.create(
            tenant=tenant, agent=agent, summary=f"run {number}", context_trace=trace
        )
        verdicts.settle(tenant, trace.pk, injected, steering, failed, rng)
        if rng.random() >= rated:
            continue
        if failed:
            lesson = (
                rng.choice(MISLEADING)
                if rng.random() < misleading or not steering
                else bad_ids[rng.choice(steering)]
            )
            rating, comment = -1, _paraphrase(rng, lesson)
        else:
            rating, comment = 1, (_paraphrase(rng, rng.choice(PRAISE)) if rng.random() < 0.3 else "")
        # The product's path: the service commits, then the suggestion task runs when the threshold is reached.
        run_feedback_set(run=agent_run, rating=rating, comment=comment, actor="process:bench", now=at)
        passes = SuggestionRun.objects.for_tenant(tenant).filter(agent=agent).count()
        if passes != passes_seen:
            passes_seen = passes
            _review(agent, review)
    elapsed = time.perf_counter() - started
    figures = {
        "runs": runs,
        **verdicts.figures(tenant),
        "suggestion_passes": passes_seen,
        "suggestions_proposed": _proposed(tenant, agent),
        "suggestions_activated": review.activated,
        "suggestions_dismissed": review.dismissed,
        "reproposed_after_dismiss": _reproposed(tenant, agent),
        # Proposals the product dropped as repeats of a dismissed suggestion (its own check, for context).
        "repeats_of_dismissed_dropped": sum(
            run.outcomes.get("dismissed_before", 0)
            for run in SuggestionRun.objects.for_tenant(tenant).filter(agent=agent)
        ),
        "seconds": round(elapsed, 2),
    }
    if stdout is not None:
        stdout.write(
            f"{runs} runs over {DAYS} days, {passes_seen} suggestion passes in {elapsed:.1f} s: "
            f"{figures['suggestions_proposed']} suggestions proposed, {review.activated} activated, "
            f"{review.dismissed} dismissed, {figures['reproposed_after_dismiss']} proposed again after dismissal"
        )
        stdout.write(
            f"verdicts: {figures['verdicts_per_s']}/s; bad memories archived {figures['bad_archived']}/"
            f"{len(bad_ids)} after a median of {figures['verdicts_to_archive_median']} verdicts; good memories' "
            f"final confidence {figures['good_final_confidence_mean']}; moved outside their trace "
            f"{figures['moved_outside_trace']}"
        )
    return figures


@dataclass
class _Verdicts:
    """Every run settled by a verdict; what the verdicts did, measured from the memory rows."""

    active: list[int]
    bad: set[int]
    seconds: float = 0.0
    count: int = 0
    seen: dict[int, int] = field(default_factory=dict)  # memory id -> verdicts it took part in
    to_archive: dict[int, int] = field(default_factory=dict)  # bad memory id -> verdicts until archived
    moved_outside: int = 0

    def settle(self, tenant, trace_id: int, injected, steering, failed: bool, rng: random.Random) -> None:
        from brain.api import apply_evaluator_verdict
        from brain.models import Memory

        cited = steering[:1] or ([rng.choice(injected)] if injected and rng.random() < 0.5 else [])
        response = "Done as the rules say. " + " ".join(f"[mem:{i}]" for i in cited)
        rows = Memory.objects.for_tenant(tenant).filter(pk__in=self.all_ids)
        before = dict(rows.values_list("id", "confidence"))
        started = time.perf_counter()
        result = apply_evaluator_verdict(
            tenant_id=tenant.pk,
            judged=f"trace:{trace_id}",
            verdict="fail" if failed else "pass",
            response_text=response,
            injected_by_trace={f"trace:{trace_id}": injected},
        )
        self.seconds += time.perf_counter() - started
        self.count += 1
        after = dict(rows.values_list("id", "confidence"))
        self.moved_outside += sum(1 for i, c in after.items() if c != before.get(i) and i not in injected)
        for memory_id in injected:
            self.seen[memory_id] = self.seen.get(memory_id, 0) + 1
        for memory_id in result.archived_memory_ids:
            self.active.remove(memory_id)
            if memory_id in self.bad:
                self.to_archive[memory_id] = self.seen[memory_id]

    @property
    def all_ids(self) -> list[int]:
        return sorted(set(self.active) | self.bad | set(self.seen))

    def figures(self, tenant) -> dict:
        from statistics import mean, median

        from brain.models import Memory

        good = [i for i in self.all_ids if i not in self.bad]
        confidences = (
            Memory.objects.for_tenant(tenant).filter(pk__in=good).values_list("confidence", flat=True)
        )
        return {
            "verdicts": self.count,
            "verdicts_per_s": round(self.count / self.seconds, 1) if self.seconds else 0.0,
            "bad_archived": len(self.to_archive),
            "verdicts_to_archive_median": median(self.to_archive.values()) if self.to_archive else None,
            "good_final_confidence_mean": round(mean(c for c in confidences if c is not None), 3),
            "moved_outside_trace": self.moved_outside,
        }


def _proposed(tenant, agent) -> int:
    from brain.models import MemoryHistory

    return (
        MemoryHistory.objects.for_tenant(tenant)
        .filter(action=MemoryHistory.Action.ADDED, surface="suggestion", memory__scope_id=str(agent.pk))
        .count()
    )


def _reproposed(tenant, agent) -> int:
    """Suggestions written or reinforced after a dismissal that repeat a dismissed text; reinforcements of a
    dismissed memory after its dismissal. Measured from the history, independently of the product's check."""
    from brain.formation.text import normalise, token_jaccard
    from brain.models import MemoryHistory
    from intelligence.models import SuggestionDismissal

    dismissals = list(SuggestionDismissal.objects.for_tenant(tenant).filter(agent=agent))
    events = list(
        MemoryHistory.objects.for_tenant(tenant)
        .filter(
            action__in=[MemoryHistory.Action.ADDED, MemoryHistory.Action.REINFORCED],
            surface="suggestion",
            memory__scope_id=str(agent.pk),
        )
        .values_list("memory_id", "memory__text", "at")
    )
    count = 0
    for memory_id, text, at in events:
        for d in dismissals:
            if at <= d.dismissed_at:
                continue
            same = (
                memory_id == d.memory_id
                or normalise(text) == normalise(d.text)
                or token_jaccard(text, d.text) >= 0.7
            )
            if same:
                count += 1
                break
    return count
