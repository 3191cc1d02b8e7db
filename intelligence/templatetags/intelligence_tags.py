from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """`{{ labels|get_item:memory.strength }}`: a dict lookup by a variable key ("" when absent)."""
    return (mapping or {}).get(key, key)


@register.filter
def percent_of(value, total):
    try:
        return min(100, round(100 * int(value) / int(total))) if int(total) else 0
    except (TypeError, ValueError):
        return 0


# One vocabulary for the operator UI, the API docs and the admin: the spec's labels with their stored values.
_OMISSION_WORDS = {
    "status_not_active": "not active (only active memories are injected)",
    "note_never_injected": "a note: stored for reference, never injected",
    "scope_provider_mismatch": "scoped to another provider than this conversation's",
    "scope_campaign_mismatch": "scoped to other campaigns than this conversation's",
    "not_relevant": "not relevant to this conversation",
    "tier_budget_exceeded": "its strength's budget was already full",
    "longer_than_tier_budget": "longer than its strength's whole budget",
    "memory_budget_exhausted": "the memories' share of the 8,000 characters was used up",
}


@register.filter
def reason_words(reason: str) -> str:
    """Why a memory was left out, or why formation decided as it did, in words (`not_relevant` → "not relevant
    to this conversation", `new_fact` → "nothing like it was known")."""
    if reason in _OMISSION_WORDS:
        return _OMISSION_WORDS[reason]
    if str(reason).startswith("status_"):  # a trace's count of memories in another status
        return f"{reason[7:]} (only active memories are injected)"
    from brain.api import code_label

    return code_label("reason", reason)  # a formation reason (a memory's history)


@register.filter
def actor_words(actor: str, users: dict | None = None) -> str:
    """`user:3` → the user's name (from `users`, id → name), `process:learning` → "learning (automatic)",
    `api-key:abc` → "API key abc"."""
    kind, _, rest = str(actor or "").partition(":")
    if kind == "user":
        return (users or {}).get(rest, f"user {rest}")
    if kind == "api-key":
        return f"API key {rest}"
    if kind == "process":
        return f"{rest.replace('_', ' ')} (automatic)"
    return actor or "—"
