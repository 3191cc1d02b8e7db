"""Relevance of preferences: precision and recall of "injected when relevant", per relevance mode, and its cost.

A labelled set (intelligence/benchmarks/data/preference_relevance_*.jsonl): conversation openings — Bitext
customer messages referred to by row number (read from `BRAIN_BITEXT_CSV` at run time, never copied) and a few
written here (the issue's "my parcel has not arrived", unrelated messages that say "prefer") — times realistic
agent preferences, each pair labelled relevant or not (a preference is relevant to the openings of the intents
it is about). The openings were split once into a calibration half and a test half (the `split` field).

One agent in a fresh tenant holds the preferences (active). Then:

1. calibration (calibration half only): the hybrid relevance (`intelligence.relevance`) over a grid of vector
   floors and near-best ratios; the pair with the best min(precision, recall) (then F1) is the calibrated one;
2. figures (test half): for each mode — `fulltext` (words only, the former rule), the configured
   `BRAIN_CONTEXT_RELEVANCE`, and the calibrated values — the preferences the runtime injects
   (`agent_context_assemble`, the budget preview's path: relevance, the agent's `preference_min_score`, the
   tier budget) against the labels: precision and recall over pairs, and the openings gated wrongly;
3. preferences nobody calibrated on (`preference_relevance_preferences_heldout.jsonl`, written after the
   shipped relevance was chosen; relevant to the openings of the intents they name): a second agent holds them,
   and each mode's precision and recall over them is reported on both halves of the openings — the floor and
   the ratio were chosen with the first agent's preferences, so these figures say how relevance carries to
   preferences worded by someone else; and a second such set (`preference_relevance_preferences_heldout2.jsonl`,
   54, two for each intent, written after the classifier learned operators' preferences), held by a third agent:
   an agent with two preferences on one topic, where the near-best cut can leave one out;
4. latency per context call (`agent_context_assemble`, in process), each mode in turn on every test opening
   made new (a number appended, so the query embedding is computed as for a new conversation): median, p95,
   and the ratio to full text.

Run in its own database (default `brain_bench`) with the configured embedder (the calibration means
something for all-MiniLM-L6-v2 only: the figures print the embedder's name).
"""

from __future__ import annotations

import csv
import itertools
import json
import time
from pathlib import Path

from django.test import override_settings

DATA = Path(__file__).resolve().parent / "data"
SLUG = "bench-preference-relevance"
FLOORS = [round(0.1 + 0.025 * i, 3) for i in range(13)]  # 0.1 .. 0.4
RATIOS = [0.0, 0.8, 0.85, 0.9, 0.95, 0.98, 1.0]
PROJECTED_FLOORS = [round(0.15 + 0.0125 * i, 4) for i in range(29)]  # 0.15 .. 0.5
PROJECTED_RATIOS = [0.0, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 1.0]


def add_arguments(parser) -> None:
    parser.add_argument("--database", default="brain_bench", help="Database to run in (created if missing).")
    parser.add_argument("--latency-rounds", type=int, default=2, help="Passes over the test half, per mode.")
    parser.add_argument(
        "--calibration-only",
        action="store_true",
        help="Stop after the calibration half (the test half's figures are read once, for the final candidate).",
    )
    parser.add_argument(
        "--train-projection",
        action="store_true",
        help="Retrain intelligence/intent_projection.npz from the Bitext CSV (the set's rows left out), then run.",
    )


def load_set(bitext_csv: Path) -> tuple[list[dict], list[dict], dict[tuple[str, str], bool]]:
    """(openings with their text, preferences, {(opening id, preference id): relevant})."""
    rows = list(csv.DictReader(bitext_csv.open(encoding="utf-8")))
    openings = [json.loads(line) for line in (DATA / "preference_relevance_openings.jsonl").open()]
    for opening in openings:
        if "bitext_row" in opening:
            row = rows[opening["bitext_row"]]
            if row["intent"] != opening["intent"]:  # another edition of the sample: the labels would be wrong
                raise ValueError(
                    f"Bitext row {opening['bitext_row']} is not {opening['intent']}: another CSV?"
                )
            opening["text"] = row["instruction"]
    preferences = [json.loads(line) for line in (DATA / "preference_relevance_preferences.jsonl").open()]
    labels = {
        (item["opening"], item["preference"]): item["relevant"]
        for item in map(json.loads, (DATA / "preference_relevance_labels.jsonl").open())
    }
    return openings, preferences, labels


