"""Whether the grant vocabulary can read a claim's language (issue 26, section 2: one ticket never makes a policy).

grants.py names grants in English and the ten languages of grants_languages.toml. A claim in any other language
("Gecikmeli siparişlerde kargo ücreti iade edilir.", "배송이 늦으면 전액 환불해 드립니다.") names nothing that
vocabulary knows, so without this module it would go into use from a single ticket however much it gives. What
the vocabulary cannot read is held as a grant is: a learned business fact or process rule in such a language
waits for corroboration (evidence.hold_reason), and the dashboard says why. The defence does not depend on
reading the claim: it depends on knowing that it was not read.

The language is py3langid's (BSD-3-Clause; a naive Bayes model over byte n-grams of 140 languages, shipped in
the wheel, nothing downloaded, about 0.06 ms a sentence once loaded). A claim is read when the languages
the vocabulary reads take at least `READ_SHARE` of the model's probability: a short or mixed English sentence
("We do ship to Dublin!") spreads its probability over many languages, and a Russian one is sometimes taken for
Bulgarian, but their own language keeps a share; a Turkish or Korean claim leaves them almost none. Place names
mislead the model ("Our İstanbul and Ankara stores open at 9." reads as Norwegian): a claim with two of English's
own small words (`_ENGLISH`, none of them a common word of another language written in Latin letters) is read. A
claim with fewer than `MIN_LETTERS` letters (a bare number, "Phone: {{...}}") is too short to tell and counts as
read.
"""

from __future__ import annotations

import re

from ..caches import memoize
from .grants_languages import LANGUAGES

# The languages grants.py reads: English and those of grants_languages.toml.
READ = frozenset({"en", *LANGUAGES})
# The share of the model's probability the read languages must take; chosen on the dev sets (brain_bench grants).
READ_SHARE = 0.1
MIN_LETTERS = 15
# English words no other language written in Latin letters uses often ("is" is Hungarian, "are" Romanian, "can"
# Turkish, "on" Finnish, "for" and "at" Danish, "by" Swedish): two of them make a claim English.
_ENGLISH = frozenset(
    "the and our we your you they their this that with from have has will would should been which who what when "
    "please any not".split()
)
_WORD = re.compile(r"[a-z]+")

# The names the dashboard gives the languages a claim is most often written in; others show their code.
NAMES = {
    "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan", "cs": "Czech", "da": "Danish",
    "el": "Greek", "et": "Estonian", "fa": "Persian", "fi": "Finnish", "he": "Hebrew", "hi": "Hindi",
    "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian", "ka": "Georgian", "ko": "Korean", "lt": "Lithuanian",
    "lv": "Latvian", "ms": "Malay", "no": "Norwegian", "nn": "Norwegian", "ro": "Romanian", "sk": "Slovak",
    "sl": "Slovenian", "sr": "Serbian", "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "th": "Thai",
    "tl": "Tagalog", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese",
}  # fmt: skip


@memoize("formation-language-model", maxsize=1, keyed_on="py3langid's shipped model, read once")
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@memoize("formation-unread-language", maxsize=8192, keyed_on="a claim's text (pure)")
def unread_language(text: str) -> str | None:
    """The language of `text` (an ISO 639 code) when grants.py cannot read it, else None."""
    text = text or ""
    if (
        sum(ch.isalpha() for ch in text) < MIN_LETTERS
        or len(_ENGLISH.intersection(_WORD.findall(text.lower()))) >= 2
    ):
        return None
    ranked = _identifier().rank(text)
    if sum(share for code, share in ranked if code in READ) >= READ_SHARE:
        return None
    return ranked[0][0]


def language_name(code: str) -> str:
    return NAMES.get(code, code)
