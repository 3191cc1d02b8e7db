from django.apps import AppConfig


class IntelligenceConfig(AppConfig):
    name = "intelligence"
    verbose_name = "Intelligence (agents)"

    def ready(self) -> None:
        from tickets.tenancy.parents import register_parent
        from tickets.tenancy.ui.sections import register_section

        from . import navigation
        from .rest.errors import register_errors
        from .selectors import agent_for_tenant, conversation_for_tenant, run_for_tenant, trace_for_tenant

        # The tenancy base resolves "agent" (a URL's agent_pk, memory-append's agent_id) with the same
        # one-statement lookup the runtime context always used; brain reaches agents this way without
        # importing intelligence.
        register_parent("agent", agent_for_tenant, convert=int)
        # Conversations, runs and traces by the Brain's ids (URLs and the verdict body), in the request's tenant.
        register_parent("conversation", conversation_for_tenant, convert=int)
        register_parent("run", run_for_tenant, convert=int)
        register_parent("trace", trace_for_tenant, convert=int)

        register_errors()  # Intelligence's domain errors in the one REST error shape (config/rest.py)
        register_section(navigation, position=10)  # the "Agents" entry, first in the navigation