# The sets of preferences nobody calibrated on: the figures' key, and the file.
HELDOUT_SETS = {
    "heldout_preferences": "preference_relevance_preferences_heldout.jsonl",
    "heldout_preferences_two_per_intent": "preference_relevance_preferences_heldout2.jsonl",
}


def load_heldout(
    openings: list[dict], name: str = "heldout_preferences"
) -> tuple[list[dict], dict[tuple[str, str], bool]]:
    """(the held-out preferences of `HELDOUT_SETS[name]`, {(opening id, preference id): relevant}): a preference is
    relevant to the openings of the intents it names and to no other (the openings written here name none)."""
    preferences = [json.loads(line) for line in (DATA / HELDOUT_SETS[name]).open() if line.strip()]
    labels = {
        (opening["id"], preference["id"]): opening.get("intent") in preference["intents"]
        for opening in openings
        for preference in preferences
    }
    return preferences, labels


def precision_recall(predicted: dict[str, set[str]], openings, preferences, labels) -> dict:
    tp = fp = fn = 0
    for opening in openings:
        chosen = predicted[opening["id"]]
        for preference in preferences:
            relevant, injected = labels[(opening["id"], preference["id"])], preference["id"] in chosen
            tp += relevant and injected
            fp += injected and not relevant
            fn += relevant and not injected
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3), "tp": tp,
            "fp": fp, "fn": fn}  # fmt: skip


def _setup(tenant, preferences, name: str = "Bench support agent") -> tuple:
    from intelligence.services import agent_create, agent_memory_add

    agent = agent_create(tenant=tenant, name=name, kind="action")
    ids = {}
    for preference in preferences:
        outcome = agent_memory_add(
            agent=agent,
            actor="process:bench",
            category="instruction",
            strength="preference",
            status="active",
            text=preference["text"],
        )
        if outcome.memory_id is None:
            raise RuntimeError(f"The preference {preference['id']} was not written: {outcome}")
        ids[outcome.memory_id] = preference["id"]
    return agent, ids


def _injected(agent, ids, text: str) -> set[str]:
    from intelligence.services import ContextRequest, agent_context_assemble

    assembly, _ = agent_context_assemble(agent=agent, request=ContextRequest(conversation=text))
    return {ids[mid] for mid in assembly.section_map["preference"].memory_ids}


def _best_cut(grid, predict, openings, preferences, labels) -> tuple:
    """(floor, ratio, figures) of the (floor, ratio) pair of `grid` whose predictions (`predict(floor, ratio)`:
    {opening id: preference ids}) have the best min(precision, recall), then F1; the first such pair on a tie."""
    best = None
    for floor, ratio in grid:
        figures = precision_recall(predict(floor, ratio), openings, preferences, labels)
        key = (min(figures["precision"], figures["recall"]), figures["f1"])
        if best is None or key > best[0]:
            best = (key, floor, ratio, figures)
    return best[1:]


def _scores(agent, preference_ids, openings, config) -> dict:
    """{opening id: memory_relevance(...)} of every opening under `config`."""
    from intelligence.relevance import memory_relevance

    return {
        o["id"]: memory_relevance(
            tenant_id=agent.tenant_id,
            agent_id=agent.pk,
            query=o["text"],
            preference_ids=preference_ids,
            config=config,
        )
        for o in openings
    }


