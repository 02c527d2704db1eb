package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/app/apptest"
)

// A viewer's history and past versions leave secret sections out (a change to one is said
// without its title); a viewer gets no restore control and may not restore; a restore
// without the page's CSRF token is refused; an editor's refused restore is said next to the
// control.
func TestDocumentHistoryPages(t *testing.T) {
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann"), s.NewUser("Vic")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, vic, "viewer")
	card := w.doc(t, "Aerendyl", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Sailed."})
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "The murderer", "body": "It was the butler.", "secret": true})
	base := "/w/" + w.Slug + "/d/" + card

	vb := s.SignIn(vic)
	h := page(t, s, vb, base+"/history", http.StatusOK)
	if got := strings.Join(texts(h.Find(`[data-testid="history-summary"]`)), " | "); got != "added a secret section; added section “Life”" {
		t.Fatalf("a viewer's history: %q", got)
	}
	if got := strings.Join(texts(h.Find(`[data-testid="history-entry-summary"]`)), " | "); got != "added a secret section | added section “Life”" {
		t.Fatalf("a viewer's history, version by version: %q", got)
	}
	v := page(t, s, vb, base+"/v/2", http.StatusOK)
	if strings.Contains(v.Text(), "butler") || strings.Contains(v.Text(), "murderer") {
		t.Fatal("a viewer's past version shows the secret section")
	}
	if v.Find(`[data-testid="restore-form"]`).Length() != 0 {
		t.Fatal("a viewer is offered to restore")
	}
	token := s.CSRFToken(vb, base+"/history")
	if res := s.PostForm(vb, base+"/restore", url.Values{"csrf": {token}, "version": {"1"}}); res.Status < 400 {
		t.Fatalf("a viewer's restore: %d", res.Status)
	}

	ab := s.SignIn(ann)
	h = page(t, s, ab, base+"/history", http.StatusOK)
	if got := strings.Join(texts(h.Find(`[data-testid="history-summary"]`)), " | "); got != "added section “The murderer”; added section “Life”" {
		t.Fatalf("an editor's history: %q", got)
	}
	v = page(t, s, ab, base+"/v/1", http.StatusOK)
	if v.Find(`[data-testid="restore-form"]`).Length() != 1 || !strings.Contains(v.Find(`[data-testid="version-banner"]`).Text(), "You are viewing version 1") {
		t.Fatal("an editor's version page has no banner or no restore control")
	}
	if res := s.PostForm(ab, base+"/restore", url.Values{"version": {"1"}}); res.Status != http.StatusForbidden {
		t.Fatalf("a restore without the CSRF token: %d, want 403", res.Status)
	}
	token = s.CSRFToken(ab, base+"/v/1")
	res := s.PostForm(ab, base+"/restore", url.Values{"csrf": {token}, "version": {"2"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(string(res.Body), "nothing to restore") {
		t.Fatalf("restoring the current version: %d, want 422 with the reason next to the control", res.Status)
	}
	res = s.PostForm(ab, base+"/restore", url.Values{"csrf": {token}, "version": {"1"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != base {
		t.Fatalf("restore: %d to %q, want 303 to the document", res.Status, res.Header.Get("Location"))
	}
	if c := page(t, s, ab, base, http.StatusOK); strings.Contains(c.Text(), "The murderer") {
		t.Fatal("after restoring version 1 the secret section is still there")
	}
	if p := page(t, s, ab, base+"/v/99", http.StatusNotFound); !strings.Contains(p.Text(), "no version 99") {
		t.Fatal("a version the document has not reached does not say so")
	}
}

// The history page puts the versions one person made in one sitting (none more than ten
// minutes after the one before) in one row, 25 rows a page; the pages list every version
// once, and a new version by the person of the newest row joins that row.
func TestDocumentHistoryGroups(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, bob, "editor")
	card := w.doc(t, "Aerendyl", "card", "", "")
	api := "/api/v1/worlds/" + w.ID + "/documents/" + card + "/content"
	write := func(u apptest.User, key string) {
		s.Must(s.Post(u.Key, api, map[string]any{"ops": []any{map[string]any{"op": "card.setProperty", "key": key, "value": "v"}}}), http.StatusOK)
	}

	// 61 sittings, Ann's and Bob's in turn, of 1 to 4 versions a minute apart, 11 minutes
	// after the sitting before; Bob stops for 11 minutes in the middle of his sittings of 4.
	type row struct {
		who      string
		versions []string // newest first
	}
	var (
		rows    []row // oldest first
		created []time.Time
		at      = time.Now()
	)
	for i := range 61 {
		u := []apptest.User{ann, bob}[i%2]
		n := 1 + i%4
		for j := range n {
			if j == 0 || n == 4 && j == 2 {
				at = at.Add(11 * time.Minute)
				rows = append(rows, row{who: u.Name})
			} else {
				at = at.Add(time.Minute)
			}
			write(u, fmt.Sprintf("p%d", j))
			created = append(created, at)
			r := &rows[len(rows)-1]
			r.versions = append([]string{fmt.Sprint(len(created))}, r.versions...)
		}
	}
	// The versions were made in a few seconds: say they were made then, the newest a minute ago.
	shift := time.Now().Add(-time.Minute).Sub(at)
	for i, c := range created {
		created[i] = c.Add(shift)
	}
	backdate(t, s, card, created)
	slices.Reverse(rows)
	if len(rows) != 76 {
		t.Fatalf("%d sittings", len(rows))
	}

	ab := s.SignIn(ann)
	base := "/w/" + w.Slug + "/d/" + card
	// shown returns the rows of a page.
	shown := func(h *goquery.Document) []row {
		var out []row
		h.Find(`[data-testid="history-item"]`).Each(func(_ int, it *goquery.Selection) {
			r := row{who: it.Find(".history-who").Text()}
			it.Find(`[data-testid="history-entry"]`).Each(func(_ int, e *goquery.Selection) {
				r.versions = append(r.versions, e.AttrOr("data-version", ""))
			})
			if r.versions == nil {
				r.versions = []string{it.AttrOr("data-version", "")}
			} else if it.AttrOr("data-version", "") != r.versions[0] {
				t.Fatalf("a row says version %s, its newest is %s", it.AttrOr("data-version", ""), r.versions[0])
			}
			out = append(out, r)
		})
		return out
	}
	var got []row
	path := base + "/history"
	for n := 1; ; n++ {
		h := page(t, s, ab, path, http.StatusOK)
		rs := shown(h)
		if want := min(25, len(rows)-len(got)); len(rs) != want {
			t.Fatalf("page %d has %d rows, want %d", n, len(rs), want)
		}
		if n > 1 && h.Find(`[data-testid="history-newest"]`).Length() != 1 {
			t.Fatalf("page %d does not link to the newest versions", n)
		}
		got = append(got, rs...)
		older, ok := h.Find(`[data-testid="history-older"]`).Attr("href")
		if !ok {
			break
		}
		path = older
	}
	if fmt.Sprint(got) != fmt.Sprint(rows) {
		t.Fatalf("the pages show the rows\n%v\nwant\n%v", got, rows)
	}

	h := page(t, s, ab, base+"/history", http.StatusOK)
	one, two := h.Find(`[data-testid="history-item"]`).Eq(0), h.Find(`[data-testid="history-item"]`).Eq(1)
	if one.Find("details").Length() != 0 || one.Find(`[data-testid="history-span"]`).Length() != 0 ||
		strings.TrimSpace(one.Find(`[data-testid="history-summary"]`).Text()) != "set property “p0”" {
		t.Fatal("a row of one version is not shown as one version")
	}
	span := created[148].UTC().Format("15:04") + "–" + created[149].UTC().Format("15:04") + " UTC"
	if got := strings.Join(strings.Fields(two.Find(`[data-testid="history-span"]`).Text()), " "); got != span {
		t.Fatalf("the second row's time span: %q, want %q", got, span)
	}
	if got := two.Find(`[data-testid="history-summary"]`).Text(); got != "set property “p3”; set property “p2”" {
		t.Fatalf("the second row's summary: %q", got)
	}
	if got := two.Find(`[data-testid="history-group-toggle"]`).Text(); got != "2 changes, one by one" {
		t.Fatalf("the second row's disclosure: %q", got)
	}
	if href, _ := two.Find(`[data-testid="history-open"]`).Attr("href"); href != base+"/v/150" {
		t.Fatalf("the second row opens %q, want its newest version", href)
	}

	// Ann writes again within ten minutes of her last version: the live list (the fragment)
	// has the same rows, the newest with one more version.
	write(ann, "p1")
	f := page(t, s, ab, base+"/history?fragment=1", http.StatusOK)
	rows[0].versions = append([]string{"152"}, rows[0].versions...)
	if got := shown(f); fmt.Sprint(got) != fmt.Sprint(rows[:25]) {
		t.Fatalf("after a new version by Ann the list has the rows\n%v\nwant\n%v", got, rows[:25])
	}
	if f.Find(`[data-testid="history-older"]`).Length() != 1 {
		t.Fatal("the live list has no link to older versions")
	}

	// An afternoon's sitting: the row lists its 50 newest versions one by one, then how many
	// more there are, back to its oldest.
	for range 60 {
		write(ann, "p1")
	}
	top := page(t, s, ab, base+"/history?fragment=1", http.StatusOK).Find(`[data-testid="history-item"]`).Eq(0)
	changes := len(rows[0].versions) + 60
	if got := top.Find(`[data-testid="history-group-toggle"]`).Text(); got != fmt.Sprintf("%d changes, one by one", changes) {
		t.Fatalf("the long row's disclosure: %q", got)
	}
	if n := top.Find(`[data-testid="history-entry"]`).Length(); n != 50 {
		t.Fatalf("the long row lists %d versions one by one, want 50", n)
	}
	earlier := top.Find(`[data-testid="history-earlier"]`)
	oldest := rows[0].versions[len(rows[0].versions)-1]
	if got := strings.Join(strings.Fields(earlier.Text()), " "); !strings.HasPrefix(got, fmt.Sprintf("and %d earlier, back to Version %s", changes-50, oldest)) {
		t.Fatalf("after the listed versions: %q", got)
	}
	if href, _ := earlier.Find("a").Attr("href"); href != base+"/v/"+oldest {
		t.Fatalf("the earliest version's link: %q", href)
	}
}

// backdate says that versions 1, 2, … of a document were made at the times given (a test
// makes its versions within seconds).
func backdate(t *testing.T, s *apptest.Server, docID string, created []time.Time) {
	t.Helper()
	for i, c := range created {
		_, err := s.PB.DB().NewQuery("UPDATE document_ops SET created = {:c} WHERE document = {:d} AND version = {:v}").
			Bind(dbx.Params{"c": c.UTC().Format("2006-01-02 15:04:05.000Z"), "d": docID, "v": i + 1}).Execute()
		if err != nil {
			t.Fatalf("backdate %s v%d: %v", docID, i+1, err)
		}
	}
}
