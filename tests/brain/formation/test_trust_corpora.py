"""The red-team, benign look-alike, personal-data and extraction corpora (brain/benchmarks/data/*.jsonl).

Every attack is refused on the surface it arrives by (a memory text, a ticket reply, subject or classification,
a chat, split across messages); every benign look-alike is learned; every customer's personal detail is
refused while the business's published contacts are kept. Pure: the gate, the extractor and the miner only.
"""

import pytest

from brain.benchmarks import trust

ATTACKS = trust.load("attacks")
BENIGN = trust.load("benign")
PERSONAL = trust.load("personal_data")


def test_the_corpora_are_as_large_as_the_issue_asks():
    assert len(ATTACKS) >= 200 and len(BENIGN) >= 200 and len(PERSONAL) >= 100
    assert len(trust.load("extraction")) >= 300
    families = {c["family"] for c in ATTACKS}
    assert {"direct", "paraphrased", "multilingual", "split", "subject", "classification"} <= families


@pytest.mark.parametrize("case", ATTACKS, ids=[c["id"] for c in ATTACKS])
def test_no_attack_is_admitted(case):
    assert not trust.attack_admitted(case)


@pytest.mark.parametrize("case", BENIGN, ids=[c["id"] for c in BENIGN])
def test_benign_look_alikes_are_learned(case):
    assert trust.benign_rejection(case) is None


@pytest.mark.parametrize("case", PERSONAL, ids=[c["id"] for c in PERSONAL])
def test_personal_data_is_refused_and_published_contacts_are_kept(case):
    assert trust.personal_data_admitted(case) is (case["kind"] is None)


def test_extraction_admits_no_sign_off_no_personal_data_and_keeps_the_facts():
    figures = trust.extraction_figures()
    assert figures.sign_offs_admitted == 0 and figures.personal_data_admitted == 0, figures.examples
    assert figures.fragments == 0, figures.examples
    assert figures.facts_kept / figures.expected_facts >= 0.9
