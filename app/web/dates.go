package web

import (
	"fmt"
	"strconv"
	"time"
)

// humanDate shows a timeline date (milliseconds from 1970-01-01 UTC, possibly far in the past)
// at its precision, and returns the machine-readable form for <time datetime> when HTML can
// express it ("" otherwise).
//
// Years use the proleptic Gregorian calendar in UTC. Years before year 1 are written the way
// historians write them, without a year zero: astronomical year 0 is "1 BCE", -499 is
// "500 BCE". Coarse precisions name the period the date falls in: "1990s", "20th century",
// "2nd millennium", "5th century BCE" (centuries and millennia are counted from year 1, so
// 1901–2000 is the 20th century).
func humanDate(ms int64, precision string) (label, datetime string) {
	t := time.UnixMilli(ms).UTC()
	y := t.Year()
	n, suffix := y, ""
	if y <= 0 {
		n, suffix = 1-y, " BCE"
	}
	year := groupDigits(n) + suffix
	day := fmt.Sprintf("%d %s %s", t.Day(), t.Month(), year)
	switch precision {
	case "millennium":
		return ordinal((n-1)/1000+1) + " millennium" + suffix, ""
	case "century":
		return ordinal((n-1)/100+1) + " century" + suffix, ""
	case "decade":
		return groupDigits(n/10*10) + "s" + suffix, ""
	case "year":
		return year, isoDate(t, "2006")
	case "month":
		return fmt.Sprintf("%s %s", t.Month(), year), isoDate(t, "2006-01")
	case "hour":
		return day + t.Format(", 15:00"), isoDate(t, "2006-01-02T15:00Z")
	case "minute":
		return day + t.Format(", 15:04"), isoDate(t, "2006-01-02T15:04Z")
	case "second":
		return day + t.Format(", 15:04:05"), isoDate(t, "2006-01-02T15:04:05Z")
	default: // "day", and anything unknown
		return day, isoDate(t, "2006-01-02")
	}
}

// isoDate formats t for a datetime attribute, which only takes four-digit years from 1.
func isoDate(t time.Time, layout string) string {
	if t.Year() < 1 || t.Year() > 9999 {
		return ""
	}
	return t.Format(layout)
}

// ordinal writes 1st, 2nd, 3rd, 4th, 11th, 21st, ...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return groupDigits(n) + suffix
}

// groupDigits writes n with thousands separators from five digits on (285,616; but 1999).
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	if len(s) < 5 {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
