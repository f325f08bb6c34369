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
	// LogEntries adds that many entries to each run's EVIDENCE_LOG.md, each
	// logging one of the executor's artifacts again (with its hash, so the
	// run stays valid): a large evidence log for memory benchmarks.
	LogEntries int
}

// MinArtifacts is the smallest artifact count: a valid run carries every
// artifact its documents name (design diagram, RED and GREEN test output,
// coverage report, security scan, mutation report).
const MinArtifacts = 6

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
		return nil, fmt.Errorf("artifacts: got %d, expected at least %d (a valid run carries every artifact its documents name)", opts.Artifacts, MinArtifacts)
	case opts.Size < 0:
		return nil, fmt.Errorf("size: got %d, expected 0 or more bytes", opts.Size)
	case !(opts.Broken >= 0 && opts.Broken <= 1):
		return nil, fmt.Errorf("broken: got %v, expected a fraction from 0 to 1", opts.Broken)
	case opts.LogEntries < 0:
		return nil, fmt.Errorf("log entries: got %d, expected 0 or more", opts.LogEntries)
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

// The templates are the files of testdata/runs/ok/complete with the run id,
// the clock times and the artifact lists made variable. templateClock is the
// start of that run; "at" shifts its clock times onto each run's own start.
var templateClock = time.Date(2025, 9, 29, 13, 42, 15, 0, time.UTC)

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	// Both are replaced per run; these only let the templates parse.
	"at":    func(string) (string, error) { return "", nil },
	"extra": func(string) (string, error) { return "", nil },
}).ParseFS(templateFS, "templates/*.tmpl"))

// documents lists the rendered files in the order they are written: the
// reports before EVIDENCE_LOG.md, which logs their hashes.
var documents = []struct {
	path, template string
	agent          string // owner of a logged report; "" for state files
	clock          string // when the report was logged, on the template clock
	description    string
}{
	{"state.json", "state.json.tmpl", "", "", ""},
	{"state/CURRENT_TASK.json", "CURRENT_TASK.json.tmpl", "", "", ""},
	{"state/SESSION_HANDOFF.json", "SESSION_HANDOFF.json.tmpl", "", "", ""},
	{"state/ROADMAP.md", "ROADMAP.md.tmpl", "", "", ""},
	{"state/GATES_LEDGER.md", "GATES_LEDGER.md.tmpl", "", "", ""},
	{"README.md", "README.md.tmpl", "", "", ""},
	{"planner_report.json", "planner_report.json.tmpl", "planner", "14:05:30", "Task decomposition report"},
	{"executor_report.json", "executor_report.json.tmpl", "executor", "14:45:00", "TDD cycle T001 complete"},
	{"validator_report.json", "validator_report.json.tmpl", "validator", "15:00:00", "Validation PASSED"},
}

// namedArtifacts are the artifacts of the model run, which its documents
// name; a run has them all (hence MinArtifacts), then extras.
var namedArtifacts = []artifact{
	{"artifacts/planner/architecture.png", "planner", "14:03:15", "Component diagram: login API, jwt module, key store"},
	{"artifacts/executor/test_output_red.txt", "executor", "14:15:00", "RED phase (3 tests failing)"},
	{"artifacts/executor/test_output_green.txt", "executor", "14:30:00", "GREEN phase (47 tests passing)"},
	{"artifacts/executor/coverage_delta.json", "executor", "14:42:00", "Coverage +5.2% (94.2% absolute)"},
	{"artifacts/validator/security_scan.json", "validator", "14:55:00", "OWASP scan clean (0 vulnerabilities)"},
	{"artifacts/validator/mutation_report.txt", "validator", "14:58:00", "91.3% mutation score"},
}

// runGen writes one run.
type runGen struct {
	opts    Options
	content *rand.ChaCha8
	id      string
	dir     string
	start   time.Time
	data    templateData
	files   int
	bytes   int64
}

type templateData struct {
	RunID string
	// Evidence lists each agent's log entries: its artifacts, then its report.
	Evidence map[string][]evidenceEntry
	// extra lists each agent's artifacts beyond the named ones.
	extra map[string][]string
}

type evidenceEntry struct{ Path, Hash, Time, Description string }

type artifact struct{ path, agent, clock, description string }

func newRunGen(opts Options, index int, runsDir string) *runGen {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[0:], opts.Seed)
	binary.LittleEndian.PutUint64(seed[8:], uint64(index))
	copy(seed[16:], "h3a-synth-run")
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(index)))
	g := &runGen{opts: opts, content: rand.NewChaCha8(seed)}
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
	g.data = templateData{RunID: g.id, Evidence: map[string][]evidenceEntry{}, extra: map[string][]string{}}
	return g
}

