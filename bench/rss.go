package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/live"
)

// runRSS: peak resident memory of the server with 10,000 documents in 100 worlds and 1,000
// watchers, while writes and searches run. Only the server's memory counts: it runs in a
// child process of its own (the bench re-executes itself, see runServerChild), the watchers
// in another, and the bench's clients (10 writers, 1 searcher) and the corpus stay in this
// one. The documents are inserted into the server's database file from this process with
// their outbox rows, so the server's running indexer indexes them the way it indexes new
// documents. The baseline is the server's process right after it started, with its worlds
// and users but no documents, settled (garbage collected, freed memory returned). The row
// with the goal is the server as configured by default; a second runs it again with a soft
// memory limit (LOREWEAVE_MEMORY_LIMIT_MIB=rssMemoryLimitMiB), as in a small container.
func (b *bench) runRSS() error {
	if err := b.rssRun(0); err != nil {
		return err
	}
	return b.rssRun(rssMemoryLimitMiB)
}

// rssMemoryLimitMiB is the soft memory limit of the rss scenario's second row.
const rssMemoryLimitMiB = 100

// rssRun is one run of the rss scenario, with the server's memory limit set to
// memoryLimitMiB (0: the default).
func (b *bench) rssRun(memoryLimitMiB int64) error {
	worlds, perWorld, watchers := 100, 100, 1000
	if b.quick {
		worlds, perWorld, watchers = 10, 100, 100
	}
	// One user may hold only live.MaxStreamsPerUser streams: the watchers are readers of their
	// own (watcher i is user i mod users, a viewer of the world it watches), as a thousand
	// people watching would be. Each world's first watchedPerWorld documents are watched.
	perUser := live.MaxStreamsPerUser - 10
	users := (watchers + perUser - 1) / perUser
	watchedPerWorld := max(1, watchers/worlds)
	cfg := serverChildConfig{RequestLog: b.requestLog, MemoryLimit: memoryLimitMiB << 20, Worlds: worlds, Users: users}
	member := map[[2]int]bool{}
	for i := range watchers {
		m := [2]int{i % users, (i % (worlds * watchedPerWorld)) / watchedPerWorld}
		if !member[m] {
			member[m] = true
			cfg.Members = append(cfg.Members, m)
		}
	}
	if b.memprofile != "" && memoryLimitMiB == 0 {
		p, err := filepath.Abs(b.memprofile)
		if err != nil {
			return err
		}
		cfg.HeapProfile = p
		b.heapWritten = true // by the server's process, the one whose memory is measured
	}
	srv, err := spawnServer(cfg)
	if err != nil {
		return err
	}
	defer srv.stop()
	status := fmt.Sprintf("/proc/%d/status", srv.cmd.Process.Pid)

	// The peak is also kept per phase, to say which phase holds it.
	var peak float64
	var peakMu sync.Mutex
	phase, phases, phasePeak := "insert and index", []string{}, map[string]float64{}
	enter := func(p string) {
		peakMu.Lock()
		phase = p
		peakMu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() { // sampling backs up VmHWM where clear_refs is not allowed
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, err := statusKiB(status, "VmRSS"); err == nil {
				peakMu.Lock()
				peak = max(peak, v)
				if _, ok := phasePeak[phase]; !ok {
					phases = append(phases, phase)
				}
				phasePeak[phase] = max(phasePeak[phase], v)
				peakMu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { cancel(); <-sampled }()

	db, err := core.DefaultDBConnect(filepath.Join(srv.ready.Dir, "data.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	c := newCorpus(worlds, perWorld)
	type watched struct{ world, doc string }
	var targets []watched
	for w, wid := range srv.ready.Worlds {
		var ids []string
		err := db.Transactional(func(tx *dbx.Tx) (err error) {
			ids, err = insertSeedDocs(tx, wid, c.seedDocs(w), true)
			return err
		})
		if err != nil {
			return err
		}
		for _, id := range ids[:watchedPerWorld] {
			targets = append(targets, watched{wid, id})
		}
	}
	logf("rss: %d documents inserted; waiting for the server's indexer", worlds*perWorld)
	if _, err := srv.ask(fmt.Sprintf("indexed %d", worlds*perWorld)); err != nil {
		return err
	}

	paths := make([]string, len(targets))
	for i, tg := range targets {
		paths[i] = "/api/v1/worlds/" + tg.world + "/documents/" + tg.doc + "/events"
	}
	logf("rss: opening %d watchers (%d users)", watchers, users)
	enter("watchers opening")
	child, err := spawnWatchers(watcherChild{URL: srv.ready.URL, Kind: "ours", Auths: srv.ready.Keys, Paths: paths, N: watchers})
	if err != nil {
		return err
	}
	defer child.stop()

	logf("rss: writes and searches for %s", b.dur)
	enter("writes and searches")
	cl := newClient(srv.ready.URL)
	defer cl.close()
	key := srv.ready.Key
	rngs := workerRands(11)
	queries := c.queries(0, 20)
	s := load(11, b.dur, func(w, i int) error {
		tg := targets[rngs[w].IntN(len(targets))]
		if w == 10 {
			q := queries[i%len(queries)].ours[i%20]
			return cl.do(http.MethodGet, "/api/v1/worlds/"+tg.world+"/search?q="+url.QueryEscape(q), bearer(key), nil, http.StatusOK, nil)
		}
		return cl.do(http.MethodPost, "/api/v1/worlds/"+tg.world+"/documents/"+tg.doc+"/content", bearer(key),
			setPropertyOps(1+rand.IntN(3), i), http.StatusOK, nil)
	})
	if s.errors > 0 {
		logf("rss: %d errors under load, first: %v", s.errors, s.firstEr)
	}
	line, err := srv.ask("stats")
	if err != nil {
		return err
	}
	var st serverStats
	if err := json.Unmarshal([]byte(line), &st); err != nil {
		return fmt.Errorf("server child stats: %w", err)
	}
	hwm, hwmErr := statusKiB(status, "VmHWM")
	cancel()
	<-sampled
	how := "sampled VmRSS every 20 ms"
	if st.PeakReset && hwmErr == nil {
		peak, how = max(peak, hwm), "VmHWM (reset once the server was idle)"
	}
	// Where the memory is at the end of the load: the Go heap and stacks, memory outside the
	// Go runtime (SQLite's page caches: modernc allocates them itself), or file-backed
	// (Bleve's memory-mapped segments).
	const mib = 1 << 20
	where := fmt.Sprintf("idle was %.0f MiB anonymous + %.0f MiB file-backed (the binary); at the end of the load the server's RSS was %.0f MiB anonymous + %.0f MiB file-backed (the binary and mapped index segments); the Go runtime held %.0f MiB of it (heap in use %.0f MiB of %.0f held, stacks %.0f MiB, %d goroutines, next GC at %.0f MiB), the rest of the anonymous memory (%.0f MiB) is outside Go's (SQLite's page caches)",
		srv.ready.IdleAnonKiB/1024, srv.ready.IdleFileKiB/1024, st.AnonKiB/1024, st.FileKiB/1024, float64(st.GoHeld)/mib, float64(st.HeapInuse)/mib, float64(st.HeapHeld)/mib, float64(st.StackInuse)/mib, st.Goroutines, float64(st.NextGC)/mib, st.AnonKiB/1024-float64(st.GoHeld)/mib)
	var byPhase []string
	for _, p := range phases {
		byPhase = append(byPhase, fmt.Sprintf("%s %.0f MiB", p, phasePeak[p]/1024))
	}
	where += "; sampled peak by phase: " + strings.Join(byPhase, ", ")
	const kib = 1024
	name := fmt.Sprintf("peak RSS: %d docs, %d worlds, %d watchers", worlds*perWorld, worlds, watchers)
	if memoryLimitMiB > 0 {
		name += fmt.Sprintf(", %d MiB limit", memoryLimitMiB)
		where = fmt.Sprintf("LOREWEAVE_MEMORY_LIMIT_MIB=%d (the Go runtime's soft limit); ", memoryLimitMiB) + where
	}
	r := valueRow(name, peak/kib, "MiB", "the server's process, idle after start", srv.ready.IdleKiB/kib)
	r.Clients = watchers
	r.Ops = s.ops()
	if memoryLimitMiB == 0 {
		r.goal("≤ 2.0x", r.RateRatio <= 2.0)
	}
	r.Note = fmt.Sprintf("%s of the server's own process (watchers and bench clients run in others); includes the indexing of the new documents; %d writes and searches ran (%d errors); %s", how, s.ops(), s.errors, where)
	b.add(r)
	return nil
}

// serverChildEnv carries a serverChildConfig: when set, the bench binary runs only a server,
// so that its memory is measured without the bench's own.
const serverChildEnv = "LWBENCH_SERVER"

// serverChildConfig is what the server child sets up before it reports idle: worlds owned
// by the bench user, users with an API key each, and memberships (user index, world index)
// as viewers.
type serverChildConfig struct {
	RequestLog  bool
	MemoryLimit int64 // bytes; 0: the default
	Worlds      int
	Users       int
	Members     [][2]int
	HeapProfile string // written when asked for stats
}

// serverChildReady is the child's first line on stdout.
type serverChildReady struct {
	URL, Dir, Key string
	Keys          []string // the users' API keys, in order
	Worlds        []string // world ids, in order
	IdleKiB       float64
	// IdleAnonKiB and IdleFileKiB split IdleKiB as serverStats does.
	IdleAnonKiB, IdleFileKiB float64
}

// serverStats is the child's answer to "stats": where its memory is.
type serverStats struct {
	AnonKiB, FileKiB float64
	HeapInuse        uint64
	HeapHeld         uint64 // HeapSys - HeapReleased
	GoHeld           uint64 // all the Go runtime holds from the OS: Sys - HeapReleased
	StackInuse       uint64
	NextGC           uint64
	Goroutines       int
	PeakReset        bool
}

// runServerChild is the server child's main: start the server, set up, settle and report
// idle, then answer commands on stdin (one line each, one line back) until stdin closes:
// "indexed N" once the index holds N documents and the outbox as of now; "stats".
func runServerChild(cfgJSON string) {
	raiseFileLimit()
	out := os.Stdout // the protocol's; anything else printed goes to stderr
	os.Stdout = os.Stderr
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "server child:", err)
		os.Exit(1)
	}
	var cfg serverChildConfig
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		fail(err)
	}
	srv, err := startServer(serverOptions{requestLog: cfg.RequestLog, memoryLimit: cfg.MemoryLimit})
	if err != nil {
		fail(err)
	}
	defer srv.stop()
	owner, err := srv.newUser("bench")
	if err != nil {
		fail(err)
	}
	ready := serverChildReady{URL: srv.URL, Dir: srv.Dir, Key: owner.Key}
	for w := range cfg.Worlds {
		world, err := srv.LW.Store.CreateWorld(owner.ID, fmt.Sprintf("World %d", w), "", srv.LW.Config.DefaultPlan)
		if err != nil {
			fail(err)
		}
		ready.Worlds = append(ready.Worlds, world.ID)
	}
	var userIDs []string
	for i := range cfg.Users {
		u, err := srv.newUser(fmt.Sprintf("watcher%d", i))
		if err != nil {
			fail(err)
		}
		userIDs = append(userIDs, u.ID)
		ready.Keys = append(ready.Keys, u.Key)
	}
	for _, m := range cfg.Members {
		if _, err := srv.LW.Store.AddMember(ready.Worlds[m[1]], userIDs[m[0]], "viewer"); err != nil {
			fail(err)
		}
	}
	if ready.IdleKiB, err = settledRSS(); err != nil {
		fail(err)
	}
	ready.IdleAnonKiB, _ = rssKiB("RssAnon")
	ready.IdleFileKiB, _ = rssKiB("RssFile")
	peakReset := resetPeakRSS() == nil
	fmt.Fprintln(out, string(mustJSON(ready)))

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "indexed":
			var n uint64
			fmt.Sscan(arg, &n)
			head, err := srv.LW.Store.OutboxHead()
			if err == nil {
				err = waitIndexed(srv.LW, n, head)
			}
			if err != nil {
				fail(err)
			}
			fmt.Fprintln(out, "ok")
		case "stats":
			if cfg.HeapProfile != "" {
				if f, err := os.Create(cfg.HeapProfile); err == nil {
					_ = pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			st := serverStats{HeapInuse: ms.HeapInuse, HeapHeld: ms.HeapSys - ms.HeapReleased, GoHeld: ms.Sys - ms.HeapReleased, StackInuse: ms.StackInuse,
				NextGC: ms.NextGC, Goroutines: runtime.NumGoroutine(), PeakReset: peakReset}
			st.AnonKiB, _ = rssKiB("RssAnon")
			st.FileKiB, _ = rssKiB("RssFile")
			fmt.Fprintln(out, string(mustJSON(st)))
		default:
			fail(fmt.Errorf("unknown command %q", cmd))
		}
	}
}

// serverProc is a running server child.
type serverProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	ready serverChildReady
}

// spawnServer starts a server child and returns once it is set up and idle.
func spawnServer(cfg serverChildConfig) (*serverProc, error) {
	cmd, stdin, stdout, err := startChild(serverChildEnv, cfg)
	if err != nil {
		return nil, err
	}
	p := &serverProc{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	line, err := p.out.ReadString('\n')
	if err == nil {
		err = json.Unmarshal([]byte(line), &p.ready)
	}
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("server child: %w", err)
	}
	return p, nil
}

// ask sends one command to the server child and returns its one-line answer.
func (p *serverProc) ask(cmd string) (string, error) {
	if _, err := fmt.Fprintln(p.stdin, cmd); err != nil {
		return "", fmt.Errorf("server child: %w", err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("server child: %s: %w", cmd, err)
	}
	return strings.TrimSpace(line), nil
}

// stop closes the child's stdin, which stops its server, and waits for it (killing it
// after 30 s).
func (p *serverProc) stop() { stopChild(p.cmd, p.stdin, 30*time.Second) }
