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
