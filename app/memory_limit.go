package app

import (
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// cgroupLimitFiles are where a container's memory limit is read: cgroup v2, then v1.
var cgroupLimitFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// applyMemoryLimit sets the Go runtime's soft memory limit as the configuration says
// (config.Config.MemoryLimit) when the server starts: a server sized to its container
// collects garbage harder near the container's limit instead of being killed at it. The
// limit covers the Go runtime's memory only; SQLite's page caches and the search index's
// mapped files come on top, hence 90% of a container's limit.
func applyMemoryLimit(configured int64, log *slog.Logger) {
	limit, source := memoryLimit(configured, os.Getenv("GOMEMLIMIT"), cgroupMemoryLimit())
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit)
	log.Info("memory limit", "mib", limit>>20, "from", source)
}

// memoryLimit chooses the limit: none when GOMEMLIMIT is set (the runtime applied it
// already), else the configured one, else 90% of the container's (0: none).
func memoryLimit(configured int64, goMemLimit string, container int64) (int64, string) {
	switch {
	case goMemLimit != "":
		return 0, ""
	case configured > 0:
		return configured, "LOREWEAVE_MEMORY_LIMIT_MIB"
	case container > 0:
		return container / 10 * 9, "90% of the container's memory limit"
	}
	return 0, ""
}

// cgroupMemoryLimit is the memory limit of this process's container in bytes, 0 if it
// has none (cgroup v2 "max", v1's huge "unlimited" figure, or no cgroup files).
func cgroupMemoryLimit() int64 {
	for _, p := range cgroupLimitFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 {
			return 0
		}
		return n
	}
	return 0
}
