"""Issue 28, item 5: every model the admin lists is named in the plural English uses ("Feedback historys",
"Webhook deliverys" were Django's default of adding an s)."""

import re

import pytest
from django.contrib import admin

# Nouns the admin names without a plural form: a history, an activity log, a sum of spend.
UNCOUNTABLE = {"history", "activity", "spend"}


def english_plural(name: str) -> str:
    *head, last = name.split(" ")
    if last in UNCOUNTABLE:
        plural = last
    elif re.search(r"[^aeiou]y$", last):
        plural = last[:-1] + "ies"
    elif re.search(r"(s|x|z|ch|sh)$", last):
        plural = last + "es"
    else:
        plural = last + "s"
    return " ".join([*head, plural])


@pytest.mark.parametrize(
    "model", sorted(admin.site._registry, key=lambda m: m._meta.label), ids=lambda m: m._meta.label
)
def test_every_admin_model_has_an_english_plural(model):
    meta = model._meta
    assert str(meta.verbose_name_plural) == english_plural(str(meta.verbose_name)), meta.label
