package store

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// importMemoryBudget is how much more memory than it had when the first import began the Go
// runtime may take before the garbage collector works harder, while imports run. An
// import's heap is mostly small long-lived records (an entry per file, a record per
// document) plus garbage from decoding JSON; with the default GOGC the heap grows to twice
// what is live, which for a 100,000-document archive was 80 MiB more than needed.
const importMemoryBudget = 80 << 20

// importLimit counts the imports running and keeps the memory limit they replaced.
var importLimit struct {
	sync.Mutex
	running int
	old     int64
}

// limitImportMemory sets a soft memory limit (debug.SetMemoryLimit) for as long as imports
// run: what the Go runtime holds now plus importMemoryBudget, never above a limit already
// set. The limit is soft: past it the collector runs more often, within its CPU cap, and an
// import that needs more still gets it. restore puts the old limit back after the last
// import running.
func limitImportMemory() (restore func()) {
	importLimit.Lock()
	defer importLimit.Unlock()
	if importLimit.running == 0 {
		importLimit.old = debug.SetMemoryLimit(-1)
		debug.SetMemoryLimit(min(importLimit.old, goMemoryHeld()+importMemoryBudget))
	}
	importLimit.running++
	return func() {
		importLimit.Lock()
		defer importLimit.Unlock()
		importLimit.running--
		if importLimit.running == 0 {
			debug.SetMemoryLimit(importLimit.old)
		}
	}
}

// goMemoryHeld is the memory the Go runtime holds from the OS and has not returned: what
// debug.SetMemoryLimit limits.
func goMemoryHeld() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
