"""The Intelligence operator UI: the agents list and each agent's Intelligence tab, Conversations,
Suggestions and Runs pages (`views/`), their forms (`forms.py`) and routes (`urls.py`)."""
