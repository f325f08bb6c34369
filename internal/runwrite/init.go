// Package runwrite is the writer's side of an H3A run: Init creates a run
// as the specification's initialiser does, and Log appends one evidence
// entry with the artifact's hash. Both write only what the checker reads
// back as written, so an agent that uses them cannot log a wrong hash or
// a line the parser skips. WriteContractAudit writes the checker's audit
// of a contract run as the auditor's audit.json (check --write-audit).
package runwrite

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// H3AVersion is the specification version a new run records.
const H3AVersion = "1.0.0"

// DefaultBrief stands in the roadmap when no task brief is given.
const DefaultBrief = "to be written by the planner at G0"

// Unknown is what a metadata field says when git cannot tell.
const Unknown = "unknown"

// Meta is state.json's "meta": where the run was made.
type Meta struct {
	Repo        string `json:"repo"`
	Branch      string `json:"branch"`
	Commit      string `json:"commit"`
	CommitShort string `json:"commit_short"`
	Remote      string `json:"remote"`
	CIGreen     bool   `json:"ci_green"`
	Dirty       bool   `json:"dirty"`
}

// UnknownMeta is the metadata of a run made outside a git work tree.
func UnknownMeta() Meta {
	return Meta{Repo: Unknown, Branch: Unknown, Commit: Unknown, CommitShort: Unknown, Remote: Unknown}
}

// GitMeta reads the metadata of the git work tree holding dir (or its
// nearest existing parent); each field git cannot give is "unknown". A
// remote URL loses any user name and password, which would otherwise be
// committed with the run.
func GitMeta(ctx context.Context, dir string) Meta {
	m := UnknownMeta()
	dir = existingParent(dir)
	git := func(args ...string) (string, bool) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		cmd.Env = gitrev.GitEnv()
		out, err := cmd.Output()
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(string(out)), true
	}
	top, ok := git("rev-parse", "--show-toplevel")
	if !ok || top == "" {
		return m
	}
	m.Repo = filepath.Base(top)
	if v, ok := git("rev-parse", "--abbrev-ref", "HEAD"); ok && v != "" {
		m.Branch = v
	}
	if v, ok := git("rev-parse", "HEAD"); ok && v != "" {
		m.Commit = v
	}
	if v, ok := git("rev-parse", "--short", "HEAD"); ok && v != "" {
		m.CommitShort = v
	}
	if v, ok := git("config", "--get", "remote.origin.url"); ok && v != "" {
		m.Remote = withoutCredentials(v)
	}
	if v, ok := git("status", "--porcelain"); ok {
		m.Dirty = v != ""
	}
	return m
}

func existingParent(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for {
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			return abs
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return abs
		}
		abs = parent
	}
}

// withoutCredentials keeps of a remote only where it is: scheme, host and
// path. A user name and password or token ("https://user:token@host/repo",
// the scp-like "user:token@host:repo"), a query ("?access_token=...") and
// a fragment are dropped, since state.json is committed with the run and
// the next check refuses a secret in it. It reads the text by hand rather
// than with url.Parse, which fails on some tokens and would leave them in:
// everything up to the last "@" is credentials, everything from the first
// "?" or "#" after it is query or fragment.
func withoutCredentials(remote string) string {
	scheme, rest, ok := strings.Cut(remote, "://")
	if !ok {
		scheme, rest = "", remote
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		rest = rest[at+1:]
	}
	if end := strings.IndexAny(rest, "?#"); end >= 0 {
		rest = rest[:end]
	}
	if !ok {
		return rest
	}
	return scheme + "://" + rest
}

