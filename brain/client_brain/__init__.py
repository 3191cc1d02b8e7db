"""Client Brain (spec: client_brain.txt): typed tenant memories, initial-run recall, continuation, the
copilot memory tool, prompt rendering and the read-only analytics dashboard.

Other apps use it through `brain.api` (`client_brain_context`, `client_brain_copilot`); the typed guard
(`brain.client_brain.typed`) is shared with the producers.
"""
