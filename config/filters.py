"""The query-string filters of every list (django-filter, REST_FRAMEWORK's DEFAULT_FILTER_BACKENDS): a value the
schema calls invalid is a 400 naming the parameter, as a bad choice already was.

django-filter reads a boolean filter's value through a widget that turns anything but true, false, 1 and 0
into "not given", so `?is_note=maybe` listed every message while the schema says boolean (issue 29, item 4:
schemathesis' "invalid data accepted"). The lists' generated FilterSets take a boolean as `true` or `false`
(in any case), as the schema's boolean is written in a query string, and nothing else.
"""

from django import forms
from django.db import models
from django_filters import rest_framework as filters


class TrueOrFalseField(forms.Field):
    widget = forms.TextInput  # the raw text of the query string, not a select that maps it
    default_error_messages = {"invalid": "Send true or false."}

    def to_python(self, value):
        if value in (None, ""):
            return None
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise forms.ValidationError(self.error_messages["invalid"], code="invalid")


class BooleanFilter(filters.BooleanFilter):
    field_class = TrueOrFalseField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", forms.TextInput)
        super().__init__(*args, **kwargs)


class FilterSet(filters.FilterSet):
    FILTER_DEFAULTS = {
        **filters.FilterSet.FILTER_DEFAULTS,
        models.BooleanField: {"filter_class": BooleanFilter},
    }


class FilterBackend(filters.DjangoFilterBackend):
    """DRF's django-filter backend, building each view's FilterSet (`filterset_fields`) on the one above."""

    filterset_base = FilterSet
