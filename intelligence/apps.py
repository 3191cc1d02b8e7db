from django.apps import AppConfig


class IntelligenceConfig(AppConfig):
    name = "intelligence"
    verbose_name = "Intelligence (agents)"
