package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/policies"
)

// Package prefixes: shipped rules live under h3a.rules, their helpers in
// h3a.lib (generic) and h3a.model (the h3a layout's), and user rules only
// under h3a.user. Rego merges packages across files, so a user module in
// any other package could add to or break a shipped rule; it is refused
// instead. The references are built, not parsed: parsing them at start
// cost every check about 0.1 ms of package initialisation
// (TestRefsAsParsed holds them equal to the parsed ones).
var (
	rulesPrefix  = ref("data", "h3a", "rules")
	libPackage   = ref("data", "h3a", "lib")
	modelPackage = ref("data", "h3a", "model")
	userPrefix   = ref("data", "h3a", "user")
)

// ref is the reference root.path[0].path[1]..., as ast.MustParseRef
// reads it.
func ref(root string, path ...string) ast.Ref {
	r := ast.Ref{ast.VarTerm(root)}
	for _, p := range path {
		r = append(r, ast.StringTerm(p))
	}
	return r
}

// libraryFiles are the shipped files that hold packages h3a.lib and
// h3a.model: all a user rule may import. When user rules compile, they
// compile with these alone, and the shipped rules run from their plan
// (TestLibraryFiles holds the list to the packages).
var libraryFiles = []string{"lib.rego", "model.rego"}

// shippedDir is how embedded files are named in messages and coverage: the
// folder they live in in the repository.
const shippedDir = "policies"

// shippedFS holds the shipped policies; tests put altered copies here.
var shippedFS fs.FS = policies.FS

// CompileError lists every problem that keeps the policies from being used,
// each starting with file:line. The checker cannot check without its rules,
// so this is exit code 2, never a finding.
type CompileError struct {
	Problems []string
}

func (e *CompileError) Error() string {
	return "policies cannot be used:\n  " + strings.Join(e.Problems, "\n  ")
}

// module is one parsed .rego file and where it came from.
type module struct {
	file   string // as shown to people: policies/gates.rego, or DIR/x.rego
	parsed *ast.Module
	user   bool
	test   bool
	dir    string // the --policy DIR it came from ("" for shipped)
}

func isTestFile(name string) bool { return strings.HasSuffix(name, "_test.rego") }

// parseAll parses the shipped modules and those of every user dir. Tests are
// included only when withTests is set. Every parse error is collected.
//
// sources may give, for a dir, the file system it is read from instead of
// the disk: the base revision's version of a repository-local folder.
//
// libraryOnly keeps, of the shipped files, only libraryFiles.
func parseAll(dirs []string, sources map[string]fs.FS, withTests, libraryOnly bool, caps *ast.Capabilities) ([]*module, []string) {
	var mods []*module
	var problems []string
	add := func(fsys fs.FS, display func(string) string, user bool, dir string, keep func(string) bool) {
		found, entries := 0, 0
		var files []string
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// A link is never followed (fs.WalkDir passes over a linked
			// folder in silence, and its rules would not be loaded), a
			// file that is not regular could block or never end, and
			// the folder's size is bounded, as at a base revision.
			if entries++; entries > maxPolicyFiles {
				return fmt.Errorf("holds more than %d files and folders, the most a policy folder may hold", maxPolicyFiles)
			}
			if d.Type()&fs.ModeSymlink != 0 {
				return fmt.Errorf("%s is a symbolic link; a policy folder holds its files and folders, never links", p)
			}
			if d.IsDir() || !strings.HasSuffix(p, ".rego") {
				return nil
			}
			if !d.Type().IsRegular() {
				return fmt.Errorf("%s is not a regular file", p)
			}
			found++
			if isTestFile(p) && !withTests || !keep(p) {
				return nil
			}
			files = append(files, p)
			return nil
		})
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: cannot read the policy folder: %v", dir, unwrapPath(err)))
			return
		}
		if user && found == 0 {
			problems = append(problems, fmt.Sprintf("%s: no .rego file in this policy folder (expected at least one rule, e.g. deny contains f if {...} in a package under h3a.user)", dir))
		}
		// Parsing is a third of the start-up cost of a check, and files
		// parse independently: one goroutine each, results kept in walk
		// order so modules and problems come out as before.
		parsed := make([]parsedFile, len(files))
		var wg sync.WaitGroup
		for i, p := range files {
			wg.Go(func() { parsed[i] = parseFile(fsys, p, display(p), caps) })
		}
		wg.Wait()
		for i, p := range files {
			if parsed[i].problems != nil {
				problems = append(problems, parsed[i].problems...)
				continue
			}
			mods = append(mods, &module{file: display(p), parsed: parsed[i].module, user: user, test: isTestFile(p), dir: dir})
		}
	}
	all := func(string) bool { return true }
	shipped := all
	if libraryOnly {
		shipped = func(p string) bool { return slices.Contains(libraryFiles, p) }
	}
	var fromShipped fs.FS = shippedFS
	if shippedFS == fs.FS(policies.FS) { // not a test's altered copy
		fromShipped = cachedFS{shippedFS}
	}
	add(fromShipped, func(p string) string { return path.Join(shippedDir, p) }, false, "", shipped)
	for _, dir := range dirs {
		if fsys, ok := sources[dir]; ok {
			add(fsys, func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }, true, dir, all)
			continue
		}
		info, err := os.Stat(dir)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: cannot read the policy folder: %v", dir, unwrapPath(err)))
			continue
		case !info.IsDir():
			problems = append(problems, fmt.Sprintf("%s: a policy path expects a folder of .rego files, not a file", dir))
			continue
		}
		add(os.DirFS(dir), func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }, true, dir, all)
	}
	return mods, problems
}