def calibrate(agent, ids, openings, preferences, labels, embedder: str, stdout) -> dict:
    """The grid on the calibration half, through `memory_relevance` and the agent's own gate."""
    from intelligence.relevance import near_best
    from intelligence.runtime import default_budget

    min_score = default_budget().preference_min_score
    preference_ids = set(ids)
    by_floor: dict[float, dict] = {}  # each floor's scores, computed once for every ratio

    def predict(floor, ratio):
        if floor not in by_floor:
            config = {"MODE": "hybrid", "VECTOR_FLOOR": floor, "NEAR_BEST": 0.0, "CALIBRATED_FOR": [embedder]}
            by_floor[floor] = _scores(agent, preference_ids, openings, config)
        return {
            oid: {ids[m] for m, s in near_best(found, preference_ids, ratio).items() if s >= min_score}
            for oid, found in by_floor[floor].items()
        }

    grid = itertools.product(FLOORS, RATIOS)
    floor, ratio, figures = _best_cut(grid, predict, openings, preferences, labels)
    stdout.write(
        f"calibrated on {len(openings)} openings: VECTOR_FLOOR={floor} NEAR_BEST={ratio} -> {figures}"
    )
    return {"MODE": "hybrid", "VECTOR_FLOOR": floor, "NEAR_BEST": ratio, "calibration": figures}


def calibrate_projected(agent, ids, openings, preferences, labels, embedder: str, stdout) -> dict:
    """Mode "projected": the floor and the ratio on the calibration half (each opening's similarities are
    computed once, with no cut, then cut for every pair of the grid as `memory_relevance` cuts them)."""
    from django.conf import settings

    from intelligence.relevance import near_best
    from intelligence.runtime import default_budget

    min_score = default_budget().preference_min_score
    preference_ids = set(ids)
    hybrid_floor = settings.BRAIN_CONTEXT_RELEVANCE["VECTOR_FLOOR"]
    config = {"MODE": "projected", "VECTOR_FLOOR": hybrid_floor, "PROJECTED_FLOOR": -1.0,
              "PROJECTED_NEAR_BEST": 0.0, "CALIBRATED_FOR": [embedder]}  # fmt: skip
    scores = _scores(agent, preference_ids, openings, config)

    def predict(floor, ratio):
        return {
            oid: {
                ids[m]
                for m, s in near_best(found, preference_ids, ratio).items()
                if m in ids and s >= floor and s > 0 and s >= min_score
            }
            for oid, found in scores.items()
        }

    grid = itertools.product(PROJECTED_FLOORS, PROJECTED_RATIOS)
    floor, ratio, figures = _best_cut(grid, predict, openings, preferences, labels)
    stdout.write(
        f"projected, calibrated on {len(openings)} openings: PROJECTED_FLOOR={floor} "
        f"PROJECTED_NEAR_BEST={ratio} -> {figures}"
    )
    return config | {"PROJECTED_FLOOR": floor, "PROJECTED_NEAR_BEST": ratio, "calibration": figures}


def _latency(agent, ids, openings, modes: dict, rounds: int) -> dict:
    from brain.benchmarks.common import percentile

    times: dict[str, list[float]] = {name: [] for name in modes}
    nonce = time.time_ns()
    for round_ in range(rounds):
        for number, opening in enumerate(openings):
            # Interleaved: the machine's noise falls on every mode alike.
            for index, (name, config) in enumerate(modes.items()):
                text = f"{opening['text']} {nonce}-{round_}-{number}-{index}"
                with override_settings(BRAIN_CONTEXT_RELEVANCE=config):
                    started = time.perf_counter()
                    _injected(agent, ids, text)
                    times[name].append((time.perf_counter() - started) * 1000)
    base = percentile(times["fulltext"], 50) or 1.0
    return {
        name: {
            "median_ms": round(percentile(values, 50), 2),
            "p95_ms": round(percentile(values, 95), 2),
            "median_vs_fulltext": round(percentile(values, 50) / base, 2),
        }
        for name, values in times.items()
    }


