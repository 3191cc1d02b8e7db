"""The personal-data filter: a customer's name, e-mail address, phone number, order or card number or street
address must not become a memory (pure functions).

The gate calls `find_personal_data()` for every write surface and rejects a hit with reason `personal_data`
(its kind as the detail); the Client Brain producers first remove what can go without changing the meaning
(`strip_salutation()`: "Hi Bob, I have reset it." keeps "I have reset it."). Contact details the business
publishes itself stay learnable: `published` lists them (Tenant.settings["published_contacts"]: e-mail
addresses, phone numbers, a domain such as "acme.test" or "@acme.test" for every address of it, or a
street address), and a detail found there is not personal.

Two layers. Patterns first, cheap and certain: names where support text puts them (after a salutation or a
title, in "my name is", before a possessive order or account), street addresses with a street word of
many languages or a house number beside a place, phone layouts, e-mail, card, IBAN and order numbers.
Then, for a text patterns let through, the model's word lists (pii_model.Lexicon: first names, surnames and
places of Faker's locales, the pipeline's English words) — a first name and surname side by side, a listed
name that is no English word, unknown capitalised pairs, lower-cased names after a cue, streets by their
layout — and, where the text could still hold one (a capitalised uncommon word past a sentence's start or a
listed name at it, in English text; seven digits in a phone layout), the model (pii_model.py: Presidio's
analyzer over spaCy) — names in any position and culture, phone numbers valid in a customer's country,
numbered places. The model runs only
in a Celery worker, where the surfaces of gate.PERSONAL_DATA_SURFACES learn, and is loaded there on first
use; in a request, or without its packages, the patterns stand alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from . import pii_model


class PersonalDataKind:
    EMAIL = "email"
    PHONE = "phone"
    NAME = "name"
    ORDER_NUMBER = "order_number"
    CARD_NUMBER = "card_number"
    STREET_ADDRESS = "street_address"


_I = re.IGNORECASE
# Upper and lower case letters of the Latin, Greek and Cyrillic alphabets: "Ægir", "Señores", "Νάξου".
_UP = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĖĘĚĞĢĪĮİĶĹĻĽŁŃŅŇŌŐŒŔŘŚŞŠŢŤŪŮŰŲŸŹŻŽΆΈ-ΏΑ-ΩА-ЯЁ"
_LOW = "a-zß-öø-ÿāăąćčďđēėęěğģīįıķĺļľłńņňōőœŕřśşšţťūůűųźżžά-ώа-яё"

_CARD_CANDIDATE = re.compile(r"(?<![\d\-])(?:\d[ \-]?){12,18}\d(?![\d\-])")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def _is_card(candidate: str) -> bool:
    digits = re.sub(r"\D", "", candidate)
    return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn_ok(digits)


def find_card_number(text: str) -> str | None:
    """The first payment card number (13-19 digits passing the Luhn check) in `text`, or None."""
    return next((m.group() for m in _CARD_CANDIDATE.finditer(text) if _is_card(m.group())), None)


def redact_card_numbers(text: str) -> str:
    return _CARD_CANDIDATE.sub(lambda m: "[redacted]" if _is_card(m.group()) else m.group(), text)


_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)(?![\w-])")
# Nine or more digits in a phone layout: "+44 20 7946 0958", "(555) 123-4567", "07700 900123", "555.123.4567".
_PHONE = re.compile(
    r"(?<![\w/.-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,5}\)[\s.-]?)?\d{1,6}(?:[\s.-]\d{2,8}){1,4}(?![\w/-])"
    r"|(?<![\w/.+-])\+\d{9,14}(?!\w)|(?<![\w/.-])0\d{9,10}(?!\w)"
)
# Toll-free and non-geographic business lines are a business's, never a customer's.
_BUSINESS_LINE = re.compile(
    r"^(?:\+?1[\s.-]?)?\(?8(?:00|33|44|55|66|77|88)\)?[\s.-]|^\+?0?8(?:00|08)\b|^\+?800\b|^03[0-9]{2}\b"
)
_PHONE_CONTEXT = re.compile(r"\b(?:phone|call|tel|mobile|cell|number|text|whatsapp|sms|ring|reach)\b", _I)
_DATE_LIKE = re.compile(r"^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$")
_ORDER = re.compile(
    r"\b(?:order|invoice|tracking|booking|reservation|confirmation|purchase|transaction|return|rma|shipment|parcel)"
    r"(?:\s+(?:no\.?|number|num|id|code|reference|ref|#))?\s*(?:[:#]|is|was)?\s*#?\s*"
    r"(?=[A-Z0-9-]*\d{3})[A-Z0-9][A-Z0-9-]{4,}\b",
    _I,
)
_HASH_ID = re.compile(r"(?<![\w&])#\s?[A-Z]{0,4}-?\d{4,}\b", _I)
_CARD_TAIL = re.compile(
    r"\b(?:card|visa|mastercard|amex|debit|credit)\b[^.!?\n]{0,25}\b(?:ending|ends|ending\s+in|last\s+(?:four|4)(?:\s+digits)?)"
    r"\s*(?:in|with|:|of|is)?\s*\d{4}\b|\blast\s+(?:four|4)\s+digits\s*(?:of|:|are|is)?\s*\d{4}\b|\biban\s*:?\s*[A-Z]{2}\d{2}[A-Z0-9 ]{10,}",
    _I,
)
_STREET_SUFFIX = (
    r"(?i:street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|terrace|close|crescent|"
    r"square|sq|parkway|pkwy|highway|hwy|gardens|grove|mews|row|walk|hill|parade|circuit|circle|esplanade|"
    r"promenade|alley|trail|heights|str)"
)
_STREET = re.compile(
    rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:(?:Mc|Mac|O')?[{_UP}][{_LOW}]+\s+){{1,3}}{_STREET_SUFFIX}\b\.?"
    r"|\b(?i:apt|apartment|flat|suite|unit)\s*#?\s*\d+[A-Za-z]?\b"
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"  # UK postcode
    r"|\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|"
    r"PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY)\s+\d{5}(?:-\d{4})?\b"
)
_NAME = rf"[{_UP}][{_LOW}]+(?:[-'][{_UP}]?[{_LOW}]+)?"
# Street addresses of other countries: a street word in the name ("Jakobstrasse 89", "Kaarikatu 32",
# "Søndre Havnevej 42"), a street word before it ("Rua Vasco Gama 100", "82 rue Beauvau", "ul. Zamkowa 33"),
# a post-office box.
_STREET_WORD = (  # a word of its own too: "Linzer Strasse 32"
    r"straße|strasse|gasse|allee|platz|straat|gracht|plein|dreef|singel|gatan|vägen|veien|vegen|katu|kuja|"
    r"polku|utca|ulica|iela|tänav|stígur|vegur|braut|bakke|gade|laan|kade|damm|ufer|körút|sokak|cadde"
)
_STREET_END = r"weg|vej|tie|väg|gata|vei|veg|str\.?|gate|krt\.?|tee|vegi|gränd|stræde"  # only inside a word
_STREET_BEFORE = (
    r"Rue|Avenue|Av\.|Avda\.|Avenida|Calle|C/|Carrer|Via|Viale|Piazza|Piazzale|Corso|Largo|Rua|R\.?|Travessa|"
    r"Praça|Boulevard|Bd\.?|Chemin|Place|Allée|Impasse|Quai|Route|Plaza|Paseo|Camino|Ulica|ul\.|Na|Odos|Ctra\.|"
    r"Carretera|Laan|Rambla|Travesía"
)
_HOUSE_NUMBER = r"[ \t]+\d{1,5}[a-zA-Z]?\b(?![%/:.,]\d)"
_STREETS_ABROAD = re.compile(
    rf"\b[{_UP}][{_LOW}]*(?:[ -][{_UP}]?[{_LOW}]*)?(?i:{_STREET_WORD}){_HOUSE_NUMBER}"
    rf"|\b[{_UP}][{_LOW}]{{2,}}(?:{_STREET_END}){_HOUSE_NUMBER}"
    rf"|\b(?:{_STREET_BEFORE})[ \t]+(?:(?:de|del|de la|di|da|do|dos|das|du|des|la|le|van|von|[{_UP}][{_LOW}.]*)"
    rf"[ \t]+){{0,4}}(?:[{_UP}][{_LOW}.]*){_HOUSE_NUMBER}"
    rf"|(?<![/.:-])\b\d{{1,5}}[a-zA-Z]?,?[ \t]+(?i:rue|avenue|av\.|boulevard|bd|chemin|allée|impasse|quai|via|"
    rf"calle|rua)[ \t]+[{_UP}]"
    # A house number after a word that says an address follows: "meet you at Woudtzicht 1".
    rf"|\b(?i:address(?:es)?|lives?|lived|living|moved|located|meet(?:\s+(?:me|you))?|sent|send|deliver(?:ed)?|"
    rf"side\s+of|corner\s+of|enter\s+on)\b(?:[ \t:,]+[a-z']+){{0,4}}[ \t:,]+(?:[{_UP}][{_LOW}]+[ \t]+){{1,4}}\d{{1,5}}[a-zA-Z]?\b"
    r"(?![%/:.,]\d|\s*(?i:am|pm|h|hours?|days?|weeks?|months?|years?|minutes?|%))"
    r"|\b(?:P\.?[ \t]?O\.?[ \t]?Box|Post(?:box|boks|fach)|Apartado|Caixa Postal)[ \t]*\d+"
)
# An IBAN without the word: country, check digits and a mod-97 valid account ("GB87 NWBK 6033 5284 6393 56").
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b")


def _iban_ok(value: str) -> bool:
    compact = value.replace(" ", "")
    digits = "".join(str(int(ch, 36)) for ch in compact[4:] + compact[:4])
    return 15 <= len(compact) <= 34 and int(digits) % 97 == 1


_TITLE = r"(?:[Mm]r|[Mm]rs|[Mm]s|Miss|Mx|Dr|Prof|Sir|Madam)\.?"
# A word after a salutation that is not a name: "Hi there", "Dear customer", "Thanks again".
_NOT_A_NAME = frozenset(
    """there all everyone team folks guys customer customers sir madam friend friends again so very for you
    a the and again both in advance valued support again""".split()
)
_NAMES = (
    re.compile(rf"\b{_TITLE}\s+{_NAME}(?:\s+{_NAME})?"),
    re.compile(
        rf"(?:^|[.!?]\s+|\n)(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening)|greetings|thanks|thank\s+you|"
        rf"thanks\s+again|cheers|sorry)\s*,?\s+(?!{'|'.join(sorted(_NOT_A_NAME))}\b)({_NAME})\b",
        _I,
    ),
    re.compile(rf"\b(?:my|his|her|the\s+customer's|their)\s+name\s+is\s+{_NAME}", _I),
    re.compile(rf"\b(?i:customer|client|caller|user|member|subscriber|buyer)\s+({_NAME}\s+{_NAME})\b"),
    re.compile(
        rf"\b(?:spoke|talked|spoken|chatted)\s+(?:to|with)\s+{_NAME}\b(?!\s+(?:team|support|department))"
    ),
    re.compile(
        rf"\b{_NAME}\s+{_NAME}'s\s+(?:order|account|parcel|package|refund|booking|subscription|card|address)\b"
    ),
    re.compile(
        rf"(?:^|[.!?]\s+),?\s*({_NAME})\s*,\s+(?:your|you|we|i|thanks|thank|please|sorry|can|could|would|will)\b"
    ),
    # A name a customer gives or asks about: "my kid Emma", "call me Sam", "last name? Reyna".
    re.compile(
        rf"\b(?i:(?:kid|son|daughter|wife|husband|partner|child|mother|father|brother|sister)(?:'s\s+name)?"
        rf"|call\s+me|(?:first|last|maiden|full|sur)\s*name(?:\s+is|\s*[?:])?)\s+({_NAME})"
    ),
)
_CAPITALISED_COMMON = frozenset(
    """Hi Hello Hey Dear Thanks Thank Cheers Sorry Our We You Your The This That Please Customers Customer
    Orders Order Refunds Refund Returns Shipping Delivery Support Team Monday Tuesday Wednesday Thursday Friday
    Saturday Sunday January February March April May June July August September October November December
    Acme Note Also Yes No Okay Ok Great Sure Just Any All Every Each Good Morning Afternoon Evening Firstly
    Secondly Thirdly Lastly Finally First Next Then Now Here There Once Additionally Alternatively Otherwise
    However Meanwhile Unfortunately Rest Remember Again Absolutely Certainly Of Course Well""".split()
)


@dataclass(frozen=True)
class PersonalDataHit:
    kind: str
    value: str


def _published_sets(published: Iterable[str]) -> tuple[set[str], set[str], set[str]]:
    """(addresses, domains, digit strings) of what the business publishes itself."""
    addresses, domains, digits, texts = set(), set(), set(), set()
    for entry in published or ():
        entry = str(entry).strip().lower()
        if not entry:
            continue
        if "@" in entry and not entry.startswith("@"):
            addresses.add(entry)
        elif re.fullmatch(r"@?[a-z0-9-]+(?:\.[a-z0-9-]+)+", entry):
            domains.add(entry.lstrip("@"))
        if len(only := re.sub(r"\D", "", entry)) >= 7:
            digits.add(only)
        texts.add(entry)
    return addresses, domains, digits | texts


def _email_is_published(address: str, domain: str, addresses: set[str], domains: set[str]) -> bool:
    domain = domain.lower()
    return address.lower() in addresses or any(domain == d or domain.endswith("." + d) for d in domains)


def _phone_candidates(text: str) -> Iterable[str]:
    for match in _PHONE.finditer(text):
        value = match.group().strip()
        digits = re.sub(r"\D", "", value)
        if len(digits) < 9 or len(digits) > 15 or _DATE_LIKE.match(value) or _BUSINESS_LINE.match(value):
            continue
        # "1,299.00", "10 000 units" and "12 14 16" are not phone layouts; an explicit "+", a bracketed area
        # code, a leading 0 with 10-11 digits or a phone word near it is.
        strong = value.startswith(("+", "(")) or re.match(r"0\d", value) or "-" in value or "." in value
        window = text[max(0, match.start() - 40) : match.start()]
        if strong or _PHONE_CONTEXT.search(window):
            yield value


def find_personal_data(
    text: str, *, published: Iterable[str] = (), model: bool | None = None
) -> PersonalDataHit | None:
    """The first customer personal detail in `text`, or None. Deterministic; no database, no network.

    `published`: the business's own published contact details, which are not personal data. `model`: ask the
    named-entity model (pii_model.py) when patterns find nothing; None: where the process uses it (a worker).
    """
    if not text:
        return None
    addresses, domains, published_values = _published_sets(published)
    use_model = pii_model.in_use() if model is None else model
    for match in _EMAIL.finditer(text):
        if not _email_is_published(match.group(), match.group(1), addresses, domains):
            return PersonalDataHit(PersonalDataKind.EMAIL, match.group())
    card = find_card_number(text) or _CARD_TAIL.search(text)
    if card:
        return PersonalDataHit(PersonalDataKind.CARD_NUMBER, card if isinstance(card, str) else card.group())
    iban = next((m.group() for m in _IBAN.finditer(text) if _iban_ok(m.group())), None)
    if iban:
        return PersonalDataHit(PersonalDataKind.CARD_NUMBER, iban)
    for value in _phone_candidates(text):
        if re.sub(r"\D", "", value) not in published_values:
            return PersonalDataHit(PersonalDataKind.PHONE, value)
    for pattern in (_ORDER, _HASH_ID):
        for match in pattern.finditer(text):
            if match.group().lower() not in published_values:
                return PersonalDataHit(PersonalDataKind.ORDER_NUMBER, match.group())
    # A lower-cased text is read with capitals too ("1467 hastings street" as "1467 Hastings Street").
    readings = (text, text.title()) if not any(ch.isupper() for ch in text) else (text,)
    for pattern, reading in ((p, r) for p in (_STREET, _STREETS_ABROAD) for r in readings):
        for match in pattern.finditer(reading):
            if not _is_published(match.group(), published_values):
                return PersonalDataHit(PersonalDataKind.STREET_ADDRESS, match.group())
    for pattern in _NAMES:
        match = pattern.search(text)
        # A pattern with a group names where the name stands; only there may a desk label be mistaken for one.
        not_a_name = _not_a_name if match and match.lastindex else _only_common_words
        if match and match.lastindex and use_model and _an_english_word(match.group(match.lastindex)):
            continue  # "Usually, you ...", "Together, we ..."; not "Hi Will, ..."
        if match and not not_a_name(match.group(match.lastindex or 0)):
            return PersonalDataHit(PersonalDataKind.NAME, match.group().strip())
    return _model_hit(text, published_values) if use_model else None


def _an_english_word(value: str) -> bool:
    """With the model's word lists: `value` is one English word and no first name ("Usually", "Together")."""
    words = pii_model.lexicon()
    return words is not None and " " not in value and words.is_english(value) and not words.is_first(value)


