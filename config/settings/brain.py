"""The Brain's own settings. Each part (retrieval, formation, Client Brain, budgets) keeps its section here."""

from .env import env_str

# --- LLM provider (decision 5) -----------------------------------------------------------------------
# "local" (deterministic, no key) or "openai" (any OpenAI-compatible chat-completions endpoint).
_LLM = env_str("BRAIN_LLM_PROVIDER", "local")
BRAIN_LLM_PROVIDER = (
    {
        "BACKEND": "brain.providers.OpenAICompatibleProvider",
        "BASE_URL": env_str("BRAIN_LLM_BASE_URL", "https://api.openai.com/v1"),
        "MODEL": env_str("BRAIN_LLM_MODEL", "gpt-4o-mini"),
        "API_KEY": env_str("BRAIN_LLM_API_KEY"),
    }
    if _LLM == "openai"
    else {"BACKEND": "brain.providers.LocalProvider"}
)

# --- Benchmarks (manage.py brain_bench <name>) ----------------------------------------------------------
# name -> module with add_arguments(parser) and run(options, stdout) -> dict. Apps add their own line.
BRAIN_BENCHMARKS = {
    "locomo": "brain.benchmarks.locomo",
    "scale": "brain.benchmarks.scale",
}
