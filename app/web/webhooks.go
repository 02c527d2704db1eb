package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// deliveriesShown is how many of a webhook's deliveries its page shows.
const deliveriesShown = 20

// webhooksURL is a world's webhooks page.
func webhooksURL(worldSlug string) string { return "/w/" + url.PathEscape(worldSlug) + "/webhooks" }

// manageWebhook resolves /w/{slug}/webhooks/{id} for an owner or admin.
func (w *Web) manageWebhook(e *core.RequestEvent) (*place, store.Webhook, error) {
	pl, err := w.managePlace(e)
	if pl == nil {
		return nil, store.Webhook{}, err
	}
	h, err := w.Store.Webhook(pl.world.ID, e.Request.PathValue("id"))
	if err != nil {
		return nil, store.Webhook{}, w.notFound(e)
	}
	return pl, h, nil
}

var webhookNotices = map[string]string{
	"saved":    "Events saved.",
	"enabled":  "Webhook enabled: changes are sent again.",
	"disabled": "Webhook disabled: nothing is sent until it is enabled again.",
	"deleted":  "Webhook deleted.",
}

// webhooksPage lists a world's webhooks and their recent deliveries.
func (w *Web) webhooksPage(e *core.RequestEvent) error {
	pl, err := w.managePlace(e)
	if pl == nil {
		return err
	}
	return w.renderWebhooks(e, pl, http.StatusOK, func(v *views.WebhooksView) {
		v.Notice = webhookNotices[e.Request.URL.Query().Get("done")]
	})
}

func (w *Web) renderWebhooks(e *core.RequestEvent, pl *place, status int, set func(*views.WebhooksView)) error {
	base := webhooksURL(pl.world.Slug)
	v := views.WebhooksView{WorldName: pl.world.Name, WorldHref: worldURL(pl.world.Slug, store.MainLine), Action: base, Events: store.WebhookEvents()}
	hooks, err := w.Store.Webhooks(pl.world.ID)
	if err != nil {
		return err
	}
	for _, h := range hooks {
		item := views.WebhookItem{ID: h.ID, URL: h.URL, Href: base + "/" + url.PathEscape(h.ID), Events: h.Events, Enabled: h.Enabled,
			DisabledReason: h.DisabledReason, SecretMasked: api.MaskSecret(h.Secret)}
		ds, total, err := w.Store.Deliveries(h.ID, store.Page{Page: 1, PerPage: deliveriesShown})
		if err != nil {
			return err
		}
		item.MoreDeliveries = total - len(ds)
		for _, d := range ds {
			di := views.DeliveryItem{Created: moment(d.Created), Event: d.Kind, Status: d.Status, Attempts: d.Attempts, Error: d.LastError, HTTP: "—"}
			if d.LastStatus != 0 {
				di.HTTP = strconv.Itoa(d.LastStatus)
			}
			if d.Attempts > 0 {
				di.Took = strconv.FormatInt(d.ResponseMs, 10) + " ms"
			}
			if d.Status == store.DeliveryPending {
				di.Next = moment(d.NextAttempt)
			}
			item.Deliveries = append(item.Deliveries, di)
		}
		v.Hooks = append(v.Hooks, item)
	}
	if set != nil {
		set(&v)
	}
	pg := page(e, "Webhooks · "+pl.world.Name)
	pg.Theme = pl.world.Theme
	return render(e, status, views.WebhooksPage(pg, v))
}

// formErr turns a refusal into the message shown beside its control, and that control.
func formErr(err error) (*views.FormError, string, int, error) {
	field, _ := apierr.From(err).Details["field"].(string)
	fe, status, err := refusal(err)
	return fe, field, status, err
}

// createWebhook registers a webhook and shows its secret, this once.
func (w *Web) createWebhook(e *core.RequestEvent) error {
	pl, err := w.managePlace(e)
	if pl == nil {
		return err
	}
	if err := e.Request.ParseForm(); err != nil {
		return w.errorPage(e, http.StatusBadRequest, "Bad form", "This form could not be read. Go back, reload the page and try again.")
	}
	u, events := e.Request.PostForm.Get("url"), e.Request.PostForm["events"]
	h, err := w.Webhooks.Create(e.Request.Context(), pl.world.ID, u, events)
	if err != nil {
		fe, field, status, err := formErr(err)
		if fe == nil {
			return err
		}
		return w.renderWebhooks(e, pl, status, func(v *views.WebhooksView) {
			v.CreateURL, v.CreateEvents, v.CreateErr, v.CreateField = u, events, fe, field
		})
	}
	return w.renderWebhooks(e, pl, http.StatusCreated, func(v *views.WebhooksView) {
		v.NewSecret, v.NewSecretFor = h.Secret, h.URL
		v.Notice = "Webhook added. Use “Send test” to check that its receiver answers."
	})
}

