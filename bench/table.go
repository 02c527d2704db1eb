package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Row is one line of the result table: our figure and the baseline measured next to it.
type Row struct {
	Scenario string
	Clients  int
	Ops      int
	Errors   int
	// Latencies in milliseconds (NaN when the row is not about latency).
	P50 float64
	P95 float64
	P99 float64
	// Rate is a throughput in ops/s, or for value rows (memory, index size, docs/s) the value
	// in Unit.
	Rate float64
	Unit string

	Baseline string
	BaseOps  int
	BaseP50  float64
	BaseP95  float64
	BaseRate float64
	// LatRatio is ours ÷ baseline for p50 latency (lower is better); RateRatio is ours ÷
	// baseline for Rate (higher is better for throughput, lower for memory and size).
	LatRatio  float64
	RateRatio float64

	Goal string
	// Met is "met", "not met" or "" (no goal for this row).
	Met  string
	Note string
}

// MarshalJSON writes figures that do not apply (NaN) as null: encoding/json rejects NaN.
func (r Row) MarshalJSON() ([]byte, error) {
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		Scenario  string   `json:"scenario"`
		Clients   int      `json:"clients"`
		Ops       int      `json:"ops"`
		Errors    int      `json:"errors,omitempty"`
		P50       *float64 `json:"p50Ms"`
		P95       *float64 `json:"p95Ms"`
		P99       *float64 `json:"p99Ms"`
		Rate      *float64 `json:"rate"`
		Unit      string   `json:"unit"`
		Baseline  string   `json:"baseline"`
		BaseOps   int      `json:"baselineOps"`
		BaseP50   *float64 `json:"baselineP50Ms"`
		BaseP95   *float64 `json:"baselineP95Ms"`
		BaseRate  *float64 `json:"baselineRate"`
		LatRatio  *float64 `json:"p50Ratio"`
		RateRatio *float64 `json:"rateRatio"`
		Goal      string   `json:"goal,omitempty"`
		Met       string   `json:"met,omitempty"`
		Note      string   `json:"note,omitempty"`
	}{r.Scenario, r.Clients, r.Ops, r.Errors, num(r.P50), num(r.P95), num(r.P99), num(r.Rate), r.Unit,
		r.Baseline, r.BaseOps, num(r.BaseP50), num(r.BaseP95), num(r.BaseRate), num(r.LatRatio), num(r.RateRatio),
		r.Goal, r.Met, r.Note})
}

// latencyRow fills a row from two latency runs.
func latencyRow(scenario string, clients int, ours stats, baseline string, base stats) Row {
	r := Row{Scenario: scenario, Clients: clients, Ops: ours.ops(), Errors: ours.errors,
		P50: ours.pct(50), P95: ours.pct(95), P99: ours.pct(99), Rate: ours.throughput(), Unit: "ops/s",
		Baseline: baseline, BaseOps: base.ops(), BaseP50: base.pct(50), BaseP95: base.pct(95), BaseRate: base.throughput()}
	r.LatRatio = r.P50 / r.BaseP50
	r.RateRatio = r.Rate / r.BaseRate
	if ours.firstEr != nil {
		r.Note = joinNote(r.Note, fmt.Sprintf("%d errors, first: %v", ours.errors, ours.firstEr))
	}
	if base.errors > 0 {
		r.Note = joinNote(r.Note, fmt.Sprintf("baseline %d errors, first: %v", base.errors, base.firstEr))
	}
	return r
}

// valueRow is a row about one value (memory, size, indexing rate) rather than latency.
func valueRow(scenario string, value float64, unit, baseline string, base float64) Row {
	nan := math.NaN()
	return Row{Scenario: scenario, P50: nan, P95: nan, P99: nan, Rate: value, Unit: unit,
		Baseline: baseline, BaseP50: nan, BaseP95: nan, BaseRate: base, LatRatio: nan, RateRatio: value / base}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "; " + b
}

// goal records whether ok holds for the row.
func (r *Row) goal(text string, ok bool) {
	r.Goal = text
	r.Met = "not met"
	if ok {
		r.Met = "met"
	}
}

func ms(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func rate(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	var s string
	switch {
	case v >= 100:
		s = fmt.Sprintf("%.0f", v)
	case v >= 10:
		s = fmt.Sprintf("%.1f", v)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	if unit == "ops/s" || unit == "" {
		return s + "/s"
	}
	return s + " " + unit
}

func ratio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", v)
}

func dash(v int) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprint(v)
}

// printTable writes the rows as one aligned table, then the notes.
func printTable(out io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tclients\tops\tp50 ms\tp95 ms\tp99 ms\trate/value\tbaseline\tbase p50\tbase p95\tbase rate/value\tp50 ours÷base\trate ours÷base\tgoal\tmet")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Scenario, dash(r.Clients), dash(r.Ops), ms(r.P50), ms(r.P95), ms(r.P99), rate(r.Rate, r.Unit),
			r.Baseline, ms(r.BaseP50), ms(r.BaseP95), rate(r.BaseRate, r.Unit), ratio(r.LatRatio), ratio(r.RateRatio),
			orDash(r.Goal), orDash(r.Met))
	}
	_ = tw.Flush()
	var notes []string
	for _, r := range rows {
		if r.Note != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s", r.Scenario, r.Note))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(out, "\nnotes:")
		fmt.Fprintln(out, strings.Join(notes, "\n"))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
