"""The Brain's own settings. Later parts (retrieval, formation, Client Brain, budgets) add theirs here."""
