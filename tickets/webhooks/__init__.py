"""Webhooks: a tenant admin registers HTTPS endpoints for events; deliveries are signed, retried, recorded.

Events: memory.learned, memory.superseded, memory.archived, suggestion.proposed (from brain.events) and
learning.attempt_failed (the helpdesk's learning). Each delivery is a POST of
{"id", "event", "created_at", "tenant", "data"} with headers `X-Brain-Event`, `X-Brain-Delivery`,
`X-Brain-Timestamp` (Unix seconds) and `X-Brain-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>" with
the endpoint's secret>`; a receiver recomputes it and refuses old timestamps. Delivery runs on a Celery
worker (`tickets.deliver_webhook`), retried with exponential backoff on an error or a non-2xx answer.
"""
