package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
	"github.com/loreweave/loreweave/static"
	"github.com/loreweave/loreweave/views"
)

// historyBase is the address of a document's history pages, without the era.
func historyBase(slug, docID string) string {
	return "/w/" + url.PathEscape(slug) + "/d/" + url.PathEscape(docID)
}

// documentHistory lists a document's versions, newest first (?before=N pages back): who made
// each, when, and what it changed in words (store.History), the versions one person made in
// one sitting in one row (groupHistory). The first page follows the document's event stream
// (static/js/history.js) and fetches itself again (?fragment=1, the list alone) when a
// version arrives.
func (w *Web) documentHistory(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	d, err := w.Store.Document(pl.world.ID, e.Request.PathValue("id"), pl.eraID)
	if err != nil {
		return w.notFound(e)
	}
	var before int64
	if v := e.Request.URL.Query().Get("before"); v != "" {
		if before, err = strconv.ParseInt(v, 10, 64); err != nil || before < 1 {
			return w.notFound(e)
		}
	}
	read := func(before int64, limit int) (store.HistoryPage, error) {
		return w.Store.History(d, pl.eraID, before, limit, !store.CanEdit(pl.role))
	}
	h, err := readGroupedHistory(read, before, historyPageSize, historyReadChunk, historyMaxRead)
	if err != nil {
		return err
	}
	base := historyBase(pl.world.Slug, d.ID)
	v := views.HistoryView{
		DocName: d.Name, DocHref: documentURL(pl.world.Slug, d.ID, pl.eraID),
		WorldName: pl.world.Name, WorldHref: worldURL(pl.world.Slug, pl.eraID),
		Version: h.Version,
		ListURL: base + "/history" + withParam(eraQuery(pl.eraID), "fragment", "1"),
	}
	if before == 0 {
		v.StreamURL = "/api/v1/worlds/" + pl.world.ID + "/documents/" + d.ID + "/events" + eraQuery(pl.eraID)
	}
	if before > 0 {
		v.FirstHref = base + "/history" + eraQuery(pl.eraID)
	}
	if h.Older > 0 {
		v.OlderHref = base + "/history" + withParam(eraQuery(pl.eraID), "before", strconv.FormatInt(h.Older, 10))
	}
	versionHref := func(it store.HistoryEntry) string {
		if !it.Viewable {
			return ""
		}
		return base + "/v/" + strconv.FormatInt(it.Version, 10) + eraQuery(pl.eraID)
	}
	now := time.Now()
	for _, g := range h.Groups {
		newest, oldest := g.newest(), g.oldest()
		when := store.ParseTime(newest.Created)
		who := newest.ActorName
		if who == "" {
			who = "Someone"
		}
		row := views.HistoryItem{Version: newest.Version, Oldest: oldest.Version, Who: who,
			When: relativeTime(when, now), Exact: exactTime(when), Datetime: when.UTC().Format(time.RFC3339), Href: versionHref(newest)}
		row.Summary, row.More = g.summaries(historySummaryLines)
		if len(g.Entries) > 1 {
			from := store.ParseTime(oldest.Created)
			row.From, row.To, row.FromDatetime = clockTime(from), clockTime(when), from.UTC().Format(time.RFC3339)
			entry := func(it store.HistoryEntry) views.HistoryItem {
				at := store.ParseTime(it.Created)
				return views.HistoryItem{Version: it.Version, When: at.UTC().Format("15:04:05"), Exact: exactTime(at),
					Datetime: at.UTC().Format(time.RFC3339), Summary: it.Summary, Href: versionHref(it)}
			}
			row.Changes = len(g.Entries)
			for _, it := range g.Entries[:min(len(g.Entries), historyRowList)] {
				row.Versions = append(row.Versions, entry(it))
			}
			if len(g.Entries) > historyRowList {
				first := entry(oldest)
				row.First = &first
			}
		}
		v.Items = append(v.Items, row)
	}
	if e.Request.URL.Query().Get("fragment") == "1" {
		return render(e, http.StatusOK, views.HistoryList(v))
	}
	p := page(e, "History of "+d.Name+" · "+pl.world.Name)
	p.Theme = pl.world.Theme
	p.Era = eraBanner(pl, mainLineHref(pl.world, d))
	if v.StreamURL != "" {
		p.Scripts = []string{static.URL("js/history.js")}
	}
	return render(e, http.StatusOK, views.HistoryPage(p, v))
}

// withParam adds name=value to a query string that is empty or starts with "?".
func withParam(query, name, value string) string {
	sep := "?"
	if query != "" {
		sep = "&"
	}
	return query + sep + name + "=" + url.QueryEscape(value)
}

