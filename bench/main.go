// Command bench measures Loreweave against baselines measured in the same run: it starts the
// real server in-process on a temp data dir (or targets --url with --key for the API-only
// scenarios), seeds its own data, runs each scenario with concurrent clients and prints one
// table of figures, each next to its baseline as a ratio.
//
//	go run ./bench                 full run (several minutes)
//	go run ./bench --quick         small sizes, for CI smoke runs
//	go run ./bench --only create,read --duration 2s
//	go run ./bench --json          the same rows as JSON
//	go run ./bench --only export --archive-docs 25000
//	go run ./bench --only write --cpuprofile cpu.out && go tool pprof -top cpu.out
//	go run ./bench --only rss --memprofile heap.out && go tool pprof -sample_index=inuse_space -top heap.out
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

// bench holds the options of a run and the rows it produced.
type bench struct {
	quick      bool
	dur        time.Duration
	requestLog bool
	url, key   string

	rows []Row
	// create1 is document create at one client, kept for the storage-floor row.
	create1 *stats

	memprofile  string
	heapWritten bool
	// archiveDocs is the size of the export scenario's world (0: its default).
	archiveDocs int
	// scaleWorlds is the number of worlds of the scale scenario's largest instance (0: its
	// default).
	scaleWorlds int
	// scaleRebuild runs the scale scenario's restart without a search index.
	scaleRebuild bool
	// texts are printed after the table (the scale scenario's growth table).
	texts []string
}

// writeHeapProfile writes the heap profile --memprofile asked for.
func (b *bench) writeHeapProfile() {
	b.heapWritten = true
	f, err := os.Create(b.memprofile)
	if err != nil {
		logf("memprofile: %v", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		logf("memprofile: %v", err)
	}
}

// scenario is one named part of the run.
type scenario struct {
	name   string
	about  string
	remote bool // runs against --url too
	run    func(b *bench) error
}

var scenarios = []scenario{
	{"create", "POST documents vs PocketBase record create", true, (*bench).runCreate},
	{"floor", "storage floor: SQLite insert transactions vs HTTP create", false, (*bench).runFloor},
	{"write", "1-op and 10-op content writes vs PocketBase record update, 1/10/50 clients", true, (*bench).runWrite},
	{"read", "single-document read vs PocketBase record view", true, (*bench).runRead},
	{"watch", "write-to-watcher latency (1/100/1,000 watchers) and memory per idle watcher", true, (*bench).runWatch},
	{"editor", "editors typing into one section (2/10): keystroke batch to another editor's stream, vs plain write-to-watcher", false, (*bench).runEditor},
	{"upload", "5 MiB PNG asset upload vs PocketBase record create with the file, 1/4 clients", false, (*bench).runUpload},
	{"links", "a content write that changes which document it links (backlinks kept in the same transaction) vs the same write without a link, 1/10 clients", true, (*bench).runLinks},
	{"wiki", "a public wiki page served to 50 clients with no session, next to the document read; and revalidated by ETag (304)", true, (*bench).runWiki},
	{"timeline", "a 2,000-event timeline's page: server render vs JSON read, time to interactive in Chromium vs a 10-event one", false, (*bench).runTimeline},
	{"era", "era creation in a 100,000-document world vs a 10-document one", false, (*bench).runEra},
	{"search", "search: index 100,000 documents, query latency vs SQLite FTS5", false, (*bench).runSearch},
	{"export", "export a 100,000-document world with loreweave export, and import the archive as a copy (docs/s, MB/s, peak RSS of each child) vs sqlite3 .dump of the same database and loading that dump", false, (*bench).runExport},
	{"rss", "peak RSS with 10,000 documents, 100 worlds, 1,000 watchers", false, (*bench).runRSS},
	{"scale", "10k, 100k and 1M-document instances (cached): start-up, list, read, write, search, era, peak RSS; restart without a search index", false, (*bench).runScale},
	{"load", "load test: 100 clients for 60 s mixing reads, writes, searches, lists, creates and SSE watchers", true, (*bench).runLoad},
}

func scenarioNames() []string {
	var out []string
	for _, s := range scenarios {
		out = append(out, s.name)
	}
	return out
}

func main() {
	if cfg := os.Getenv(childEnv); cfg != "" {
		runChild(cfg)
		return
	}
	if cfg := os.Getenv(serverChildEnv); cfg != "" {
		runServerChild(cfg)
		return
	}
	if cfg := os.Getenv(scaleServerEnv); cfg != "" {
		runScaleServer(cfg)
		return
	}
	os.Exit(run(os.Args[1:], os.Stdout))
}

// run is the whole command; it returns the exit status.
func run(args []string, stdout io.Writer) int {
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	quick := fl.Bool("quick", false, "small sizes and short runs (well under a minute), for CI")
	only := fl.String("only", "", "comma-separated scenarios to run: "+strings.Join(scenarioNames(), ","))
	dur := fl.Duration("duration", 0, "measuring time per side of each scenario configuration (default 4s, 250ms with --quick)")
	asJSON := fl.Bool("json", false, "print the rows as JSON instead of the table")
	url := fl.String("url", "", "run the API scenarios against this running instance instead of an in-process one")
	key := fl.String("key", "", "API key for --url")
	requestLog := fl.Bool("request-log", true, "keep PocketBase's request log on (its default) for every route, ours and the baselines'")
	cpuprofile := fl.String("cpuprofile", "", "write a CPU profile of the run to this file (baselines included: use pprof -focus)")
	memprofile := fl.String("memprofile", "", "write a heap profile to this file at the rss scenario's peak load (or at the end of the run)")
	archiveDocs := fl.Int("archive-docs", 0, "documents in the export scenario's world (default 100,000, 5,000 with --quick)")
	scaleWorlds := fl.Int("scale-worlds", 0, "worlds of 1,000 documents in the scale scenario's largest instance (default 1,000, 10 with --quick); the others have a tenth and a hundredth")
	scaleRebuild := fl.Bool("scale-rebuild", true, "in the scale scenario, restart the largest instance without its search index (the longest part of the scenario: about 15 minutes at 1M here)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	b := &bench{quick: *quick, dur: *dur, requestLog: *requestLog, url: strings.TrimRight(*url, "/"), key: *key, memprofile: *memprofile, archiveDocs: *archiveDocs, scaleWorlds: *scaleWorlds, scaleRebuild: *scaleRebuild}
	if b.dur == 0 {
		b.dur = 4 * time.Second
		if b.quick {
			b.dur = 250 * time.Millisecond
		}
	}
	selected, err := selectScenarios(*only, b.url != "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	raiseFileLimit()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}

	m := machine(b)
	status := 0
	start := time.Now()
	for _, s := range selected {
		logf("== %s: %s", s.name, s.about)
		t := time.Now()
		if err := s.run(b); err != nil {
			logf("%s failed: %v", s.name, err)
			b.rows = append(b.rows, Row{Scenario: s.name + " (failed)", P50: math.NaN(), P95: math.NaN(), P99: math.NaN(),
				Rate: math.NaN(), BaseP50: math.NaN(), BaseP95: math.NaN(), BaseRate: math.NaN(), LatRatio: math.NaN(), RateRatio: math.NaN(), Note: err.Error()})
			status = 1
		}
		logf("%s took %s", s.name, time.Since(t).Round(100*time.Millisecond))
	}
	m.Took = time.Since(start).Round(time.Second).String()
	if b.memprofile != "" && !b.heapWritten {
		b.writeHeapProfile()
	}

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Machine machineInfo `json:"machine"`
			Rows    []Row       `json:"rows"`
		}{m, b.rows}); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return status
	}
	m.print(stdout)
	printTable(stdout, b.rows)
	for _, t := range b.texts {
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, t)
	}
	return status
}

