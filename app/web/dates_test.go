package web

import (
	"testing"
	"time"
)

func TestHumanDate(t *testing.T) {
	ms := func(y int, mo time.Month, d, h, mi, s int) int64 {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC).UnixMilli()
	}
	for _, c := range []struct {
		ms        int64
		precision string
		label     string
		datetime  string
	}{
		{ms(1999, time.March, 12, 14, 5, 9), "day", "12 March 1999", "1999-03-12"},
		{ms(1999, time.March, 12, 14, 5, 9), "", "12 March 1999", "1999-03-12"},
		{ms(1999, time.March, 12, 14, 5, 9), "second", "12 March 1999, 14:05:09", "1999-03-12T14:05:09Z"},
		{ms(1999, time.March, 12, 14, 5, 9), "minute", "12 March 1999, 14:05", "1999-03-12T14:05Z"},
		{ms(1999, time.March, 12, 14, 5, 9), "hour", "12 March 1999, 14:00", "1999-03-12T14:00Z"},
		{ms(1999, time.March, 12, 14, 5, 9), "month", "March 1999", "1999-03"},
		{ms(1999, time.March, 12, 14, 5, 9), "year", "1999", "1999"},
		{ms(1999, time.March, 12, 14, 5, 9), "decade", "1990s", ""},
		{ms(1999, time.March, 12, 14, 5, 9), "century", "20th century", ""},
		{ms(2000, time.March, 12, 14, 5, 9), "century", "20th century", ""},
		{ms(2001, time.March, 12, 14, 5, 9), "century", "21st century", ""},
		{ms(1999, time.March, 12, 14, 5, 9), "millennium", "2nd millennium", ""},
		{0, "day", "1 January 1970", "1970-01-01"},
		{-1, "second", "31 December 1969, 23:59:59", "1969-12-31T23:59:59Z"},
		{ms(0, time.June, 1, 0, 0, 0), "year", "1 BCE", ""},
		{ms(-499, time.June, 1, 0, 0, 0), "year", "500 BCE", ""},
		{ms(-499, time.June, 1, 0, 0, 0), "day", "1 June 500 BCE", ""},
		{ms(-499, time.June, 1, 0, 0, 0), "decade", "500s BCE", ""},
		{ms(-499, time.June, 1, 0, 0, 0), "century", "5th century BCE", ""},
		{ms(-499, time.June, 1, 0, 0, 0), "millennium", "1st millennium BCE", ""},
		{ms(-12000, time.June, 1, 0, 0, 0), "year", "12,001 BCE", ""},
		{ms(-212, time.June, 1, 0, 0, 0), "century", "3rd century BCE", ""},
		{ms(1112, time.June, 1, 0, 0, 0), "century", "12th century", ""},
	} {
		label, dt := humanDate(c.ms, c.precision)
		if label != c.label || dt != c.datetime {
			t.Errorf("humanDate(%d, %q) = %q, %q; want %q, %q", c.ms, c.precision, label, dt, c.label, c.datetime)
		}
	}
	// The extremes the API accepts do not panic and stay readable.
	for _, v := range []int64{1<<53 - 1, -(1<<53 - 1)} {
		for _, p := range []string{"millennium", "year", "second"} {
			if label, _ := humanDate(v, p); label == "" {
				t.Errorf("humanDate(%d, %s) is empty", v, p)
			}
		}
	}
	if label, _ := humanDate(-(1<<53 - 1), "year"); label != "283,458 BCE" {
		t.Errorf("earliest year: %q", label)
	}
}