// artifacts names the run's artifact files: the named ones, then extras
// shared among the agents, half of them the executor's.
func (g *runGen) artifacts() []artifact {
	owners := []string{"executor", "validator", "executor", "planner"}
	clocks := map[string]string{"planner": "14:04:00", "executor": "14:44:00", "validator": "14:59:00"}
	out := make([]artifact, 0, g.opts.Artifacts)
	for i := range g.opts.Artifacts {
		if i < len(namedArtifacts) {
			out = append(out, namedArtifacts[i])
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

// extra continues a JSON array of paths with the agent's extra artifacts.
func (g *runGen) extra(agent string) (string, error) {
	var b strings.Builder
	for _, p := range g.data.extra[agent] {
		q, err := json.Marshal(p)
		if err != nil {
			return "", err
		}
		b.WriteString(",\n        ")
		b.Write(q)
	}
	return b.String(), nil
}

func (g *runGen) write(broken Breakage) (int, int64, error) {
	if err := os.MkdirAll(filepath.Join(g.dir, "state"), 0o755); err != nil {
		return 0, 0, err
	}
	for i, a := range g.artifacts() {
		sum, err := g.writeArtifact(a.path)
		if err != nil {
			return 0, 0, err
		}
		when, err := g.at(a.clock)
		if err != nil {
			return 0, 0, err
		}
		g.data.Evidence[a.agent] = append(g.data.Evidence[a.agent], evidenceEntry{a.path, sum[:16], when, a.description})
		if i >= len(namedArtifacts) {
			g.data.extra[a.agent] = append(g.data.extra[a.agent], a.path)
		}
	}
	tmpl, err := templates.Clone()
	if err != nil {
		return 0, 0, err
	}
	tmpl.Funcs(template.FuncMap{"at": g.at, "extra": g.extra})
	for _, d := range documents {
		b, err := g.render(tmpl, d.template, d.path)
		if err != nil {
			return 0, 0, err
		}
		if err := g.writeFile(d.path, b); err != nil {
			return 0, 0, err
		}
		if d.agent != "" {
			sum := sha256.Sum256(b)
			when, err := g.at(d.clock)
			if err != nil {
				return 0, 0, err
			}
			g.data.Evidence[d.agent] = append(g.data.Evidence[d.agent], evidenceEntry{d.path, hex.EncodeToString(sum[:8]), when, d.description})
		}
	}
	g.relog()
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

// relog adds opts.LogEntries entries to the executor's section, each
// logging one of its artifacts again as it is.
func (g *runGen) relog() {
	logged := g.data.Evidence["executor"]
	for i := range g.opts.LogEntries {
		e := logged[i%len(logged)]
		e.Description = fmt.Sprintf("re-check %d", i+1)
		g.data.Evidence["executor"] = append(g.data.Evidence["executor"], e)
	}
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
	return append(bytes.TrimRight(out.Bytes(), "\n"), '\n'), nil
}

func (g *runGen) writeFile(rel string, b []byte) error {
	if err := os.WriteFile(filepath.Join(g.dir, filepath.FromSlash(rel)), b, 0o644); err != nil {
		return err
	}
	g.files++
	g.bytes += int64(len(b))
	return nil
}

// writeArtifact writes Size bytes of printable pseudo-random text (a JSON
// document for *.json artifacts, which some checks may read) and returns
// its SHA-256 in hex. An artifact has at least minTextBytes of random
// text: an empty RED test output, or one with the GREEN output's content,
// cannot show a failure, nor two artifacts of one content stand for two,
// and the checker says so.
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
	n, err := g.writeContent(io.MultiWriter(f, digest), filepath.Ext(rel) == ".json")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	g.files++
	g.bytes += n
	return hex.EncodeToString(digest.Sum(nil)), nil
}

// minTextBytes is the least a text artifact holds: enough random text that
// no two are the same.
const minTextBytes = 16

func (g *runGen) writeContent(w io.Writer, asJSON bool) (int64, error) {
	size := g.opts.Size
	if !asJSON {
		size = max(size, minTextBytes)
		return size, writeText(w, g.content, size, true)
	}
	// A JSON artifact holds a log line of at least minTextBytes of random
	// text too: two artifacts of one content (an empty object each) would
	// be one file standing for two pieces of evidence.
	const open, closing = `{"log": "`, "\"}\n"
	filler := max(size-int64(len(open)+len(closing)), minTextBytes)
	size = filler + int64(len(open)+len(closing))
	if _, err := io.WriteString(w, open); err != nil {
		return 0, err
	}
	if err := writeText(w, g.content, filler, false); err != nil {
		return 0, err
	}
	_, err := io.WriteString(w, closing)
	return size, err
}

// alphabet holds no character that JSON strings or Markdown would escape.
const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ."

var textBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// writeText writes size bytes from alphabet, with a newline every 80
// characters if lines is set.
func writeText(w io.Writer, src *rand.ChaCha8, size int64, lines bool) error {
	bp := textBuffers.Get().(*[]byte)
	defer textBuffers.Put(bp)
	buf := *bp
	written := int64(0)
	for written < size {
		chunk := buf[:min(int64(len(buf)), size-written)]
		src.Read(chunk)
		for i, b := range chunk {
			chunk[i] = alphabet[b&63]
			if lines && (written+int64(i))%80 == 79 {
				chunk[i] = '\n'
			}
		}
		if _, err := w.Write(chunk); err != nil {
			return err
		}
		written += int64(len(chunk))
	}
	return nil
}
