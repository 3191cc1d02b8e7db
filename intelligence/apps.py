from django.apps import AppConfig


class IntelligenceConfig(AppConfig):
    name = "intelligence"
    verbose_name = "Intelligence (agents)"

    def home_cards(self, tenant) -> list[dict]:
        """The overview page's card: how many agents, linking to the agents list."""
        from django.urls import reverse

        from .selectors import agents_for_tenant

        return [
            {
                "label": "agents",
                "value": agents_for_tenant(tenant).count(),
                "url": reverse("intelligence-agents"),
            }
        ]
