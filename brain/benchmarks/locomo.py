"""LoCoMo dialog-level retrieval: recall's tiers, hybrid and hybrid+MMR against an in-run BM25 baseline.

Each conversation's dialog turns become memories of a tenant of their own (embedded in-process by the
real embedding pipeline, `brain.embedding.memories_embed`, with the configured embedder: MiniLM).
Every question with evidence is asked; a question's relevant memories are its evidence turns
("D3:7" = session 3, turn 7). Reported per method, overall and per category (1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop, 5 adversarial): Recall@5/10/25/50 (share of a question's evidence turns
in the top k, averaged over questions) and NDCG@10 (binary relevance); plus recall latency with and without
the query embedding, p50 / p95 / p99, at limit 50 and at limit 10 on the first conversation
(brain.benchmarks.locomo_latency).

The data file is read at run time and never copied into the repository (CC BY-NC 4.0).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter, defaultdict
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import connection

from brain.benchmarks.common import fresh_tenant, use_bench_database
from brain.benchmarks.locomo_ablation import (
    ablation_figures,
    chosen_weights,
    recorded_candidates,
    reranked_ids,
    settings_to_measure,
)
from brain.benchmarks.locomo_latency import (
    add_latency_arguments,
    latency_figures,
    latency_line,
    latency_overrides,
    timed_embedding,
    timed_pass_at_limit,
)
from brain.benchmarks.locomo_metrics import KS, mean_percent, ndcg_at, recall_at
from brain.embedders import get_embedder
from brain.embedding import memories_embed
from brain.models import Memory, WriteSurface
from brain.search import recall
from config import collector

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
METHODS = ("bm25", "lexical", "vector", "hybrid", "hybrid_mmr")
# The LoCoMo paper's DRAGON retriever, dialog level (Table 3): the bar to aim for.
DRAGON = {5: 58.8, 10: 67.5, 25: 79.9, 50: 84.8}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def add_arguments(parser) -> None:
    parser.add_argument(
        "--data",
        default=str(Path(settings.BASE_DIR).parent / "shared" / "benchmarks" / "locomo10.json"),
        help="Path to locomo10.json (read at run time, never copied).",
    )
    parser.add_argument(
        "--database", default="brain_bench", help="Database to load into (created if missing)."
    )
    parser.add_argument("--conversations", type=int, default=0, help="Use only the first N conversations.")
    parser.add_argument(
        "--text-format",
        choices=("speaker_date", "speaker", "plain"),
        default="speaker_date",
        help="What a turn's memory text holds besides its words: speaker and session date, speaker, or nothing.",
    )
    parser.add_argument(
        "--no-captions", action="store_true", help="Leave shared photos' captions out of the text."
    )
    parser.add_argument("--rrf-k", type=int, default=None, help="Override BRAIN_RECALL RRF_K.")
    parser.add_argument(
        "--weights",
        default=None,
        help='Override the tier weights, e.g. \'{"fts": 1, "trigram": 0.5, "vector": 1}\'.',
    )
    parser.add_argument("--mmr-lambda", type=float, default=0.7, help="λ of the hybrid_mmr method.")
    parser.add_argument("--keep", action="store_true", help="Keep the loaded tenants (default: delete them).")
    parser.add_argument(
        "--reuse", action="store_true", help="Reuse tenants kept by an earlier --keep run (implies --keep)."
    )
    parser.add_argument(
        "--trigram-max-words", type=int, default=None, help="Override BRAIN_RECALL TRIGRAM_MAX_WORDS."
    )
    parser.add_argument(
        "--ablation",
        nargs="?",
        const="levers",
        choices=("levers", "full"),
        default=None,
        help="Also measure the feature reranker's levers on hybrid: each alone and all ('full': also all but each).",
    )
    parser.add_argument(
        "--reranker",
        default=None,
        help='FeatureReranker options for the hybrid methods, e.g. \'{"NEIGHBOURS": 0.3}\' ("none": no reranker).',
    )
    parser.add_argument(
        "--methods",
        default=",".join(METHODS),
        help=f"Comma-separated methods to measure (default all: {','.join(METHODS)}).",
    )
    parser.add_argument(
        "--conversations-from", type=int, default=0, help="Skip the first N conversations (e.g. 5: 5-9)."
    )
    parser.add_argument(
        "--lexical-scoring",
        choices=("bm25", "ts_rank_cd"),
        default=None,
        help="Override BRAIN_RECALL LEXICAL_SCORING.",
    )
    add_latency_arguments(parser)


# --- Loading ------------------------------------------------------------------------------------------------


def turn_text(turn: dict, *, speaker_date: str, text_format: str, captions: bool) -> str:
    text = turn.get("text", "").strip()
    if captions and turn.get("blip_caption"):
        text = f"{text} [shared a photo: {turn['blip_caption']}]".strip()
    if text_format == "speaker_date":
        return f"{turn['speaker']} ({speaker_date}): {text}"
    if text_format == "speaker":
        return f"{turn['speaker']}: {text}"
    return text


def sessions(conversation: dict):
    numbers = sorted(
        int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k) and conversation[k]
    )
    for n in numbers:
        yield n, conversation.get(f"session_{n}_date_time", ""), conversation[f"session_{n}"]


def session_day(date_time: str):
    """ "1:56 pm on 8 May, 2023" -> date(2023, 5, 8); None when unreadable."""
    try:
        return datetime.strptime(date_time.strip(), "%I:%M %p on %d %B, %Y").date()
    except ValueError:
        return None


def turn_payload(number: int, date: str, turn: dict, position: int) -> dict:
    """A turn's structured fields: speaker, caption, event date, its place in the conversation (the feature
    reranker's fields: brain.search.rerankers)."""
    day = session_day(date)
    return {
        "dia_id": turn["dia_id"],
        "session": number,
        "date": date,
        "speaker": turn["speaker"],
        "caption": turn.get("blip_caption") or "",
        "occurred_at": day.isoformat() if day else "",
        "thread": f"session {number}",
        "position": position,
    }


