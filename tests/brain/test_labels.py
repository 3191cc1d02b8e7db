"""Issue 28, item 5: codes in the product's words, the code on hover (brain/labels.py and the `brain_labels`
template library), counts pluralised, a payload read as fields rather than a Python repr."""

import pytest
from django.template import Context, Template

from brain.client_brain.typed import display_value, render_value
from brain.labels import KINDS, label
from tickets.tenancy.charts import bar_chart


def render(source: str, **context) -> str:
    return Template("{% load brain_labels %}" + source).render(Context(context))


@pytest.mark.parametrize(
    "kind, code, words",
    [
        ("strength", "hard_rule", "Rule"),
        ("strength", "heuristic", "Pattern"),
        ("strength", "context_note", "Note"),
        ("category", "fact", "Fact"),
        ("status", "stale", "Stale"),
        ("source", "suggested", "Suggested"),
        ("provider", "meta_ads", "Meta Ads"),
        ("provider", "dv360", "Display & Video 360"),
        ("type", "issues", "Issues"),
        ("result", "added", "kept as a new memory"),
        ("reason", "new_fact", "nothing like it was known"),
        ("reason", "instruction_override", "it tries to override the agent's instructions"),
    ],
)
def test_a_code_reads_in_the_products_words(kind, code, words):
    assert label(kind, code) == words


@pytest.mark.parametrize("kind", KINDS)
def test_an_unknown_code_reads_as_itself_spaced(kind):
    assert label(kind, "some_legacy_value") == "some legacy value"
    assert label(kind, None) == ""


def test_coded_shows_the_label_and_keeps_the_code_on_hover():
    html = render('{{ s|coded:"strength" }}', s="hard_rule")
    assert html == '<span class="coded" title="hard_rule" data-code="hard_rule">Rule</span>'
    assert render('{{ s|coded:"provider" }}', s='x"><script>') == (
        '<span class="coded" title="x&quot;&gt;&lt;script&gt;" data-code="x&quot;&gt;&lt;script&gt;">'
        "x&quot;&gt;&lt;script&gt;</span>"
    )
    assert render('{{ s|coded:"status" }}', s="") == ""


def test_a_payload_reads_as_fields_not_a_python_repr():
    payload = {
        "campaign_id": "spring-sale",
        "daily_budget": 120,
        "channels": ["search", "display"],
        "dry": False,
    }
    text = render("{{ p|readable }}", p=payload)
    assert text == "campaign id: spring-sale; daily budget: 120; channels: search, display; dry: no"
    assert "{" not in text and "'" not in text


@pytest.mark.parametrize("frequency, words", [(1, "(seen once)"), (2, "(seen twice)"), (7, "(seen 7 times)")])
def test_an_issue_says_how_often_it_was_seen_in_words(frequency, words):
    payload = {"pattern": "parcel late", "best_resolution": "send the tracking link", "frequency": frequency}
    assert display_value("issues", payload).endswith(words)
    assert "seen" not in render_value("issues", payload)  # the stored text carries no count (issue 27)


def test_a_chart_bar_counts_one_row_in_the_singular():
    chart = bar_chart([("Voice", 1, "#000"), ("Issues", 3, "#000")])
    assert [m.title for m in chart.marks] == ["Voice: 1 row", "Issues: 3 rows"]
