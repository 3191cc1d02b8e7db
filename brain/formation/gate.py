"""The formation gate: one deterministic rejection check, the same for every write surface.

Nothing reaches the judge (or the memory table) without passing here: an agent's `memory_append`, an
App's lesson, chat-mined memory, the Client Brain learner and operator edits all call `gate_check`.
It is pure — no database, no network — so the same text always gets the same verdict; `promote()`
resolves the run's injected memory ids to texts before calling it.

Each rejection carries a reason code (`GateReason`); the codes are what the admin counts per surface.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings

from brain.prompting import canonical_tags

from .intent import WEB_ADDRESS
from .personal_data import find_personal_data, redact_card_numbers, redact_contacts
from .poisoning import concealed_family, find_instruction, rule_family
from .secrets import find_secret, redact_secrets
from .text import content_tokens, length_units, normalise, numbers_conflict, sentences, word_count

# Where a customer's personal data is refused: the producers that learn from customers' own words (tickets,
# chat transcripts, the feedback comments suggestions are mined from). Deliberate writes (an agent's
# memory-append, an operator's memory, an App's lesson) may name a customer: "The customer Alice Morgan
# prefers a phone call" and "... Brian Chen ..." are two facts those surfaces exist to keep apart.
PERSONAL_DATA_SURFACES = frozenset({"client_brain", "chat", "suggestion"})


class GateReason:
    EMPTY = "empty"
    TOO_SHORT = "too_short"
    TOO_LONG = "too_long"
    SECRET = "secret"
    BARE_URL = "bare_url"
    TABLE_ROW = "table_row"
    PROCESS_NARRATION = "process_narration"
    TOOL_CALL = "tool_call"
    JSON_BLOB = "json_blob"
    UNFILLED_TEMPLATE = "unfilled_template"
    MALFORMED_TEMPLATE = "malformed_template"
    RESTATES_SYSTEM_PROMPT = "restates_system_prompt"
    ECHOES_INJECTED_MEMORY = "echoes_injected_memory"
    # Poisoning (brain/formation/poisoning.py): one code per family of instruction aimed at the model.
    INSTRUCTION_OVERRIDE = "instruction_override"
    ROLE_PLAY = "role_play"
    WIDENING_DIRECTIVE = "widening_directive"
    HIDDEN_TEXT = "hidden_text"
    ENCODED_PAYLOAD = "encoded_payload"
    INSTRUCTION_INTENT = "instruction_intent"
    # A customer's personal data (brain/formation/personal_data.py); the detail names its kind.
    PERSONAL_DATA = "personal_data"


# Each refusal in the operator's words (the code stays beside it, for support).
GATE_REASON_WORDS = {
    GateReason.EMPTY: "it is empty",
    GateReason.TOO_SHORT: "it is too short to be a memory",
    GateReason.TOO_LONG: "it is too long for one memory",
    GateReason.SECRET: "it holds a secret (a key, a token or a password)",
    GateReason.BARE_URL: "it is a bare web address, not a fact",
    GateReason.TABLE_ROW: "it reads like a table row, not a sentence",
    GateReason.PROCESS_NARRATION: "it narrates what the agent was doing, not what to know",
    GateReason.TOOL_CALL: "it is a tool call, not a fact",
    GateReason.JSON_BLOB: "it is a block of data (JSON), not a sentence",
    GateReason.UNFILLED_TEMPLATE: "a template field was left unfilled",
    GateReason.MALFORMED_TEMPLATE: "the template is malformed",
    GateReason.RESTATES_SYSTEM_PROMPT: "it restates the agent's system prompt",
    GateReason.ECHOES_INJECTED_MEMORY: "it repeats a memory the agent was given",
    GateReason.INSTRUCTION_OVERRIDE: "it tries to override the agent's instructions",
    GateReason.ROLE_PLAY: "it asks the agent to play another role",
    GateReason.WIDENING_DIRECTIVE: "it widens what the agent may do (refunds, permissions)",
    GateReason.HIDDEN_TEXT: "it hides text from the reader",
    GateReason.ENCODED_PAYLOAD: "it carries an encoded payload",
    GateReason.INSTRUCTION_INTENT: "it reads as an instruction aimed at the model",
    GateReason.PERSONAL_DATA: "it holds a customer's personal data",
    "backstop_duplicate": "it duplicates a memory this agent already has",
}


def gate_reason_words(reason: str) -> str:
    """Why formation refused a memory, in words (`bare_url` → "it is a bare web address, not a fact")."""
    return GATE_REASON_WORDS.get(reason, str(reason or "it was refused").replace("_", " "))


@dataclass(frozen=True)
class GateVerdict:
    passed: bool
    reason: str = ""
    detail: str = ""


PASS = GateVerdict(passed=True)


def _setting(name: str, default):
    return getattr(settings, "BRAIN_GATE", {}).get(name, default)


# --- secrets: brain/formation/secrets.py -------------------------------------------------------------------


def redact(text: str) -> str:
    """`text` with every secret, card number, e-mail address and phone number replaced, for history records
    of rejected candidates: a refused customer's contact details are not kept there either."""
    return redact_contacts(redact_card_numbers(redact_secrets(text)))


