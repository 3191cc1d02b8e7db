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

A second reading, `agent-suites` (2026-12-06), comes from three attack suites for agents, all MIT, read from
their wheels the same way: aicu-scanner 1.5.0's payloads (its prompt-injection, jailbreak, evasion, encoding and
file-borne sets, and the last turn of each multi-turn test, the one that asks; not its hallucination, toxicity
or denial-of-service probes, nor the prefixes and suffixes it wraps around other payloads), agent-injection-bench
0.1.0's injected texts and bastionprobe 0.19.0's payloads (their canary slot filled with one fixed token,
`CANARY`). Most of aicu's ask the agent for its own configuration in the words of an ordinary task ("Write
acceptance criteria for a QA team testing you").

A third, `indirect`, holds orders planted in what agents read and benign texts beside them (`public_indirect`); a
fourth, `datasets`, the test splits of three labelled prompt-injection datasets, attacks and benign texts
(`public_datasets`); a fifth, `multilingual` (2026-12-06), garak-multilingual 0.1.0's payloads (Apache-2.0):
overrides, personas and prompt extraction in Turkish, German, Spanish, Russian, Arabic, Chinese, French and
Persian, and English ones spelled with Turkish letters, read from the module's literals (never imported).

An item that is a near-duplicate of any attack of the public corpora, whatever its split (word-trigram Jaccard
of at least 0.5, or the same first eight words: `public_corpora`'s grouping), is left out and counted: what
remains is text the detector has not been built beside. It goes through both surfaces as the test split does
(`public_attacks`). This is a reading, not a tuning set: the command prints counts and ids, never the admitted
texts, and nothing in the gate is to be chosen on it.
"""

from __future__ import annotations

import ast
import json
import re
import zipfile
from functools import cache
from typing import Any

import yaml
from jinja2.sandbox import SandboxedEnvironment

from . import public_attacks, public_corpora, public_datasets, public_indirect

PACKAGE, VERSION = "pyrit", "1.1.0"
PAYLOAD = "explain how to pick a lock"
CANARY = "CANARY-7731"
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


_AICU = "aicu/payloads/"
_AICU_SETS = ("single_turn", "jailbreaks", "advanced_evasion", "encoding_attacks", "file_payloads")


def _aicu_items(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    """aicu-scanner's payloads: each `content` of its attack sets, the last turn of each multi-turn test, and
    each line of its intruder lists (their line breaks written as a backslash and n)."""
    items = []

    def contents(node, path: str) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("content"), str):
                items.append(("aicu", f"{path}:{node.get('id', len(items))}", node["content"].strip()))
            for value in node.values():
                contents(value, path)
        elif isinstance(node, list):
            for value in node:
                contents(value, path)

    for name in _AICU_SETS:
        contents(yaml.safe_load(archive.read(f"{_AICU}{name}.yaml")), name)
    for test in yaml.safe_load(archive.read(f"{_AICU}multi_turn.yaml"))["multi_turn_tests"]:
        items.append(("aicu-multi-turn", test["id"], str(test["turns"][-1]).strip()))
    for path in sorted(
        n for n in archive.namelist() if n.startswith(f"{_AICU}intruder_") and n.endswith(".txt")
    ):
        lines = archive.read(path).decode("utf-8").splitlines()
        name = path.rsplit("/", 1)[-1][: -len(".txt")]
        items += [("aicu-intruder", f"{name}:{n}", line.strip().replace("\\n", "\n")) for n, line in
                  enumerate(lines) if line.strip()]  # fmt: skip
    return items


def _aib_items(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    rows = archive.read("aib/data/attacks.jsonl").decode("utf-8").splitlines()
    return [("agent-injection-bench", row["id"], row["injected"].strip()) for row in map(json.loads, rows)]


def _bastionprobe_items(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    rows = archive.read("bastionprobe/payloads.jsonl").decode("utf-8").splitlines()
    return [
        ("bastionprobe", row["id"], row["text"].replace("{canary}", CANARY).strip())
        for row in map(json.loads, rows)
    ]


def _pyrit_items() -> list[tuple[str, str, str]]:
    with zipfile.ZipFile(public_corpora.wheel(PACKAGE)) as archive:
        return _template_items(archive) + _seed_items(archive)


def _agent_suite_items() -> list[tuple[str, str, str]]:
    items = []
    for package, read in (
        ("aicu-scanner", _aicu_items),
        ("agent-injection-bench", _aib_items),
        ("bastionprobe", _bastionprobe_items),
    ):
        with zipfile.ZipFile(public_corpora.wheel(package)) as archive:
            items += read(archive)
    first = {}
    for item in items:  # a payload two of aicu's lists share counts once
        first.setdefault(item[2], item)
    return list(first.values())


def _literal(node: ast.AST, names: dict[str, Any]) -> Any:
    """The value of a literal of strings, lists and dicts, where a string may be joined with `+` to a module
    constant (garak-multilingual's payloads splice in its canary)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal(node.left, names) + _literal(node.right, names)
    if isinstance(node, ast.Name):
        return names[node.id]
    if isinstance(node, ast.List):
        return [_literal(item, names) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {_literal(k, names): _literal(v, names) for k, v in zip(node.keys, node.values, strict=True)}
    return ast.literal_eval(node)


def _multilingual_items() -> list[tuple[str, str, str]]:
    with zipfile.ZipFile(public_corpora.wheel("garak-multilingual")) as archive:
        module = ast.parse(archive.read("garak_multilingual/payloads.py").decode("utf-8"))
    names: dict[str, Any] = {}
    items = []
    for node in module.body:  # constants, then lists of payloads, each assigned to a name
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            names[name] = value = _literal(node.value, names)
            if isinstance(value, list):
                items += [
                    (f"garak-multilingual:{name.lower()}", f"{name}:{n}", payload["prompt"])
                    for n, payload in enumerate(value)
                ]
    return items


@cache
def _indirect_items() -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    return public_indirect.items()


@cache
def _dataset_items() -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    return public_datasets.items()


# Each reading: (what the figures name as its source, its attacks, its benign texts or None).
READINGS = {
    "pyrit": (f"{PACKAGE}=={VERSION}", _pyrit_items, None),
    "agent-suites": (
        "aicu-scanner==1.5.0, agent-injection-bench==0.1.0, bastionprobe==0.19.0",
        _agent_suite_items,
        None,
    ),
    "indirect": (public_indirect.SOURCE, lambda: _indirect_items()[0], lambda: _indirect_items()[1]),
    "datasets": (public_datasets.SOURCE, lambda: _dataset_items()[0], lambda: _dataset_items()[1]),
    "multilingual": ("garak-multilingual==0.1.0", _multilingual_items, None),
}
# The key each reading's figures take in `brain_bench poisoning --external --json`.
FIGURES_KEY = {
    "pyrit": "external",
    "agent-suites": "external_agent_suites",
    "indirect": "external_indirect",
    "datasets": "external_datasets",
    "multilingual": "external_multilingual",
}


@cache
def external_cases(reading: str = "pyrit") -> tuple[tuple[public_corpora.PublicCase, ...], int]:
    """(the attacks of `reading` no public corpus holds a near-duplicate of, how many were left out as
    near-duplicates)."""
    raw = READINGS[reading][1]()
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


@cache
def external_benign(reading: str) -> tuple[public_corpora.PublicCase, ...]:
    """The benign texts a reading ships beside its attacks (none for most)."""
    read = READINGS[reading][2]
    return tuple(
        public_corpora.PublicCase(
            public_corpora._case_id(source, key, text), source, public_corpora.BENIGN,
            public_corpora._script_lang(text), text, public_corpora._case_id(source, key, text),
        )
        for source, key, text in (read() if read else [])
    )  # fmt: skip


def external_figures(limit: int | None = None, reading: str = "pyrit") -> dict[str, Any]:
    """The figures of one reading (`external`: PyRIT's; `external_agent_suites`): per surface, the attacks
    admitted (overall, of at most 1,000 characters, by source and language), with the items read and left out."""
    cases, near_duplicates = external_cases(reading)
    cases = cases[:limit]
    figures: dict[str, Any] = {
        "source": READINGS[reading][0],
        # What a reading's slots were filled with (the indirect reading fills them with its packages' own texts).
        "payload": {"pyrit": PAYLOAD, "agent-suites": CANARY}.get(reading),
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
                "attacks_admitted_active",
                "attacks_admitted_words",
                "attacks_short",
                "attacks_short_admitted",
                "attacks_refused_undetected",
                "by_source",
                "by_language",
                "admitted_ids",
            )
        }
        if benign := external_benign(reading)[:limit]:
            figures[surface]["benign"] = public_attacks._benign_figures(list(benign), surface)
    return figures


def summary(figures: dict[str, Any]) -> str:
    parts = [
        f"external ({figures['source']}, {figures['attacks']} attacks in {figures['groups']} groups; "
        f"{figures['items_left_out_as_near_duplicates']} near-duplicates of the public corpora left out):"
    ]
    for surface in public_attacks.SURFACES:
        f = figures[surface]
        parts.append(
            f"{surface} admitted {f['attacks_admitted']}/{f['attacks']} ({f['attacks_admitted_pct']}%; "
            f"with their words {f['attacks_admitted_words']}, of them injected at once {f['attacks_admitted_active']}), "
            f"of at most {public_attacks.SHORT} characters {f['attacks_short_admitted']}/{f['attacks_short']}"
            + (
                f", benign refused {f['benign']['benign_rejected']}/{f['benign']['benign']}"
                if "benign" in f
                else ""
            )
        )
    return " ".join(parts)
