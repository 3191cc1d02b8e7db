"""Brain's REST endpoints (/api/v1/brain/..., /api/v1/client-brain/...): search and ask, the formation write
surfaces and the graph, and the Client Brain API. `views/` and `serializers/` have one part each for those
three; `urls.py` routes them. They stand on the tenancy base (tickets.tenancy.drf) and call brain's own
modules directly, never its public facade (`brain.api` is for the other apps).
"""
