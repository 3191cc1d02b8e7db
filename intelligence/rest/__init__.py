"""Intelligence's REST endpoints (/api/v1/agents/..., conversations, runs, verdicts), on the tenancy base
(tickets/tenancy/drf: the tenant from the key or the session). `views/` and `serializers/` have one part
each: `agents` (agents, their memories, the runtime context), `runs` (conversations and runs as records,
proposed actions, outcomes, verdicts) and, for views, `feedback` (ratings and the suggestions queue);
`urls.py` routes them."""
