package web

import (
	"net/http"
	"slices"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/views"
)

// appsPage lists the user's connected apps. It is also where disconnecting one (revokeApp)
// redirects to, with ?disconnected=ID: it then names the app, if it is registered and no
// longer connected to the user.
func (w *Web) appsPage(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	notice := ""
	if id := e.Request.URL.Query().Get("disconnected"); id != "" {
		connected, err := w.OAuth.ConnectedApps(u.Id)
		if err != nil {
			return err
		}
		still := slices.ContainsFunc(connected, func(a auth.ConnectedApp) bool { return a.ClientID == id })
		if c, err := w.OAuth.Client(id); err == nil && !still {
			name := c.Name
			if name == "" {
				name = c.ClientID
			}
			notice = "“" + name + "” is disconnected: it can no longer use your account."
		}
	}
	return w.renderApps(e, u, notice)
}

func (w *Web) renderApps(e *core.RequestEvent, u *core.Record, notice string) error {
	list, err := w.OAuth.ConnectedApps(u.Id)
	if err != nil {
		return err
	}
	items := make([]views.AppItem, len(list))
	for i, a := range list {
		name := a.Name
		if name == "" {
			name = a.ClientID
		}
		items[i] = views.AppItem{ClientID: a.ClientID, Name: name, Authorized: moment(a.Authorized), LastUsedAt: moment(a.LastUsedAt)}
	}
	return render(e, http.StatusOK, views.AppsPage(page(e, "Connected apps"), items, notice))
}
