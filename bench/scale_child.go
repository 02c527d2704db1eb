package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// scaleServerEnv carries a scaleServer configuration: when set, the bench binary runs as a
// Loreweave server on a cached instance's data dir, in a process of its own, so that its
// start-up time and its memory are the server's alone.
const scaleServerEnv = "LWBENCH_SCALE_SERVER"

// scaleServer is what the server child serves, and what it reports.
type scaleServer struct {
	Dir  string
	Addr string
	// Docs is how many documents the index must hold for the child to say "indexed".
	Docs int
	// CPUProfile, when set, is where the child writes a CPU profile of its whole life.
	CPUProfile string
}

// runScaleServer is the child's main: serve Dir on Addr; print "indexed <unix ns>" once the
// search index holds every document; stop when stdin closes.
func runScaleServer(cfg string) {
	var c scaleServer
	if err := json.Unmarshal([]byte(cfg), &c); err != nil {
		fmt.Fprintln(os.Stderr, "scale server:", err)
		os.Exit(2)
	}
	if c.CPUProfile != "" {
		f, err := os.Create(c.CPUProfile)
		if err == nil {
			_ = pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	s, err := serveDir(c.Dir, serverOptions{requestLog: true, addr: c.Addr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale server:", err)
		os.Exit(1)
	}
	s.keepDir = true
	go func() {
		head, err := s.LW.Store.OutboxHead()
		if err == nil {
			err = waitIndexed(s.LW, uint64(c.Docs), head)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale server:", err)
			return
		}
		fmt.Printf("indexed %d\n", time.Now().UnixNano())
	}()
	_, _ = io.Copy(io.Discard, os.Stdin)
	s.stop()
}

// scaleProc is a running server child.
type scaleProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	URL     string
	started time.Time
	// indexed receives the time the child's index became complete.
	indexed chan time.Time
}

// startScaleServer starts a server child on c.Dir and returns at once (the child is still
// booting).
func startScaleServer(c scaleServer) (*scaleProc, error) {
	if c.Addr == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		c.Addr = ln.Addr().String()
		ln.Close()
	}
	started := time.Now()
	cmd, stdin, stdout, err := startChild(scaleServerEnv, c)
	if err != nil {
		return nil, err
	}
	p := &scaleProc{cmd: cmd, stdin: stdin, URL: "http://" + c.Addr, indexed: make(chan time.Time, 1), started: started}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "indexed "); ok {
				if ns, err := strconv.ParseInt(v, 10, 64); err == nil {
					p.indexed <- time.Unix(0, ns)
				}
			}
		}
	}()
	return p, nil
}

// peakRSS is the child's VmHWM in KiB.
func (p *scaleProc) peakRSS() (float64, error) { return p.status("VmHWM") }

// status reads a field of the child's /proc status in KiB (VmHWM, RssAnon, RssFile).
func (p *scaleProc) status(field string) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
		}
	}
	return 0, fmt.Errorf("no %s", field)
}

// stop closes the child's stdin (it stops its server as SIGTERM would) and waits for it.
func (p *scaleProc) stop() { stopChild(p.cmd, p.stdin, 60*time.Second) }

// cpu is the CPU time the child has used so far.
func (p *scaleProc) cpu() (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name (which is in parentheses): utime and stime are
	// the 12th and 13th, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", p.cmd.Process.Pid)
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond, nil
}

// waitQuiet waits until the child used less than a tenth of a core over two seconds (its
// start-up work in the background done), or max passed, and returns how long that took.
func (p *scaleProc) waitQuiet(max time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < max {
		c0, err := p.cpu()
		if err != nil {
			break
		}
		t0 := time.Now()
		time.Sleep(2 * time.Second)
		c1, err := p.cpu()
		if err != nil || float64(c1-c0) < 0.1*float64(time.Since(t0)) {
			break
		}
	}
	return time.Since(start)
}
