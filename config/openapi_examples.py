"""Request and (abridged) response examples of the calls agents and helpdesks make, by operationId.

The README's curl examples show the same bodies; keep the two alike when a shape changes.
"""

from typing import Any

_MEMORY = {
    "id": 42,
    "tag": "[mem:42]",
    "type": "agent",
    "text": "Always greet customers by their first name.",
    "strength": "hard_rule",
    "category": "instruction",
    "status": "active",
    "score": 0.031,
    "explanation": {"tiers": ["lexical", "vector"]},
}

_OUTCOME = {"result": "added", "memory_id": 57, "reason": "new_fact", "related_memory_id": None}

_REJECTED = {
    "error": {
        "code": "rejected",
        "message": "The memory was not written: the formation gate rejected it (bare_url). Change the text and retry.",
        "fields": {"text": ["bare_url"]},
    },
    "outcome": {"result": "rejected", "memory_id": None, "reason": "bare_url", "related_memory_id": None},
}

EXAMPLES: dict[str, dict[str, Any]] = {
    "v1_agents_context_create": {
        "request": {
            "conversation": "Customer: Hi, my parcel has not arrived yet.",
            "conversation_id": "chat-1",
            "provider": "meta_ads",
            "tags": ["vip"],
        },
        "responses": {
            200: {
                "trace_id": 901,
                "agent_id": 7,
                "sections": [
                    {"name": "hard_rule", "chars": 52, "memory_ids": [42], "tags": ["[mem:42]"], "text": "…"}
                ],
                "chars": {"hard_rule": 52, "brand_intelligence": 640, "total": 692},
                "injected_memory_ids": [42],
                "omitted": [],
                "omitted_counts": {},
                "notes_matching": 2,
                "prompt": "## Rules\n- [mem:42] Always greet customers by their first name.\n…",
                "conversation": {"id": 31, "external_id": "chat-1", "created": True},
            }
        },
    },
    "v1_brain_search_create": {
        "request": {"query": "how to greet customers", "limit": 5},
        "responses": {
            200: {"query": "how to greet customers", "mode": "hybrid", "count": 1, "results": [_MEMORY]}
        },
    },
    "v1_brain_ask_create": {
        "request": {"question": "How should I greet customers?"},
        "responses": {
            200: {
                "question": "How should I greet customers?",
                "answer": "Greet them by their first name [mem:42].",
                "citations": [42],
                "invalid_citations": [],
                "provider": "local",
                "memories": [_MEMORY],
            }
        },
    },
    "v1_brain_memory_append_create": {
        "request": {"agent_id": "7", "text": "Bo prefers replies in Swedish.", "run_id": "run-5"},
        "responses": {201: {"outcome": _OUTCOME}, 422: _REJECTED},
    },
    "v1_brain_lessons_create": {
        "request": {
            "app_id": "shopify",
            "template": "Refunds over {amount} need a manager's approval.",
            "values": {"amount": "200 EUR"},
            "outcome": "success",
        },
        "responses": {
            201: {"outcome": {**_OUTCOME, "text": "Refunds over 200 EUR need a manager's approval."}}
        },
    },
    "v1_brain_chat_mine_create": {
        "request": {
            "conversation_id": "chat-9",
            "agent_id": "7",
            "messages": [
                {"role": "user", "content": "I prefer email over phone calls."},
                {"role": "assistant", "content": "Noted, I will email you."},
            ],
        },
        "responses": {
            201: {
                "miner": "local",
                "outcomes": [{**_OUTCOME, "text": "The customer prefers email over phone calls."}],
            }
        },
    },
    "v1_agents_memories_create": {
        "request": {
            "content": "Always greet customers by their first name.",
            "category": "instruction",
            "strength": "hard_rule",
            "status": "active",
        },
        "responses": {
            201: {
                "result": "added",
                "reason": "manual",
                "related_memory_id": None,
                "memory": {"id": 42, "…": "…"},
            },
            422: {**_REJECTED, "outcome": None},
        },
    },
    "v1_client_brain_context_create": {
        "request": {
            "subject": "Tent pole snapped on first trip",
            "latest_customer_message": "My tent pole snapped on the first night.",
            "mode": "initial",
        },
        "responses": {
            200: {
                "sections": {
                    "business": ["[mem:12] We offer a two-year warranty on tent poles."],
                    "voice": ["…"],
                },
                "prompt": "…",
                "omitted": {"business": 0, "voice": 0, "issues": 0, "process": 0},
            }
        },
    },
    "v1_verdicts_create": {
        "request": {
            "trace_id": 901,
            "verdict": "pass",
            "response_text": "Hi Ana [mem:42], your parcel ships today.",
        },
        "responses": {201: {"applied": True, "verdict": "pass", "moved": [{"memory_id": 42, "delta": 0.05}]}},
    },
    "v1_conversations_feedback_create": {
        "request": {"rating": -1, "comment": "Quoted the old returns window."},
        "responses": {
            200: {
                "id": 31,
                "kind": "conversation",
                "feedback_rating": -1,
                "feedback_comment": "…",
                "history": [],
            }
        },
    },
    "v1_tickets_create": {
        "request": {"external_id": "T-100", "subject": "Tent pole snapped", "status": "open"},
        "responses": {201: {"external_id": "T-100", "subject": "Tent pole snapped", "status": "open"}},
    },
    "v1_tickets_messages_create": {
        "request": {
            "direction": "outbound",
            "body": "We have sent a replacement pole set.",
            "author": "Helena",
        },
    },
    "v1_tickets_status_create": {"request": {"status": "solved"}},
}