// NewRunID returns YYYYMMDD-HHMMSS-<uuid4>: the UTC time of now and a
// random version-4 UUID read from random (crypto/rand.Reader).
func NewRunID(now time.Time, random io.Reader) (string, error) {
	var u [16]byte
	if _, err := io.ReadFull(random, u[:]); err != nil {
		return "", fmt.Errorf("reading random bytes for the run id: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%s-%x-%x-%x-%x-%x", now.UTC().Format("20060102-150405"), u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}

// InitOptions says where and when a run is made.
type InitOptions struct {
	RunsDir string    // the folder that receives the run (made when missing)
	Brief   string    // the task brief; "" for DefaultBrief
	Now     time.Time // the creation time
	Random  io.Reader // source of the run id's UUID
	Meta    Meta      // state.json's meta
}

// Init creates a fresh run in opts.RunsDir and returns its directory. Every
// file is written atomically (temporary file, then rename); the artifacts
// folders are made empty. On an error nothing of the run is left behind.
func Init(opts InitOptions) (string, error) {
	id, err := NewRunID(opts.Now, opts.Random)
	if err != nil {
		return "", err
	}
	files, err := InitialFiles(id, opts.Now, opts.Brief, opts.Meta)
	if err != nil {
		return "", err
	}
	return writeRun(opts.RunsDir, id, h3aFolders, files)
}

// h3aFolders are the folders of a fresh h3a run, made even when empty.
var h3aFolders = []string{"state", "artifacts/planner", "artifacts/executor", "artifacts/validator"}

// writeRun makes the run folder id in runsDir, then folders in it, then
// files (each file's folder too), each written atomically, and returns the
// run's directory. On an error nothing of the run is left behind.
func writeRun(runsDir, id string, folders []string, files []File) (string, error) {
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return "", fmt.Errorf("cannot make the runs folder: %w", err)
	}
	dir := filepath.Join(runsDir, id)
	// Mkdir, not MkdirAll: a run is never written into an existing folder.
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot make the run folder: %w", err)
	}
	if err := writeRunFiles(dir, folders, files); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

func writeRunFiles(dir string, folders []string, files []File) error {
	for _, sub := range folders {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(sub)), 0o755); err != nil {
			return err
		}
	}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = atomicfile.WriteFile(path, f.Data)
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}

// File is one file of a new run: its path relative to the run and its bytes.
type File struct {
	Path string
	Data []byte
}

//go:embed template/*.tmpl
var templateFiles embed.FS

// templates are parsed when a run is made, not at the start of every
// command.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Option("missingkey=error").ParseFS(templateFiles, "template/*.tmpl"))
})

// InitialFiles is the content of a fresh run, in the order it is written:
// the state folder's five files, the three agent reports, the run's
// README.md, and state.json last, which makes the folder a run.
func InitialFiles(id string, now time.Time, brief string, meta Meta) ([]File, error) {
	if msg := rundir.CheckRunID(id); msg != "" {
		return nil, errors.New(msg)
	}
	if brief = strings.TrimSpace(brief); brief == "" {
		brief = DefaultBrief
	}
	if err := checkBrief(brief); err != nil {
		return nil, err
	}
	created := now.UTC().Format("2006-01-02T15:04:05Z")
	vars := map[string]string{"RunID": id, "Created": created, "Brief": brief}
	var files []File
	text := func(path, tmpl string) error {
		var b bytes.Buffer
		if err := templates().ExecuteTemplate(&b, tmpl, vars); err != nil {
			return err
		}
		files = append(files, File{path, b.Bytes()})
		return nil
	}
	doc := func(path string, v any) error {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		files = append(files, File{path, b.Bytes()})
		return nil
	}
	type tddPlan struct {
		Red      *string `json:"red"`
		Green    *string `json:"green"`
		Refactor *string `json:"refactor"`
	}
	type payload struct {
		TaskID         *string  `json:"task_id"`
		Context        string   `json:"context"`
		FilesToReview  []string `json:"files_to_review"`
		ActionRequired string   `json:"action_required"`
	}
	type gates struct {
		G0 string `json:"G0_planning"`
		G1 string `json:"G1_implementation"`
		G2 string `json:"G2_validation"`
		G3 string `json:"G3_production_ready"`
	}
	none := []string{}
	err := errors.Join(
		text("state/ROADMAP.md", "ROADMAP.md.tmpl"),
		doc("state/CURRENT_TASK.json", struct {
			TaskID           *string  `json:"task_id"`
			Status           string   `json:"status"`
			CreatedAt        string   `json:"created_at"`
			AssignedTo       string   `json:"assigned_to"`
			Goal             *string  `json:"goal"`
			Context          *string  `json:"context"`
			TDDPlan          tddPlan  `json:"tdd_plan"`
			FilesAffected    []string `json:"files_affected"`
			DefinitionOfDone []string `json:"definition_of_done"`
			IterationCount   int      `json:"iteration_count"`
			MaxIterations    int      `json:"max_iterations"`
			GateStatus       string   `json:"gate_status"`
			Dependencies     []string `json:"dependencies"`
			BlockedBy        []string `json:"blocked_by"`
			Notes            *string  `json:"notes"`
		}{Status: "awaiting_planner", CreatedAt: created, AssignedTo: "planner", FilesAffected: none,
			DefinitionOfDone: none, MaxIterations: 2, GateStatus: "G0_pending", Dependencies: none, BlockedBy: none}),
		text("state/GATES_LEDGER.md", "GATES_LEDGER.md.tmpl"),
		text("state/EVIDENCE_LOG.md", "EVIDENCE_LOG.md.tmpl"),
		doc("state/SESSION_HANDOFF.json", struct {
			RunID        string   `json:"run_id"`
			CurrentAgent string   `json:"current_agent"`
			NextAgent    string   `json:"next_agent"`
			HandoffTime  string   `json:"handoff_time"`
			GateStatus   string   `json:"gate_status"`
			Payload      payload  `json:"payload"`
			History      []string `json:"history"`
		}{RunID: id, CurrentAgent: "system", NextAgent: "planner", HandoffTime: created, GateStatus: "G0_pending",
			Payload: payload{Context: "Run initialised; no task defined yet", FilesToReview: []string{"state/ROADMAP.md"},
				ActionRequired: "Planner must decompose the task brief, write CURRENT_TASK.json and pass G0"},
			History: none}),
		doc("planner_report.json", agentReport{id, "planner", "reports"}),
		doc("executor_report.json", agentReport{id, "executor", "tdd_cycles"}),
		doc("validator_report.json", agentReport{id, "validator", "verdicts"}),
		text("README.md", "README.md.tmpl"),
		doc("state.json", struct {
			RunID      string   `json:"run_id"`
			H3AVersion string   `json:"h3a_version"`
			CreatedAt  string   `json:"created_at"`
			Meta       Meta     `json:"meta"`
			Gates      gates    `json:"gates"`
			Steps      []string `json:"steps"`
		}{id, H3AVersion, created, meta, gates{"pending", "not_started", "not_started", "not_started"}, none}),
	)
	if err != nil {
		return nil, fmt.Errorf("rendering a new run: %w", err)
	}
	return files, nil
}

