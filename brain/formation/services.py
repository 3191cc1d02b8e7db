"""Formation services: `promote()`, the only way a memory is written (the operator edits are in edits.py).

promote(candidate):  gate → judge (skipped for operators' manual memories, never the gate) → hard
duplicate backstop → add / reinforce / supersede, or reject with a reason code. Every outcome, rejections
included, is a `MemoryHistory` row; new rows get their embedding (the vector computed for the backstop is
stored directly; without an embedder, the embedding task is enqueued after commit); the BrainGraph edges
are written in the same transaction.

Concurrency: every write to one tenant + scope takes a transaction-scoped advisory lock on that scope
before it looks for neighbours, so 50 concurrent promotes of one fact (threads or processes) see each
other's committed rows and leave exactly one memory. A promote() on its own holds one lock at a time, so
promotes cannot deadlock on each other; a caller that promotes into several scopes inside its own
transaction holds each lock until it commits, and should promote in a fixed scope order (PostgreSQL
detects and breaks a lock cycle with an error, it never hangs). Embedding and retrieval ranking (the slow
parts) run before the lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import replace

from django.db import transaction

from ..memory_state import states_read_once
from ..models import (
    BrainScopeKind,
    Memory,
    MemoryHistory,
    MemorySource,
    MemoryStatus,
    MemoryType,
    WriteSurface,
)
from ..types import MemoryCandidate, PromoteOutcome
from .backstop import backstop_duplicate, duplicate_types, recent_note_duplicate
from .by_key import key_rows, key_rows_deciding, settled_by_key_before_lock
from .evidence import (
    COMPETING_REASON,
    HELD_REASON,
    held_candidate,
    held_row,
    hold_reason,
    outweighed_by,
    outweighs,
    row_corroboration,
    standing_value,
    turned_against,
)
from .gate import PERSONAL_DATA_SURFACES, gate_check
from .judge import LIVE_STATUSES, Neighbour, find_neighbours, judge, recall_neighbour_ids
from .personal_data import may_hold_contact, published_contacts
from .refusals import refusal_record
from .reinforcements import Reinforcements, reinforced, row_reinforce
from .text import normalise
from .writes import (
    embed_for_write_many,
    history_add,
    row_activate,
    row_add,
    row_supersede,
    row_turn,
    scope_lock,
)


class MemoryNotFound(LookupError):
    """No memory with that id in that tenant (another tenant's memory is not found either)."""


class GateRejected(ValueError):
    """An operator edit's new content did not pass formation: the gate's reason code, or
    `backstop_duplicate` with `duplicate_of` naming the memory of the scope it would duplicate."""

    def __init__(self, reason: str, detail: str = "", *, duplicate_of: int | None = None):
        super().__init__(f"rejected by the formation gate: {reason}" + (f" ({detail})" if detail else ""))
        self.reason, self.detail, self.duplicate_of = reason, detail, duplicate_of


class MemorySuperseded(ValueError):
    """A superseded memory keeps its status: the newer memory that replaced it is the live version."""

    def __init__(self, memory_id: int, superseded_by_id: int | None):
        super().__init__(f"memory {memory_id} was superseded by {superseded_by_id}; change that one instead")
        self.memory_id, self.superseded_by_id = memory_id, superseded_by_id


def _injected_texts(candidate: MemoryCandidate) -> list[str]:
    texts = list(candidate.injected_texts)
    if candidate.injected_memory_ids:
        texts += list(
            Memory.objects.for_tenant(candidate.tenant_id)
            .filter(pk__in=list(candidate.injected_memory_ids))
            .values_list("text", flat=True)
        )
    return texts


def _reject(candidate: MemoryCandidate, reason: str, detail: str = "") -> PromoteOutcome:
    history_add(
        tenant_id=candidate.tenant_id,
        memory=None,
        action=MemoryHistory.Action.REJECTED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=reason,
        # A hash and a redacted excerpt, never the text: it may hold personal data or an attack payload.
        after=refusal_record(
            candidate.text or "",
            detail=detail,
            memory_type=candidate.type,
            key=candidate.key,
            scope_kind=candidate.scope_kind,
            scope_id=candidate.scope_id,
        ),
    )
    return PromoteOutcome(result="rejected", memory_id=None, reason=reason, detail={"gate_detail": detail})


# --- promote -------------------------------------------------------------------------------------------


def promote(candidate: MemoryCandidate) -> PromoteOutcome:
    """Decide what becomes of `candidate`: added, reinforced, superseded, or rejected with a reason code.

    The only way a memory is written. Tenant-scoped (candidate.tenant_id); opens its own transaction
    (atomic: the row, its history and its graph edges commit together); safe to call concurrently.
    Not idempotent by design — promoting the same fact twice reinforces it (frequency 2).
    Raises ValueError for a candidate no surface can legitimately send (unknown scope kind or status,
    a tenant scope with an owner id): a caller's bug, not a gate decision.
    """
    return promote_many([candidate])[0]


def promote_many(candidates: Sequence[MemoryCandidate]) -> list[PromoteOutcome]:
    """`promote()` each of `candidates`, in order, with one call into the embedder and one transaction.

    Each candidate is decided exactly as `promote()` decides it, and sees what the candidates before it
    wrote (the direct neighbour query and the backstop run under the lock, after them). The slow parts run
    before any lock: the gate, one embedder call for every candidate that passed it (the vector the judge
    compares is the one stored on the row), recall's neighbour ids — except for a candidate that rows of its
    own key already reinforce (by_key.py): under the lock only those rows are read again, and they decide;
    when they no longer do, recall and the direct query run then. Then one transaction (the caller's when
    there is one) takes each scope's advisory lock once, in a fixed order (so two batches cannot deadlock),
    and writes every outcome, rejections included: all of them commit together or none does. Consecutive
    reinforcements are written together (`Reinforcements`), before any other write and before it returns.
    """
    originals = list(candidates)
    candidates = [_checked(candidate) for candidate in originals]
    verdicts = [_gate(candidate) for candidate in candidates]
    passed = [i for i, verdict in enumerate(verdicts) if verdict.passed]
    vectors = dict(zip(passed, embed_for_write_many([candidates[i].text for i in passed]), strict=True))
    by_key = settled_by_key_before_lock([(i, candidates[i]) for i in passed])
    recall_ids = _recall_ids_before_lock([(i, candidates[i], *vectors[i]) for i in passed if i not in by_key])
    with transaction.atomic():
        scopes = {(candidates[i].tenant_id, candidates[i].scope_kind, candidates[i].scope_id) for i in passed}
        for scope in sorted(scopes):
            scope_lock(*scope)
        reinforcements = Reinforcements()
        for rows in key_rows([candidates[i] for i in sorted(by_key)]):
            reinforcements.lock_rows(rows)
        outcomes = []
        for i, candidate in enumerate(candidates):
            if verdicts[i].passed:
                outcomes.append(
                    _promote_locked(
                        candidate, *vectors[i], recall_ids.get(i), reinforcements, by_key=i in by_key
                    )
                )
            else:
                reinforcements.flush()
                outcomes.append(_reject(originals[i], verdicts[i].reason, verdicts[i].detail))
        reinforcements.flush()
        return outcomes


def _checked(candidate: MemoryCandidate) -> MemoryCandidate:
    """The candidate with its text stripped; ValueError for one no surface can legitimately send."""
    if candidate.scope_kind not in BrainScopeKind.values:
        raise ValueError(
            f"scope_kind must be one of {', '.join(BrainScopeKind.values)}, not {candidate.scope_kind!r}"
        )
    if candidate.status not in set(MemoryStatus.values) - {MemoryStatus.SUPERSEDED}:
        raise ValueError(f"a new memory's status cannot be {candidate.status!r}")
    if candidate.scope_kind == BrainScopeKind.TENANT and candidate.scope_id:
        raise ValueError("the tenant scope has no owner id: leave scope_id empty")
    return replace(candidate, text=(candidate.text or "").strip())


def _gate(candidate: MemoryCandidate):
    values = candidate.payload.get("values") if isinstance(candidate.payload, dict) else None
    return gate_check(
        text=candidate.text,
        template=candidate.template,
        values=values if isinstance(values, dict) else None,
        system_prompt=candidate.system_prompt,
        injected_texts=_injected_texts(candidate),
        published_contacts=published_contacts(candidate.tenant_id)
        if may_hold_contact(candidate.text)
        else (),
        source_texts=candidate.source_texts,
        personal_data=candidate.surface in PERSONAL_DATA_SURFACES,
        instructions_allowed=operator_wrote(candidate),
    )


def operator_wrote(candidate: MemoryCandidate) -> bool:
    """Whether a candidate's words are an operator's own: a memory they add, supersede with or promote a note
    to, in the Intelligence tab or over REST. Not a memory the product derived from a run's decision, nor a
    suggestion: their words are the product's and its feedback's."""
    return candidate.surface == WriteSurface.OPERATOR and candidate.source == MemorySource.MANUAL


def _recall_ids_before_lock(embedded: list[tuple]) -> dict[int, list[int]]:
    """Recall's neighbour ids of each (position, candidate, vector, model) the judge will see, read before the
    lock: ranking work must not serialise the scope; rows committed meanwhile are still seen by the direct
    neighbour query and the backstop, inside the lock. One tenant's scopes' memory state is read once."""
    wanted = [(i, c, vector, model) for i, c, vector, model in embedded if not c.skip_judge]
    tenants = {c.tenant_id for _, c, _, _ in wanted}
    scopes = dict.fromkeys((c.scope_kind, c.scope_id) for _, c, _, _ in wanted)
    if not wanted:
        return {}
    states = (
        states_read_once(tenants.pop(), [(kind, [scope_id]) for kind, scope_id in scopes])
        if len(tenants) == 1
        else nullcontext()
    )
    with states:
        return {
            i: recall_neighbour_ids(
                tenant_id=c.tenant_id,
                scope_kind=c.scope_kind,
                scope_id=c.scope_id,
                text=c.text,
                vector=vector,
                model=model,
                types=duplicate_types(c.type),
            )
            for i, c, vector, model in wanted
        }


def _promote_locked(
    candidate: MemoryCandidate,
    vector,
    model: str,
    recall_ids,
    reinforcements: Reinforcements,
    *,
    by_key: bool = False,
) -> PromoteOutcome:
    """Decide and write one candidate under its scope's lock. A reinforcement is left to `reinforcements`;
    every other outcome flushes them first (it may read or change the rows they counted). `by_key`: rows of the
    candidate's key were expected to decide its reinforcement (recall was not asked before the lock)."""
    tid = candidate.tenant_id
    scope = {"tenant_id": tid, "scope_kind": candidate.scope_kind, "scope_id": candidate.scope_id}

    if candidate.surface == WriteSurface.MEMORY_APPEND:
        twin = recent_note_duplicate(**scope, text=candidate.text)
        if twin is not None:
            return row_reinforce(
                twin.id, candidate, "duplicate_recent_note", {"judge": "skipped"}, reinforcements
            )

    types = duplicate_types(candidate.type)
    neighbours = _neighbours(candidate, scope, vector, model, types, recall_ids, by_key=by_key)
    if candidate.supersedes_id is not None and candidate.supersedes_id not in {n.id for n in neighbours}:
        target = _supersede_target(candidate)
        if target is None:
            reinforcements.flush()
            return _reject(candidate, "supersede_target_not_found", f"memory {candidate.supersedes_id}")
        neighbours.append(target)

    if candidate.skip_judge:
        if candidate.supersedes_id is not None:
            old = next(n for n in neighbours if n.id == candidate.supersedes_id)
            if normalise(old.text) == normalise(candidate.text):
                return row_reinforce(old.id, candidate, "same_value", {"judge": "skipped"}, reinforcements)
            reinforcements.flush()
            return row_supersede(
                old.id, candidate, vector, model, "operator_supersede", neighbours, {"judge": "skipped"}
            )
        decision_name, target_id, reason, judge_name = "add", None, "manual", "skipped"
    else:
        if candidate.supersedes_id is not None:
            decision_name, target_id, reason, judge_name = _judge_with_hint(candidate, neighbours)
        else:
            decision = judge(
                text=candidate.text, key=candidate.key, type=candidate.type, neighbours=neighbours
            )
            decision_name, target_id, reason, judge_name = (
                decision.decision,
                decision.target_id,
                decision.reason,
                decision.judge,
            )
    detail = {"judge": judge_name, "judge_decision": decision_name, "backstop": False}

    if decision_name == "reinforce":
        return _reinforce_and_weigh(target_id, candidate, reason or "same_fact", detail, reinforcements)
    if decision_name == "supersede":
        reinforcements.flush()
        if held_candidate(candidate) or outweighs(target_id, candidate):
            # Evidence before change: one sighting does not replace what was seen many times, and one
            # ticket never replaces a policy (a held value waits for corroboration, evidence.py).
            return row_add(
                replace(candidate, status=MemoryStatus.DRAFT),
                vector,
                model,
                COMPETING_REASON,
                neighbours,
                {**detail, "competes_with": target_id},
                contradicts=target_id,
            )
        return row_supersede(target_id, candidate, vector, model, reason or "newer_value", neighbours, detail)
    return _add_unless_duplicate(candidate, vector, model, reason, neighbours, detail, types, reinforcements)


def _neighbours(
    candidate, scope: dict, vector, model: str, types, recall_ids, *, by_key: bool
) -> list[Neighbour]:
    """What the judge is shown: the rows of the candidate's key when they settle its reinforcement (by_key.py),
    else its nearest rows (`find_neighbours`, with recall's ids; asked now when the guess `by_key` failed)."""
    neighbours = key_rows_deciding(candidate, scope, vector, model, types) if by_key else None
    if neighbours is not None:
        return neighbours
    if by_key:  # they no longer decide: recall now, as it would have been asked before the lock
        recall_ids = recall_neighbour_ids(
            **scope, text=candidate.text, vector=vector, model=model, types=types
        )
    return find_neighbours(
        **scope,
        text=candidate.text,
        key=candidate.key,
        vector=vector,
        model=model,
        recall_ids=recall_ids or [],
        types=types,
    )


def _supersede_target(candidate: MemoryCandidate) -> Neighbour | None:
    """The live memory of the candidate's scope it proposes to supersede, as a neighbour; None: not there."""
    target = (
        Memory.objects.for_tenant(candidate.tenant_id)
        .filter(
            pk=candidate.supersedes_id,
            status__in=LIVE_STATUSES,
            scope_kind=candidate.scope_kind,
            scope_id=candidate.scope_id,
        )
        .values("id", "key", "text", "status")
        .first()
    )
    return None if target is None else Neighbour(**target, cosine=None, lexical=0.0, token_overlap=0.0)


def _reinforce_and_weigh(
    target_id: int, candidate: MemoryCandidate, reason: str, detail: dict, reinforcements: Reinforcements
) -> PromoteOutcome:
    """Reinforce the target; when it is a held draft now corroborated, it becomes active; when it is a
    competing value whose evidence now exceeds the standing value's, it supersedes that value (evidence.py)."""
    competitor = reinforcements.reinforce(target_id, candidate, reason)  # locked, as reinforced
    if reinforcements.weighing_reads_pending(competitor):
        reinforcements.flush()  # weighed against the rows as written
    if held_row(competitor):
        return _corroborated_or_waiting(competitor, candidate, reason, detail, reinforcements)
    standing = turned_against(competitor)
    if standing is not None:
        reinforcements.flush()  # `row_turn` reads the competitor again
        return row_turn(competitor.pk, standing, candidate)
    return reinforced(competitor, reason, detail)


def _corroborated_or_waiting(
    competitor, candidate: MemoryCandidate, reason: str, detail: dict, reinforcements: Reinforcements
) -> PromoteOutcome:
    """A held draft, just reinforced: active once tickets of enough customers in the learning window taught
    it (and, when it competes with a standing value of its key, once it outweighs that value too)."""
    support = row_corroboration(competitor)
    detail = {**detail, "corroboration": support.as_dict()}
    if not support.corroborated:
        return reinforced(competitor, reason, detail)
    reinforcements.flush()  # what follows reads and writes the rows as reinforced
    standing = standing_value(competitor)
    if standing is None:
        return row_activate(competitor.pk, candidate, detail)
    if outweighed_by(competitor, standing):
        return row_turn(competitor.pk, standing, candidate)
    return reinforced(competitor, reason, detail)


def _add_unless_duplicate(
    candidate, vector, model, reason, neighbours, detail, types, reinforcements: Reinforcements
) -> PromoteOutcome:
    """Whatever the judge said, a duplicate of a standing memory reinforces it instead of a second copy.

    A duplicate the writer's view never shows (`types`) does not swallow the write: the memory is added
    and linked to that row (`related_to`), and the outcome names it (`hidden_duplicate_of`).
    """
    scope = {
        "tenant_id": candidate.tenant_id,
        "scope_kind": candidate.scope_kind,
        "scope_id": candidate.scope_id,
    }
    issue_key = candidate.key if candidate.type == MemoryType.ISSUES else ""
    twin = backstop_duplicate(
        **scope, text=candidate.text, vector=vector, model=model, types=types, issue_key=issue_key
    )
    if twin is not None:
        detail = {
            **detail,
            "backstop": True,
            "cosine": twin.cosine,
            "lexical": twin.lexical,
            "token_overlap": twin.token_overlap,
        }
        return _reinforce_and_weigh(twin.id, candidate, "backstop_duplicate", detail, reinforcements)
    reinforcements.flush()
    hidden = backstop_duplicate(**scope, text=candidate.text, vector=vector, model=model) if types else None
    if hidden is not None:
        detail = {**detail, "hidden_duplicate_of": hidden.id}
    held = hold_reason(candidate, neighbours)
    if held is not None:
        # One ticket never makes a policy: a grant, or a contradiction of a standing row, waits (evidence.py).
        candidate, reason, detail = (
            replace(candidate, status=MemoryStatus.DRAFT),
            HELD_REASON,
            {**detail, "held": held},
        )
    return row_add(
        candidate,
        vector,
        model,
        reason or "new_fact",
        neighbours,
        detail,
        related=hidden.id if hidden else None,
    )


def _judge_with_hint(
    candidate: MemoryCandidate, neighbours: list[Neighbour]
) -> tuple[str, int | None, str, str]:
    """A producer proposed superseding a memory: the judge decides; an `add` verdict keeps both."""
    decision = judge(text=candidate.text, key=candidate.key, type=candidate.type, neighbours=neighbours)
    if decision.decision == "add":
        old = next(n for n in neighbours if n.id == candidate.supersedes_id)
        if normalise(old.text) == normalise(candidate.text):
            return "reinforce", old.id, "same_value", decision.judge
        if decision.judge.startswith("local"):
            return "supersede", old.id, "proposed_supersede", decision.judge
    return decision.decision, decision.target_id, decision.reason, decision.judge
