"""Brain's web endpoints, in one place: search and ask, the formation write surfaces and the graph,
and the Client Brain API. They stand on the tenancy base (tickets.tenancy.drf) and call brain's own
modules directly, never its public facade (`brain.api` is for the other apps).
"""
