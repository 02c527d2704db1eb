package web

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// maxDateMs is the furthest a timeline date may lie from 1970 (ops.MaxDateMs); past
// maxExactMs a date is a whole day.
const (
	maxDateMs  = ops.MaxDateMs
	maxExactMs = 1<<53 - 1
)

var (
	dateEra     = regexp.MustCompile(`(?i)\s*\b(bce|bc|ce|ad)\.?$`)
	datePeriod  = regexp.MustCompile(`(?i)^([\d,]+)(?:st|nd|rd|th)\s+(millennium|century)$`)
	dateDecade  = regexp.MustCompile(`^([\d,]*)0s$`)
	dateISO     = regexp.MustCompile(`^(\d{1,6})-(\d{1,2})(?:-(\d{1,2}))?$`)
	dateWords   = regexp.MustCompile(`(?i)^(?:(\d{1,2})\s+)?(?:([a-z]+)\.?\s+)?([\d,]+)$`)
	dateTime    = regexp.MustCompile(`(?:,?\s+|T)(\d{1,2}):(\d{2})(?::(\d{2}))?Z?$`)
	monthByName = func() map[string]time.Month {
		m := map[string]time.Month{}
		for mo := time.January; mo <= time.December; mo++ {
			name := strings.ToLower(mo.String())
			m[name], m[name[:3]] = mo, mo
		}
		m["sept"] = time.September
		return m
	}()
)