def reference_day(conversation: dict):
    """The conversation's "now": its last session's date (the questions carry no date of their own)."""
    days = [session_day(date) for _, date, _ in sessions(conversation)]
    return max((d for d in days if d), default=None)


def refresh_payloads(tenant, sample: dict) -> None:
    """Reused tenants loaded before the payload gained fields: rewrite the payloads (text unchanged)."""
    wanted, position = {}, 0
    for number, date, turns in sessions(sample["conversation"]):
        for turn in turns:
            wanted[turn["dia_id"]] = turn_payload(number, date, turn, position)
            position += 1
    stale = [m for m in Memory.objects.for_tenant(tenant) if m.payload != wanted.get(m.payload["dia_id"])]
    for memory in stale:
        memory.payload = wanted[memory.payload["dia_id"]]
    Memory.objects.for_tenant(tenant).bulk_update(stale, ["payload"], batch_size=500)


def load_conversation(
    sample: dict, *, text_format: str, captions: bool, stdout, reuse: bool = False
) -> tuple[object, dict[str, int]]:
    """One tenant holding the conversation's turns as memories; returns it and dia_id -> memory id.

    With `reuse`, a tenant kept by an earlier run (`--keep`) with the same text format, captions and
    embedder is used as is (for sweeps over recall settings without re-embedding).
    """
    slug = f"locomo-{sample['sample_id']}-{text_format}{'' if captions else '-nocap'}".lower()
    Tenant = apps.get_model("tenancy", "Tenant")
    existing = Tenant.objects.filter(slug=slug).first() if reuse else None
    if existing is not None:
        rows = Memory.objects.for_tenant(existing)
        complete = rows.exists() and not rows.exclude(embedding_model=get_embedder().name).exists()
        if complete:
            stdout.write(f"  {sample['sample_id']}: reusing {rows.count()} loaded turns")
            refresh_payloads(existing, sample)
            return existing, {p["dia_id"]: pk for pk, p in rows.values_list("pk", "payload")}
    tenant = fresh_tenant(slug, f"LoCoMo {sample['sample_id']}")
    rows = []
    for number, date, turns in sessions(sample["conversation"]):
        for turn in turns:
            rows.append(
                Memory(
                    tenant=tenant,
                    type="chat",
                    scope_kind="conversation",
                    scope_id=str(sample["sample_id"]),
                    text=turn_text(turn, speaker_date=date, text_format=text_format, captions=captions),
                    payload=turn_payload(number, date, turn, len(rows)),
                    surface=WriteSurface.IMPORT,
                    confidence=0.7,
                )
            )
    Memory.objects.bulk_create(rows, batch_size=1000)
    ids = [m.pk for m in rows]
    started = time.perf_counter()
    memories_embed(tenant_id=tenant.pk, memory_ids=ids)
    with connection.cursor() as cursor:  # fresh statistics, as autovacuum would give a real tenant
        cursor.execute("ANALYZE brain_memory")
    stdout.write(
        f"  {sample['sample_id']}: {len(rows)} turns loaded and embedded in {time.perf_counter() - started:.1f}s"
    )
    return tenant, {m.payload["dia_id"]: m.pk for m in rows}


