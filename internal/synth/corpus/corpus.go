// Package corpus writes synthetic H3A run directories for tests and
// benchmarks: valid runs modelled on testdata/runs/ok/complete (every check
// passes: schemas, hashes in EVIDENCE_LOG.md, run ids of the form
// YYYYMMDD-HHMMSS-<uuid4> under runs/), and optionally a fraction of runs that
// each break exactly one thing, so a test knows which finding to expect.
//
// The output is a pure function of Options: the same seed gives the same
// bytes, whatever the number of workers that wrote them.
package corpus

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"
)

// Options describe a corpus.
type Options struct {
	Runs      int     // number of runs
	Artifacts int     // artifact files per run, at least MinArtifacts
	Size      int64   // bytes per artifact
	Broken    float64 // fraction of runs that break one thing each, 0 to 1
	Seed      uint64  // same seed, same corpus
	Workers   int     // parallel writers (0: GOMAXPROCS); never changes the output
}

// MinArtifacts is the smallest artifact count: a valid run carries the RED
// and the GREEN test output of its TDD cycle.
const MinArtifacts = 2

// Breakage is one way to break a run and the rule that must report it.
type Breakage struct {
	Name string // e.g. "hash_mismatch"
	Rule string // the finding's rule id, e.g. "h3a.integrity.hash_mismatch"
}

// Breakages lists every breakage; broken runs take them in turn. Each one
// touches a file that is not itself logged in the evidence log, so that it
// breaks exactly one check.
var Breakages = []Breakage{
	{"hash_mismatch", "h3a.integrity.hash_mismatch"},       // the GREEN output changed after it was logged
	{"missing_artifact", "h3a.integrity.missing_artifact"}, // the RED output was deleted
	{"schema_violation", "h3a.schema.violation"},           // a gate value outside the enum
	{"json_syntax", "h3a.schema.json_syntax"},              // CURRENT_TASK.json cut short
	{"run_id_mismatch", "h3a.traceability.run_id_mismatch"},
	{"tmp_leftover", "h3a.structure.tmp_leftover"},
	{"missing_file", "h3a.structure.missing_file"}, // ROADMAP.md deleted
	{"malformed_record", "h3a.structure.malformed_record"},
}

// Run is one generated run.
type Run struct {
	ID  string
	Dir string // out/runs/<ID>
	// Broken is the breakage applied to the run; the zero value means valid.
	Broken Breakage
}

// Corpus is what Generate wrote.
type Corpus struct {
	Dir   string // the runs/ folder
	Runs  []Run  // in generation order
	Files int    // regular files written (after breakages)
	Bytes int64  // their total size
}

// Generate writes opts.Runs runs under out/runs/. out is created if needed;
// existing runs/ content is left alone, so use an empty directory.
func Generate(out string, opts Options) (*Corpus, error) {
	switch {
	case opts.Runs < 0:
		return nil, fmt.Errorf("runs: got %d, expected 0 or more", opts.Runs)
	case opts.Artifacts < MinArtifacts:
		return nil, fmt.Errorf("artifacts: got %d, expected at least %d (a valid run carries its RED and GREEN test outputs)", opts.Artifacts, MinArtifacts)
	case opts.Size < 0:
		return nil, fmt.Errorf("size: got %d, expected 0 or more bytes", opts.Size)
	case !(opts.Broken >= 0 && opts.Broken <= 1):
		return nil, fmt.Errorf("broken: got %v, expected a fraction from 0 to 1", opts.Broken)
	}
	runsDir := filepath.Join(out, "runs")
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return nil, err
	}
	c := &Corpus{Dir: runsDir, Runs: make([]Run, opts.Runs)}
	broken := brokenRuns(opts)

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type tally struct {
		files int
		bytes int64
		err   error
	}
	tallies := make([]tally, opts.Runs)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(opts.Runs, 1)) {
		wg.Go(func() {
			for i := range next {
				g := newRunGen(opts, i, runsDir)
				files, n, err := g.write(broken[i])
				c.Runs[i] = Run{ID: g.id, Dir: g.dir, Broken: broken[i]}
				tallies[i] = tally{files, n, err}
			}
		})
	}
	for i := range opts.Runs {
		next <- i
	}
	close(next)
	wg.Wait()
	var errs []error
	for _, t := range tallies {
		c.Files += t.files
		c.Bytes += t.bytes
		errs = append(errs, t.err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// brokenRuns picks round(Broken × Runs) runs, spread by the seed, and gives
// them the breakages in turn.
func brokenRuns(opts Options) []Breakage {
	out := make([]Breakage, opts.Runs)
	n := int(opts.Broken*float64(opts.Runs) + 0.5)
	rng := rand.New(rand.NewPCG(opts.Seed, 0x62726f6b656e)) // "broken"
	for k, i := range rng.Perm(opts.Runs)[:n] {
		out[i] = Breakages[k%len(Breakages)]
	}
	return out
}

//go:embed templates/*.tmpl
var templateFS embed.FS

// templateClock is the start of the run the templates were written from;
// "at" shifts the template's clock times onto each run's own start.
var templateClock = time.Date(2025, 9, 29, 13, 42, 15, 0, time.UTC)

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"prepend": func(s string, list []string) []string { return append([]string{s}, list...) },
	// "at" is replaced per run; this one only lets the templates parse.
	"at": func(string) (string, error) { return "", nil },
}).ParseFS(templateFS, "templates/*.tmpl"))

