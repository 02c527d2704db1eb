package web_test

import (
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// The search page without JavaScript has a heading of its own, like every page, above the
// search box's.
func TestSearchPageHasAHeading(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	d := page(t, s, s.SignIn(ann), "/w/"+w.Slug+"/search?q=dragon", 200)
	if h1 := d.Find("main h1"); h1.Length() != 1 || h1.Text() != "Search Eldoria" {
		t.Fatalf("h1: %d %q", h1.Length(), h1.Text())
	}
	if d.Find("main h1 ~ search h2").Length() != 1 {
		t.Fatal("the search box's heading does not follow the page's h1")
	}
}
