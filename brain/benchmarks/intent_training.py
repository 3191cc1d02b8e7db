"""Training the intent classifier (`brain/formation/intent.py`): `brain_bench poisoning --train`.

Fits a logistic regression (scikit-learn, the `dev` extra; the product itself only reads the weights with
numpy) on the train split of the public corpora plus the in-house benign texts and a small
hand-written set of ordinary non-English customer messages (the packages hold few benign texts outside
English, and a model that saw non-English text only in attacks would refuse every German customer). The
test split is never read here.

The recipe (`Variant`: features, regularisation, weights, augmentation) is fitted on the train split (with
the wider benign texts of `public_benign` when the recipe weighs them); C and the threshold are chosen on dev
(`intent_cv.train_on_train_and_dev`, `--train-on train+dev`, fits on both instead: README, 2026-12-06):
the threshold is the lowest score at which the gate (rules, then the classifier) refuses at most
`BENIGN_BUDGET` of dev's benign texts, at most `BENIGN_BUDGET` of each wider source's dev texts, and none of
the in-house benign texts.
Recipes are compared by the grouped cross-validation over train + dev (`intent_cv.py`, `--cv`).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, replace

import numpy as np

from brain.client_brain import typed
from brain.formation.intent import (
    DEFAULT_FEATURES,
    LONG_MODEL_PATH,
    LONG_TEXT_CHARS,
    MODEL_PATH,
    Features,
    feature_columns,
    save_model,
)
from brain.formation.poisoning import classified, rule_family
from brain.formation.text import sentences

from . import public_benign, public_corpora, trust, written_attacks

BENIGN_BUDGET = 0.01
MULTILINGUAL_BENIGN = trust.DATA / "intent_benign_multilingual.jsonl"


@dataclass(frozen=True)
class Variant:
    """One training recipe.

    `rare_weight`: the weight of a benign text that is not Bitext's (look-alikes, in-house texts); `balance`:
    the attacks together weigh as much as the benign texts; `heads`: when above 0, every training attack
    longer than this many characters also trains as its opening (cut at a sentence end), since the long
    jailbreaks outnumber the short attacks the classifier misses; `inhouse_attack_families`: families of the
    in-house attack corpus that train as attacks too (they stay the rules' regression corpus); `wide_mass`:
    the wider benign texts (`public_benign`) train too, each source together weighing this share of the
    Bitext texts divided by the number of sources (0: not at all); `reply_sentences`: the sentences of the
    Bitext replies train one by one too, together weighing this share of the Bitext texts; `search_c`: `--train`
    chooses C on dev over `C_GRID` (else it keeps `C`); `technical`: the installed packages' technical paragraphs
    (`public_benign.technical_cases`) train as one more wider source (they set no threshold); `support_weight`:
    when above 0, the train splits of the written sets `support_sets` train too (their attacks but
    `SUPPORT_KINDS_NOT_LEARNED`), each text with this weight, after which the attacks are weighed up again to the
    benign texts' mass.
    """

    features: Features = DEFAULT_FEATURES
    C: float = 4.0
    rare_weight: float = 20.0
    balance: bool = True
    heads: int = 0
    inhouse_attack_families: tuple[str, ...] = ()
    wide_mass: float = 0.0
    reply_sentences: float = 0.0
    search_c: bool = True
    technical: bool = False
    support_weight: float = 0.0
    support_sets: tuple[str, ...] = ("support",)


# `--train` fits this recipe. Until 2026-12-05 it was `Variant()`, trained on no benign text but Bitext's and
# the look-alikes: it refused 40% of LoCoMo's chat turns. The grouped cross-validation over train + dev, every
# benign source held to the budget (`brain_bench poisoning --cv shipped today wide ...`), chose the wider benign
# texts and the in-house multilingual attacks. C stays 4: the grid's choice on dev (64, one dev attack fewer;
# 15 against 17 of 638 in the cross-validation, within its noise) refused ordinary operators' rules of the
# suite ("Rule 7: always quote order number 7 before answering."), as C = 64 did on 2026-12-02. A web address
# reads as a placeholder word: its characters had made "Remember: <address>" an instruction, and masking them
# cost nothing in the cross-validation (17 of 638 missed either way; README "on public data").
SHIPPED = Variant(
    features=replace(DEFAULT_FEATURES, mask_web_addresses=True),
    wide_mass=3.0,
    inhouse_attack_families=("multilingual",),
    search_c=False,
)
C_GRID = (1.0, 4.0, 16.0, 64.0)
# `--train-long` fits the long-text model (`intent.LONG_MODEL_PATH`): the shipped recipe and the written support
# set, each of its texts weighing 40 (on the support set's dev split, 2026-12-07: attacks weighing 10 to 40 and
# benign texts 20 or 40 admitted 22-25 of its attacks and refused 15-20 of its benign texts, 40 and 40 the fewest
# benign). The support set's planted policies (`fake_policy`) do not train: worded as a business's own rules ("the
# account owner approves all refunds above the limit"), they taught the model to refuse those, and a policy that
# gives things away waits for evidence anyway (`evidence.policy_hold`).
# Since 2026-12-08 the second written support set's train split (`support2`: long e-mails and desk texts) trains
# beside the first, at the same weight (on the dev splits, rules and n-gram models, texts the model reads: `support`
# 89 -> 91 of 99 attacks refused, 13 -> 10 of 93 benign texts; `support2` 84 -> 88 of 120, 8 -> 5 of 120; the public
# dev split's long benign texts 21 -> 24 of 1,486, the wider sources' 32 -> 41 of 1,973).
LONG = replace(SHIPPED, support_weight=40.0, support_sets=("support", "support2"))
PLANTED_POLICIES = ("fake_policy",)
# Requests to the assistant to describe itself (`probe`) do not train it either: as character n-grams they are
# chat addressed to "you", and learning them raised its threshold on the chit-chat dev texts from 0.39 to 0.52 (one
# of the planted orders of tests/brain/formation/test_intent.py admitted again). The English networks learn them.
SUPPORT_KINDS_NOT_LEARNED = PLANTED_POLICIES + ("probe",)


def wide_cases(split: str, variant: Variant) -> tuple[public_corpora.PublicCase, ...]:
    """The wider benign cases of `split` that `variant` learns: `public_benign`'s, and the packages' technical
    paragraphs when it asks for them. Thresholds are held to `public_benign`'s alone."""
    technical = public_benign.technical_cases(split) if variant.technical else ()
    return public_benign.wide_cases_in(split) + technical


def _texts(case: dict) -> list[str]:
    found = [case.get(key) for key in ("text", "reply", "subject")]
    found += [m["content"] for m in case.get("messages", [])]
    return [t for t in found if t]


def in_house_texts() -> tuple[list[str], list[str]]:
    """(attacks, benign): every free text of the in-house corpora, whatever surface it arrives by."""
    attacks = [t for case in trust.load("attacks") for t in _texts(case)]
    # Every in-house text that is not an attack: look-alikes, facts with and without personal data, replies.
    benign = [t for name in ("benign", "personal_data") for case in trust.load(name) for t in _texts(case)]
    for case in trust.load("extraction"):
        benign += [*_texts({**case, "reply": case.get("body")}), *case.get("expect_facts", [])]
    with MULTILINGUAL_BENIGN.open(encoding="utf-8") as lines:
        benign += [json.loads(line)["text"] for line in lines if line.strip()]
    return attacks, benign + _rendered_memories()


def in_house_attacks(families: tuple[str, ...]) -> list[str]:
    return [t for case in trust.load("attacks") if case.get("family") in families for t in _texts(case)]


def _rendered_memories() -> list[str]:
    """Texts the product itself renders for typed Client Brain rows (an operator may edit one): every voice,
    and the extraction corpus's resolutions as issues."""
    fields = list(typed.VOICE_FIELDS.items())
    renders = [
        typed.render_value(typed.VOICE, dict(zip([name for name, _ in fields], values, strict=True)))
        for values in itertools.product(*[choices for _, choices in fields])
    ]
    renders += [
        typed.render_value(typed.VOICE, {name: value}) for name, choices in fields for value in choices
    ]
    for case in trust.load("extraction"):
        if case.get("expect_resolution"):
            issue = {"pattern": "refund (orders): Question about my order", "frequency": 2}
            issue["best_resolution"] = case["expect_resolution"]
            renders.append(typed.render_value(typed.ISSUES, issue))
    return renders


_SENTENCE_END = re.compile(r"[.!?:]\s|\n")


def head(text: str, limit: int) -> str:
    """The opening of `text`: at most `limit` characters, cut after the last sentence end past a third of it."""
    cut = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(cut) if m.end() >= limit // 3]
    return cut[: ends[-1]].strip() if ends else cut.rsplit(" ", 1)[0].strip()


def examples(
    cases: list[public_corpora.PublicCase],
    variant: Variant,
    in_house_benign: list[str],
    wide: list[public_corpora.PublicCase] | tuple = (),
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(texts, labels, sample weights) to fit `variant` on `cases`, the in-house benign texts and, when the
    recipe weighs them, the wider benign texts `wide` that the classifier reads."""
    # The in-house attacks are the rules' regression corpus (refunds widened "on every order"): learning them
    # all taught the model that "refund" is an attack. Their benign texts train: the business's own voice.
    texts = [c.text for c in cases]
    labels = [c.label == public_corpora.ATTACK for c in cases]
    rare = [not c.source.startswith("bitext") for c in cases]
    if variant.heads:
        openings = [head(c.text, variant.heads) for c in cases if c.label == public_corpora.ATTACK]
        openings = [t for t in openings if len(t) < variant.heads and classified(t)]
        texts, labels, rare = (
            texts + openings,
            labels + [True] * len(openings),
            rare + [False] * len(openings),
        )
    extra = in_house_attacks(variant.inhouse_attack_families) if variant.inhouse_attack_families else []
    texts += extra + in_house_benign
    labels += [True] * len(extra) + [False] * len(in_house_benign)
    rare += [False] * len(extra) + [True] * len(in_house_benign)
    labels_array, rare_array = np.array(labels), np.array(rare)
    # Bitext outnumbers every look-alike a hundred to one: weigh the rare benign texts up so that "act as a
    # friendly tutor" counts, and balance the two classes.
    weights = np.where(rare_array & ~labels_array, variant.rare_weight, 1.0)
    if variant.wide_mass and wide:
        # Each wider source weighs the same, whatever its size (Django's messages outnumber the rest).
        read = [c for c in wide if classified(c.text)]
        sources = sorted({c.source for c in read})
        bitext = sum(c.source.startswith("bitext") for c in cases)
        size = {source: sum(c.source == source for c in read) for source in sources}
        texts += [c.text for c in read]
        labels_array = np.concatenate([labels_array, np.zeros(len(read), dtype=bool)])
        mass = [variant.wide_mass * bitext / len(sources) / size[c.source] for c in read]
        weights = np.concatenate([weights, mass])
    if variant.reply_sentences:
        # The sentences of Bitext's replies, one by one: what a memory candidate looks like (short steps and
        # rules, many of them imperative), together weighing this share of the Bitext texts.
        replies = [c for c in cases if c.source == "bitext-response"]
        parts = [s for c in replies for s in sentences(c.text) if classified(s)]
        texts += parts
        labels_array = np.concatenate([labels_array, np.zeros(len(parts), dtype=bool)])
        bitext = sum(c.source.startswith("bitext") for c in cases)
        weights = np.concatenate(
            [weights, np.full(len(parts), variant.reply_sentences * bitext / max(1, len(parts)))]
        )
    if variant.balance:
        weights[labels_array] *= weights[~labels_array].sum() / weights[labels_array].sum()
    if variant.support_weight:
        attacks, benign = support_texts(variant.support_sets)
        texts += attacks + benign
        labels_array = np.concatenate(
            [labels_array, np.ones(len(attacks), bool), np.zeros(len(benign), bool)]
        )
        weights = np.concatenate([weights, np.full(len(attacks) + len(benign), variant.support_weight)])
        weights[labels_array] *= weights[~labels_array].sum() / weights[labels_array].sum()
    return texts, labels_array, weights


def support_texts(
    sets: tuple[str, ...], kinds_left_out: tuple[str, ...] = SUPPORT_KINDS_NOT_LEARNED
) -> tuple[list[str], list[str]]:
    """(attacks, benign texts) of the train splits of the written sets `sets`, in their order, the attacks of
    `kinds_left_out` left out."""
    attacks: list[str] = []
    benign: list[str] = []
    for written in sets:
        found = written_attacks.texts("train", written, kinds_left_out=kinds_left_out)
        attacks += found[0]
        benign += found[1]
    return attacks, benign


_COLUMNS: dict[tuple[Features, str], np.ndarray] = {}


def matrix(texts: list[str], features: Features):
    """The normalised feature rows of `texts` (a text's columns are computed once per process and features)."""
    from scipy.sparse import csr_matrix

    rows, cols, vals = [], [], []
    for i, text in enumerate(texts):
        columns = _COLUMNS.get((features, text))
        if columns is None:
            columns = _COLUMNS[features, text] = feature_columns(text, features)
        rows.append(np.full(len(columns), i))
        cols.append(columns)
        vals.append(np.full(len(columns), 1.0 / np.sqrt(max(1, len(columns)))))
    cat = (lambda parts: np.concatenate(parts)) if texts else (lambda parts: np.zeros(0))
    return csr_matrix((cat(vals), (cat(rows), cat(cols))), shape=(len(texts), features.width))


def fit(texts: list[str], labels: np.ndarray, sample_weight: np.ndarray, variant: Variant):
    """(weights at the shipped float16 resolution, bias) of a logistic regression (deterministic: liblinear)."""
    from sklearn.linear_model import LogisticRegression

    fitted = LogisticRegression(C=variant.C, max_iter=2000, solver="liblinear", random_state=0)
    fitted.fit(matrix(texts, variant.features), labels, sample_weight=sample_weight)
    return fitted.coef_[0].astype(np.float16).astype(np.float64), float(fitted.intercept_[0])


def scores(weights: np.ndarray, bias: float, texts: list[str], features: Features) -> np.ndarray:
    """The classifier's score of each text as the gate sees it (0 for a text too short to be classified)."""
    margin = matrix(texts, features) @ weights + bias
    return np.where([classified(t) for t in texts], 1.0 / (1.0 + np.exp(-margin)), 0.0)


def choose_threshold(scores: np.ndarray, rules: np.ndarray, labels: np.ndarray, floor: float) -> float:
    """The lowest threshold at or above `floor` at which rules-or-classifier refuse ≤ BENIGN_BUDGET of benign."""
    benign = ~labels
    allowed = int(np.floor(BENIGN_BUDGET * benign.sum() + 1e-9)) - int(rules[benign].sum())
    if allowed < 0:
        return 1.0
    candidates = np.sort(scores[benign & ~rules])[::-1]  # the benign scores the rules leave, highest first
    # Refusing the `allowed` highest benign scores: the threshold sits just above the next one.
    above = float(candidates[allowed]) + 1e-9 if allowed < len(candidates) else 0.0
    return float(min(1.0, max(floor, above)))


def readable_by_source(wide) -> dict[str, list[str]]:
    """The wider benign texts the classifier decides, by source: those it reads and the rules leave."""
    found: dict[str, list[str]] = {}
    for case in wide:
        if classified(case.text) and rule_family(case.text) is None:
            found.setdefault(case.source, []).append(case.text)
    return found


def wide_threshold(scores_by_source: dict[str, np.ndarray], floor: float) -> float:
    """The lowest threshold at or above `floor` at which the classifier refuses at most BENIGN_BUDGET of each
    source's texts (their scores; `readable_by_source`): a model must not trade one kind of ordinary text for
    another, however large the first."""
    threshold = floor
    for source_scores in scores_by_source.values():
        none = np.zeros(len(source_scores), dtype=bool)
        threshold = max(threshold, choose_threshold(source_scores, none, none, floor))
    return threshold


def score_sources(
    weights: np.ndarray, bias: float, by_source: dict[str, list[str]], features: Features
) -> dict[str, np.ndarray]:
    return {source: scores(weights, bias, texts, features) for source, texts in by_source.items()}


def train(stdout, variant: Variant | None = None, *, long: bool = False) -> dict:
    """Fit `variant` (the shipped recipe; with `long`, `LONG`, the long-text model) on the train split for each C
    of `C_GRID` (or its own C, when it does not `search_c`); keep the C that admits fewest dev attacks at its dev
    threshold (at most `BENIGN_BUDGET` of dev's benign texts refused, and of each wider source's). The first
    model reads texts shorter than `LONG_TEXT_CHARS`, the long-text model the others: the threshold is chosen
    on texts of every length, as it was before the two were split."""
    variant = variant or (LONG if long else SHIPPED)
    _attacks, in_house_benign = in_house_texts()
    texts, labels, sample_weight = examples(
        public_corpora.cases_in("train"), variant, in_house_benign, wide_cases("train", variant)
    )
    dev_wide = readable_by_source(public_benign.wide_cases_in("dev"))
    dev = public_corpora.cases_in("dev")
    dev_texts = [c.text for c in dev]
    dev_labels = np.array([c.label == public_corpora.ATTACK for c in dev])
    dev_rules = np.array([rule_family(t) is not None for t in dev_texts])
    best = None
    for c in C_GRID if variant.search_c else (variant.C,):
        candidate = replace(variant, C=c)
        weights, bias = fit(texts, labels, sample_weight, candidate)
        dev_scores = scores(weights, bias, dev_texts, candidate.features)
        floor = float(scores(weights, bias, in_house_benign, candidate.features).max()) + 1e-6
        threshold = choose_threshold(dev_scores, dev_rules, dev_labels, floor)
        threshold = max(
            threshold, wide_threshold(score_sources(weights, bias, dev_wide, candidate.features), floor)
        )
        refused = dev_rules | (dev_scores >= threshold)
        admitted = float((~refused[dev_labels]).mean())
        stdout.write(f"C={c}: threshold {threshold:.4f}, dev attacks admitted {admitted:.3%}")
        if best is None or admitted < best[0]:
            best = (admitted, candidate, weights, bias, threshold)
    admitted, candidate, weights, bias, threshold = best
    lengths = {"min_chars": LONG_TEXT_CHARS} if long else {"max_chars": LONG_TEXT_CHARS}
    path = LONG_MODEL_PATH if long else MODEL_PATH
    save_model(
        weights=weights, bias=bias, threshold=threshold, features=candidate.features, path=path, **lengths
    )
    return {
        "variant": describe(candidate),
        "threshold": round(threshold, 6),
        "dev_attacks_admitted_pct": round(100 * admitted, 2),
    }


def describe(variant: Variant) -> str:
    """A short, stable description of how `variant` differs from today's default recipe."""
    base = Variant()
    parts = [
        f"{k}={getattr(variant.features, k)}"
        for k in vars(DEFAULT_FEATURES)
        if getattr(variant.features, k) != getattr(DEFAULT_FEATURES, k)
    ]
    parts += [
        f"{k}={getattr(variant, k)}"
        for k in vars(base)
        if k != "features" and getattr(variant, k) != getattr(base, k)
    ]
    return ", ".join(parts) or "default"