def evidence_ids(evidence: list[str], dia_to_id: dict[str, int]) -> set[int]:
    """Memory ids of a question's evidence; tolerates the data's "D8:6; D9:17" and "D:11:26" forms."""
    found = set()
    for item in evidence:
        for session, turn in _EVIDENCE.findall(str(item)):
            memory_id = dia_to_id.get(f"D{int(session)}:{int(turn)}")
            if memory_id is not None:
                found.add(memory_id)
    return found


# --- BM25 baseline ------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be been but by can could did do does for from had has have he her him his how i if "
    "in into is it its me my no not of on or our she so that the their them then there they this to was "
    "we were what when where which who whom why will with would you your".split()
)


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


class BM25:
    """Okapi BM25 (k1=1.2, b=0.75), lower-cased word tokens, English stop words dropped, no stemming."""

    def __init__(self, documents: dict[int, str], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = {doc_id: Counter(tokens(text)) for doc_id, text in documents.items()}
        self.lengths = {doc_id: sum(c.values()) for doc_id, c in self.docs.items()}
        self.avg = sum(self.lengths.values()) / max(len(self.docs), 1)
        df = Counter(term for c in self.docs.values() for term in c)
        n = len(self.docs)
        self.idf = {term: math.log(1 + (n - d + 0.5) / (d + 0.5)) for term, d in df.items()}

    def search(self, query: str, limit: int) -> list[int]:
        terms = set(tokens(query))
        scores = []
        for doc_id, counts in self.docs.items():
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.lengths[doc_id] / self.avg)
            for term in terms:
                tf = counts.get(term)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            if score > 0:
                scores.append((-score, doc_id))
        scores.sort()
        return [doc_id for _, doc_id in scores[:limit]]


