from django import template

register = template.Library()


@register.simple_tag
def suggestion_count(agent) -> int:
    """How many suggestions of `agent` wait for review: the count badge of the agent's Suggestions tab."""
    from intelligence.selectors import suggestion_count as count

    # The header and the Intelligence tab's card both show it: counted once per agent object (one request).
    if getattr(agent, "_suggestion_count", None) is None:
        agent._suggestion_count = count(agent)
    return agent._suggestion_count