// shippedParses holds the shipped files' modules once parsed, by path.
// The files are embedded and parse with the same capabilities every time,
// and every compiler works on copies of the modules it is given (as
// ast.Compiler.Compile does), so a process that loads the policies more
// than once parses each file once: the tests load them hundreds of times.
var shippedParses sync.Map // path → parsedFile

// cachedFS is the shipped files, each parsed once; see shippedParses.
type cachedFS struct{ fs.FS }

// parsedFile is one .rego file's module, or why it has none.
type parsedFile struct {
	module   *ast.Module
	problems []string
}

// maxPolicyFileSize and maxPolicyFiles bound a policy folder, read from
// the disk or at a base revision alike (trust.MaxFileSize and the file
// count the base reader allows).
const (
	maxPolicyFileSize = 1 << 20
	maxPolicyFiles    = 10000
)

func parseFile(fsys fs.FS, p, display string, caps *ast.Capabilities) parsedFile {
	if c, ok := fsys.(cachedFS); ok {
		if v, ok := shippedParses.Load(p); ok {
			return v.(parsedFile)
		}
		parsed := parseFile(c.FS, p, display, caps)
		v, _ := shippedParses.LoadOrStore(p, parsed)
		return v.(parsedFile)
	}
	src, err := readBounded(fsys, p, maxPolicyFileSize)
	if err != nil {
		return parsedFile{problems: []string{fmt.Sprintf("%s: cannot read: %v", display, err)}}
	}
	m, err := ast.ParseModuleWithOpts(display, string(src), ast.ParserOptions{
		RegoVersion:       ast.RegoV1,
		ProcessAnnotation: true,
		Capabilities:      caps,
	})
	if err != nil {
		return parsedFile{problems: astProblems(err)}
	}
	return parsedFile{module: m}
}

// readBounded reads the file p of fsys, refusing one of more than limit
// bytes without reading past it.
func readBounded(fsys fs.FS, p string, limit int64) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes, the most a policy file may be", limit)
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// astProblems renders OPA errors as "file:line: message" lines.
func astProblems(err error) []string {
	var errs ast.Errors
	if !errors.As(err, &errs) {
		return []string{err.Error()}
	}
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, astProblem(e))
	}
	return out
}

func astProblem(e *ast.Error) string {
	if msg, ok := unknownInputField(e); ok {
		return msg
	}
	loc := ""
	if e.Location != nil {
		loc = fmt.Sprintf("%s:%d: ", e.Location.File, e.Location.Row)
	}
	return fmt.Sprintf("%s%s: %s", loc, e.Code, e.Message)
}

func at(loc *ast.Location) string {
	if loc == nil {
		return "(unknown location)"
	}
	return fmt.Sprintf("%s:%d", loc.File, loc.Row)
}

// checkPackages refuses a module outside the package space its origin may
// use: h3a.rules.*, h3a.lib or h3a.model for shipped files, h3a.user.* for user files.
func checkPackages(mods []*module) []string {
	var problems []string
	for _, m := range mods {
		p := m.parsed.Package.Path
		if m.user {
			if !p.HasPrefix(userPrefix) || len(p) <= len(userPrefix) {
				problems = append(problems, fmt.Sprintf("%s: package %s is not allowed in a policy folder: user packages live under h3a.user (e.g. package h3a.user.team), so they cannot change the shipped rules",
					at(m.parsed.Package.Location), packageName(p)))
			}
			continue
		}
		if m.test {
			continue // shipped tests and their fixtures never reach a check
		}
		if !(p.HasPrefix(rulesPrefix) && len(p) > len(rulesPrefix)) && !p.Equal(libPackage) && !p.Equal(modelPackage) {
			problems = append(problems, fmt.Sprintf("%s: shipped package %s is outside h3a.rules, h3a.lib and h3a.model", at(m.parsed.Package.Location), packageName(p)))
		}
	}
	return problems
}