// parseDate reads a timeline date the way people write them, and the way humanDate prints
// them, so a printed date reads back to itself: "250,000 BCE", "512 BC", "12 March 512 BCE",
// "March 1999", "4 May 2450, 14:30", "1999-03-12", "1990s", "500s BCE", "20th century",
// "3rd millennium BCE". Years use the proleptic Gregorian calendar without a year zero (1 BCE
// is followed by 1 CE). It returns milliseconds from 1970-01-01 UTC and the precision the text
// shows (a period names its first year: its start for CE, for BCE the earliest year in it);
// an error says in words what it could not read.
func parseDate(text string) (int64, string, error) {
	s := strings.Join(strings.Fields(text), " ")
	if s == "" {
		return 0, "", fmt.Errorf("write a date, such as 12 March 512 BCE, 250,000 BCE or 2450")
	}
	// A time of day comes last ("4 May 2450, 14:30", "4 August 512 BCE, 22:00",
	// "1999-03-12T14:05Z").
	clock := dateTime.FindStringSubmatch(s)
	if clock != nil {
		s = strings.TrimSpace(s[:len(s)-len(clock[0])])
	}
	bce := false
	if m := dateEra.FindStringSubmatch(s); m != nil {
		bce = strings.HasPrefix(strings.ToLower(m[1]), "b")
		s = strings.TrimSpace(s[:len(s)-len(m[0])])
	}
	number := func(v string) (int64, error) {
		n, err := strconv.ParseInt(strings.ReplaceAll(v, ",", ""), 10, 64)
		if err != nil || n > 1e9 {
			return 0, fmt.Errorf("%q is not a year this calendar can hold", v)
		}
		return n, nil
	}
	// year turns a year as written (n ≥ 1, before or after the common era) into an
	// astronomical one.
	year := func(n int64) (int64, error) {
		if n < 1 {
			return 0, fmt.Errorf("there is no year 0: the year before 1 CE is 1 BCE")
		}
		if bce {
			return 1 - n, nil
		}
		return n, nil
	}
	var y, mo, d, h, mi, sec int64 = 0, 1, 1, 0, 0, 0
	precision := ""
	switch {
	case datePeriod.MatchString(s):
		m := datePeriod.FindStringSubmatch(s)
		n, err := number(m[1])
		if err != nil || n < 1 {
			return 0, "", fmt.Errorf("%q is not a %s", m[1], m[2])
		}
		size := int64(1000)
		precision = "millennium"
		if strings.EqualFold(m[2], "century") {
			size, precision = 100, "century"
		}
		first := (n-1)*size + 1 // first year of the period as written
		if bce {
			first = n * size // its earliest year
		}
		if y, err = year(first); err != nil {
			return 0, "", err
		}
	case dateDecade.MatchString(s):
		n, err := number(dateDecade.FindStringSubmatch(s)[1] + "0")
		if err != nil {
			return 0, "", err
		}
		precision = "decade"
		if bce {
			n += 9
		}
		if n == 0 {
			n = 1 // the 0s: years 1 to 9
		}
		if y, err = year(n); err != nil {
			return 0, "", err
		}
	case dateISO.MatchString(s):
		m := dateISO.FindStringSubmatch(s)
		var err error
		if y, err = number(m[1]); err != nil {
			return 0, "", err
		}
		if y, err = year(y); err != nil {
			return 0, "", err
		}
		mo, _ = strconv.ParseInt(m[2], 10, 64)
		precision = "month"
		if m[3] != "" {
			d, _ = strconv.ParseInt(m[3], 10, 64)
			precision = "day"
		}
	case dateWords.MatchString(s):
		m := dateWords.FindStringSubmatch(s)
		n, err := number(m[3])
		if err != nil {
			return 0, "", err
		}
		if y, err = year(n); err != nil {
			return 0, "", err
		}
		precision = "year"
		if m[2] != "" {
			month, ok := monthByName[strings.ToLower(m[2])]
			if !ok {
				return 0, "", fmt.Errorf("%q is not a month", m[2])
			}
			mo, precision = int64(month), "month"
		} else if m[1] != "" {
			return 0, "", fmt.Errorf("a day needs its month: write 12 March 512 BCE")
		}
		if m[1] != "" {
			d, _ = strconv.ParseInt(m[1], 10, 64)
			precision = "day"
		}
	default:
		return 0, "", fmt.Errorf("could not read %q as a date: write for example 12 March 512 BCE, March 1999, 250,000 BCE, 1990s or 20th century", text)
	}
	if clock != nil {
		if precision != "day" {
			return 0, "", fmt.Errorf("a time needs its day: write 4 May 2450, 14:30")
		}
		h, _ = strconv.ParseInt(clock[1], 10, 64)
		mi, _ = strconv.ParseInt(clock[2], 10, 64)
		precision = "minute"
		if clock[3] != "" {
			sec, _ = strconv.ParseInt(clock[3], 10, 64)
			precision = "second"
		}
	}
	if mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return 0, "", fmt.Errorf("%q does not exist: its month, day or time is out of range", text)
	}
	if y < -275_000_000 || y > 275_000_000 {
		return 0, "", fmt.Errorf("%q is further than the 273 million years either side of 1970 a timeline can hold", text)
	}
	t := time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(sec), 0, time.UTC)
	if t.Day() != int(d) {
		return 0, "", fmt.Errorf("%q does not exist: that month has no day %d", text, d)
	}
	ms := t.UnixMilli()
	if clamped := min(max(ms, -maxDateMs), maxDateMs); clamped != ms {
		// A period reaching past the range is the part of it the range holds.
		want, _ := humanDate(ms, precision)
		if got, _ := humanDate(clamped, precision); got == want {
			ms = clamped
		}
	}
	if ms > maxDateMs || ms < -maxDateMs {
		return 0, "", fmt.Errorf("%q is further than the 273 million years either side of 1970 a timeline can hold", text)
	}
	if (ms > maxExactMs || ms < -maxExactMs) && ms%ops.DayMs != 0 {
		return 0, "", fmt.Errorf("a time of day can be given from 283,458 BCE to 287,396 CE; further out a date is kept to the day")
	}
	return ms, precision, nil
}

// readDate answers GET /dates?text=…[&precision=…] for the timeline editor: the date's dateMs
// and precision (the one asked for, else the one the text shows) and how pages print it, so
// the writer sees the date exactly as it will be shown before saving. An unreadable date is
// 422 invalid_date with the reason in words.
func (w *Web) readDate(e *core.RequestEvent) error {
	if user(e) == nil {
		return w.jsonError(e, apierr.New(http.StatusUnauthorized, "unauthenticated", "sign in to use the date reader"))
	}
	q := e.Request.URL.Query()
	ms, precision, err := parseDate(q.Get("text"))
	if err != nil {
		return w.jsonError(e, apierr.New(http.StatusUnprocessableEntity, "invalid_date", "%s", err.Error()).With("field", "text"))
	}
	if p := q.Get("precision"); p != "" {
		if !slices.Contains(ops.Precisions, p) {
			return w.jsonError(e, apierr.Field("precision", "precision must be one of %s", strings.Join(ops.Precisions, ", ")))
		}
		precision = p
	}
	shown, _ := humanDate(ms, precision)
	return e.JSON(http.StatusOK, map[string]any{"dateMs": ms, "precision": precision, "shown": shown})
}
