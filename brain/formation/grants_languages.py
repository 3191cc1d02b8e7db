"""The grant vocabulary in ten languages besides English (grants.py reads it with its own), kept as data in
`grants_languages.toml` beside this module: each part of a language is a list of regular-expression pieces,
joined into one alternation.

A support desk learns from tickets in its customers' languages, and a configured model provider states the
facts it extracts in the ticket's language: "Rückerstattungen sind unbegrenzt." must wait for corroboration
as "Refunds are unlimited." does. Each language has the same parts as the English vocabulary:

- `given`: subjects whose words already say that something is given (free, waived, compensation, a
  percentage off, a fee cancelled, money put on a balance);
- `waived`: a fee, a payment or a check that is not applied ("wird nicht berechnet", "ne paient jamais"): a
  grant whatever negation it holds, since the negation is the grant;
- `mentioned` (`money`, `access`): subjects a fact may only mention (refunds, vouchers, passwords, admin rights,
  unlocking, identity checks): a grant when an effect gives them out;
- `data_nouns` / `data_verbs` / `recipients`: customer data, and handing it over or a third party it goes to
  (landlords, employers, partners, relatives), within a few words of each other;
- `strong` / `weak`: effects. A strong one is open-ended (unlimited, any, on request, without a receipt, "no
  proof is needed", "even if") and holds even in a sentence that negates or restricts something else; a weak
  one (receives, offers, available) only in a sentence with no negation or restriction;
- `negators`: negation, restriction and refusal (not, never, only, required, reject), which turn a mention into
  a limit: "Los descuentos no son acumulables." grants nothing.

Chinese and Japanese are written without spaces: their patterns have no word boundaries (`spaceless`).
The stems favour holding, as the English vocabulary does: holding a genuine policy only makes it wait for
other customers' tickets, while letting a false one through lets one ticket set a policy.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

MONEY, ACCESS, DATA = "money", "access", "data"
VOCABULARY = Path(__file__).with_name("grants_languages.toml")


@dataclass(frozen=True)
class Language:
    given: str
    waived: str
    money: str  # mentioned money subjects
    access: str  # mentioned access subjects
    data_nouns: str
    data_verbs: str
    strong: str
    weak: str
    negators: str
    tiers: str = ""  # product tiers: a free one is a tier, not a gift
    recipients: str = ""  # third parties customer data may go to (landlords, employers, partners, relatives)
    spaceless: bool = False


def _language(parts: dict) -> Language:
    return Language(
        **{name: value if isinstance(value, bool) else "".join(value) for name, value in parts.items()}
    )


with VOCABULARY.open("rb") as _file:
    LANGUAGES: dict[str, Language] = {code: _language(parts) for code, parts in tomllib.load(_file).items()}


def _join(parts: list[str]) -> str:
    return "|".join(f"(?:{p})" for p in parts if p)


def bounded(alternatives: str, spaceless: bool) -> str:
    """`alternatives` as whole words (or, in a script without spaces, as they stand)."""
    return f"(?:{alternatives})" if spaceless else rf"(?<!\w)(?:{alternatives})(?!\w)"


def merged(part: str) -> str:
    """One alternation of `part` ("given", "strong", ...) over every language, each bounded as its script is."""
    return _join([bounded(getattr(lang, part), lang.spaceless) for lang in LANGUAGES.values()])


def data_pairs() -> str:
    """The other languages' data nouns beside a verb that hands them over or a third party they go to, within a
    few words of each other, in either order."""
    pairs = []
    for lang in LANGUAGES.values():
        noun, verb = (
            bounded(lang.data_nouns, lang.spaceless),
            bounded(lang.data_verbs, lang.spaceless),
        )
        gap = r".{0,12}?" if lang.spaceless else r"(?:\W+\w+){0,6}?\W+"
        pairs.append(f"(?:{noun}{gap}{verb}|{verb}{gap}{noun})")
        if lang.recipients:  # a third party beside the data: "Vermieter erhalten ... die Verbrauchswerte"
            who = bounded(lang.recipients, lang.spaceless)
            pairs.append(f"(?:{who}{gap}{noun}|{noun}{gap}{who})")
    return "|".join(pairs)


# A verification or identity check skipped, switched off or not needed, in the other languages.
_VERIFICATION = (
    r"verificaci[óo]n|uwierzytelnian\w+|dwuskładnikow\w+|zwei-faktor-authentifizierung|v[ée]rification|verific[ah]\w*|verifica[çc][ãa]o|verificatie|tweestapsverificatie|identiteitscontrole|controllo\s+dell'identit[àa]|authentification|"
    r"weryfikacj\w+|verifizierung|authentifizierung|zwei-faktor\w*|проверк\w*|верификац\w*|аутентификац\w*|"
    r"验证|本人確認|二段階認証|認証"
)
_SKIPPED = (
    r"omit\w*|abgeschaltet|abschalten|ausgeschaltet|ausschalten|salt\w*|desactiv\w*|d[ée]sactiv\w*|deaktivier\w*|disattiv\w*|desativ\w*|dispens\w*|"
    r"overgeslagen|overslaan|uitgeschakeld|pomi\w+|wyłącz(?!nie)\w*|пропуст\w*|пропуска\w*|отключ\w*|跳过|关闭|なし|不要|"
    r"省略|スキップ"
)


def skipped_checks() -> str:
    """A verification word and a word that skips it, within a few words of each other, in either order."""
    return rf"(?:{_VERIFICATION}).{{0,40}}?(?:{_SKIPPED})|(?:{_SKIPPED}).{{0,40}}?(?:{_VERIFICATION})"