// agentReport is a report file with its history array still empty.
type agentReport struct{ runID, agent, history string }

func (r agentReport) MarshalJSON() ([]byte, error) {
	// The key order is the specification's: run_id, agent, then the array.
	return fmt.Appendf(nil, `{"run_id":%s,"agent":%s,%s:[]}`, jsonString(r.runID), jsonString(r.agent), jsonString(r.history)), nil
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// checkBrief refuses a task brief the roadmap cannot hold as plain text:
// control characters, invalid UTF-8, and lines the roadmap's parser would
// read as structure (a heading, a task of the queue), which would let the
// brief plant tasks or sections in the planner's ledger.
func checkBrief(brief string) error {
	if !utf8.ValidString(brief) {
		return errors.New("the task brief is not valid UTF-8")
	}
	for i, r := range brief {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			return fmt.Errorf("the task brief holds the control character %U at byte %d; write it as plain text", r, i)
		}
	}
	withBrief, err := roadmapShape(brief)
	if err != nil {
		return err
	}
	plain, err := roadmapShape(DefaultBrief)
	if err != nil {
		return err
	}
	if !slices.Equal(withBrief, plain) {
		return errors.New("the task brief holds a line that the roadmap would read as its own structure (a Markdown heading, a task, an unclosed code fence or comment); write it as plain text")
	}
	return nil
}

// roadmapShape is what the parser reads as the structure of a roadmap
// holding brief: its headings and tasks, and its problems.
func roadmapShape(brief string) ([]string, error) {
	var b bytes.Buffer
	vars := map[string]string{"RunID": "", "Created": "", "Brief": brief}
	if err := templates().ExecuteTemplate(&b, "ROADMAP.md.tmpl", vars); err != nil {
		return nil, err
	}
	r, problems := ledger.ParseRoadmap(b.Bytes())
	var shape []string
	for _, s := range r.Sections {
		shape = append(shape, fmt.Sprintf("section %d %s", s.Level, s.Title))
	}
	for _, t := range r.Tasks {
		shape = append(shape, "task "+t.ID)
	}
	for _, p := range problems {
		shape = append(shape, "problem "+p.Message)
	}
	return shape, nil
}
