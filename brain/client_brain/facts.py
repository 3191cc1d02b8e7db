"""Business facts: which sentences of a reply state something about the business (issue 27).

A business fact is what a support lead would write down about the business itself — a policy, an offer, where
it delivers, its hours, prices, products, how to reach it — as a sentence that stands on its own. A reply is
mostly something else, and none of that is kept as a fact:

- steps and requests for this customer: a sentence that opens with an instruction ("Look for the help
  section.", "To start the process, contact ...", "If these steps don't solve it, please ...") or asks
  ("please", "kindly", "feel free"); a step that resolves the ticket belongs to the issue, not here;
- the agent speaking for themself ("I recommend ...", "I'm sorry ..."), or to the customer ("you", "your");
- what was done on this ticket ("We have dispatched ...", "The refund has been processed");
- a sentence that leans on another one ("They are available at ...", "This should include ...", "Each option
  varies ...") or describes a screen ("The delivery date will be displayed on this page.").

Lead-in words that carry nothing ("Yes,", "Rest assured,", "In general,") are taken off what is kept, so
"Yes, we offer delivery to Hungary." and "We offer delivery to Hungary." are one fact. The rules read English,
as the local producer's other rules do: a reply in another language teaches no business fact locally (a
configured model provider extracts facts itself).
"""

from __future__ import annotations

import re

# A word that makes a sentence about a standing arrangement of the business (one is needed).
_POLICY_WORD = re.compile(
    r"\b(offer|offers|ship|ships|shipping|deliver|delivers|delivery|warranty|guarantee|policy|return|returns|"
    r"refund|refunds|exchange|exchanges|free|open|hours|days|weeks|months|store|stores|plan|plans|price|"
    r"prices|available|support|stock|carry|carries|cover|covers|includes|include|billing|cancellations|"
    r"contract|contracts|transfers|discount|discounts)\b",
    re.I,
)
_SECOND_PERSON = re.compile(r"\b(you|your|yours|you're|you've|you'll)\b", re.I)
# "We have dispatched...", "we refunded...", "I've reset...", and the same in the passive ("The refund has been
# processed", "a replacement was dispatched"): what was done on THIS ticket, not a standing fact.
_DONE_ON_THIS_TICKET = re.compile(
    r"\b(?:we|i)(?:'ve|\s+have|\s+had|'d)\b|\b(?:we|i)\s+(?:just\s+|now\s+|already\s+)?(?:\w+ed|sent|made|put)\b"
    r"|\b(?:(?:has|have|had)\s+(?:now\s+|just\s+|already\s+)?been|was|were)\s+(?:\w+ed|sent|made|put)\b",
    re.I,
)
# Words that open a sentence without adding to it; taken off before the sentence is read and kept. "Yes" and "no"
# only as an answer, before a comma or a stop: "No receipt is needed ..." keeps its negation.
_LEAD_IN = re.compile(
    r"^(?:(?:yes|no)\b[,:!.]|(?:absolutely|certainly|of course|sure|great news|good news|rest assured|in general|"
    r"generally speaking|please note|note that|however|additionally|also|moreover|furthermore|in addition|currently|"
    r"at the moment|overall|indeed|fortunately|happily)\b[,:!]?)\s*(?:that\s+)?",
    re.I,
)
# The agent asks, advises or speaks for themself.
_REQUEST_OR_SPEAKER = re.compile(
    r"\b(?:please|kindly|feel free|don't hesitate|do not hesitate|make sure|be sure|i|i'm|i'd|i'll|me|my|"
    r"recommend(?:ed)?|suggest(?:ed)?|advis(?:e|able)|let us know)\b",
    re.I,
)
# A sentence that opens with an instruction: a verb of doing, after a list marker, a label ("TODO:", "Action:",
# "Step 2:") and sequencing words, or a
# purpose clause ("To cancel, ...", "In order to ...") or a condition ("If none of these steps ...") that leads to
# one. A condition whose main clause is the business's ("If an item arrives damaged, we replace it") is kept.
_STEP_VERB = (
    r"log|sign|visit|navigate|go|head|click|tap|select|choose|open|enter|fill|follow|contact|reach|call|dial|"
    r"look|locate|find|access|review|update|submit|confirm|press|type|complete|spot|identify|connect|search|"
    r"scroll|opt|provide|proceed|save|include|check|ensure|try|keep|stay|start|begin|familiari[sz]e|explore|"
    r"browse|get|take|wait|send|email|e-mail|ask|request|read|refer|see|attach|download|install|share|give|"
    r"tell|use|add|remove|verify|double-check|note|remember|consider|allow|expect|return|bring|print|pack|compare|"
    r"replace|change|explain|create|creating|following|edit|modify|cancel|describe|mention|specify|apply|pay"
)
_STEP = re.compile(
    rf"^(?:[-*•]\s*|\d+[.)]\s*)?(?:(?:to-?do|action(?:\s+items?)?|task|reminder|step\s*\d*|nb)\s*[:\-–]\s*)?"
    rf"(?:(?:first(?:ly)?|second(?:ly)?|then|next|now|finally|simply|just|afterwards|"
    rf"once\s+there|from\s+there|alternatively|lastly|carefully|quickly)[,:]?\s+)*(?:{_STEP_VERB})\b(?!\s+(?:is|are|was|were)\b)",
    re.I,
)
_CLAUSE_LEAD = re.compile(
    r"^(?:to|in order to|for|if|once|when|after|before|in that case|in case|should|while)\b", re.I
)
_BUSINESS_SUBJECT = re.compile(r"\b(?:we|we're|our|ours|us)\b", re.I)
# A sentence that leans on one before it for what it is about.
_LEANS_ON = re.compile(
    r"^(?:they|they're|them|it|it's|its|this|these|those|that|he|she|each|both|either|such|there\s+you|"
    r"here)\b",
    re.I,
)
# A description of a screen or a page rather than of the business.
_SCREEN = re.compile(
    r"\b(?:displayed|listed\s+(?:under|as|in)|shown|this\s+page|the\s+page|section|button|menu|tab|drop-?down|"
    r"link|icon|field|form)\b",
    re.I,
)


def business_fact(sentence: str) -> str | None:
    """`sentence` as a statement about the business (its lead-in words off), or None when it is not one."""
    text = sentence.strip()
    while (lead := _LEAD_IN.match(text)) and lead.end():
        text = text[lead.end() :]
    if not text or not _POLICY_WORD.search(text):
        return None
    if _SECOND_PERSON.search(text) or _DONE_ON_THIS_TICKET.search(text) or _REQUEST_OR_SPEAKER.search(text):
        return None
    if _STEP.match(text) or _LEANS_ON.match(text) or _SCREEN.search(text):
        return None
    if _CLAUSE_LEAD.match(text) and not _business_main_clause(text):
        return None
    return text[0].upper() + text[1:]


def _business_main_clause(text: str) -> bool:
    """A sentence led by a condition or purpose whose main clause (after its first comma) is the business's."""
    _lead, comma, rest = text.partition(",")
    return bool(comma) and bool(re.match(r"\s*(?:we|our)\b", rest, re.I))
