from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """`{{ labels|get_item:memory.strength }}`: a dict lookup by a variable key ("" when absent)."""
    return (mapping or {}).get(key, key)


@register.filter
def percent_of(value, total):
    try:
        return min(100, round(100 * int(value) / int(total))) if int(total) else 0
    except (TypeError, ValueError):
        return 0
