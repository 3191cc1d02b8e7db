"""`POST /api/v1/brain/search` (recall as an endpoint for agents' tools) and `POST /api/v1/brain/ask`.

Both are reads (viewer role is enough) acting inside the caller's tenant: the tenant comes from the
API key or the signed-in user, never from the body. Bad input is a 400 saying what to fix (a
`RecallInputError`), a failing answer provider a 503 (brain/rest/errors.py).
"""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from brain.ask import brain_ask
from brain.replicas import reads_on_replica
from brain.search import recall
from tickets.tenancy import replicas
from tickets.tenancy.drf import TenantAPIView
from tickets.tenancy.models import Role

from ..serializers.search import (
    AskRequestSerializer,
    AskResponseSerializer,
    RecalledMemorySerializer,
    SearchRequestSerializer,
    SearchResponseSerializer,
)

_FILTERS = ("scope_kind", "scope_ids", "types", "statuses", "strengths", "categories", "confidence_range")


def _recall_kwargs(data: dict) -> dict:
    kwargs = {name: data[name] for name in _FILTERS if name in data}
    kwargs["mode"] = data["mode"]
    kwargs["mmr_lambda"] = data.get("mmr_lambda")
    kwargs["limit"] = data["limit"]
    kwargs["expand_graph"] = data["expand_graph"]
    return kwargs


def _memories(memories) -> list[dict]:
    return RecalledMemorySerializer([{**m.as_dict(), "tag": m.tag} for m in memories], many=True).data


class BrainSearchView(TenantAPIView):
    write_role = Role.VIEWER  # a POST only because filters do not fit a query string; nothing is written

    @extend_schema(request=SearchRequestSerializer, responses=SearchResponseSerializer)
    def post(self, request):
        serializer = SearchRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        # On a read replica when one has the memory states of the scopes searched (brain/replicas.py).
        scopes = [(data.get("scope_kind"), data.get("scope_ids"))]
        read = lambda: recall(tenant_id=self.tenant.pk, query=data["query"], **_recall_kwargs(data))  # noqa: E731
        results = reads_on_replica(self.tenant.pk, scopes, read, states_once=False)
        body = {
            "query": data["query"],
            "mode": data["mode"],
            "count": len(results),
            "results": _memories(results),
        }
        return Response(body, headers=replicas.reads_header())


class BrainAskView(TenantAPIView):
    write_role = Role.VIEWER

    @extend_schema(request=AskRequestSerializer, responses=AskResponseSerializer)
    def post(self, request):
        serializer = AskRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        answer = brain_ask(tenant_id=self.tenant.pk, question=data["question"], **_recall_kwargs(data))
        return Response(
            {
                "question": answer.question,
                "answer": answer.answer,
                "citations": answer.citations,
                "invalid_citations": answer.invalid_citations,
                "provider": answer.provider,
                "memories": _memories(answer.memories),
            }
        )
