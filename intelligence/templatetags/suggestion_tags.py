from django import template

register = template.Library()


@register.simple_tag
def suggestion_count(agent) -> int:
    """How many suggestions of `agent` wait for review: the count badge of the agent's Suggestions tab."""
    from intelligence.suggestions import suggestion_count as count

    return count(agent)
