package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// childEnv carries a watcherChild configuration: when set, the bench binary runs as a
// process that only holds event streams open, so that the server's memory per watcher is
// measured without the clients' own memory.
const childEnv = "LWBENCH_WATCHERS"

// watcherChild is what a child process opens: N streams of our documents (Paths, used in
// turn) or of PocketBase realtime (Topic).
type watcherChild struct {
	URL  string
	Kind string // "ours" or "pb"
	Auth string // API key (ours) or PocketBase auth token (pb)
	// Auths, when set (ours), are the API keys the streams take turns with: one user may
	// hold only live.MaxStreamsPerUser streams.
	Auths []string
	Paths []string
	Topic string
	N     int
}

// runChild is the child's main: open the streams, say "ready", keep reading until stdin
// closes.
func runChild(cfg string) {
	raiseFileLimit()
	var c watcherChild
	if err := json.Unmarshal([]byte(cfg), &c); err != nil {
		fmt.Fprintln(os.Stderr, "watcher child:", err)
		os.Exit(2)
	}
	hc := streamClient()
	ws, err := openMany(c.N, func(i int) (watch, error) {
		if c.Kind == "pb" {
			return openPB(hc, c.URL, c.Auth, c.Topic)
		}
		key := c.Auth
		if len(c.Auths) > 0 {
			key = c.Auths[i%len(c.Auths)]
		}
		return openOurs(hc, c.URL, key, c.Paths[i%len(c.Paths)])
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "watcher child:", err)
		os.Exit(1)
	}
	for _, w := range ws {
		go func(w watch) {
			for {
				if _, err := w.rd.next(); err != nil {
					return
				}
			}
		}(w)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// childProc is a running watcher child.
type childProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// spawnWatchers starts a child holding the streams and returns once all are open.
func spawnWatchers(c watcherChild) (*childProc, error) {
	cmd, stdin, stdout, err := startChild(childEnv, c)
	if err != nil {
		return nil, err
	}
	p := &childProc{cmd: cmd, stdin: stdin}
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != "ready" {
			err = fmt.Errorf("unexpected %q", line)
		}
		ready <- err
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case err := <-ready:
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("watcher child: %w", err)
		}
	case <-time.After(5 * time.Minute):
		p.stop()
		return nil, fmt.Errorf("watcher child: not ready after 5 minutes")
	}
	return p, nil
}

// startChild starts the bench binary again as a child process of the kind env names (its
// main reads cfg, as JSON, from that variable), with pipes to its stdin and stdout.
func startChild(env string, cfg any) (*exec.Cmd, io.WriteCloser, io.ReadCloser, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env+"="+string(mustJSON(cfg)))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return cmd, stdin, stdout, nil
}

// stop closes the child's stdin and waits for it (killing it after 10 s).
func (p *childProc) stop() { stopChild(p.cmd, p.stdin, 10*time.Second) }

// stopChild closes a child's stdin, which every kind of child takes as the signal to end,
// and waits for it, killing it if it has not ended after grace.
func stopChild(cmd *exec.Cmd, stdin io.Closer, grace time.Duration) {
	_ = stdin.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}

// rssKiB reads a field (VmRSS, VmHWM) of /proc/self/status in KiB.
func rssKiB(field string) (float64, error) { return statusKiB("/proc/self/status", field) }

// settledRSS is VmRSS after a garbage collection that also returns freed memory to the OS.
func settledRSS() (float64, error) {
	for range 2 {
		runtime.GC()
		debug.FreeOSMemory()
		time.Sleep(200 * time.Millisecond)
	}
	return rssKiB("VmRSS")
}

// resetPeakRSS resets VmHWM (Linux: write 5 to /proc/self/clear_refs).
func resetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// raiseFileLimit lifts the open-file limit to its hard maximum: 1,000 watchers need 2,000
// sockets in one process.
func raiseFileLimit() {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}
