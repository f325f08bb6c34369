package layout

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// Contract is the layout of the artifact contract (artifact-contract.md):
// a doer's handoff.json, a judge's verdict.json and an auditor's
// audit.json per round, either flat in the run or in rounds/round-<n>/ as
// the upstream orchestrator writes them, and the orchestrator's
// summary.json at the top once the loop ends.
type Contract struct{}

const contractSummary = "summary.json"

// contractRoles are the per-round artifacts in the order the loop writes them.
var contractRoles = []struct{ name, schema string }{
	{"handoff", "contract_handoff"},
	{"verdict", "contract_verdict"},
	{"audit", "contract_audit"},
}

// contractResults are the optional results the judge's and the auditor's
// scripts write beside their artifact (upstream judge-evaluate and
// auditor-gate references/artifact-contract.md, "Optional:"): the eval
// commands run (run_eval.py) and the audit checks and commands
// (run_audit.py). artifact-contract.md does not name them. They belong to
// the round whose folder holds them, and make no round of their own.
var contractResults = []struct{ file, key, schema string }{
	{"eval-results.json", "eval_results", "contract_eval_results"},
	{"audit-results.json", "audit_results", "contract_audit_results"},
}

// contractResultKey is each results file's key, by file name; contractDocKeys
// the keys of a round's documents: the roles', then the results'.
var contractResultKey, contractDocKeys = func() (map[string]string, []string) {
	byFile := map[string]string{}
	keys := make([]string, 0, len(contractRoles)+len(contractResults))
	for _, r := range contractRoles {
		keys = append(keys, r.name)
	}
	for _, r := range contractResults {
		byFile[r.file] = r.key
		keys = append(keys, r.key)
	}
	return byFile, keys
}()

// ContractRoundFiles names the files of one round in its folder (the run's
// own folder for a flat run): each role's artifact, the judge's and the
// auditor's results and the doer's patch.diff.
func ContractRoundFiles() []string {
	names := []string{"patch.diff"}
	for _, r := range contractRoles {
		names = append(names, r.name+".json")
	}
	for _, r := range contractResults {
		names = append(names, r.file)
	}
	return names
}

var contractFiles = func() []File {
	files := []File{{Path: contractSummary, Kind: JSON, Schema: "contract_summary", DocKey: "summary"}}
	for _, r := range contractRoles {
		files = append(files, File{Path: r.name + ".json", Kind: JSON, Schema: r.schema, DocKey: r.name})
	}
	for _, r := range contractRoles {
		files = append(files, File{Path: "rounds/round-*/" + r.name + ".json", Kind: JSON, Schema: r.schema, DocKey: r.name})
	}
	for _, r := range contractResults {
		files = append(files, File{Path: r.file, Kind: JSON, Schema: r.schema, DocKey: r.key})
		files = append(files, File{Path: "rounds/round-*/" + r.file, Kind: JSON, Schema: r.schema, DocKey: r.key})
	}
	return files
}()

// contractAppendOnly: a contract round is written once (its role files and
// the results beside them), the summary once the loop ends. Rounds only grow: a round file of the base missing in
// head is h3a.append_only.file_removed. A flat run is one round rewritten
// in place, but a judge's or auditor's needs-human in it stays until a
// person confirms the change.
var contractAppendOnly = func() []AppendOnly {
	out := []AppendOnly{
		{contractSummary, Frozen{Why: "summary fields of a finished run never change"}},
		{"verdict.json", NeedsHumanStays{Member: "verdict"}},
		{"audit.json", NeedsHumanStays{Member: "gate"}},
	}
	for _, r := range contractRoles {
		out = append(out, AppendOnly{"rounds/round-*/" + r.name + ".json", Frozen{Why: "a committed round never changes; a new attempt is a new round"}})
	}
	for _, r := range contractResults {
		out = append(out, AppendOnly{"rounds/round-*/" + r.file, Frozen{Why: "a committed round's results never change; a new attempt is a new round"}})
	}
	return out
}()

func (Contract) ID() string               { return "contract" }
func (Contract) Files() []File            { return contractFiles }
func (Contract) AppendOnly() []AppendOnly { return contractAppendOnly }