def _is_published(value: str, published_values: set[str]) -> bool:
    value = value.lower().strip(" .,")
    digits = re.sub(r"\D", "", value)
    return any(value in entry for entry in published_values) or (
        len(digits) >= 7 and digits in published_values
    )


# What the model is asked for: names and numbered places where a capitalised word that is not a common one
# stands past a sentence's start (a colon starts one: "Issue: Calls dropping ..."); phone numbers where seven
# digits stand.
_CAPITALISED = re.compile(
    rf"(?<![.!?:\n\"'(] )(?<![.!?:\n\"'(])(?<!^)\b[{_UP}][{_LOW}]+(?:[-'][{_UP}]?[{_LOW}]+)?"
)


def _worth_a_model(text: str, words: pii_model.Lexicon) -> tuple[bool, bool]:
    """(names, phones): whether `text` could hold a name or numbered place, a phone number. A capitalised word
    at a sentence's start counts when it is a first name or surname and no English word ("Cardoso began")."""
    text = text.strip()
    # The pipeline reads English: on another language its "names" are any capitalised words.
    names = bool(_ENGLISH.search(text)) and (
        any(not _not_a_name(m.group()) for m in _CAPITALISED.finditer(text))
        or any(
            (words.is_first(t.word) or words.is_last(t.word)) and _name_like(t.word, words)
            for t in _tokens(text)
            if t.capitalised
        )
    )
    phones = any(
        len(re.sub(r"\D", "", match.group())) >= pii_model.PHONE_MIN_DIGITS
        for match in _DIGIT_RUN.finditer(text)
    )
    return names, phones


