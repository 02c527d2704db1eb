package web

import (
	"slices"
	"time"

	"github.com/loreweave/loreweave/app/store"
)

// The web editor saves as its user types, so a few minutes of writing make dozens of
// versions. The history page shows such a run as one row: the versions one person made one
// after another, none more than historyGap after the one before.
const (
	// historyGap is the longest pause between two versions by one person in one row.
	historyGap = 10 * time.Minute
	// historyPageSize is how many rows a page of a document's history lists.
	historyPageSize = 25
	// historyReadChunk is how many versions a page reads first (enough for a page of single
	// versions), each further read twice as many as the one before, and historyMaxRead how
	// many at most (as many as the op log keeps of an era, store.OpLogKeepVersions): a page of
	// a history written by one person without a pause ends early, with its oldest row cut,
	// instead of reading it all.
	historyReadChunk = 2*historyPageSize + 1
	historyMaxRead   = store.OpLogKeepVersions
	// historySummaryLines is how many of the different things a row's versions changed it
	// names before "and N more".
	historySummaryLines = 4
	// historyRowList is how many of a row's versions it lists one by one, newest first, before
	// "and N earlier, back to" its oldest: an afternoon's sitting is hundreds of versions, and
	// the live history sends the list again at every new one.
	historyRowList = 50
)

// historyGroup is one row of a document's history: versions made one after another by one
// person, newest first.
type historyGroup struct {
	Entries []store.HistoryEntry
}

// newest is the group's newest version.
func (g historyGroup) newest() store.HistoryEntry { return g.Entries[0] }

// oldest is the group's oldest version.
func (g historyGroup) oldest() store.HistoryEntry { return g.Entries[len(g.Entries)-1] }

// summaries returns what the group's versions changed, newest first, each thing once, at
// most limit of them (all of them when only one more would be left out), and how many more
// there are.
func (g historyGroup) summaries(limit int) ([]string, int) {
	var all []string
	for _, e := range g.Entries {
		for _, s := range e.Summary {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
	}
	if len(all) <= limit+1 {
		return all, 0
	}
	return all[:limit], len(all) - limit
}

// groupHistory puts a history's entries (newest first) in rows: an entry joins the row of
// the one after it when the same person made both, at most gap apart. Entries whose
// author or time is unknown have a row each.
func groupHistory(entries []store.HistoryEntry, gap time.Duration) []historyGroup {
	var groups []historyGroup
	for _, e := range entries {
		if n := len(groups); n > 0 && sameSitting(groups[n-1].oldest(), e, gap) {
			groups[n-1].Entries = append(groups[n-1].Entries, e)
			continue
		}
		groups = append(groups, historyGroup{Entries: []store.HistoryEntry{e}})
	}
	return groups
}

// sameSitting reports whether older and the version after it, newer, belong in one row.
func sameSitting(newer, older store.HistoryEntry, gap time.Duration) bool {
	if newer.ActorID == "" || newer.ActorID != older.ActorID {
		return false
	}
	tn, to := store.ParseTime(newer.Created), store.ParseTime(older.Created)
	if tn.IsZero() || to.IsZero() {
		return false
	}
	d := tn.Sub(to)
	return d <= gap && d >= -gap // a clock set back a little does not split a sitting
}

// groupedHistory is a page of a document's history in rows, newest first.
type groupedHistory struct {
	// Version is the document's current version.
	Version int64
	Groups  []historyGroup
	// Older is the version to pass as before for the next page (0: there is none).
	Older int64
}

// historyReader reads the versions of a document before version before (0: from the
// current one), newest first, at most limit of them (store.History).
type historyReader func(before int64, limit int) (store.HistoryPage, error)

// readGroupedHistory reads a page of rows of versions before version before: up to size
// rows, reading chunk versions first, twice as many each time after, and at most maxRead in
// all. A page ends where a row ends, so that the next one (before = Older) starts with a
// whole row, except when one row alone is longer than maxRead.
func readGroupedHistory(read historyReader, before int64, size, chunk, maxRead int) (groupedHistory, error) {
	var (
		page    groupedHistory
		entries []store.HistoryEntry
	)
	for next := before; ; chunk *= 2 {
		h, err := read(next, min(chunk, maxRead-len(entries)))
		if err != nil {
			return groupedHistory{}, err
		}
		if len(entries) == 0 {
			page.Version = h.Version
		}
		entries = append(entries, h.Items...)
		groups := groupHistory(entries, historyGap)
		switch {
		case len(groups) > size:
			// The row after the page's last one shows where that one ends.
			page.Groups = groups[:size]
		case h.Older == 0 || len(h.Items) == 0:
			page.Groups = groups
			return page, nil
		case len(entries) >= maxRead:
			// The last row may go on in versions not read: it starts the next page (unless it
			// is the only one: then the next page goes on with its older versions).
			page.Groups = groups[:max(1, len(groups)-1)]
		default:
			next = h.Older
			continue
		}
		page.Older = page.Groups[len(page.Groups)-1].oldest().Version
		return page, nil
	}
}
