package web

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loreweave/loreweave/ops"
)

func TestParseDate(t *testing.T) {
	ms := func(y int, mo time.Month, d, h, mi, s int) int64 {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC).UnixMilli()
	}
	for _, c := range []struct {
		text      string
		ms        int64
		precision string
	}{
		{"12 March 1999", ms(1999, time.March, 12, 0, 0, 0), "day"},
		{"12 mar 1999", ms(1999, time.March, 12, 0, 0, 0), "day"},
		{"March 1999", ms(1999, time.March, 1, 0, 0, 0), "month"},
		{"1999", ms(1999, time.January, 1, 0, 0, 0), "year"},
		{"1999 CE", ms(1999, time.January, 1, 0, 0, 0), "year"},
		{"AD 1999", 0, ""}, // the era goes last
		{"4 May 2450, 14:30", ms(2450, time.May, 4, 14, 30, 0), "minute"},
		{"4 May 2450 14:30:05", ms(2450, time.May, 4, 14, 30, 5), "second"},
		{"1999-03-12", ms(1999, time.March, 12, 0, 0, 0), "day"},
		{"1999-03", ms(1999, time.March, 1, 0, 0, 0), "month"},
		{"1999-03-12T14:05Z", ms(1999, time.March, 12, 14, 5, 0), "minute"},
		{"1 BCE", ms(0, time.January, 1, 0, 0, 0), "year"},
		{"512 BC", ms(-511, time.January, 1, 0, 0, 0), "year"},
		{"12 March 512 BCE", ms(-511, time.March, 12, 0, 0, 0), "day"},
		{"250,000 BCE", ms(-249999, time.January, 1, 0, 0, 0), "year"},
		{"1990s", ms(1990, time.January, 1, 0, 0, 0), "decade"},
		{"500s BCE", ms(-508, time.January, 1, 0, 0, 0), "decade"},
		{"20th century", ms(1901, time.January, 1, 0, 0, 0), "century"},
		{"5th century BCE", ms(-499, time.January, 1, 0, 0, 0), "century"},
		{"2nd millennium", ms(1001, time.January, 1, 0, 0, 0), "millennium"},
		{"3rd millennium BCE", ms(-2999, time.January, 1, 0, 0, 0), "millennium"},
		{"", 0, ""},
		{"0", 0, ""},
		{"31 February 1999", 0, ""},
		{"12 Smarch 1999", 0, ""},
		{"12 1999", 0, ""},
		{"1999, 14:30", 0, ""},
		{"3,000,000 BCE", ms(-2999999, time.January, 1, 0, 0, 0), "year"}, // deep time: a whole day past 2^53 ms
		{"3000th millennium BCE", ms(-2999999, time.January, 1, 0, 0, 0), "millennium"},
		{"4 May 287,500, 14:30", 0, ""}, // a time of day past 2^53 ms
		{"300,000,000 BCE", 0, ""},      // past the 273 million years a timeline holds
		{"next Tuesday", 0, ""},
	} {
		got, precision, err := parseDate(c.text)
		if c.precision == "" {
			if err == nil {
				t.Errorf("parseDate(%q) = %d, %s; want an error", c.text, got, precision)
			}
			continue
		}
		if err != nil || got != c.ms || precision != c.precision {
			t.Errorf("parseDate(%q) = %d, %q, %v; want %d, %q", c.text, got, precision, err, c.ms, c.precision)
		}
	}
}

// TestParseDateReadsHumanDate: every date the pages print reads back to a date printed the
// same, at every precision, across the whole range the API allows.
func TestParseDateReadsHumanDate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var ms int64
		switch r.IntN(3) {
		case 0:
			ms = r.Int64N(2*1e14) - 1e14 // near the present, where every precision matters
		case 1:
			ms = r.Int64N(2*maxExactMs) - maxExactMs // any millisecond
		default:
			ms = (r.Int64N(2*maxDateMs/ops.DayMs+1) - maxDateMs/ops.DayMs) * ops.DayMs // deep time: whole days
		}
		p := ops.Precisions[r.IntN(len(ops.Precisions))]
		shown, _ := humanDate(ms, p)
		back, got, err := parseDate(shown)
		if err != nil {
			t.Fatalf("%d at %s printed as %q: %v", ms, p, shown, err)
		}
		if again, _ := humanDate(back, p); again != shown {
			t.Fatalf("%d at %s printed as %q reads back as %d, printed %q", ms, p, shown, back, again)
		}
		if p != "hour" && got != p {
			t.Fatalf("%q reads as precision %s, want %s", shown, got, p)
		}
	}
}