def _heldout_figures(tenant, openings: list[dict], key: str, modes: dict, stdout) -> dict:
    """Each mode's precision and recall over a set of preferences nobody calibrated on, held by an agent of their
    own, on both halves of the openings."""
    heldout, heldout_labels = load_heldout(openings, key)
    agent, ids = _setup(tenant, heldout, f"Bench support agent ({key})")
    halves = {half: [o for o in openings if o["split"] == half] for half in ("test", "calibration")}
    figures: dict = {"preferences": len(heldout), "modes": {}}
    stdout.write(
        f"{key}: preferences nobody calibrated on ({len(heldout)}), precision / recall on each half:"
    )
    for name, config in modes.items():
        with override_settings(BRAIN_CONTEXT_RELEVANCE=config):
            by_half = {
                half: precision_recall(
                    {o["id"]: _injected(agent, ids, o["text"]) for o in part}, part, heldout, heldout_labels
                )
                for half, part in halves.items()
            }
        figures["modes"][name] = by_half
        stdout.write(
            f"{name:12} test {by_half['test']['precision']} / {by_half['test']['recall']}   calibration "
            f"{by_half['calibration']['precision']} / {by_half['calibration']['recall']}"
        )
    return figures


def run(options, stdout) -> dict:
    import os

    from django.conf import settings

    from brain.benchmarks.common import bitext_path, fresh_tenant, use_bench_database

    openings, preferences, labels = load_set(bitext_path())
    if options.get("train_projection"):
        from .relevance_projection import train

        train(bitext_path(), openings, stdout)
    use_bench_database(options["database"], stdout)
    tenant = fresh_tenant(SLUG, "Preference relevance benchmark")
    agent, ids = _setup(tenant, preferences)
    from brain.embedders import get_embedder

    embedder = get_embedder().name
    calibration = [o for o in openings if o["split"] == "calibration"]
    test = [o for o in openings if o["split"] == "test"]
    stdout.write(
        f"{len(openings)} openings ({len(calibration)} calibration, {len(test)} test) x "
        f"{len(preferences)} preferences; embedder {embedder}; load {os.getloadavg()[0]:.2f}"
    )
    calibrated = calibrate(agent, ids, calibration, preferences, labels, embedder, stdout)
    projected = calibrate_projected(agent, ids, calibration, preferences, labels, embedder, stdout)
    if options.get("calibration_only"):
        return {"embedder": embedder, "calibrated": calibrated, "calibrated_projected": projected}
    modes = {
        "fulltext": {"MODE": "fulltext", "VECTOR_FLOOR": None, "NEAR_BEST": 0.0},
        "hybrid": dict(settings.BRAIN_CONTEXT_RELEVANCE) | {"MODE": "hybrid"},
        "configured": dict(settings.BRAIN_CONTEXT_RELEVANCE),
        "calibrated": {k: calibrated[k] for k in ("MODE", "VECTOR_FLOOR", "NEAR_BEST")}
        | {"CALIBRATED_FOR": [embedder]},
        "calibrated-projected": {k: v for k, v in projected.items() if k != "calibration"},
    }
    figures: dict = {"openings": len(openings), "test_openings": len(test), "preferences": len(preferences),
                     "embedder": embedder, "calibrated": calibrated, "calibrated_projected": projected,
                     "modes": {}}  # fmt: skip
    stdout.write(f"{'mode':12} {'precision':>9} {'recall':>7} {'f1':>6}   (test half: {len(test)} openings)")
    for name, config in modes.items():
        with override_settings(BRAIN_CONTEXT_RELEVANCE=config):
            predicted = {o["id"]: _injected(agent, ids, o["text"]) for o in test}
        result = precision_recall(predicted, test, preferences, labels)
        figures["modes"][name] = {"config": config, **result}
        stdout.write(f"{name:12} {result['precision']:>9} {result['recall']:>7} {result['f1']:>6}   {config}")
    for key in HELDOUT_SETS:
        figures[key] = _heldout_figures(tenant, openings, key, modes, stdout)
    figures["finding"] = {
        o["text"]: sorted(_injected(agent, ids, o["text"])) for o in openings if o["id"] in ("own-1", "own-7")
    }
    figures["latency_ms"] = _latency(agent, ids, test, modes, options["latency_rounds"])
    for name, values in figures["latency_ms"].items():
        stdout.write(f"latency {name:12} {values}")
    figures["load_average"] = round(os.getloadavg()[0], 2)
    stdout.write(f"load average at the end: {figures['load_average']}")
    return figures