_ENGLISH = re.compile(
    r"\b(?i:the|is|are|to|and|of|for|we|you|our|your|it|with|be|can|my|at|by|from|this|that|please|has|have|"
    r"he|she|they|his|her|their|me|would|could|should|what|how|who)\b|\bI\b"
)
# What follows a product or brand named after a person: "The Baker collection", "Sarah's Kitchen".
_NAMED_PRODUCT = re.compile(
    r"[ \t]+(?i:account|plan|tier|membership|subscription|option|feature)s?\b|"
    rf"(?:'s)?[ \t]+(?i:collection|range|series|line|edition|model|brand|bundle|set|kit|blend|roast|recipe|"
    rf"cookbook|book|album|store|shop|café|cafe|restaurant|hotel|gallery|award|prize|method)\b|'s[ \t]+[{_UP}]"
)
_DIGIT_RUN = re.compile(r"[+(]?\d[\d \t().-]{5,}\d")


def _names_a_product(text: str, name: str) -> bool:
    at = text.find(name)
    return at >= 0 and bool(
        _NAMED_PRODUCT.match(text, at + len(name)) or re.search(rf"[{_UP}][{_LOW}]+'s[ \t]+$", text[:at])
    )


def _model_hit(text: str, published_values: set[str]) -> PersonalDataHit | None:
    words = pii_model.lexicon()
    if words is None:
        return None
    for finding in _lexicon_findings(text, words):
        if not _is_published(finding.value, published_values):
            return PersonalDataHit(finding.kind, finding.value)
    names, phones = _worth_a_model(text, words)
    if not (names or phones):
        return None
    for finding in pii_model.model_findings(text, names=names, phones=phones):
        if _is_published(finding.value, published_values):
            continue
        if finding.kind == PersonalDataKind.NAME and (
            _not_a_name(finding.value)
            or _names_a_product(text, finding.value)
            or _known_words(finding.value, words)
        ):
            continue
        if finding.kind == PersonalDataKind.PHONE and (
            _BUSINESS_LINE.match(finding.value) or _DATE_LIKE.match(finding.value)
        ):
            continue
        return PersonalDataHit(finding.kind, finding.value)
    return None


