package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMemoryLimitChoice(t *testing.T) {
	for _, c := range []struct {
		name            string
		configured      int64
		goMemLimit      string
		container, want int64
	}{
		{"nothing set, no container limit", 0, "", 0, 0},
		{"a container's limit", 0, "", 1000 << 20, 900 << 20},
		{"configured wins over the container", 256 << 20, "", 1000 << 20, 256 << 20},
		{"GOMEMLIMIT wins over both", 256 << 20, "300MiB", 1000 << 20, 0},
	} {
		if got, _ := memoryLimit(c.configured, c.goMemLimit, c.container); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "memory.max")
	old := cgroupLimitFiles
	cgroupLimitFiles = []string{file, filepath.Join(dir, "absent")}
	t.Cleanup(func() { cgroupLimitFiles = old })
	for content, want := range map[string]int64{"max\n": 0, "536870912\n": 512 << 20, "9223372036854771712\n": 0} {
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := cgroupMemoryLimit(); got != want {
			t.Errorf("%q: %d, want %d", content, got, want)
		}
	}
	os.Remove(file)
	if got := cgroupMemoryLimit(); got != 0 {
		t.Errorf("no cgroup files: %d", got)
	}
}
