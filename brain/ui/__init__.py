"""Brain's operator UI: the Client Brain dashboard (Insights → Analytics → Client Brain)."""