// packageName renders data.h3a.user.x as h3a.user.x, as it is written.
func packageName(p ast.Ref) string {
	return strings.TrimPrefix(p.String(), "data.")
}

// ruleKinds are the rule names the checker reads, and the severity each
// reports at unless its metadata says otherwise.
var ruleKinds = map[string]finding.Severity{"deny": finding.Error, "warn": finding.Warning}

// RuleInfo is one policy rule as its metadata describes it.
type RuleInfo struct {
	finding.Rule
	Kind         string // "deny" or "warn"
	Package      string // e.g. "h3a.rules.gates"
	Location     string // file:line of the rule
	User         bool
	Traceability string // audit traceability area the rule feeds, if any
	// Layouts are the layouts whose input the rule's schemas annotation
	// types it against (schema.input.<layout>), sorted; none means any.
	Layouts []string
	dir     string // the --policy folder of a user rule
}

// collectRules checks the rule contract of every non-test module and
// returns the rules by id: each deny/warn rule is a multi-value rule
// ("deny contains f if ..."), has a rule-scoped # METADATA block with a
// unique custom.id and valid category and severity, and builds its element
// from rego.metadata.rule(), so an element cannot lose its id.
//
// known are rules defined elsewhere (the shipped rules, when their modules
// are not among mods): their ids are taken too.
func collectRules(mods []*module, known []*RuleInfo) (map[string]*RuleInfo, []string) {
	var parsed []*ast.Module
	for _, m := range mods {
		if !m.test {
			parsed = append(parsed, m.parsed)
		}
	}
	as, errs := ast.BuildAnnotationSet(parsed)
	if len(errs) > 0 {
		return nil, astProblems(errs)
	}
	taken := map[string]string{}
	for _, r := range finding.GoRules {
		taken[r.ID] = "a rule built into the checker"
	}
	for _, r := range EngineRules {
		taken[r.ID] = "a rule built into the checker"
	}
	for _, r := range known {
		taken[r.ID] = r.Location
	}
	rules := map[string]*RuleInfo{}
	var problems []string
	for _, m := range mods {
		if m.test {
			continue
		}
		for _, rule := range m.parsed.Rules {
			ref := rule.Head.Ref()
			name, ok := ref[0].Value.(ast.Var)
			if !ok {
				continue
			}
			sev, ok := ruleKinds[string(name)]
			if !ok {
				continue
			}
			loc := at(rule.Location)
			if len(ref) != 1 || rule.Head.RuleKind() != ast.MultiValue {
				problems = append(problems, fmt.Sprintf("%s: %s must be a set of findings: write %q", loc, name, string(name)+" contains f if { ... }"))
				continue
			}
			info, why := ruleInfo(as.GetRuleScope(rule), string(name), sev)
			if why != "" {
				problems = append(problems, fmt.Sprintf("%s: %s", loc, why))
				continue
			}
			if !callsRuleMetadata(rule) {
				problems = append(problems, fmt.Sprintf("%s: rule %s does not build its findings from rego.metadata.rule(): write f := lib.finding(rego.metadata.rule(), {...}) (import data.h3a.lib) so each finding names its rule", loc, info.ID))
				continue
			}
			if prev, dup := taken[info.ID]; dup {
				problems = append(problems, fmt.Sprintf("%s: rule id %q is already used by %s", loc, info.ID, prev))
				continue
			}
			taken[info.ID] = loc
			info.Kind = string(name)
			info.Layouts = inputLayouts(as.Chain(rule))
			info.Package = packageName(m.parsed.Package.Path)
			info.Location = loc
			info.User = m.user
			info.dir = m.dir
			rules[info.ID] = info
		}
	}
	return rules, problems
}

// inputLayouts lists the layouts that the schemas annotations over a rule
// (its own, its package's, and those of the packages above) give its input:
// schema.input.<layout>; none when no annotation types the input.
func inputLayouts(chain ast.AnnotationsRefSet) []string {
	var layouts []string
	for _, ref := range chain {
		if ref.Annotations == nil {
			continue
		}
		for _, sa := range ref.Annotations.Schemas {
			if !sa.Path.Equal(ast.InputRootRef) || len(sa.Schema) != 3 || !sa.Schema[:2].Equal(SchemaRef("")[:2]) {
				continue
			}
			if l, ok := sa.Schema[2].Value.(ast.String); ok && !slices.Contains(layouts, string(l)) {
				layouts = append(layouts, string(l))
			}
		}
	}
	slices.Sort(layouts)
	return layouts
}