// documents lists the rendered files in the order they are written: the
// reports before EVIDENCE_LOG.md, which logs their hashes.
var documents = []struct {
	path, template string
	logged         bool   // listed in the evidence log
	agent          string // owner, for the log's time and description
}{
	{"state.json", "state.json.tmpl", false, ""},
	{"state/CURRENT_TASK.json", "CURRENT_TASK.json.tmpl", false, ""},
	{"state/SESSION_HANDOFF.json", "SESSION_HANDOFF.json.tmpl", false, ""},
	{"state/ROADMAP.md", "ROADMAP.md.tmpl", false, ""},
	{"state/GATES_LEDGER.md", "GATES_LEDGER.md.tmpl", false, ""},
	{"planner_report.json", "planner_report.json.tmpl", true, "planner"},
	{"executor_report.json", "executor_report.json.tmpl", true, "executor"},
	{"validator_report.json", "validator_report.json.tmpl", true, "validator"},
}

// reportTime is when each agent's report was logged, on the template clock.
var reportTime = map[string]string{"planner": "14:05:30", "executor": "14:45:00", "validator": "15:00:00"}

// runGen writes one run.
type runGen struct {
	opts    Options
	rng     *rand.Rand
	content *rand.ChaCha8
	id      string
	dir     string
	start   time.Time
	data    templateData
	files   int
	bytes   int64
}

type templateData struct {
	RunID, TaskID, Commit        string
	Red, Green                   string
	Planner, Executor, Validator []string
	Evidence                     []evidenceEntry
}

type evidenceEntry struct{ Path, Hash, Time, Description string }

type artifact struct{ path, agent, clock, description string }

func newRunGen(opts Options, index int, runsDir string) *runGen {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[0:], opts.Seed)
	binary.LittleEndian.PutUint64(seed[8:], uint64(index))
	copy(seed[16:], "h3a-synth-run")
	content := rand.NewChaCha8(seed)
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(index)))
	g := &runGen{opts: opts, rng: rng, content: content}
	// A start within 2025, on a whole second, and a version-4 UUID.
	g.start = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(365*24*3600)) * time.Second)
	var u [16]byte
	for i := range u {
		u[i] = byte(rng.Uint32())
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	g.id = fmt.Sprintf("%s-%s-%s-%s-%s-%s", g.start.Format("20060102-150405"), h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])
	g.dir = filepath.Join(runsDir, g.id)
	var commit [20]byte
	for i := range commit {
		commit[i] = byte(rng.Uint32())
	}
	g.data = templateData{
		RunID:  g.id,
		TaskID: fmt.Sprintf("T%03d", 1+rng.IntN(999)),
		Commit: hex.EncodeToString(commit[:]),
	}
	return g
}

// artifacts names the run's artifact files: RED and GREEN first, then a
// mix owned by the three agents, most of it the executor's.
func (g *runGen) artifacts() []artifact {
	fixed := []artifact{
		{"artifacts/executor/test_output_red.txt", "executor", "14:15:00", "RED phase (3 tests failing)"},
		{"artifacts/executor/test_output_green.txt", "executor", "14:30:00", "GREEN phase (47 tests passing)"},
		{"artifacts/validator/mutation_report.txt", "validator", "14:58:00", "mutation score 91.3%"},
		{"artifacts/planner/architecture.txt", "planner", "14:03:15", "component diagram source"},
		{"artifacts/validator/security_scan.txt", "validator", "14:55:00", "OWASP scan clean (0 vulnerabilities)"},
	}
	owners := []string{"executor", "executor", "validator", "planner"}
	clocks := map[string]string{"executor": "14:42:00", "validator": "14:56:00", "planner": "14:04:00"}
	out := make([]artifact, 0, g.opts.Artifacts)
	for i := range g.opts.Artifacts {
		if i < len(fixed) {
			out = append(out, fixed[i])
			continue
		}
		who := owners[i%len(owners)]
		out = append(out, artifact{fmt.Sprintf("artifacts/%s/output_%04d.log", who, i), who, clocks[who], fmt.Sprintf("%s output %d", who, i)})
	}
	return out
}

