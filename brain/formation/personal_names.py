"""The personal-data filter's word-list rules (personal_data.py, second layer): names and streets read from
pii_model.Lexicon's lists (first names, surnames and places of Faker's locales; the pipeline's English words)
where the small pipeline is not asked or does not tag them. Worker only, like the model: personal_data asks
them when the lists are loaded (pii_model.lexicon())."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from . import pii_model
from .personal_words import (  # the filter's alphabet, vocabulary and checks
    _ENGLISH,
    _LOW,
    _SUPPORT_WORDS,
    _UP,
    PersonalDataKind,
    _names_a_product,
    _only_common_words,
)


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


# A pronoun is nobody's name here, whatever a list of surnames says ("He" is a surname too): "He said ...".
_PRONOUNS = frozenset("i me you he him she her it we us they them his hers its our their thee thou".split())


def _desk_word(word: str) -> bool:
    return _only_common_words(word) or word.lower() in _SUPPORT_WORDS or word.lower() in _PRONOUNS


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
# What only a person does (a company "has" or "said" things too): "arlis shouted at jabbar".
_EXPRESSES = r"(?:shout|yell|scream|whisper|smil|laugh|grinn?|wink)(?:s|ed|ing)?[ \t]+(?:at|to)"
_EXPRESSED = (
    r"shouted|yelled|screamed|whispered|cried|smiled|laughed|nodded|sighed|exclaimed|shrugged|grinned|frowned"
)
_EXPRESSED_AT = re.compile(rf"\b{_EXPRESSES}[ \t]+$", re.I)
_EXPRESSES_AFTER = re.compile(rf"^[ \t]+(?:{_EXPRESSED}|winked)\b")
# Words around a lone first name or surname that make it a person: "says Hunt", "Edward is", "by Vachel".
_PERSON_BEFORE = re.compile(
    rf"\b(?:said|says|asked|told|tell|by|meet|met|ask|call|called|thank|thanks|dear|hi|hello|{_EXPRESSES})[ \t]+$",
    re.I,
)
_PERSON_AFTER = re.compile(
    r"^[ \t]+(?:is|was|were|has|had|says|said|wants|wanted|went|began|thinks|thought|likes|liked|loves|loved|lives|lived|"
    rf"works|worked|asked|told|called|wrote|just|always|never|will|would|can|could|and\s+I|so|"
    rf"replied|answered|added|insisted|agreed|{_EXPRESSED})\b|^'s\b"
)
# A person's family: "Ormazd's kid", "Tomasz's sister" (a company's "founder" or "parent company" is no family).
_KIN_AFTER = re.compile(
    r"^['’]s[ \t]+(?:kids?|sons?|daughters?|wife|husband|partner|child(?:ren)?|mother|father|mom|mum|dad|"
    r"brothers?|sisters?|parents|girlfriend|boyfriend|fianc[ée]e?|grandm\w+|grandf\w+|"
    r"aunt|uncle|cousins?|nephew|niece)\b",
    re.I,
)
_SPEAKS = re.compile(r"[,\"'”!?][ \t]*\b(?:said|says|asked|replied|wrote)[ \t]+$", re.I)
# A lower-case name after a word that announces one: "my kid emma", "ask for mr. kowalczyk".
_NAME_CUE = re.compile(
    r"\b(?:(?P<announced>(?:first|last|full|sur|maiden)?\s*name(?:\s+is|\s*[:?])|call\s+me|named)|ask\s+for|contact|"
    r"(?:my|his|her|our|their)\s+(?:kid|son|daughter|wife|husband|partner|child|mother|father|brother|sister|"
    r"friend|colleague|boss|neighbou?r)|(?P<title>mr|mrs|ms|miss|dr)\.?)[ \t,:]+$",
    re.I,
)
# A street without a street word, by its layout: "Bissingzeile 78, Holste", "Ilichova 77\nLjubljana",
# "14 Tornallaie, 04100 Parma", and a name and house number where a place is announced ("at Klímova 799").
_PARTICLE = r"(?:de|del|da|do|dos|das|di|du|des|la|le|van|von|der)"
_STREET_LAYOUTS = (
    re.compile(
        rf"\b(?P<value>(?P<street>[{_UP}][{_LOW}]{{2,}}(?:[ -][{_UP}][{_LOW}]+|[ \t]{_PARTICLE}[ \t][{_UP}][{_LOW}]+)?)"
        rf"[ \t]+\d{{1,4}}[a-zA-Z]?)(?:[ \t]*,[ \t]*|[ \t]*\n[ \t]*)(?:\d{{3,5}}[ \t]+)?[{_UP}]"
    ),
    re.compile(
        rf"(?<![\d.,])\b(?P<value>\d{{1,5}}[a-zA-Z]?[ \t]+(?P<street>[{_UP}][{_LOW}]{{3,}}(?:[ \t][{_UP}][{_LOW}]+)?))"
        rf"[ \t]*,[ \t]*(?:\d{{4,5}}[ \t]+)?[{_UP}][{_LOW}]"
    ),
    re.compile(
        rf"\b(?i:at|on|in|to)[ \t]+(?P<value>(?:\d{{1,5}}[ \t]+)?(?P<street>[{_UP}][{_LOW}]+"
        rf"(?:[ -][{_UP}]?[{_LOW}]+|[ \t]{_PARTICLE}[ \t][{_UP}][{_LOW}]+)?)"
        rf"[ \t]+\d{{1,4}}[a-zA-Z]?)\b(?![%/:.,]\d|\s*(?i:am|pm|h|hours?|days?|weeks?|months?|years?|minutes?|%|x))"
    ),
    # A street word of its own after the name, as in Scandinavia and Hungary: "Opplands gate 8",
    # "Pernilles vei 115", "Agip u. 91" (not "Departure gate 12": the name is no English word).
    re.compile(
        rf"\b(?P<value>(?P<street>[{_UP}][{_LOW}]{{2,}})[ \t]+(?:gate|gata|gatan|gade|vei|veien|veg|vegen|vej|vejen|"
        r"väg|vägen|tie|katu|weg|utca|u\.|út|ulica|iela)[ \t]+\d{1,4}[a-zA-Z]?)\b(?![%/:.,]\d)"
    ),
)


def _a_name_pair(text: str, token: _Token, following: _Token, words, *, lower: bool, english: bool) -> bool:
    """Two words side by side (a middle initial or particles between) that make a first name and surname."""
    first, second = token.word, following.word
    if lower:
        # "sofia gonzalez"; "patricia hachée", a surname in no list that reads as one; "victoria bruun", a
        # first name that is a place too; in an English sentence, two words in no list that read as names.
        if not _could_name(second, words):
            return False
        if words.is_first(first) and not _english_or_desk(first, words):
            return (words.is_last(second) or words.name_like(second)) and (
                _could_name(first, words) or not words.is_place(second)
            )
        return (
            english
            and not token.initial
            and _could_name(first, words)
            and words.name_like(first)
            and words.name_like(second)
        )
    if _NAMED.search(text[max(0, token.start - 20) : token.start]) and not (
        words.is_english(first) and words.is_english(second) and not words.is_last(second)
    ):
        return True  # "under my partner's name Tosh Brandt"
    if words.is_first(first) and words.is_last(second):
        return True
    if (words.is_first(first) and _could_name(second, words)) or (
        words.is_last(second) and _could_name(first, words)
    ):
        return True
    if _names_a_product(text, text[token.start : following.end]):
        return False
    gap = text[token.end : following.start]
    unknown = _could_name(first, words), _could_name(second, words)
    # A middle initial between two words that are no English words: "Efisio D. Bergamaschi",
    # "Antoinetta K. van Teeffelen" (a surname that is also a place).
    if (
        _INITIAL_GAP.match(gap)
        and any(unknown)
        and not any(_english_or_desk(w, words) for w in (first, second))
    ):
        return True
    if not all(unknown):
        return False
    if english and not token.initial:
        return True  # "have you heard Yuito Hirai speak"
    # At a sentence's start, where any capitalised words stand: after a label that announces a person
    # ("Directed By: Carli Zophanías"), or both reading as names in an English sentence.
    return bool(_PERSON_LABEL.search(text[max(0, token.start - 30) : token.start])) or (
        english and words.name_like(first) and words.name_like(second)
    )


def _person_around(text: str, token: _Token) -> bool:
    return bool(
        _PERSON_BEFORE.search(text[max(0, token.start - 40) : token.start])
        or _PERSON_AFTER.match(text[token.end : token.end + 40])
    )


def _a_person_in_context(text: str, token: _Token, words: pii_model.Lexicon, *, lower: bool) -> bool:
    """A lone word that its context makes a person: before a family word ("Ormazd's kid", "tamsin's sister"), in
    a text written all in lower case a first name where a person acts ("sophia shouted at bryce") or a word in
    no list that reads as one where only a person does ("arlis shouted at jabbar"; a company "has" and "is"
    things too: not "dhl has lost my parcel"), a capitalised word where a name is announced, particles between
    ("Her maiden name is ter Hoeve")."""
    word = token.word
    if (
        (token.capitalised and not token.initial or lower)
        and _KIN_AFTER.match(text[token.end : token.end + 30])
        and (words.is_first(word) or words.is_last(word) or words.name_like(word))
        and not _desk_word(word)
    ):
        return True
    if lower and not _english_or_desk(word, words):
        if words.is_first(word) and _person_around(text, token):
            return True
        if (
            _could_name(word, words)
            and words.name_like(word)
            and (
                _EXPRESSES_AFTER.match(text[token.end : token.end + 40])
                or _EXPRESSED_AT.search(text[max(0, token.start - 40) : token.start])
            )
        ):
            return True
    # Addressed by name mid-sentence, after a pronoun or an interjection and before a comma: "leave me
    # Tadzio, four hungry children", "come on orlaith!" (a brand stands after a preposition: "from Zalando,").
    if (
        (token.capitalised or lower)
        and not token.initial
        and _VOCATIVE_BEFORE.search(text[max(0, token.start - 20) : token.start])
        and _VOCATIVE_AFTER.match(text[token.end : token.end + 3])
        and not words.is_place(word)
        and (
            not _english_or_desk(word, words)
            and (words.is_first(word) or words.is_last(word) or words.name_like(word))
            # A listed first name that is an English word too, capitalised after "me" or "you": "leave me Simon,".
            or token.capitalised
            and _PRONOUN_BEFORE.search(text[max(0, token.start - 10) : token.start])
            and words.is_first(word)
            and not _desk_word(word)
            and not _only_common_words(word)
        )
    ):
        return True
    # A place is a name here: "... is van Gameren".
    return (
        token.capitalised
        and not _english_or_desk(word, words)
        and bool(_ANNOUNCED.search(text[max(0, token.start - 40) : token.start]))
    )


# What a person does, of _PERSON_AFTER's verbs (a place "is", "has" and "was" things too).
_ACTS_AFTER = re.compile(
    r"^[ \t]+(?:says|said|wants|wanted|went|began|thinks|thought|likes|liked|loves|loved|works|worked|asked|"
    rf"told|called|wrote|replied|answered|added|insisted|agreed|{_EXPRESSED})\b"
)
_GENDERED = re.compile(r"\b(?:he|she|his|her|hers|him|himself|herself)\b", re.I)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


def _gendered_later(text: str, token: _Token) -> bool:
    """The rest of the token's sentence calls someone he or she (a place is "it")."""
    end = _SENTENCE_END.search(text, token.end)
    return bool(_GENDERED.search(text[token.end : end.start() if end else len(text)]))