// ruleInfo reads a rule's metadata; why explains what is missing or wrong.
func ruleInfo(anns []*ast.Annotations, kind string, sev finding.Severity) (*RuleInfo, string) {
	var a *ast.Annotations
	for _, x := range anns {
		if x.Scope == "rule" {
			a = x
		}
	}
	if a == nil {
		return nil, fmt.Sprintf("%s rule has no # METADATA block (expected title, description and custom.id, custom.category, custom.severity, custom.remediation right above it)", kind)
	}
	id, _ := a.Custom["id"].(string)
	if strings.TrimSpace(id) == "" {
		return nil, fmt.Sprintf("%s rule has no custom.id in its # METADATA (expected e.g. \"custom:\\n#   id: h3a.user.team.no_todo\")", kind)
	}
	info := &RuleInfo{Rule: finding.Rule{
		ID: id, Category: finding.CategoryPolicy, Severity: sev,
		Title: strings.TrimSpace(a.Title), Description: strings.TrimSpace(a.Description),
	}}
	if info.Title == "" {
		info.Title = id
	}
	if v, ok := a.Custom["category"]; ok {
		s, _ := v.(string)
		if !finding.ValidCategory(finding.Category(s)) {
			return nil, fmt.Sprintf("rule %s: custom.category %v is not one of %s", id, quoteAny(v), quoteList(finding.Categories))
		}
		info.Category = finding.Category(s)
	}
	if v, ok := a.Custom["severity"]; ok {
		s, _ := v.(string)
		parsed, err := finding.ParseSeverity(s)
		if err != nil {
			return nil, fmt.Sprintf("rule %s: custom.severity %v: expected \"error\", \"warning\" or \"info\"", id, quoteAny(v))
		}
		info.Severity = parsed
	}
	if v, ok := a.Custom["remediation"]; ok {
		s, isString := v.(string)
		if !isString {
			return nil, fmt.Sprintf("rule %s: custom.remediation must be text", id)
		}
		info.Remediation = strings.TrimSpace(s)
	}
	if v, ok := a.Custom["traceability"]; ok {
		s, _ := v.(string)
		if s != AreaTaskIDMatch && s != AreaRequirementsCoverage {
			return nil, fmt.Sprintf("rule %s: custom.traceability %v: expected %q or %q", id, quoteAny(v), AreaTaskIDMatch, AreaRequirementsCoverage)
		}
		info.Traceability = s
	}
	return info, ""
}

func quoteAny(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}

func quoteList(cs []finding.Category) string {
	q := make([]string, len(cs))
	for i, c := range cs {
		q[i] = fmt.Sprintf("%q", c)
	}
	return strings.Join(q, ", ")
}

var metadataRule = ref("rego", "metadata", "rule")

// callsRuleMetadata reports whether the rule body calls rego.metadata.rule(),
// the only way an element can learn its rule's id.
func callsRuleMetadata(rule *ast.Rule) bool {
	found := false
	ast.WalkExprs(rule.Body, func(e *ast.Expr) bool {
		ast.WalkTerms(e, func(t *ast.Term) bool {
			if call, ok := t.Value.(ast.Call); ok && len(call) > 0 {
				if r, ok := call[0].Value.(ast.Ref); ok && r.Equal(metadataRule) {
					found = true
				}
			}
			return found
		})
		if e.IsCall() && e.Operator().Equal(metadataRule) {
			found = true
		}
		return found
	})
	return found
}

// sortedModules returns the parsed modules keyed by file, for the compiler.
func sortedModules(mods []*module, withTests bool) map[string]*ast.Module {
	out := make(map[string]*ast.Module, len(mods))
	for _, m := range mods {
		if m.test && !withTests {
			continue
		}
		out[m.file] = m.parsed
	}
	return out
}

// userDirsWithoutRules names every --policy folder that defines no deny or
// warn rule: a folder that checks nothing is a configuration mistake, and
// failing closed says so. (A folder without any .rego file is reported while
// parsing.)
func userDirsWithoutRules(dirs []string, rules map[string]*RuleInfo) []string {
	has := map[string]bool{}
	for _, r := range rules {
		has[r.dir] = true
	}
	var problems []string
	for _, dir := range dirs {
		if has[dir] {
			continue
		}
		has[dir] = true // report a folder named twice once
		problems = append(problems, fmt.Sprintf("%s: no deny or warn rule in this policy folder, so it would check nothing (expected e.g. deny contains f if {...} in a package under h3a.user)", dir))
	}
	return problems
}