@dataclass(frozen=True)
class _Token:
    word: str
    start: int
    end: int
    capitalised: bool
    initial: bool  # a sentence's first word (after . ! ? : or a line break)


_WORD = re.compile(rf"(?:Mc|Mac|O')?[{_UP}{_LOW}][{_LOW}]+(?:[-'’][{_UP}{_LOW}][{_LOW}]+)*")


def _tokens(text: str) -> list[_Token]:
    out = []
    for match in _WORD.finditer(text):
        before = text[: match.start()].rstrip(" \t\"'(")
        word = match.group()
        out.append(
            _Token(
                word,
                match.start(),
                match.end(),
                word[0].isupper() and word[-1].islower(),
                not before or before[-1] in ".!?:\n",
            )
        )
    return out


def _desk_word(word: str) -> bool:
    return _only_common_words(word) or word.lower() in _SUPPORT_WORDS


def _could_name(word: str, words: pii_model.Lexicon) -> bool:
    """A word that is no English word, place or desk label: "Júlia", "Hirai", not "Valencia" or "Footer"."""
    return not (words.is_english(word) or words.is_place(word) or _desk_word(word))


def _name_like(word: str, words: pii_model.Lexicon) -> bool:
    """No English word or desk label, and no place unless it is a first name or surname too ("Lopez")."""
    return not (
        words.is_english(word)
        or _desk_word(word)
        or (words.is_place(word) and not (words.is_first(word) or words.is_last(word)))
    )


