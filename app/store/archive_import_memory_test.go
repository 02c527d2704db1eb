package store

import (
	"runtime/debug"
	"testing"
)

func TestLimitImportMemoryRestores(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	first := limitImportMemory()
	during := debug.SetMemoryLimit(-1)
	if during > before || during <= goMemoryHeld() {
		t.Fatalf("limit during an import = %d, want at most %d and above what is held", during, before)
	}
	second := limitImportMemory()
	first()
	if got := debug.SetMemoryLimit(-1); got != during {
		t.Fatalf("limit with one import still running = %d, want %d", got, during)
	}
	second()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("limit after the imports = %d, want %d back", got, before)
	}
}