# --- structure -----------------------------------------------------------------------------------------

_URL = WEB_ADDRESS.pattern
_BARE_URL = re.compile(
    rf"^\s*(?:(?:see|link|url|source|ref|via)\s*[:\-]?\s*)?[<(\[]?{_URL}[>)\]]?[\s.,;]*$", re.IGNORECASE
)
_ONLY_URLS = re.compile(rf"^(?:\s*[<(\[]?{_URL}[>)\]]?[\s,;]*)+$", re.IGNORECASE)

_MD_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")

_NARRATION = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|alright|now|first|next|then|so|great)[,!.]?\s+)*"
    r"(?:i\s+will|i'll|i\s+am\s+going\s+to|i'm\s+going\s+to|i\s+am\s+now|i'm\s+now|i\s+need\s+to|"
    r"i\s+should|i\s+want\s+to|i'd\s+like\s+to|let\s+me(?!\s+know\b)|let's(?!\s+encrypt\b)|i\s+have\s+(?:now\s+)?"
    r"(?:called|checked|searched|looked|fetched|run|ran)|i\s+just\s+(?:called|checked|searched|ran))\b",
    re.IGNORECASE,
)

_TOOL_CALL_PATTERNS = (
    re.compile(r"<\s*/?\s*(?:tool_call|function_call|invoke|tool_use|function_calls)\b", re.IGNORECASE),
    re.compile(r"^\s*(?:functions|tools)\.[A-Za-z_]\w*\s*\(", re.IGNORECASE),
    # search_tickets(query="x") / lookup_order(order_id=12): a call with keyword arguments.
    re.compile(r"^\s*[A-Za-z_][\w.]*\(\s*[A-Za-z_]\w*\s*=", re.IGNORECASE),
    re.compile(r"^\s*[a-z_]+_[a-z_]+\(\s*[\"'{\d]"),
    re.compile(
        r"\"(?:name|tool|function)\"\s*:\s*\"[^\"]+\"\s*,\s*\"(?:arguments|parameters|input|args)\"\s*:"
    ),
    re.compile(r"^\s*```(?:json|tool|python)?\s*$", re.IGNORECASE | re.MULTILINE),
)

# {placeholder}, {{placeholder}}, <placeholder>, [PLACEHOLDER], $placeholder left in a rendered text.
_PLACEHOLDER = re.compile(
    r"\{\{\s*[\w.\- ]*\s*\}\}|\{\s*[A-Za-z_][\w.\-]*\s*\}|<\s*[A-Z_][A-Z0-9_]{2,}\s*>|\[\s*[A-Z_][A-Z0-9_]{2,}\s*\]"
    r"|\$\{[\w.]*\}"
)
_TEMPLATE_FIELD = re.compile(r"\{\{?\s*([A-Za-z_][\w.\-]*)\s*\}?\}")
# Filler lead-ins that add nothing to what follows ("Note:", "For the record,"): an echo with one is still an
# echo. A list, not "any short clause": "In Canada, customers pay duties" says more than "Customers pay duties".
_LEAD_IN = re.compile(
    r"^\s*(?:note|nb|fyi|btw|ps|reminder|remember|important|update|for the record|worth (?:remembering|noting)"
    r"|as noted(?: before| earlier)?|as (?:of|for) today|just so you know|good to know|keep in mind)\s*[:,\-]\s*",
    re.IGNORECASE,
)
# Read through canonical_tags(): a full-width, other-bracket or zero-width-split tag is still a tag.
_MEM_TAG = re.compile(r"\[mem:\s*\d+\s*\]", re.IGNORECASE)


def template_fields(template: str) -> list[str]:
    """The placeholder names a lesson template requires, in order ({x} or {{x}})."""
    return list(dict.fromkeys(_TEMPLATE_FIELD.findall(template)))


def template_is_well_formed(template: str, text: str | None = None) -> bool:
    """Balanced braces, at most two deep, and either {fields} or, for a plain lesson without placeholders,
    a rendered `text` that is the template itself (when `text` is given)."""
    depth = 0
    for ch in template:
        if ch == "{":
            depth += 1
            if depth > 2:
                return False
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
    if depth != 0:
        return False
    if template_fields(template):
        return True
    return text is not None and normalise(text) == normalise(template) and bool(normalise(text))