def _known_words(value: str, words: pii_model.Lexicon) -> bool:
    """A finding of the model made only of English words, places and desk labels ("Valencia", "Footer",
    "Twitter"), or written as a product is ("macOS")."""
    parts = _WORD.findall(value)
    return value[:1].islower() or bool(parts) and all(not _name_like(w, words) for w in parts)


# Between a first name and a surname: a blank, or a middle initial ("Halina K. Zielinska").
_NAME_GAP = re.compile(
    rf"[ \t]+(?:[{_UP}{_LOW}]\.?[ \t]+)?(?:(?:van|von|de|der|den|da|di|du|del|della|dos|le|la|ten|ter|bin|al)[ \t]+){{0,2}}$"
)
_PARTICLES = frozenset("van von de der den da di du del della dos le la ten ter bin al".split())
# Words around a lone first name or surname that make it a person: "says Hunt", "Edward is", "by Vachel".
_PERSON_BEFORE = re.compile(
    r"\b(?:said|says|asked|told|tell|by|meet|met|ask|call|called|thank|thanks|dear|hi|hello)[ \t]+$", re.I
)
_PERSON_AFTER = re.compile(
    r"^[ \t]+(?:is|was|has|had|says|said|wants|wanted|went|began|thinks|thought|likes|liked|loves|loved|lives|lived|"
    r"works|worked|asked|told|called|wrote|just|always|never|will|would|can|could|and\s+I|so)\b|^'s\b"
)
# A lower-case name after a word that announces one: "my kid emma", "ask for mr. kowalczyk".
_NAME_CUE = re.compile(
    r"\b(?:(?:first|last|full|sur|maiden)?\s*name(?:\s+is|\s*[:?])|call\s+me|ask\s+for|contact|"
    r"(?:my|his|her|our|their)\s+(?:kid|son|daughter|wife|husband|partner|child|mother|father|brother|sister|"
    r"friend|colleague|boss|neighbou?r)|(?P<title>mr|mrs|ms|miss|dr)\.?)[ \t,:]+$",
    re.I,
)
# A street without a street word, by its layout: "Bissingzeile 78, Holste", "Ilichova 77\nLjubljana",
# "14 Tornallaie, 04100 Parma", and a name and house number where a place is announced ("at Klímova 799").
_STREET_LAYOUTS = (
    re.compile(
        rf"\b(?P<value>(?P<street>[{_UP}][{_LOW}]{{2,}}(?:[ -][{_UP}][{_LOW}]+)?)[ \t]+\d{{1,4}}[a-zA-Z]?)"
        rf"(?:[ \t]*,[ \t]*|[ \t]*\n[ \t]*)(?:\d{{3,5}}[ \t]+)?[{_UP}]"
    ),
    re.compile(
        rf"(?<![\d.,])\b(?P<value>\d{{1,5}}[a-zA-Z]?[ \t]+(?P<street>[{_UP}][{_LOW}]{{3,}}(?:[ \t][{_UP}][{_LOW}]+)?))"
        rf"[ \t]*,[ \t]*(?:\d{{4,5}}[ \t]+)?[{_UP}][{_LOW}]"
    ),
    re.compile(
        rf"\b(?:at|on|in|to)[ \t]+(?P<value>(?:\d{{1,5}}[ \t]+)?(?P<street>[{_UP}][{_LOW}]+(?:[ -][{_UP}]?[{_LOW}]+)?)"
        rf"[ \t]+\d{{1,4}}[a-zA-Z]?)\b(?![%/:.,]\d|\s*(?i:am|pm|h|hours?|days?|weeks?|months?|years?|minutes?|%|x))"
    ),
)