// at turns a clock time of the template run into this run's RFC 3339 time.
func (g *runGen) at(clock string) (string, error) {
	t, err := time.Parse("15:04:05", clock)
	if err != nil {
		return "", err
	}
	offset := time.Duration(t.Hour()-templateClock.Hour())*time.Hour +
		time.Duration(t.Minute()-templateClock.Minute())*time.Minute +
		time.Duration(t.Second()-templateClock.Second())*time.Second
	return g.start.Add(offset).Format(time.RFC3339), nil
}

func (g *runGen) write(broken Breakage) (int, int64, error) {
	if err := os.MkdirAll(filepath.Join(g.dir, "state"), 0o755); err != nil {
		return 0, 0, err
	}
	var evidence []evidenceEntry
	for _, a := range g.artifacts() {
		sum, err := g.writeArtifact(a.path)
		if err != nil {
			return 0, 0, err
		}
		when, _ := g.at(a.clock)
		evidence = append(evidence, evidenceEntry{a.path, sum[:16], when, a.description})
		switch {
		case a.path == "artifacts/executor/test_output_red.txt":
			g.data.Red = a.path
		case a.path == "artifacts/executor/test_output_green.txt":
			g.data.Green = a.path
		}
		switch a.agent {
		case "planner":
			g.data.Planner = append(g.data.Planner, a.path)
		case "executor":
			g.data.Executor = append(g.data.Executor, a.path)
		case "validator":
			g.data.Validator = append(g.data.Validator, a.path)
		}
	}
	// Templates range over these; an agent without artifacts lists none.
	for _, l := range []*[]string{&g.data.Planner, &g.data.Executor, &g.data.Validator} {
		if *l == nil {
			*l = []string{}
		}
	}
	tmpl, err := templates.Clone()
	if err != nil {
		return 0, 0, err
	}
	tmpl.Funcs(template.FuncMap{"at": g.at})
	for _, d := range documents {
		b, err := g.render(tmpl, d.template, d.path)
		if err != nil {
			return 0, 0, err
		}
		if err := g.writeFile(d.path, b); err != nil {
			return 0, 0, err
		}
		if d.logged {
			sum := sha256.Sum256(b)
			when, _ := g.at(reportTime[d.agent])
			evidence = append(evidence, evidenceEntry{d.path, hex.EncodeToString(sum[:8]), when, d.agent + " report"})
		}
	}
	// Log in time order, as agents append to it.
	slices.SortStableFunc(evidence, func(a, b evidenceEntry) int { return strings.Compare(a.Time, b.Time) })
	g.data.Evidence = evidence
	b, err := g.render(tmpl, "EVIDENCE_LOG.md.tmpl", "state/EVIDENCE_LOG.md")
	if err != nil {
		return 0, 0, err
	}
	if err := g.writeFile("state/EVIDENCE_LOG.md", b); err != nil {
		return 0, 0, err
	}
	if broken.Name != "" {
		if err := g.breakRun(broken); err != nil {
			return 0, 0, fmt.Errorf("breaking run %s (%s): %w", g.id, broken.Name, err)
		}
	}
	return g.files, g.bytes, nil
}

// render executes a template; JSON output is re-indented, which also proves
// the template produced valid JSON.
func (g *runGen) render(tmpl *template.Template, name, path string) ([]byte, error) {
	var buf bytes.Buffer
	if err := tmpl.ExecuteTemplate(&buf, name, g.data); err != nil {
		return nil, err
	}
	if filepath.Ext(path) != ".json" {
		return buf.Bytes(), nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("template %s rendered invalid JSON: %w", name, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func (g *runGen) writeFile(rel string, b []byte) error {
	if err := os.WriteFile(filepath.Join(g.dir, filepath.FromSlash(rel)), b, 0o644); err != nil {
		return err
	}
	g.files++
	g.bytes += int64(len(b))
	return nil
}

// writeArtifact writes Size bytes of printable, line-broken pseudo-random
// text and returns its SHA-256 in hex.
func (g *runGen) writeArtifact(rel string) (string, error) {
	p := filepath.Join(g.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	digest := sha256.New()
	err = writeText(io.MultiWriter(f, digest), g.content, g.opts.Size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	g.files++
	g.bytes += g.opts.Size
	return hex.EncodeToString(digest.Sum(nil)), nil
}

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ."

var textBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

func writeText(w io.Writer, src *rand.ChaCha8, size int64) error {
	bp := textBuffers.Get().(*[]byte)
	defer textBuffers.Put(bp)
	buf := *bp
	for size > 0 {
		chunk := buf[:min(int64(len(buf)), size)]
		src.Read(chunk)
		for i, b := range chunk {
			chunk[i] = alphabet[b&63]
			if i%80 == 79 {
				chunk[i] = '\n'
			}
		}
		if _, err := w.Write(chunk); err != nil {
			return err
		}
		size -= int64(len(chunk))
	}
	return nil
}
