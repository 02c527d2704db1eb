package web

import (
	"fmt"
	"time"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// Times on pages are written in UTC; static/js/app.js writes those marked with data-local
// (views.At) again in the reader's own time zone.

// moment shows a stored timestamp to the minute, in UTC until the page's script writes it
// in the reader's time zone ("" has no text).
func moment(s string) views.Moment {
	t := store.ParseTime(s)
	if t.IsZero() {
		return views.Moment{Text: s}
	}
	return views.Moment{Text: t.UTC().Format("2006-01-02 15:04") + " UTC", Datetime: t.UTC().Format(time.RFC3339)}
}

// relativeTime says how long before now t was, in words.
func relativeTime(t, now time.Time) string {
	if t.IsZero() {
		return "at an unknown time"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < 2*time.Minute:
		return "1 minute ago"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d/time.Minute))
	case d < 2*time.Hour:
		return "1 hour ago"
	case d < 24*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d/time.Hour))
	case d < 48*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
	}
	return t.UTC().Format("2 January 2006")
}

// clockTime is the time of day of a moment, to the minute (UTC).
func clockTime(t time.Time) string {
	return t.UTC().Format("15:04")
}

// exactTime is a moment as a person reads it, to the second (UTC).
func exactTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 January 2006, 15:04:05 UTC")
}