def _lexicon_findings(text: str, words: pii_model.Lexicon) -> Iterable[pii_model.Finding]:
    """Names and streets read from word lists, where the small pipeline is not asked or does not tag them:
    a first name and surname ("User: Abner Reyna"), a first name alone that is no English word or place
    ("Barbara is ..."), two capitalised words past a sentence's start that are neither ("have you heard
    Yuito Hirai speak"), a lower-case name after a word that announces one, a street by its layout."""
    lower = not any(ch.isupper() for ch in text)
    english = bool(_ENGLISH.search(text))
    tokens = _tokens(text)
    for i, token in enumerate(tokens):
        if not (token.capitalised or lower) or _desk_word(token.word):
            continue
        # The surname past a middle initial and particles: "Antoinetta K. van Teeffelen".
        following = next((t for t in tokens[i + 1 : i + 4] if t.word not in _PARTICLES), None)
        if (
            following is not None
            and (following.capitalised or lower)
            and not _desk_word(following.word)
            and _NAME_GAP.match(text[token.end : following.start])
        ):
            value = text[token.start : following.end]
            first, second = token.word, following.word
            if lower:
                if (
                    words.is_first(first)
                    and words.is_last(second)
                    and _could_name(first, words)
                    and _could_name(second, words)
                ):
                    yield pii_model.Finding(PersonalDataKind.NAME, value)
            elif words.is_first(first) and words.is_last(second):
                yield pii_model.Finding(PersonalDataKind.NAME, value)
            elif (words.is_first(first) and _could_name(second, words)) or (
                words.is_last(second) and _could_name(first, words)
            ):
                yield pii_model.Finding(PersonalDataKind.NAME, value)
            elif english and not token.initial and _could_name(first, words) and _could_name(second, words):
                if not _names_a_product(text, value):
                    yield pii_model.Finding(PersonalDataKind.NAME, value)
        if token.capitalised and not _names_a_product(text, token.word):
            if (words.is_first(token.word) or words.is_last(token.word)) and _could_name(token.word, words):
                yield pii_model.Finding(PersonalDataKind.NAME, token.word)
            elif (
                (words.is_first(token.word) or words.is_last(token.word) or _could_name(token.word, words))
                and not words.is_place(token.word)
                and (
                    _PERSON_BEFORE.search(text[max(0, token.start - 40) : token.start])
                    or _PERSON_AFTER.match(text[token.end : token.end + 40])
                )
                # An English word before another capitalised one is a label's: "called Early Exit Fee".
                and not (words.is_english(token.word) and following is not None and following.capitalised)
            ):
                yield pii_model.Finding(PersonalDataKind.NAME, token.word)
        if lower or not token.capitalised:
            cue = _NAME_CUE.search(
                text[max(0, token.start - 40) : token.start]
            )  # the cue ends where the word starts
            if cue and (
                (cue.group("title") and not words.is_english(token.word))
                or (
                    (words.is_first(token.word) or words.is_last(token.word))
                    and _could_name(token.word, words)
                )
            ):
                yield pii_model.Finding(PersonalDataKind.NAME, token.word)
    for pattern in _STREET_LAYOUTS:
        for match in pattern.finditer(text):
            if all(_could_name(w, words) for w in _WORD.findall(match.group("street"))):
                yield pii_model.Finding(PersonalDataKind.STREET_ADDRESS, match.group("value"))