def run(options: dict, stdout) -> dict:
    data_path = Path(options["data"])
    if not data_path.exists():
        raise SystemExit(f"LoCoMo data not found at {data_path}: pass --data path/to/locomo10.json")
    samples = json.loads(data_path.read_text())
    methods = tuple(m for m in METHODS if m in options.get("methods", ",".join(METHODS)).split(","))
    first = options.get("conversations_from") or 0
    samples = samples[first : first + options["conversations"] if options.get("conversations") else None]
    use_bench_database(options["database"], stdout)
    overrides = {}
    if options.get("rrf_k") is not None:
        overrides["RRF_K"] = options["rrf_k"]
    if options.get("trigram_max_words") is not None:
        overrides["TRIGRAM_MAX_WORDS"] = options["trigram_max_words"]
    if options.get("lexical_scoring"):
        overrides["LEXICAL_SCORING"] = options["lexical_scoring"]
    if options.get("weights"):
        overrides["WEIGHTS"] = json.loads(options["weights"])
    overrides.update(latency_overrides(options))
    if overrides:
        settings.BRAIN_RECALL = {**getattr(settings, "BRAIN_RECALL", {}), **overrides}
    if options.get("reranker"):
        settings.BRAIN_RERANKER = (
            None
            if options["reranker"] == "none"
            else {"BACKEND": "brain.search.rerankers.FeatureReranker", **json.loads(options["reranker"])}
        )
    ablation_settings = (
        settings_to_measure(chosen_weights(), leave_one_out=options["ablation"] == "full")
        if options.get("ablation")
        else {}
    )
    embedder = get_embedder()
    stdout.write(
        f"LoCoMo: {len(samples)} conversations, embedder {embedder.name} (queries: "
        f"{embedder.query_encoder().name}), text {options['text_format']}, "
        f"recall settings {getattr(settings, 'BRAIN_RECALL', {})}, reranker {settings.BRAIN_RERANKER}"
    )

    per_question: list[dict] = []
    latencies: dict[str, list[float]] = defaultdict(list)
    embedding_ms: list[float] = []  # each question's own embedding, timed one by one
    tenants = []
    timed_conversation = None
    serving = ExitStack()  # a serving process's collector (brain.benchmarks.locomo_latency)
    serving.enter_context(collector.serving())
    for sample in samples:
        tenant, dia_to_id = load_conversation(
            sample,
            text_format=options["text_format"],
            captions=not options["no_captions"],
            stdout=stdout,
            reuse=options["reuse"],
        )
        tenants.append(tenant)
        questions = [
            (qa, gold)
            for qa in sample["qa"]
            if (gold := evidence_ids(qa.get("evidence") or [], dia_to_id)) and qa.get("question")
        ]
        texts = dict(Memory.objects.for_tenant(tenant).values_list("pk", "text"))
        bm25 = BM25(texts) if "bm25" in methods else None
        if timed_conversation is None:
            timed_conversation = (sample["sample_id"], tenant, questions)
        reference = reference_day(sample["conversation"])
        for qa, gold in questions:
            vector = timed_embedding(embedder, qa["question"], embedding_ms)
            ranked = {"bm25": bm25.search(qa["question"], max(KS))} if bm25 else {}
            for method, mode, lam in (
                ("lexical", "lexical", None),
                ("vector", "vector", None),
                ("hybrid", "hybrid", None),
                ("hybrid_mmr", "hybrid", options["mmr_lambda"]),
            ):
                if method not in methods:
                    continue
                began = time.perf_counter()
                results = recall(
                    tenant_id=tenant.pk,
                    query=qa["question"],
                    limit=max(KS),
                    mode=mode,
                    mmr_lambda=lam,
                    reference_date=reference,
                    query_embedding=vector,
                    embedding_model=embedder.name,
                )
                latencies[method].append((time.perf_counter() - began) * 1000)
                collector.collect_after_response()
                ranked[method] = [r.id for r in results]
            if ablation_settings:
                candidates, elapsed = recorded_candidates(
                    tenant_id=tenant.pk,
                    query=qa["question"],
                    vector=vector,
                    model=embedder.name,
                    limit=max(KS),
                    reference=reference,
                )
                for label, reranker_options in ablation_settings.items():
                    began = time.perf_counter()
                    ranked[label] = reranked_ids(
                        reranker_options, qa["question"], candidates, reference, max(KS)
                    )
                    latencies[f"rerank {label}"].append((time.perf_counter() - began) * 1000)
            per_question.append(
                {
                    "category": qa.get("category"),
                    "gold": gold,
                    "ranked": ranked,
                    "sample": samples.index(sample),
                }
            )
        stdout.write(f"    {len(questions)} questions asked")
    serving.close()

    figures: dict = {f"recall_at_{k}": {} for k in KS}
    figures["ndcg_at_10"] = {}
    figures["by_category"] = {}
    for method in methods:
        for k in KS:
            figures[f"recall_at_{k}"][method] = mean_percent(
                [recall_at(q["ranked"][method], q["gold"], k) for q in per_question]
            )
        figures["ndcg_at_10"][method] = mean_percent(
            [ndcg_at(q["ranked"][method], q["gold"]) for q in per_question]
        )
    for category, label in CATEGORIES.items():
        subset = [q for q in per_question if q["category"] == category]
        figures["by_category"][label] = {
            "questions": len(subset),
            **{
                method: {
                    **{
                        f"R@{k}": mean_percent([recall_at(q["ranked"][method], q["gold"], k) for q in subset])
                        for k in KS
                    },
                    "NDCG@10": mean_percent([ndcg_at(q["ranked"][method], q["gold"]) for q in subset]),
                }
                for method in methods
            },
        }
    timed = {m: v for m, v in latencies.items() if not m.startswith("rerank ")}
    figures.update(latency_figures(timed, embedding_ms, limit=max(KS)))
    if ablation_settings:
        dump = Path(settings.BASE_DIR) / "var" / "locomo-last-ablation.json"
        dump.parent.mkdir(exist_ok=True)
        dump.write_text(json.dumps([{**q, "gold": sorted(q["gold"])} for q in per_question]))
        figures["ablation"] = ablation_figures(per_question, ablation_settings, latencies, stdout)
        # Parameters were chosen on conversations 0-4: the others, apart.
        held_out = [q for q in per_question if q["sample"] + first >= 5]
        if held_out and len(held_out) < len(per_question):
            figures["ablation_conversations_5_9"] = ablation_figures(
                held_out, ablation_settings, latencies, stdout, title=" on conversations 5-9"
            )
    figures["questions"] = len(per_question)
    if timed_conversation is not None:
        figures["latency_at_limit_10"] = timed_pass_at_limit(
            *timed_conversation, embedder=embedder, options=options, stdout=stdout
        )
    figures["embedder"] = embedder.name
    figures["query_encoder"] = embedder.query_encoder().name
    figures["text_format"] = options["text_format"]
    figures["dragon_dialog_level"] = {f"recall_at_{k}": v for k, v in DRAGON.items()}
    if {"hybrid", "bm25"} <= set(methods):
        figures["hybrid_minus_bm25_recall_at_10"] = round(
            figures["recall_at_10"]["hybrid"] - figures["recall_at_10"]["bm25"], 1
        )

    stdout.write(f"\n{len(per_question)} questions with evidence")
    stdout.write(f"{'method':<12}" + "".join(f"{'R@' + str(k):>8}" for k in KS) + f"{'NDCG@10':>9}")
    for method in methods:
        stdout.write(
            f"{method:<12}"
            + "".join(f"{figures[f'recall_at_{k}'][method]:>8.1f}" for k in KS)
            + f"{figures['ndcg_at_10'][method]:>9.1f}"
        )
    stdout.write(f"{'DRAGON':<12}" + "".join(f"{DRAGON[k]:>8.1f}" for k in KS))
    for label, block in figures["by_category"].items():
        stdout.write(f"\n{label} ({block['questions']} questions)")
        for method in methods:
            row = block[method]
            stdout.write(
                f"  {method:<12}" + "".join(f"{row[f'R@{k}']:>8.1f}" for k in KS) + f"{row['NDCG@10']:>9.1f}"
            )
    stdout.write("\n" + latency_line(figures, f"at limit {max(KS)}, every conversation"))
    if "latency_at_limit_10" in figures:
        stdout.write(latency_line(figures["latency_at_limit_10"], "at limit 10, one conversation"))
    if not (options.get("keep") or options.get("reuse")):
        for tenant in tenants:
            tenant.delete()
    return figures
