package main

import (
	"math"
	"slices"
	"sync"
	"time"
)

// stats are the latencies of one measured run.
type stats struct {
	lat     []time.Duration
	errors  int
	firstEr error
	elapsed time.Duration
}

func (s *stats) merge(o stats) {
	s.lat = append(s.lat, o.lat...)
	s.errors += o.errors
	if s.firstEr == nil {
		s.firstEr = o.firstEr
	}
	s.elapsed += o.elapsed
}

func (s *stats) ops() int { return len(s.lat) }

// pct returns the p-th percentile (nearest rank) in milliseconds; s.lat must be sorted.
func (s *stats) pct(p float64) float64 {
	if len(s.lat) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p/100*float64(len(s.lat)))) - 1
	i = max(0, min(i, len(s.lat)-1))
	return float64(s.lat[i]) / float64(time.Millisecond)
}

// throughput is operations per second over the measured time.
func (s *stats) throughput() float64 {
	if s.elapsed <= 0 {
		return math.NaN()
	}
	return float64(len(s.lat)) / s.elapsed.Seconds()
}

func (s *stats) sort() { slices.Sort(s.lat) }

// op is one operation of a load: worker w's i-th call.
type op func(w, i int) error

// load runs op on clients goroutines until d has passed (at least one call each) and
// returns every latency.
func load(clients int, d time.Duration, fn op) stats {
	var mu sync.Mutex
	var all stats
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var local stats
			local.lat = make([]time.Duration, 0, 1024)
			for i := 0; i == 0 || time.Now().Before(deadline); i++ {
				t := time.Now()
				err := fn(w, i)
				if err != nil {
					local.errors++
					if local.firstEr == nil {
						local.firstEr = err
					}
					continue
				}
				local.lat = append(local.lat, time.Since(t))
			}
			mu.Lock()
			all.merge(local)
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	all.elapsed = time.Since(start)
	return all
}

// pair measures ours and base with the same number of clients, interleaved A B B A so that
// drift on a noisy machine falls on both sides alike. Each side runs for d in total, after a
// short warm-up that is not recorded.
func pair(clients int, d time.Duration, ours, base op) (stats, stats) {
	warm := min(d/4, 300*time.Millisecond)
	load(clients, warm, ours)
	load(clients, warm, base)
	var a, b stats
	half := d / 2
	a.merge(load(clients, half, ours))
	b.merge(load(clients, half, base))
	b.merge(load(clients, half, base))
	a.merge(load(clients, half, ours))
	a.sort()
	b.sort()
	return a, b
}

// single measures one side only (after a warm-up).
func single(clients int, d time.Duration, fn op) stats {
	load(clients, min(d/4, 300*time.Millisecond), fn)
	s := load(clients, d, fn)
	s.sort()
	return s
}

// durations turns a list of latencies into sorted stats (elapsed left at zero).
func durations(lat []time.Duration) stats {
	s := stats{lat: lat}
	s.sort()
	return s
}
