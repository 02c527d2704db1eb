package web

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/store"
)

// run is versions one person made, each step after the one before (the first step after
// the previous run's last).
type run struct {
	actor string
	n     int
	step  time.Duration
}

// history makes the entries of runs, oldest first from version 1, and returns them newest
// first as store.History does.
func history(runs ...run) []store.HistoryEntry {
	var out []store.HistoryEntry
	at := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	for _, r := range runs {
		for range r.n {
			at = at.Add(r.step)
			v := int64(len(out) + 1)
			out = append(out, store.HistoryEntry{Version: v, ActorID: r.actor, Created: at.Format("2006-01-02 15:04:05.000Z"),
				Summary: []string{fmt.Sprintf("change %d", v)}})
		}
	}
	slices.Reverse(out)
	return out
}

// rows says the groups as "actor:newest-oldest", newest first.
func rows(groups []historyGroup) string {
	var out []string
	for _, g := range groups {
		out = append(out, fmt.Sprintf("%s:%d-%d", g.newest().ActorID, g.newest().Version, g.oldest().Version))
	}
	return strings.Join(out, " ")
}

func TestGroupHistory(t *testing.T) {
	unknown := history(run{"", 3, time.Minute})
	untimed := history(run{"ann", 2, time.Minute})
	untimed[1].Created = ""
	for _, c := range []struct {
		name    string
		entries []store.HistoryEntry
		want    string
	}{
		{"nothing", nil, ""},
		{"one version", history(run{"ann", 1, time.Minute}), "ann:1-1"},
		{"a sitting", history(run{"ann", 5, 3 * time.Second}), "ann:5-1"},
		{"ten minutes apart is one sitting", history(run{"ann", 3, historyGap}), "ann:3-1"},
		{"a longer pause starts another", history(run{"ann", 2, time.Second}, run{"ann", 2, historyGap + time.Second}),
			"ann:4-4 ann:3-3 ann:2-1"},
		{"hours of writing without a long pause", history(run{"ann", 100, 9 * time.Minute}), "ann:100-1"},
		{"someone else in between", history(run{"ann", 2, time.Second}, run{"bob", 1, time.Second}, run{"ann", 2, time.Second}),
			"ann:5-4 bob:3-3 ann:2-1"},
		{"an unknown author is never grouped", unknown, ":3-3 :2-2 :1-1"},
		{"nor a version without a time", untimed, "ann:2-2 ann:1-1"},
		{"a clock set back a little", history(run{"ann", 2, -time.Minute}), "ann:2-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := rows(groupHistory(c.entries, historyGap)); got != c.want {
				t.Fatalf("rows %q, want %q", got, c.want)
			}
		})
	}
}

func TestHistoryGroupSummaries(t *testing.T) {
	g := func(summaries ...[]string) historyGroup {
		var es []store.HistoryEntry
		for _, s := range summaries {
			es = append(es, store.HistoryEntry{Summary: s})
		}
		return historyGroup{Entries: es}
	}
	for _, c := range []struct {
		name  string
		group historyGroup
		want  string
		more  int
	}{
		{"each thing once, newest first", g([]string{"edited a"}, []string{"edited b", "edited a"}, []string{"edited a"}), "edited a|edited b", 0},
		{"a version that says nothing", g(nil, []string{"edited a"}), "edited a", 0},
		{"one more is said, not counted", g([]string{"1"}, []string{"2"}, []string{"3"}, []string{"4"}, []string{"5"}), "1|2|3|4|5", 0},
		{"two more are counted", g([]string{"1", "2", "3"}, []string{"4", "5", "6"}), "1|2|3|4", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, more := c.group.summaries(historySummaryLines)
			if strings.Join(got, "|") != c.want || more != c.more {
				t.Fatalf("summaries %q and %d more, want %q and %d", got, more, c.want, c.more)
			}
		})
	}
}

