package api

import "github.com/loreweave/loreweave/app/store"

var webhookParam = pathParam("webhookId", "The webhook's id.")

// webhookPaths documents the webhook routes (owner or admin).
func webhookPaths() obj {
	events := obj{"type": "array", "minItems": 1, "items": obj{"type": "string", "enum": store.WebhookEvents()},
		"description": "The kinds of change to send: the world stream's kinds and document.content (a content write)."}
	return obj{
		"/api/v1/worlds/{worldId}/webhooks": obj{
			"parameters": []obj{worldParam},
			"get":        operation("listWebhooks", "The world's webhooks, oldest first, their secrets masked (owner or admin).", "200", listOf("Webhook"), "403", "404"),
			"post": withBody(operation("createWebhook", "Register a webhook (owner or admin): the world's changes of the chosen kinds are POSTed to url, signed with the secret the answer shows in full this once "+
				"(Loreweave-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">). Only http(s) URLs; a loopback, private, link-local or other non-public target is refused (422 private_target) unless the operator allows them (--webhooks-allow-private). "+
				"A world has at most 20 webhooks (409 too_many_webhooks).", "201", ref("Webhook"), "400", "403", "404", "409", "413", "415", "422"),
				object(obj{"url": str("An absolute http:// or https:// URL, at most 2,000 characters."), "events": events, "enabled": obj{"type": "boolean", "description": "Optional, default true."}}, "enabled")),
		},
		"/api/v1/worlds/{worldId}/webhooks/{webhookId}": obj{
			"parameters": []obj{worldParam, webhookParam},
			"get":        operation("getWebhook", "One webhook, its secret masked.", "200", ref("Webhook"), "403", "404"),
			"patch": withBody(operation("updateWebhook", "Change a webhook's url or events, enable or disable it, or rotate its secret (rotateSecret: true; the answer shows the new one in full, this once). "+
				"Enabling a webhook the server disabled clears its failures and the reason; disabling one fails its pending deliveries. A body with none of the members answers 400 nothing_to_change.", "200", ref("Webhook"), "400", "403", "404", "413", "415", "422"),
				object(obj{"url": str("A new URL, checked as on create."), "events": events, "enabled": obj{"type": "boolean"}, "rotateSecret": obj{"type": "boolean"}}, "url", "events", "enabled", "rotateSecret")),
			"delete": operation("deleteWebhook", "Delete a webhook and its delivery log.", "204", nil, "403", "404"),
		},
		"/api/v1/worlds/{worldId}/webhooks/{webhookId}/deliveries": obj{
			"parameters": []obj{worldParam, webhookParam},
			"get": withParams(operation("listWebhookDeliveries", "The webhook's delivery log, newest first (kept 30 days): each delivery's status, attempts, last HTTP status, error and response time. "+
				"A failed attempt is retried after 30 s, then after waits that double up to an hour, for a day; then the delivery fails. After 5 deliveries in a row failed so, the webhook is disabled, with the reason.", "200", listOf("WebhookDelivery"), "403", "404", "422"), pageQuery, perPageQ),
		},
		"/api/v1/worlds/{worldId}/webhooks/{webhookId}/test": obj{
			"parameters": []obj{worldParam, webhookParam},
			"post":       operation("testWebhook", "Send a ping event to the webhook now and answer with its delivery, whatever the receiver said (it is in the log, not retried, and does not count towards disabling).", "200", ref("WebhookDelivery"), "403", "404"),
		},
	}
}

// webhookSchemas are the schemas webhookPaths refers to.
func webhookSchemas() obj {
	return obj{
		"Webhook": object(obj{
			"id": str("Webhook id."), "worldId": str("World id."), "url": str("Where deliveries are POSTed."),
			"events":              arrayOf(obj{"type": "string", "enum": store.WebhookEvents()}),
			"enabled":             obj{"type": "boolean"},
			"disabledReason":      str("Why the server disabled it after repeated failures; empty otherwise."),
			"consecutiveFailures": integer("Deliveries in a row that failed for good (5 disable the webhook)."),
			"secret":              str("The signing secret (whsec_…): in full only in the answer that made it; masked elsewhere."),
			"created":             dateTime(), "updated": dateTime(),
		}),
		"WebhookDelivery": object(obj{
			"id": str("Delivery id, also sent as the Loreweave-Delivery header and the payload's id: the same on every attempt."), "webhookId": str("Webhook id."),
			"seq":         integer("The change's position in the server's outbox (0 for a ping)."),
			"event":       str("The change's kind (or ping)."),
			"status":      obj{"type": "string", "enum": []string{store.DeliveryPending, store.DeliverySucceeded, store.DeliveryFailed}},
			"attempts":    integer("Attempts made."),
			"nextAttempt": obj{"type": "string", "description": "When pending: when the next attempt is due; empty otherwise."},
			"lastStatus":  integer("The HTTP status of the last attempt; 0 when there was no answer."),
			"lastError":   str("Why the last attempt failed, in words; empty after a success."),
			"responseMs":  integer("How long the last attempt took, in milliseconds."),
			"created":     dateTime(),
			"delivered":   obj{"type": "string", "description": "When it was delivered; empty until then."},
			"payload": object(obj{
				"id": str("Delivery id."), "type": str("The change's kind."), "world": str("World id."), "document": str("Document id, for document events."),
				"era": str("The era of the change; empty for the main line."), "created": str("When the change was committed."),
				"data": obj{"type": "object", "description": "What the change says, as in the world stream's events: document {id, name, documentType, parentId, eraId}, era, project, userId and role, tool; webhook for a ping."},
			}),
		}),
	}
}