func selectScenarios(only string, remote bool) ([]scenario, error) {
	var out []scenario
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			if !slices.Contains(scenarioNames(), n) {
				return nil, fmt.Errorf("unknown scenario %q (have %s)", n, strings.Join(scenarioNames(), ", "))
			}
			want[n] = true
		}
	}
	for _, s := range scenarios {
		if len(want) > 0 && !want[s.name] {
			continue
		}
		if remote && !s.remote {
			if len(want) > 0 {
				return nil, fmt.Errorf("scenario %q needs the in-process server (it reads the server's internals); drop --url", s.name)
			}
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

func (b *bench) add(r Row) {
	b.rows = append(b.rows, r)
	logf("  %s, %d clients: p50 %s ms (base %s), rate %s (base %s)", r.Scenario, r.Clients, ms(r.P50), ms(r.BaseP50), rate(r.Rate, r.Unit), rate(r.BaseRate, r.Unit))
}

// logf reports progress on stderr, so stdout holds only the result.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func nanf() float64 { return math.NaN() }

// machineInfo says where and how the figures were measured.
type machineInfo struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	OS         string `json:"os"`
	Date       string `json:"date"`
	Mode       string `json:"mode"`
	Duration   string `json:"durationPerSide"`
	Target     string `json:"target"`
	RequestLog string `json:"requestLog"`
	Took       string `json:"took"`
}

func machine(b *bench) machineInfo {
	m := machineInfo{CPU: cpuModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version(),
		OS: runtime.GOOS + "/" + runtime.GOARCH, Date: time.Now().Format("2006-01-02 15:04 MST"), Mode: "full", Duration: b.dur.String(),
		Target: "in-process server on 127.0.0.1 (fresh temp data dir per scenario); clients in the same process"}
	if b.quick {
		m.Mode = "quick"
	}
	if b.url != "" {
		m.Target = b.url + " (remote; baseline GET /api/health)"
	}
	switch {
	case b.url != "":
		m.RequestLog = "as configured on the remote instance"
	case b.requestLog:
		m.RequestLog = "on (PocketBase default, Logs.MaxDays=5) for /api/v1 (Loreweave's writer) and PocketBase's routes (its activity logger) alike"
	default:
		m.RequestLog = "off (Logs.MaxDays=0) for /api/v1 and PocketBase's routes alike"
	}
	return m
}

func (m machineInfo) print(w io.Writer) {
	fmt.Fprintf(w, "Loreweave bench, %s mode, %s\n", m.Mode, m.Date)
	fmt.Fprintf(w, "machine: %s, %d cores (GOMAXPROCS %d), %s, %s\n", m.CPU, m.Cores, m.GOMAXPROCS, m.Go, m.OS)
	fmt.Fprintf(w, "target: %s\n", m.Target)
	fmt.Fprintf(w, "request logging: %s\n", m.RequestLog)
	fmt.Fprintf(w, "measuring %s per side per configuration, interleaved ours/baseline/baseline/ours; took %s\n", m.Duration, m.Took)
	fmt.Fprintln(w, "ratios are ours ÷ baseline: p50 lower is better; rate higher is better for ops/s and docs/s, lower for KiB and MiB")
	fmt.Fprintln(w)
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}