def _only_common_words(value: str) -> bool:
    """True for what only looks like a name: capitalised common words ("Thanks Again")."""
    words = re.findall(rf"[{_UP}{_LOW}]+", value)
    return bool(words) and all(
        w.capitalize() in _CAPITALISED_COMMON or w.lower() in _NOT_A_NAME for w in words
    )


def _not_a_name(value: str) -> bool:
    """What the model takes for a name and is not: common words, a label of the support desk's own vocabulary
    ("Order History", "Customer Support Phone"), an adverb ("Understandably, you ...")."""
    words = re.findall(rf"[{_UP}{_LOW}]+", value)
    return _only_common_words(value) or any(
        w.lower() in _SUPPORT_WORDS or (len(w) >= 9 and w.endswith("ly")) for w in words
    )


_SUPPORT_WORDS = frozenset(
    """account accounts address app assistance billing bills button cancel cancellation card cart center centre
    change chat checkout contact customer delivery department desk details download edit email exchange fees
    form help history information invoice invoices item items live manager menu method methods modify newsletter
    number option options order orders page password pay payment payments phone policy portal preferences debit
    credit wallet wallets situations visa mastercard amex maestro paypal klarna facebook twitter instagram
    whatsapp tiktok youtube linkedin pinterest snapchat google apple amazon
    profile purchase purchases refund refunds request return returns review save section service services
    settings shipping status submit subscription support team terms tracking update website""".split()
)