// changeWebhook applies c, then goes back to the page with notice done; a refusal shows
// beside the webhook.
func (w *Web) changeWebhook(e *core.RequestEvent, c func(*core.RequestEvent, store.Webhook) (store.WebhookChange, string)) error {
	pl, h, err := w.manageWebhook(e)
	if pl == nil {
		return err
	}
	if err := e.Request.ParseForm(); err != nil {
		return w.errorPage(e, http.StatusBadRequest, "Bad form", "This form could not be read. Go back, reload the page and try again.")
	}
	change, done := c(e, h)
	if _, err := w.Webhooks.Update(e.Request.Context(), h, change); err != nil {
		fe, _, status, err := formErr(err)
		if fe == nil {
			return err
		}
		return w.renderWebhooks(e, pl, status, func(v *views.WebhooksView) {
			for i := range v.Hooks {
				if v.Hooks[i].ID == h.ID {
					v.Hooks[i].Err = fe
				}
			}
		})
	}
	return e.Redirect(http.StatusSeeOther, webhooksURL(pl.world.Slug)+"?done="+done+"#hook-"+url.QueryEscape(h.ID))
}

// saveWebhook changes which events a webhook sends.
func (w *Web) saveWebhook(e *core.RequestEvent) error {
	return w.changeWebhook(e, func(e *core.RequestEvent, _ store.Webhook) (store.WebhookChange, string) {
		events := e.Request.PostForm["events"]
		if events == nil {
			events = []string{} // none ticked: refused by the store, in words
		}
		return store.WebhookChange{Events: events}, "saved"
	})
}

// setWebhookEnabled enables or disables a webhook.
func (w *Web) setWebhookEnabled(e *core.RequestEvent) error {
	return w.changeWebhook(e, func(e *core.RequestEvent, _ store.Webhook) (store.WebhookChange, string) {
		on := e.Request.PostForm.Get("enabled") == "true"
		if on {
			return store.WebhookChange{Enabled: &on}, "enabled"
		}
		return store.WebhookChange{Enabled: &on}, "disabled"
	})
}

// rotateWebhookSecret gives a webhook a new secret and shows it, this once.
func (w *Web) rotateWebhookSecret(e *core.RequestEvent) error {
	pl, h, err := w.manageWebhook(e)
	if pl == nil {
		return err
	}
	h, err = w.Webhooks.Update(e.Request.Context(), h, store.WebhookChange{RotateSecret: true})
	if err != nil {
		return err
	}
	return w.renderWebhooks(e, pl, http.StatusOK, func(v *views.WebhooksView) {
		v.NewSecret, v.NewSecretFor = h.Secret, h.URL
	})
}

// testWebhook sends a ping now and says how the receiver answered.
func (w *Web) testWebhook(e *core.RequestEvent) error {
	pl, h, err := w.manageWebhook(e)
	if pl == nil {
		return err
	}
	d, err := w.Webhooks.Ping(e.Request.Context(), h)
	if err != nil {
		return err
	}
	return w.renderWebhooks(e, pl, http.StatusOK, func(v *views.WebhooksView) {
		if d.Status == store.DeliverySucceeded {
			v.Notice = "Test sent: the receiver answered " + strconv.Itoa(d.LastStatus) + " in " + strconv.FormatInt(d.ResponseMs, 10) + " ms."
		} else {
			v.Problem = "Test failed: " + sentence(d.LastError)
		}
	})
}

// deleteWebhook deletes a webhook and its log.
func (w *Web) deleteWebhook(e *core.RequestEvent) error {
	pl, h, err := w.manageWebhook(e)
	if pl == nil {
		return err
	}
	if err := w.Store.DeleteWebhook(h); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, webhooksURL(pl.world.Slug)+"?done=deleted")
}