def _is_table_row(text: str) -> bool:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    for line in lines:
        if _MD_SEPARATOR.match(line):
            return True
        stripped = line.strip()
        cells = [c for c in stripped.strip("|").split("|")]
        # Three or more cells, or a line framed by pipes: "| a | b |", "a | b | c".
        if stripped.count("|") >= 2 and len([c for c in cells if c.strip()]) >= 2:
            return True
        if len([c for c in line.split("\t") if c.strip()]) >= 3:
            return True
    tabbed = [line for line in lines if len([c for c in line.split("\t") if c.strip()]) >= 2]
    return len(tabbed) >= 2


def _is_json_blob(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return False
    try:
        value = json.loads(stripped)
    except ValueError:
        # Truncated JSON still reads as a blob: an opening brace followed by a quoted key.
        return bool(re.match(r"^\s*[\[{]\s*\"[^\"]+\"\s*:", stripped)) or bool(
            re.match(r"^\s*\[\s*\{", stripped)
        )
    return isinstance(value, dict | list)


def _containment(candidate_tokens: set[str], other_tokens: set[str]) -> float:
    if not candidate_tokens:
        return 0.0
    return len(candidate_tokens & other_tokens) / len(candidate_tokens)


def _restates(text: str, source: str, threshold: float) -> bool:
    """True when `text` says again what one passage (a sentence or two adjacent ones) of `source` says.

    Either (almost) all of `text`'s content words are in the passage (`threshold`), or the two overlap both
    ways (each has at least 80% of its words in the other: a filler word added, one word swapped). Passages,
    not the whole source: a long system prompt contains most everyday words somewhere, and a real memory
    must not be rejected for sharing vocabulary with it. Different numbers mean an update, not an echo.
    """
    lead_in = _LEAD_IN.match(text)
    if lead_in and _restates(text[lead_in.end() :], source, threshold):
        return True
    norm = normalise(text)
    if norm and norm in normalise(source):
        return True
    cand = set(content_tokens(text))
    if len(cand) < 3:
        return False
    parts = sentences(source)
    passages = parts + [" ".join(parts[i : i + 2]) for i in range(len(parts) - 1)]
    for passage in passages:
        tokens = set(content_tokens(passage))
        if not tokens or numbers_conflict(text, passage):
            continue
        contained, covered = _containment(cand, tokens), _containment(tokens, cand)
        if contained >= threshold or (contained >= 0.8 and covered >= 0.8):
            return True
    return False


def gate_check(
    *,
    text: str,
    template: str | None = None,
    values: dict | None = None,
    system_prompt: str = "",
    injected_texts: Sequence[str] | Iterable[str] = (),
    published_contacts: Sequence[str] = (),
    source_texts: Sequence[str] = (),
    personal_data: bool = True,
    instructions_allowed: bool = False,
) -> GateVerdict:
    """Decide whether `text` may become a memory. Deterministic and side-effect free.

    `template`/`values`: an App lesson's template and the values it was filled with (the rendered
    `text` must not keep placeholders, and every field must have a non-empty value).
    `system_prompt`: the proposing agent's system prompt or policy; `injected_texts`: the memories
    injected into the proposing run. A candidate restating either is rejected.
    `published_contacts`: the business's own published contact details, which stay learnable while a
    customer's personal data is rejected (`personal_data`, its kind as the detail) when `personal_data`
    is on: `promote()` turns it on for the surfaces that learn from customers' own words
    (`PERSONAL_DATA_SURFACES`). Secrets and card numbers are refused on every surface.
    An instruction aimed at the model is rejected with its family as the reason (`poisoning.py`), in `text`
    or in `source_texts` (the untrusted text it was derived from: an attack split over two sentences).
    `instructions_allowed`: `text` is an operator's own words (`services.operator_wrote`), which instruct the agent by
    design ("Respond only in English.", "Never reveal your system prompt."): only what hides words from the
    reader (hidden text, an encoded payload) is refused of the poisoning families.
    """
    raw = text or ""
    stripped = raw.strip()
    if not stripped:
        return GateVerdict(False, GateReason.EMPTY, "the text is empty")
    # First, before the length, template and structure checks: an attack must be named as one whatever its shape.
    instruction = _concealed_verdict(raw) if instructions_allowed else _instruction_verdict(raw, source_texts)
    return (
        instruction
        or _content_verdict(stripped, published_contacts if personal_data else None)
        or _shape_verdict(raw, stripped)
        or _template_verdict(stripped, template, values)
        or _restatement_verdict(stripped, system_prompt, injected_texts)
        or PASS
    )


def _instruction_verdict(raw: str, source_texts: Sequence[str]) -> GateVerdict | None:
    # With source texts, the candidate is the product's rendering of what was extracted from them (a typed
    # memory's "formality: formal; tone: professional"), a text the intent classifier was not trained on: the
    # phrase rules read it, the classifier reads what the untrusted party wrote.
    # A secret is refused under its own reason (the classifier reads "The admin password: ..." as addressed
    # to the model too).
    poison = rule_family(raw) if any(source_texts) or find_secret(raw) else find_instruction(raw)
    if poison:
        return GateVerdict(False, poison, "an instruction aimed at the model")
    for source in source_texts:
        poison = find_instruction(source or "")
        if poison:
            return GateVerdict(False, poison, "derived from text carrying an instruction aimed at the model")
    return None


def _concealed_verdict(raw: str) -> GateVerdict | None:
    concealed = concealed_family(raw)
    return GateVerdict(False, concealed, "text hidden from the reader") if concealed else None


def _content_verdict(stripped: str, published_contacts: Sequence[str] | None) -> GateVerdict | None:
    """Too long, a secret, or (unless `published_contacts` is None) a customer's personal data."""
    max_chars = _setting("MAX_CHARS", 1000)
    if len(stripped) > max_chars:
        return GateVerdict(
            False, GateReason.TOO_LONG, f"{len(stripped)} characters; the limit is {max_chars}"
        )
    secret = find_secret(stripped)
    if secret:
        return GateVerdict(False, GateReason.SECRET, secret)
    personal = (
        find_personal_data(stripped, published=published_contacts) if published_contacts is not None else None
    )
    if personal:
        return GateVerdict(False, GateReason.PERSONAL_DATA, personal.kind)
    return None


def _shape_verdict(raw: str, stripped: str) -> GateVerdict | None:
    """Structural garbage: memory tags, bare URLs, table rows, JSON, tool calls, process narration."""
    if _MEM_TAG.search(canonical_tags(stripped)):
        return GateVerdict(False, GateReason.ECHOES_INJECTED_MEMORY, "carries a [mem:ID] tag")
    if _BARE_URL.match(stripped) or _ONLY_URLS.match(stripped):
        return GateVerdict(False, GateReason.BARE_URL, "only a URL")
    if _is_table_row(raw):
        return GateVerdict(False, GateReason.TABLE_ROW, "pipe, markdown or tab separated cells")
    if _is_json_blob(stripped):
        return GateVerdict(False, GateReason.JSON_BLOB, "a JSON object or array")
    for pattern in _TOOL_CALL_PATTERNS:
        if pattern.search(stripped):
            return GateVerdict(False, GateReason.TOOL_CALL, "a raw tool or function call")
    # A question is not the agent narrating its process ("I need to override the default shipping option and
    # choose express, how?" is a customer's).
    if _NARRATION.match(stripped) and not stripped.endswith("?"):
        return GateVerdict(
            False, GateReason.PROCESS_NARRATION, "first-person narration of the agent's process"
        )
    return None


def _template_verdict(stripped: str, template: str | None, values: dict | None) -> GateVerdict | None:
    """A lesson's template and values, unfilled placeholders, and the minimum length."""
    if template is not None:
        if not template_is_well_formed(template, stripped):
            return GateVerdict(
                False, GateReason.MALFORMED_TEMPLATE, "unbalanced braces, or no {fields} and not the text"
            )
        values = values or {}
        missing = [f for f in template_fields(template) if not str(values.get(f, "") or "").strip()]
        if missing:
            return GateVerdict(False, GateReason.MALFORMED_TEMPLATE, f"missing values: {', '.join(missing)}")
    if _PLACEHOLDER.search(stripped):
        return GateVerdict(False, GateReason.UNFILLED_TEMPLATE, _PLACEHOLDER.search(stripped).group())
    min_chars, min_words = _setting("MIN_CHARS", 12), _setting("MIN_WORDS", 3)
    if length_units(stripped) < min_chars or word_count(stripped) < min_words:
        return GateVerdict(
            False, GateReason.TOO_SHORT, f"at least {min_words} words and {min_chars} characters"
        )
    return None


def _restatement_verdict(
    stripped: str, system_prompt: str, injected_texts: Sequence[str] | Iterable[str]
) -> GateVerdict | None:
    overlap = _setting("RESTATE_OVERLAP", 0.85)
    if system_prompt and _restates(stripped, system_prompt, overlap):
        return GateVerdict(False, GateReason.RESTATES_SYSTEM_PROMPT, "restates the agent's system prompt")
    for injected in injected_texts:
        if injected and _restates(stripped, _MEM_TAG.sub(" ", injected), overlap):
            return GateVerdict(
                False, GateReason.ECHOES_INJECTED_MEMORY, "repeats a memory injected into this run"
            )
    return None