// reader reads entries (newest first, versions len..1) as store.History does, counting the
// versions it reads.
func reader(entries []store.HistoryEntry, reads *int) historyReader {
	return func(before int64, limit int) (store.HistoryPage, error) {
		*reads += limit
		to := int64(len(entries))
		if before > 0 {
			to = min(to, before-1)
		}
		since := max(0, to-int64(limit))
		p := store.HistoryPage{Version: int64(len(entries)), Items: entries[int64(len(entries))-to : int64(len(entries))-since]}
		if since > 0 {
			p.Older = since + 1
		}
		return p, nil
	}
}

// Pages of rows: where each ends, and that paging through a history lists every version once.
func TestReadGroupedHistory(t *testing.T) {
	alternate := func(n int) []run {
		var rs []run
		for i := range n {
			rs = append(rs, run{[]string{"ann", "bob"}[i%2], 1, time.Second})
		}
		return rs
	}
	for _, c := range []struct {
		name    string
		entries []store.HistoryEntry
		size    int
		chunk   int
		maxRead int
		pages   []string // the rows of each page
	}{
		{"no versions", nil, 25, 200, 2000, []string{""}},
		{"single versions, 25 a page", history(alternate(30)...), 25, 200, 2000, []string{
			"bob:30-30 ann:29-29 bob:28-28 ann:27-27 bob:26-26 ann:25-25 bob:24-24 ann:23-23 bob:22-22 ann:21-21 bob:20-20 ann:19-19 bob:18-18 " +
				"ann:17-17 bob:16-16 ann:15-15 bob:14-14 ann:13-13 bob:12-12 ann:11-11 bob:10-10 ann:9-9 bob:8-8 ann:7-7 bob:6-6",
			"ann:5-5 bob:4-4 ann:3-3 bob:2-2 ann:1-1"}},
		{"exactly a page", history(alternate(3)...), 3, 200, 2000, []string{"ann:3-3 bob:2-2 ann:1-1"}},
		{"a row read in several chunks", history(run{"ann", 3, time.Second}, run{"bob", 25, time.Second}, run{"ann", 2, time.Second}), 2, 10, 2000,
			[]string{"ann:30-29 bob:28-4", "ann:3-1"}},
		{"a page ends where its last row ends", history(run{"bob", 5, time.Second}, run{"ann", 12, time.Second}, run{"bob", 3, time.Second}), 2, 4, 2000,
			[]string{"bob:20-18 ann:17-6", "bob:5-1"}},
		{"at the bound, the row that may go on starts the next page", history(run{"ann", 50, time.Second}, run{"bob", 5, time.Second}), 25, 10, 20,
			[]string{"bob:55-51", "ann:50-31", "ann:30-11", "ann:10-1"}},
		{"a row longer than the bound is cut", history(run{"ann", 45, time.Second}), 25, 7, 20,
			[]string{"ann:45-26", "ann:25-6", "ann:5-1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var (
				reads  int
				seen   []int64
				before int64
			)
			read := reader(c.entries, &reads)
			for i := 0; ; i++ {
				reads = 0
				p, err := readGroupedHistory(read, before, c.size, c.chunk, c.maxRead)
				if err != nil {
					t.Fatal(err)
				}
				if reads > c.maxRead {
					t.Fatalf("page %d read %d versions, more than %d", i+1, reads, c.maxRead)
				}
				if i >= len(c.pages) || rows(p.Groups) != c.pages[i] {
					t.Fatalf("page %d: rows %q, want %q", i+1, rows(p.Groups), c.pages)
				}
				if p.Version != int64(len(c.entries)) {
					t.Fatalf("page %d: current version %d", i+1, p.Version)
				}
				for _, g := range p.Groups {
					for _, e := range g.Entries {
						seen = append(seen, e.Version)
					}
				}
				if p.Older == 0 {
					if i != len(c.pages)-1 {
						t.Fatalf("%d pages, want %d", i+1, len(c.pages))
					}
					break
				}
				before = p.Older
			}
			for i, v := range seen {
				if v != int64(len(c.entries)-i) {
					t.Fatalf("the pages list versions %v, want each from %d down to 1 once", seen, len(c.entries))
				}
			}
			if len(seen) != len(c.entries) {
				t.Fatalf("the pages list %d versions of %d", len(seen), len(c.entries))
			}
		})
	}
}