def redact_contacts(text: str) -> str:
    """`text` with e-mail addresses and phone numbers replaced by "[redacted]" (published ones too: this is for
    records of refused candidates, where nothing needs them)."""
    text = _EMAIL.sub("[redacted]", text)
    for value in sorted(set(_phone_candidates(text)), key=len, reverse=True):
        text = text.replace(value, "[redacted]")
    return text


def may_hold_contact(text: str) -> bool:
    """Cheap test before looking up the tenant's published contacts: an '@' or a run of digits."""
    return "@" in text or bool(re.search(r"\d{3}", text))


_SALUTATION = re.compile(
    rf"^\s*(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening)|greetings)\b(?:\s+(?:{_TITLE}\s+)?{_NAME}"
    rf"(?:\s+{_NAME})?|\s+there|\s+all|\s+team)?\s*[,!:.\-–—]+\s*",
    _I,
)


def strip_salutation(text: str) -> str:
    """`text` without a leading greeting and the name it addresses: "Hi Bob, I have reset it." → "I have reset
    it." The rest keeps its words; its first letter is capitalised."""
    match = _SALUTATION.match(text or "")
    if not match or match.end() >= len(text):
        return text
    rest = text[match.end() :]
    return rest[0].upper() + rest[1:]


def published_contacts(tenant_id: int) -> list[str]:
    """The tenant's own published contact details (Tenant.settings["published_contacts"]); one query."""
    from django.apps import apps

    tenant_settings = (
        apps.get_model("tenancy", "Tenant")
        .objects.filter(pk=tenant_id)
        .values_list("settings", flat=True)
        .first()
    )
    contacts = tenant_settings.get("published_contacts") if isinstance(tenant_settings, dict) else None
    return [str(c) for c in contacts if isinstance(c, str)] if isinstance(contacts, list) else []
