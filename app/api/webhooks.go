package api

import (
	"encoding/json"
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// WebhookJSON is a webhook. Secret is in full only in the answers that make it (create, and
// PATCH with rotateSecret); elsewhere it is masked.
type WebhookJSON struct {
	ID             string   `json:"id"`
	WorldID        string   `json:"worldId"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Enabled        bool     `json:"enabled"`
	DisabledReason string   `json:"disabledReason"`
	Failures       int      `json:"consecutiveFailures"`
	Secret         string   `json:"secret"`
	Created        string   `json:"created"`
	Updated        string   `json:"updated"`
}

// MaskSecret shows the start and the last four characters of a webhook's secret.
func MaskSecret(secret string) string {
	if len(secret) < 10 {
		return "whsec_…"
	}
	return "whsec_…" + secret[len(secret)-4:]
}

func webhookJSON(h store.Webhook, revealSecret bool) WebhookJSON {
	j := WebhookJSON{ID: h.ID, WorldID: h.WorldID, URL: h.URL, Events: h.Events, Enabled: h.Enabled, DisabledReason: h.DisabledReason,
		Failures: h.Failures, Secret: MaskSecret(h.Secret), Created: apiTime(h.Created), Updated: apiTime(h.Updated)}
	if revealSecret {
		j.Secret = h.Secret
	}
	if j.Events == nil {
		j.Events = []string{}
	}
	return j
}

// DeliveryJSON is one delivery in a webhook's log.
type DeliveryJSON struct {
	ID          string          `json:"id"`
	WebhookID   string          `json:"webhookId"`
	Seq         int64           `json:"seq"`
	Event       string          `json:"event"`
	Status      string          `json:"status"`
	Attempts    int             `json:"attempts"`
	NextAttempt string          `json:"nextAttempt"`
	LastStatus  int             `json:"lastStatus"`
	LastError   string          `json:"lastError"`
	ResponseMs  int64           `json:"responseMs"`
	Created     string          `json:"created"`
	Delivered   string          `json:"delivered"`
	Payload     json.RawMessage `json:"payload"`
}

func deliveryJSON(d store.Delivery) DeliveryJSON {
	j := DeliveryJSON{ID: d.ID, WebhookID: d.WebhookID, Seq: d.Seq, Event: d.Kind, Status: d.Status, Attempts: d.Attempts, LastStatus: d.LastStatus,
		LastError: d.LastError, ResponseMs: d.ResponseMs, Created: apiTime(d.Created), Delivered: apiTime(d.Delivered), Payload: json.RawMessage(d.Payload)}
	if d.Status == store.DeliveryPending {
		j.NextAttempt = apiTime(d.NextAttempt)
	}
	return j
}

// webhookWorld resolves {worldId} for an owner or admin.
func (a *API) webhookWorld(e *core.RequestEvent) (store.World, error) {
	w, role, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return store.World{}, err
	}
	if !store.CanManage(role) {
		return store.World{}, apierr.Forbidden("your role in this world is %s; managing its webhooks needs owner or admin", role)
	}
	return w, nil
}

// webhook resolves {webhookId} in a world the caller manages.
func (a *API) webhook(e *core.RequestEvent) (store.Webhook, error) {
	w, err := a.webhookWorld(e)
	if err != nil {
		return store.Webhook{}, err
	}
	h, err := a.Store.Webhook(w.ID, e.Request.PathValue("webhookId"))
	if err != nil {
		return store.Webhook{}, apierr.NotFound("webhook")
	}
	return h, nil
}

func (a *API) listWebhooks(e *core.RequestEvent) error {
	w, err := a.webhookWorld(e)
	if err != nil {
		return err
	}
	hooks, err := a.Store.Webhooks(w.ID)
	if err != nil {
		return err
	}
	items := make([]WebhookJSON, len(hooks))
	for i, h := range hooks {
		items[i] = webhookJSON(h, false)
	}
	return e.JSON(http.StatusOK, list(items, store.Page{Page: 1, PerPage: store.MaxWebhooks}, len(items)))
}

type webhookBody struct {
	URL          *string  `json:"url"`
	Events       []string `json:"events"`
	Enabled      *bool    `json:"enabled"`
	RotateSecret bool     `json:"rotateSecret"`
}

func (a *API) createWebhook(e *core.RequestEvent) error {
	w, err := a.webhookWorld(e)
	if err != nil {
		return err
	}
	var body webhookBody
	if err := decode(e, &body); err != nil {
		return err
	}
	u, err := required("url", body.URL)
	if err != nil {
		return err
	}
	if body.Events == nil {
		return apierr.Field("events", "\"events\" is required: the kinds of change to send").With("allowed", store.WebhookEvents())
	}
	h, err := a.Webhooks.Create(e.Request.Context(), w.ID, u, body.Events)
	if err != nil {
		return err
	}
	if body.Enabled != nil && !*body.Enabled {
		if h, err = a.Webhooks.Update(e.Request.Context(), h, store.WebhookChange{Enabled: body.Enabled}); err != nil {
			return err
		}
	}
	return e.JSON(http.StatusCreated, webhookJSON(h, true))
}

func (a *API) getWebhook(e *core.RequestEvent) error {
	h, err := a.webhook(e)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, webhookJSON(h, false))
}

// updateWebhook changes a webhook's URL, events or state, or rotates its secret; enabling
// a disabled one clears its failures and the reason.
func (a *API) updateWebhook(e *core.RequestEvent) error {
	h, err := a.webhook(e)
	if err != nil {
		return err
	}
	var body webhookBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.URL == nil && body.Events == nil && body.Enabled == nil && !body.RotateSecret {
		return apierr.NothingToChange("url", "events", "enabled", "rotateSecret")
	}
	if body.Events != nil && len(body.Events) == 0 {
		return apierr.Field("events", "choose at least one event to send").With("allowed", store.WebhookEvents())
	}
	h, err = a.Webhooks.Update(e.Request.Context(), h, store.WebhookChange{URL: body.URL, Events: body.Events, Enabled: body.Enabled, RotateSecret: body.RotateSecret})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, webhookJSON(h, body.RotateSecret))
}

func (a *API) deleteWebhook(e *core.RequestEvent) error {
	h, err := a.webhook(e)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteWebhook(h); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}

func (a *API) listDeliveries(e *core.RequestEvent) error {
	h, err := a.webhook(e)
	if err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	ds, total, err := a.Store.Deliveries(h.ID, pg)
	if err != nil {
		return err
	}
	items := make([]DeliveryJSON, len(ds))
	for i, d := range ds {
		items[i] = deliveryJSON(d)
	}
	return e.JSON(http.StatusOK, list(items, pg, total))
}

// testWebhook sends a ping at once and answers with its delivery, whatever the receiver said.
func (a *API) testWebhook(e *core.RequestEvent) error {
	h, err := a.webhook(e)
	if err != nil {
		return err
	}
	d, err := a.Webhooks.Ping(e.Request.Context(), h)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, deliveryJSON(d))
}