// documentVersion shows a document read-only as it was at one version, with a banner that
// says which, and (editors) the control that restores it.
func (w *Web) documentVersion(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	d, err := w.Store.Document(pl.world.ID, e.Request.PathValue("id"), pl.eraID)
	if err != nil {
		return w.notFound(e)
	}
	version, err := strconv.ParseInt(e.Request.PathValue("version"), 10, 64)
	if err != nil || version < 0 {
		return w.notFound(e)
	}
	return w.renderVersion(e, pl, d, version, http.StatusOK, nil)
}

// renderVersion writes the page of a document at version, with err (a refused restore)
// next to the restore control.
func (w *Web) renderVersion(e *core.RequestEvent, pl *place, d store.Document, version int64, status int, ferr *views.FormError) error {
	past, err := w.Store.VersionAt(d, pl.eraID, version)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && (ae.Status == http.StatusGone || ae.Status == http.StatusNotFound) {
			return w.errorPage(e, ae.Status, "Version not available", sentence(ae.Message))
		}
		return err
	}
	doc := past.Doc
	if !store.CanEdit(pl.role) {
		doc = ops.Public(doc)
	}
	c, err := w.Store.Content(d, pl.eraID)
	if err != nil {
		return err
	}
	body := views.DocumentBody{ID: d.ID, DocumentType: d.DocumentType, Name: d.Name, EraName: pl.eraName,
		Version: version, Source: "history", Text: doc.Text(d.Name)}
	if ops.IsBuiltin(d.DocumentType) {
		if body, err = w.shapeBody(pl.world, d, pl.eraID, body, doc, appLinks(pl.world, pl.eraID)); err != nil {
			return err
		}
	} else if tt, ok := w.Store.ToolType(pl.world.ID, d.DocumentType); ok {
		if data := ops.ToolData(doc); data != nil {
			body.Tool = w.toolView(pl.world, pl.eraID, tt, data, appLinks(pl.world, pl.eraID))
		}
	}
	who := "someone"
	if past.ActorID != "" {
		if names, err := w.Store.UserNames([]string{past.ActorID}); err == nil && names[past.ActorID] != "" {
			who = names[past.ActorID]
		}
	}
	when := store.ParseTime(past.Created)
	base := historyBase(pl.world.Slug, d.ID)
	v := views.VersionView{
		Doc: views.DocumentView{
			WorldSlug: pl.world.Slug, WorldName: pl.world.Name, WorldHref: worldURL(pl.world.Slug, pl.eraID),
			Crumbs: w.crumbs(pl.world, d, pl.eraID, appLinks(pl.world, pl.eraID).Doc), Body: body,
		},
		Version: version, Current: c.Version, Who: who, Err: ferr,
		CurrentHref: documentURL(pl.world.Slug, d.ID, pl.eraID),
		HistoryHref: base + "/history" + eraQuery(pl.eraID),
	}
	if !when.IsZero() {
		v.When, v.Datetime = exactTime(when), when.UTC().Format(time.RFC3339)
	}
	if store.CanEdit(pl.role) && version != c.Version {
		v.RestoreAction = base + "/restore" + eraQuery(pl.eraID)
	}
	p := page(e, fmt.Sprintf("Version %d of %s · %s", version, body.Name, pl.world.Name))
	p.Theme = pl.world.Theme
	p.Era = eraBanner(pl, mainLineHref(pl.world, d))
	if d.DocumentType == "map" {
		p.Styles = []string{static.URL("vendor/leaflet/leaflet.css")}
		p.Scripts = []string{static.URL("vendor/leaflet/leaflet.js"), static.URL("js/map.js")}
		e.Response.Header().Set("Content-Security-Policy", mapCSP)
	}
	if body.Timeline != nil {
		p.Scripts = append(p.Scripts, static.URL("js/timeline_axis.js"))
	}
	return render(e, status, views.VersionPage(p, v))
}

// restoreVersion restores a document to an earlier version (editors; the form's version):
// store.Restore, the same write as the REST API's, then back to the document. A refusal is
// shown next to the restore control on the version's page.
func (w *Web) restoreVersion(e *core.RequestEvent) error {
	pl, d, err := w.editDocument(e)
	if pl == nil {
		return err
	}
	version, perr := strconv.ParseInt(e.Request.PostFormValue("version"), 10, 64)
	if perr != nil || version < 0 {
		return w.notFound(e)
	}
	if _, err := w.Store.Restore(d, pl.eraID, version, principal(e).Actor()); err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		return w.renderVersion(e, pl, d, version, status, fe)
	}
	return e.Redirect(http.StatusSeeOther, documentURL(pl.world.Slug, d.ID, pl.eraID))
}
