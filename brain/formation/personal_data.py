"""The personal-data filter: a customer's name, e-mail address, phone number, order or card number or street
address must not become a memory (pure functions).

The gate calls `find_personal_data()` for every write surface and rejects a hit with reason `personal_data`
(its kind as the detail); the Client Brain producers first remove what can go without changing the meaning
(`strip_salutation()`: "Hi Bob, I have reset it." keeps "I have reset it."). Contact details the business
publishes itself stay learnable: `published` lists them (Tenant.settings["published_contacts"]: e-mail
addresses, phone numbers, a domain such as "acme.test" or "@acme.test" for every address of it, or a
street address), and a detail found there is not personal.

Two layers. Patterns first, cheap and certain: names where support text puts them (after a salutation or a
title, in "my name is", before a possessive order or account; announced in Chinese, Japanese, Korean,
Arabic, Hebrew, Hindi or Thai, which have no capitals to tell a name by), street addresses with a street word
of many languages (the Russian and Ukrainian abbreviations too) or a house number beside a place, phone
layouts, e-mail, card, IBAN and order numbers.
Then, for a text patterns let through, the model's word lists (pii_model.Lexicon: first names, surnames and
places of Faker's locales, the pipeline's English words; their rules are in personal_names.py) — a first name and surname side by side, a listed
name that is no English word, unknown capitalised pairs, lower-cased names after a cue, streets by their
layout; where a word is in no list, whether it reads as a name (name_scorer.py) — and, where the text could still hold one (a capitalised uncommon word past a sentence's start or a
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

from ..caches import memoize
from . import pii_model
from .addresses import INTRODUCED as _ADDRESS_INTRODUCED
from .addresses import PATTERNS as _ADDRESS_LAYOUTS
from .addresses import WITHOUT_DIGITS as _ADDRESS_LAYOUTS_WITHOUT_DIGITS
from .personal_names import _known_words, _lexicon_findings, _name_like, _tokens
from .personal_words import (
    _ENGLISH,
    _I,
    _LOW,
    _NOT_A_NAME,
    _SUPPORT_WORDS,
    _UP,
    PersonalDataKind,
    _names_a_product,
    _only_common_words,
)

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
    r"(?<![\w/.-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,5}\)[\s.-]?)?\d{1,6}(?:[\s.-]\d{2,8}){1,4}"
    r"(?:\s?(?i:x|ext\.?)\s?\d{1,6})?(?![\w/-])"  # an extension: "001-687-329-1410x43473"
    r"|(?<![\w/.+-])\+\d{9,14}(?!\w)|(?<![\w/.-])0\d{9,10}(?!\w)"
    r"|(?<![\d/.-])1[3-9]\d{9}(?!\d)"  # a mobile number of China, inside its text too: "手机15526018159"
)
_EXTENSION = re.compile(r"\s?(?:x|ext\.?)\s?\d{1,6}$", _I)
# Toll-free and non-geographic business lines are a business's, never a customer's.
_BUSINESS_LINE = re.compile(
    r"^(?:\+?1[\s.-]?)?\(?8(?:00|33|44|55|66|77|88)\)?[\s.-]|^\+?0?8(?:00|08)\b|^\+?800\b|^03[0-9]{2}\b"
)
_PHONE_CONTEXT = re.compile(
    r"\b(?:phone|call|tel|mobile|cell|number|text|whatsapp|sms|ring|reach)\b"
    r"|电话|電話|手机|手機|联系|聯繫|携帯|연락|전화|핸드폰",  # no word boundary in a script without spaces
    _I,
)
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
    r"|\b(?i:apt|apartment|flat|suite|unit)\.?\s*#?\s*\d+[A-Za-z]?\b"
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
    r"polku|utca|ulica|iela|tänav|stígur|vegur|braut|bakke|gade|laan|kade|damm|ufer|körút|köz|sokak|sokağı|"
    r"caddesi|cadde|cesta|trg"
)
_STREET_END = r"weg|vej|tie|väg|gata|vei|veg|str\.?|gate|krt\.?|tee|vegi|gränd|stræde"  # only inside a word
_STREET_BEFORE = (
    r"Rue|Avenue|Av\.|Avda\.|Avenida|Calle|C/|Carrer|Via|Viale|Piazza|Piazzale|Corso|Largo|Rua|Rúa|R\.?|Travessa|"
    r"Praça|Boulevard|Bd\.?|Chemin|Place|Allée|Impasse|Quai|Route|Plaza|Paseo|Camino|Ulica|ul\.|Na|Odos|Ctra\.|"
    r"Carretera|Laan|Rambla|Travesía|Jl\.|Jalan|Gg\.|Bulevardul|Strada|Calea|Drumul|Aleea|Avenija"
)
_HOUSE_NUMBER = r"[ \t]+\d{1,5}[a-zA-Z]?(?:/\d{1,3}[a-zA-Z]?)?\b(?![%/:.,]\d)"
_STREETS_ABROAD = re.compile(
    rf"\b[{_UP}][{_LOW}]*(?:[ -][{_UP}]?[{_LOW}]+){{0,2}}[ -]?(?i:{_STREET_WORD}){_HOUSE_NUMBER}"
    rf"|\b[{_UP}][{_LOW}]{{2,}}(?:{_STREET_END}){_HOUSE_NUMBER}"
    rf"|\b(?:{_STREET_BEFORE})[ \t]+(?:(?:de|del|de la|di|da|do|dos|das|du|des|la|le|van|von|[{_UP}][{_LOW}.]*)"
    rf"[ \t]+){{0,4}}(?:[{_UP}][{_LOW}.]*){_HOUSE_NUMBER}"
    rf"|(?<![/.:-])\b\d{{1,5}}[a-zA-Z]?,?[ \t]+(?i:rue|avenue|av\.|boulevard|bd|chemin|allée|impasse|quai|via|"
    # A particle may come first, and then any word: "76 Boulevard de Normandie", "7 rue des six frères".
    rf"calle|rua|rúa)[ \t]+(?:[{_UP}]|(?i:de|des|du|de la|la|le|les|del|della|di|da|do|dos|das)[ \t]+[{_UP}{_LOW}])"
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


# Scripts the word patterns and lists of Latin, Greek and Cyrillic names do not read: Armenian, Hebrew, Arabic,
# the Indic scripts, Thai, Georgian, kana, Han, Hangul; and the greetings and thanks written in them.
_NO_CAPITALS = (
    r"\u0531-\u0587\u05d0-\u05ea\u0600-\u06ff\u0900-\u0dff\u0e01-\u0e4e\u10d0-\u10ff\u3040-\u30ff\u4e00-\u9fff"
    r"\uac00-\ud7a3"
)
_GREETINGS = (
    r"你好|您好|谢谢|謝謝|大家|客服|こんにちは|ありがとう|안녕|감사|مرحب|شكر|السلام|سلام|ممنون|שלום|תודה|नमस्ते|धन्यवाद|"
    r"शुक्रिया|নমস্কার|ধন্যবাদ|வணக்கம்|நன்றி|สวัสดี|ขอบคุณ|გამარჯობა|მადლობა|Բարև|Շնորհակալ"
)
_TITLE = r"(?:[Mm]r|[Mm]rs|[Mm]s|Miss|Mx|Dr|Prof|Sir|Madam)\.?"
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
    # Announced in a script without capitals, where no word list can tell a name: "我叫王伟" (not "我叫了快递", I
    # called the courier), "姓名：李娜", "私の名前は佐藤花子です", "田中と申します", "제 이름은 김민준입니다",
    # "اسمي محمد" (not "اسمي على الطلب", my name on the order).
    re.compile(
        r"(?:我叫|我的名字(?:是|叫)|我姓|(?:姓名|名字)\s*[:：])(?![了过過车車])\s*([\u4e00-\u9fff]{1,4})"
    ),
    re.compile(r"(?:私|僕|俺|わたし|わたくし)の名前は\s*([^\s、。，,]{1,10}?)(?:です|と申します)"),
    re.compile(r"([\u4e00-\u9fff\u30a0-\u30ff]{1,6})と申します"),
    re.compile(r"(?:제|내|저의|나의)\s*이름은\s*([\uac00-\ud7a3]{2,5})"),
    re.compile(r"(?:^|[.!?؟]\s*)(?:اسمي|إسمي)\s+(?!على|في|غير|ليس|خطأ|مكتوب)([\u0620-\u064a]{2,})"),
    # Hebrew "שמי דוד" (not "שמי לא מופיע", my name does not appear), Hindi "मेरा नाम राहुल है" (not
    # "मेरा नाम गलत है", my name is wrong), Thai "ผมชื่อสมชาย".
    re.compile(
        r"(?:שמי|קוראים לי|השם שלי(?:\s+הוא)?)\s+(?!(?:לא|שגוי|נכתב|מופיע|על)\b)([\u05d0-\u05ea]{2,})"
    ),
    re.compile(r"मेरा\s+नाम\s+(?!गलत|सही|क्या)([\u0900-\u097f]{2,}(?:\s+[\u0900-\u097f]{2,})?)\s+(?:है|हैं)"),
    re.compile(r"(?:ผม|ฉัน|ดิฉัน|หนู)ชื่อ\s*([\u0e01-\u0e4e]{2,})"),
    # In Latin text, a word in a script without capitals after words that introduce a name: "Hi, this is
    # 김재호", "Dear איתמר מלכה", "Customer: بنان جرار" (not "Hi, 你好", a greeting), a recipient's label
    # ("Recipient: 王伟") or an act only a person does ("signed for by 王伟", "picked up by محمد"; not "shipped
    # by 顺丰", a courier, nor "made by 华为", a brand).
    re.compile(
        rf"\b(?i:this\s+is|i\s+am|i'm|my\s+name\s+is|name\s*:|dear|hi|hello|hey|thanks|thank\s+you|regards|"
        rf"sincerely|customer|client|caller|(?:mr|mrs|ms|miss|dr)\.?|(?:recipient|addressee|consignee|attn)\s*:|"
        rf"(?:signed(?:\s+for)?|picked\s+up|collected|received|ordered|placed|booked|requested|submitted|"
        rf"reported|raised|opened)\s+by)[ \t,:]+(?!{_GREETINGS})"
        rf"([{_NO_CAPITALS}]+(?:[ \t][{_NO_CAPITALS}]+){{0,3}})"
    ),
)


@memoize("personal-data-titled-names", maxsize=1, keyed_on="nothing: Faker's installed surname lists")
def _addressed_by_title() -> tuple[re.Pattern, ...]:
    """A surname of Faker's lists for China, Japan and Korea (the most common 120, 50 and 44) with the title a
    support reply gives it: "王先生", "李娜女士", "田中様", "佐藤 花子さん", "김재호님", "김재호 고객님" (not "这位先生", this
    gentleman, "お客様", the customer, "仕様", a specification, "택배기사님", the courier). Built on first use."""
    from faker.providers.person.ja_JP import Provider as Japan
    from faker.providers.person.ko_KR import Provider as Korea
    from faker.providers.person.zh_CN import Provider as China

    def most_common(names, count: int) -> str:
        names = sorted(names, key=names.get, reverse=True) if isinstance(names, dict) else list(names)
        return "|".join(sorted(names[:count], key=len, reverse=True))

    return (
        re.compile(rf"(?:{most_common(China.last_names, 120)})[\u4e00-\u9fff]{{0,2}}(?:先生|女士|小姐)"),
        re.compile(
            rf"(?:{most_common(Japan.last_names, 50)})(?:[ \u3000]?[\u4e00-\u9fff\u3040-\u30ff]{{1,3}})?"
            r"[ \u3000]?(?:様|さま|さん|殿)"
        ),
        re.compile(
            rf"(?<![가-힣])(?:{most_common(Korea.last_names, 44)})[가-힣]{{2}}(?:\s?(?:님|씨)|\s고객님)"
        ),
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
        digits = re.sub(r"\D", "", _EXTENSION.sub("", value))
        if len(digits) < 9 or len(digits) > 15 or _DATE_LIKE.match(value) or _BUSINESS_LINE.match(value):
            continue
        # "1,299.00", "10 000 units" and "12 14 16" are not phone layouts; an explicit "+", a bracketed area
        # code, a leading 0 with 10-11 digits or a phone word near it is.
        strong = value.startswith(("+", "(")) or re.match(r"0\d", value) or "-" in value or "." in value
        # A phone word before it, or just after: "15526018159 is my number".
        window = f"{text[max(0, match.start() - 40) : match.start()]} {text[match.end() : match.end() + 25]}"
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
    # Every street pattern but three needs a house number or postcode: a text without a digit skips them.
    layouts = (
        (_STREET, _STREETS_ABROAD, *_ADDRESS_LAYOUTS)
        if any(ch.isdigit() for ch in text)
        else _ADDRESS_LAYOUTS_WITHOUT_DIGITS
    )
    for pattern, reading in ((p, r) for p in layouts for r in readings):
        if reading is not text and pattern is _ADDRESS_INTRODUCED:
            continue  # its names are told by their capitals: "we ship to italy within 5 days" has none
        for match in pattern.finditer(reading):
            value = match.group("address") if "address" in pattern.groupindex else match.group()
            if not _is_published(value, published_values):
                return PersonalDataHit(PersonalDataKind.STREET_ADDRESS, value)
    for pattern in (*_NAMES, *_addressed_by_title()):
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


_DIGIT_RUN = re.compile(r"[+(]?\d[\d \t().-]{5,}\d")


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


def _not_a_name(value: str) -> bool:
    """What the model takes for a name and is not: common words, a label of the support desk's own vocabulary
    ("Order History", "Customer Support Phone"), an adverb ("Understandably, you ...")."""
    words = re.findall(rf"[{_UP}{_LOW}]+", value)
    return _only_common_words(value) or any(
        w.lower() in _SUPPORT_WORDS or (len(w) >= 9 and w.endswith("ly")) for w in words
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