// Detect: the contract's defining structure, a rounds/round-<n>/ folder
// or a doer's handoff.json together with another role's file: a judge's
// verdict.json, an auditor's audit.json or the orchestrator's
// summary.json. A run that lost its verdict.json is still a run, whose
// check reports what is missing; were it none, a search of the folder
// above would pass over its summary's claim in silence. A lone
// audit.json or summary.json claims nothing: both are common names (a
// report of this checker saved beside runs is one), and a file must never
// turn a folder of runs into one run and hide those below it. A round
// folder is never a run of its own, so a file named inside one is checked
// as part of the whole run.
func (Contract) Detect(fsys fs.FS, dir string) bool {
	// Names in another case count (see rundir's foldFS): a ROUNDS/ROUND-1/
	// folder makes a run as rounds/round-1/ does, never runs of its own.
	if contractRoundName.MatchString(rundir.FoldName(path.Base(dir))) && rundir.FoldName(path.Base(path.Dir(dir))) == "rounds" {
		return false
	}
	if isFile(fsys, dir, "handoff.json") {
		for _, other := range []string{"verdict.json", "audit.json", contractSummary} {
			if isFile(fsys, dir, other) {
				return true
			}
		}
	}
	if !isDirOrLink(fsys, dir, "rounds") {
		return false
	}
	rounds, err := fs.ReadDir(fsys, path.Join(dir, "rounds"))
	if err != nil {
		return false
	}
	return slices.ContainsFunc(rounds, func(e fs.DirEntry) bool {
		// A round that is a link is a round all the same: the check reports it.
		return (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && contractRoundName.MatchString(rundir.FoldName(e.Name()))
	})
}

func (l Contract) Forced(fsys fs.FS, dir string) bool { return l.Detect(fsys, dir) }

func (Contract) Defined() string {
	return "a contract run holds rounds/round-<n>/ folders, or handoff.json together with verdict.json, audit.json or summary.json"
}

// contractRoundName is a round folder's name: round-<n>.
var contractRoundName = regexp.MustCompile(`^round-[0-9]+$`)

func (Contract) Evidence(*Run) []EvidenceRef { return nil }

// contractRound is one round of a run: its number (-1 for a flat run, or
// when the folder's number cannot be read: h3a.structure.contract_round_number)
// and its artifacts by role.
type contractRound struct {
	N     int
	Dir   string // "" for a flat run
	Files map[string]string
}

// rounds lists the run's rounds in order: the flat artifacts form one
// round; round folders are ordered by number (compareRounds), a folder
// whose number cannot be read after every numbered one. A round is made
// by a role's artifact; the results beside it (contractResults) join the
// round of their folder, by key (eval_results, audit_results).
func (Contract) rounds(r *Run) []contractRound {
	byDir := map[string]*contractRound{}
	var out []*contractRound
	var pending []Match
	for _, m := range r.Files {
		if m.Path == contractSummary {
			continue
		}
		d := r.Docs[m.Path]
		if d == nil || !d.Present {
			continue
		}
		if _, ok := contractResultKey[path.Base(m.Path)]; ok {
			pending = append(pending, m)
			continue
		}
		role := strings.TrimSuffix(path.Base(m.Path), ".json")
		dir := roundDirOf(m.Path)
		cr := byDir[dir]
		if cr == nil {
			cr = &contractRound{N: -1, Dir: dir, Files: map[string]string{}}
			if n, ok := contractRoundNumber(path.Base(dir)); ok && dir != "" {
				cr.N = n
			}
			byDir[dir] = cr
			out = append(out, cr)
		}
		cr.Files[role] = m.Path
	}
	for _, m := range pending {
		if cr := byDir[roundDirOf(m.Path)]; cr != nil {
			cr.Files[contractResultKey[path.Base(m.Path)]] = m.Path
		}
	}
	slices.SortFunc(out, func(a, b *contractRound) int { return compareRounds(*a, *b) })
	rs := make([]contractRound, len(out))
	for i, c := range out {
		rs[i] = *c
	}
	return rs
}

// roundDirOf is the round folder of a round's file, "" at the run's top.
func roundDirOf(p string) string {
	if dir := path.Dir(p); dir != "." {
		return dir
	}
	return ""
}

// contractDirName is the orchestrator's run folder name: <TASK_ID>-<YYYYMMDD-HHMMSS>.
var contractDirName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+)-(\d{8}-\d{6})$`) })

// taskIDRef is one place a task id is written.
type taskIDRef struct {
	File, ID string
}

// taskIDs lists every task id the run names, folder name first, then the
// summary, then each round's artifacts in order.
func (l Contract) taskIDs(r *Run) []taskIDRef {
	var refs []taskIDRef
	if m := contractDirName().FindStringSubmatch(filepath.Base(r.Dir)); m != nil {
		refs = append(refs, taskIDRef{"", m[1]})
	}
	if id, ok := jsonString(r, contractSummary, "task_id"); ok {
		refs = append(refs, taskIDRef{contractSummary, id})
	}
	for _, rd := range l.rounds(r) {
		for _, role := range contractRoles {
			if p, ok := rd.Files[role.name]; ok {
				if id, ok := jsonString(r, p, "task_id"); ok {
					refs = append(refs, taskIDRef{p, id})
				}
			}
		}
	}
	return refs
}

// Check compares the last round's files_touched with the repository, which
// needs files outside the run; every other rule of the layout judges the
// documents and the facts of the input, so it is Rego
// (policies/contract.rego).
func (l Contract) Check(r *Run) []finding.Finding {
	out := l.checkFlatBesideRounds(r)
	out = append(out, l.checkRoundNames(r)...)
	return append(out, l.checkFilesTouched(r)...)
}

// checkFlatBesideRounds: role files at the top of the run are the one
// round of a flat run, which has no rounds/. Beside round folders they are
// a round with no place among the numbered ones (the check orders it
// first), so which round is last would be a guess: an error at the first
// of them.
func (l Contract) checkFlatBesideRounds(r *Run) []finding.Finding {
	rounds := l.rounds(r)
	if len(rounds) < 2 || rounds[0].Dir != "" {
		return nil
	}
	var flat []string
	for _, role := range contractRoles {
		if p, ok := rounds[0].Files[role.name]; ok {
			flat = append(flat, p)
		}
	}
	folders := rounds[1].Dir
	if n := len(rounds) - 1; n > 1 {
		folders = fmt.Sprintf("%d round folders (%s to %s)", n, rounds[1].Dir, rounds[n].Dir)
	}
	verb := "sits"
	if len(flat) > 1 {
		verb = "sit"
	}
	return []finding.Finding{finding.ContractFlatAndRounds.New(flat[0],
		"%s %s at the top of the run beside %s: role files sit at the top only in a run of one round with no rounds/, so which round they are, and which round is last (the one summary.json and the gate follow), is a guess; they are checked as a round before %s",
		andList(flat), verb, folders, rounds[1].Dir)}
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// checkRoundNames: the order of the rounds decides which round is last,
// and so the verdict; a round folder whose number cannot be read has no
// place in that order, so it is an error at the folder, never a guess.
func (l Contract) checkRoundNames(r *Run) []finding.Finding {
	var out []finding.Finding
	for _, rd := range l.rounds(r) {
		why := unreadableRoundNumber(rd.Dir)
		if why == "" {
			continue
		}
		out = append(out, finding.ContractRoundNumber.New(rd.Dir,
			"%s holds a round but %s, so which round is last (the one summary.json and the gate follow) is a guess; it is checked as coming after every numbered round",
			rd.Dir, why))
	}
	return out
}

// maxPatchSize bounds the patch.diff read to learn which files a round
// deletes; a larger one is a finding, and its deletions are not known.
const maxPatchSize = 16 << 20

// touchedFiles is what the files_touched check needs: the repository the
// run belongs to, the last round's handoff and patch, and the repository
// paths the handoff names, by index. Only a run where the orchestrator
// puts it, <repo>/.orchestrator/runs/<run>, names its repository for
// certain; ok is false for any other, or without a readable handoff.
type touchedFiles struct {
	repo, handoff, patch string
	paths                map[int]string
	order                []int
}

func (l Contract) touched(r *Run) (t touchedFiles, ok bool) {
	runs := filepath.Dir(r.Dir)
	if filepath.Base(runs) != "runs" || filepath.Base(filepath.Dir(runs)) != ".orchestrator" {
		return t, false
	}
	t.repo = filepath.Dir(filepath.Dir(runs))
	var last *contractRound
	rounds := l.rounds(r)
	for i := range rounds {
		if _, ok := rounds[i].Files["handoff"]; ok {
			last = &rounds[i]
		}
	}
	if last == nil {
		return t, false
	}
	t.handoff = last.Files["handoff"]
	d := r.Docs[t.handoff]
	if d == nil || !d.Parsed || d.JSON == nil {
		return t, false
	}
	m, _ := d.JSON.Value.(map[string]any)
	touched, _ := m["files_touched"].([]any)
	t.patch = path.Join(last.Dir, "patch.diff")
	t.paths = map[int]string{}
	for i, v := range touched {
		p, ok := v.(string)
		if !ok || p == "" || !filepath.IsLocal(filepath.FromSlash(p)) {
			continue // not a repository path: the schema and other rules speak of it
		}
		t.paths[i] = p
		t.order = append(t.order, i)
	}
	return t, true
}

// Needs: whether each path the last round touched is in the repository,
// and, once one is not, the round's patch.diff, which may delete it.
func (l Contract) Needs(r *Run) []Need {
	t, ok := l.touched(r)
	if !ok {
		return nil
	}
	var needs []Need
	gone := false
	for _, i := range t.order {
		n := Need{Path: t.paths[i], Want: Entry, Repo: t.repo}
		needs = append(needs, n)
		gone = gone || (r.Met(n) && !r.InRepo(t.repo, t.paths[i]))
	}
	if gone {
		needs = append(needs, Need{Path: t.patch, Want: Text, Limit: maxPatchSize})
	}
	return needs
}

// checkFilesTouched compares the last round's files_touched with the
// repository the run belongs to: a path that is not there must be one
// the round's patch.diff deletes.
func (l Contract) checkFilesTouched(r *Run) []finding.Finding {
	t, ok := l.touched(r)
	if !ok {
		return nil
	}
	var deleted map[string]bool
	var out []finding.Finding
	for _, i := range t.order {
		p := t.paths[i]
		if r.InRepo(t.repo, p) {
			continue
		}
		if deleted == nil {
			deleted = deletedIn(r.Text(t.patch).Data)
		}
		if deleted[p] {
			continue
		}
		f := finding.ContractFileMissing.New(t.handoff, "files_touched[%d] %q does not exist in the repository (the folder holding .orchestrator/), and %s does not delete it",
			i, p, t.patch)
		f.Pointer = fmt.Sprintf("/files_touched/%d", i)
		out = append(out, f)
	}
	return out
}

// deletedIn lists the files a unified diff (git diff) deletes.
func deletedIn(data []byte) map[string]bool {
	deleted := map[string]bool{}
	var from string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "--- a/"):
			from = strings.TrimPrefix(line, "--- a/")
		case line == "+++ /dev/null" && from != "":
			deleted[from] = true
		case !strings.HasPrefix(line, "+++ "):
			from = ""
		}
	}
	return deleted
}

// RequirementsKnown: a round with both a handoff and a verdict says which
// requirements were touched and which of them were checked.
func (l Contract) RequirementsKnown(r *Run) bool {
	for _, rd := range l.rounds(r) {
		h, v := r.Docs[rd.Files["handoff"]], r.Docs[rd.Files["verdict"]]
		if h != nil && h.Parsed && v != nil && v.Parsed {
			return true
		}
	}
	return false
}

func (l Contract) RunID(r *Run) string { return filepath.Base(r.Dir) }

func (l Contract) TaskID(r *Run) string {
	if refs := l.taskIDs(r); len(refs) > 0 {
		return refs[0].ID
	}
	return ""
}

// Docs gives the policies the summary and the rounds in order, each round
// with its artifacts by role, the judge's and the auditor's results
// (eval_results, audit_results) and the files they came from, plus the task
// ids the checker found and whether they agree (the auditor's own
// traceability.task_id_match is compared with that).
func (l Contract) Docs(r *Run) map[string]any {
	rounds := []any{}
	for _, rd := range l.rounds(r) {
		files := map[string]any{}
		round := map[string]any{"dir": rd.Dir, "files": files}
		if rd.N >= 0 {
			round["n"] = rd.N
		} else {
			round["n"] = nil
		}
		for _, key := range contractDocKeys {
			p, ok := rd.Files[key]
			if !ok {
				round[key] = nil
				continue
			}
			files[key] = p
			round[key] = r.Docs[p].Value()
		}
		rounds = append(rounds, round)
	}
	refs := l.taskIDs(r)
	ids := []any{}
	agree := true
	for _, ref := range refs {
		ids = append(ids, map[string]any{"file": ref.File, "task_id": ref.ID})
		agree = agree && ref.ID == refs[0].ID
	}
	var summary any
	if d := r.Docs[contractSummary]; d != nil {
		summary = d.Value()
	}
	return map[string]any{
		"summary":        summary,
		"rounds":         rounds,
		"task_ids":       ids,
		"task_ids_agree": agree,
	}
}