def _english_or_desk(word: str, words: pii_model.Lexicon) -> bool:
    return words.is_english(word) or _desk_word(word)


_VOCATIVE_BEFORE = re.compile(
    r"(?i)\b(?:me|you|us|him|her|them|come[ \t]+on|c'mon|oh|hey|ok|okay|please|listen|look|well|yes|no)[ \t]+$"
)
_VOCATIVE_AFTER = re.compile(r"^[ \t]*[,!?]")
_PRONOUN_BEFORE = re.compile(r"\b(?:me|you|us|him|her|them)[ \t]+$")
_NAMED = re.compile(r"\b(?:name|named|called)[ \t]+$", re.I)
_ANNOUNCED = re.compile(
    rf"\b(?:(?:first|last|full|sur|maiden|family)\s*name\s+(?:is|was)|my\s+name\s+is|named)[ \t]+"
    rf"(?:(?:{'|'.join(sorted(_PARTICLES))})[ \t]+){{0,2}}$",
    re.I,
)
_INITIAL_GAP = re.compile(rf"[ \t]+[{_UP}]\.?[ \t]+(?:[{_LOW}]+[ \t]+){{0,2}}$")
_PERSON_LABEL = re.compile(
    r"\b(?i:user|customer|client|name|contact|from|to|by|author|agent|caller|member|recipient|sender|attn|"
    r"attention|c/o|guest|patient|passenger|buyer|seller|owner|holder|signed|addressee)[ \t]*:[ \t\n]*$"
)


def _lexicon_findings(text: str, words: pii_model.Lexicon) -> Iterable[pii_model.Finding]:
    """Names and streets read from word lists, where the small pipeline is not asked or does not tag them:
    a first name and surname ("User: Abner Reyna"), a first name alone that is no English word or place
    ("Barbara is ..."), two capitalised words past a sentence's start that are neither ("have you heard
    Yuito Hirai speak"), a lower-case name after a word that announces one, a street by its layout."""
    lower = not any(ch.isupper() for ch in text)
    english = bool(_ENGLISH.search(text))
    tokens = _tokens(text)
    # Text in another language (more of its words are common words of another language than English words
    # only): a common word of one is no name there ("Sie können ...", "Wat is de status ...").
    foreign = sum(words.is_common_abroad(t.word) and not words.is_english(t.word) for t in tokens)
    abroad = foreign > sum(words.is_english(t.word) and not words.is_common_abroad(t.word) for t in tokens)
    for i, token in enumerate(tokens):
        if not (token.capitalised or lower) or _desk_word(token.word):
            continue
        if abroad and words.is_common_abroad(token.word):
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
            if _a_name_pair(text, token, following, words, lower=lower, english=english):
                yield pii_model.Finding(PersonalDataKind.NAME, value)
        if token.capitalised and not _names_a_product(text, token.word):
            if (words.is_first(token.word) or words.is_last(token.word)) and _could_name(token.word, words):
                yield pii_model.Finding(PersonalDataKind.NAME, token.word)
            elif (
                (words.is_first(token.word) or words.is_last(token.word) or _could_name(token.word, words))
                # A place only where a person speaks ("says Lugo") or acts and the sentence then calls it he
                # or she ("Johnston began writing as a teenager, publishing her first story").
                and (
                    not words.is_place(token.word)
                    or _SPEAKS.search(text[max(0, token.start - 20) : token.start])
                    or _ACTS_AFTER.match(text[token.end : token.end + 40])
                    and _gendered_later(text, token)
                )
                and _person_around(text, token)
                # An English word before another capitalised one is a label's: "called Early Exit Fee".
                and not (words.is_english(token.word) and following is not None and following.capitalised)
            ):
                yield pii_model.Finding(PersonalDataKind.NAME, token.word)
        if _a_person_in_context(text, token, words, lower=lower):
            yield pii_model.Finding(PersonalDataKind.NAME, token.word)
        if lower or not token.capitalised:
            cue = _NAME_CUE.search(
                text[max(0, token.start - 40) : token.start]
            )  # the cue ends where the word starts
            if cue and (
                (cue.group("title") and not words.is_english(token.word))
                # "call me daniel": a first name that is an English word too, where a name is announced.
                or (cue.group("announced") and words.is_first(token.word) and not _desk_word(token.word))
                or (
                    (words.is_first(token.word) or words.is_last(token.word) or words.name_like(token.word))
                    and _could_name(token.word, words)
                )
            ):
                yield pii_model.Finding(PersonalDataKind.NAME, token.word)
    # A lower-cased text is read with capitals too: "it's in slovenčeva 63\ndole pri litiji".
    for pattern, reading in (
        (p, r) for p in _STREET_LAYOUTS for r in ((text, text.title()) if lower else (text,))
    ):
        for match in pattern.finditer(reading):
            street = [w for w in _WORD.findall(match.group("street")) if w.lower() not in _PARTICLES]
            # No English word or desk label, one at least in no list: "Republica de Chile 8305" (a place).
            if any(_could_name(w, words) for w in street) and not any(
                _english_or_desk(w, words) for w in street
            ):
                yield pii_model.Finding(PersonalDataKind.STREET_ADDRESS, match.group("value"))
