// Package trusted reads what judges a check, the configuration file, the
// repository's policy folders and the allowed signers file, through the
// trust boundary (internal/trust), and records where each was read from,
// for the audit, and what the change under review edits in them, as
// findings a reviewer sees.
package trusted

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/config"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/trust"
)

// Reads are where a check's rules and configuration were read from, in
// the order they were read.
type Reads []trust.Source

func (r *Reads) add(s trust.Source) { *r = append(*r, s) }

// Sources are the reads as the audit records them.
func (r Reads) Sources() []audit.Source {
	var out []audit.Source
	for _, s := range r {
		out = append(out, audit.Source{Path: s.Path, Origin: string(s.Origin), Commit: s.Commit, Ignored: s.Ignored, Reason: s.Reason})
	}
	return out
}

// Changes are the h3a.security.rules_changed findings, one for each file
// the change under review edits.
func (r Reads) Changes() []finding.Finding {
	var out []finding.Finding
	for _, s := range r {
		out = append(out, changeFindings(s)...)
	}
	return out
}

// changeFindings turns what the working tree holds differently from the
// base into findings a reviewer sees, each on the file that differs.
func changeFindings(s trust.Source) []finding.Finding {
	var out []finding.Finding
	wd, _ := os.Getwd()
	for _, c := range s.Changes {
		file := filepath.ToSlash(c.Path)
		if filepath.IsAbs(c.Path) && wd != "" {
			if rel, err := filepath.Rel(wd, c.Path); err == nil {
				file = filepath.ToSlash(rel) // the audit's run is the working directory
			}
		}
		out = append(out, finding.RulesChanged.New(file, "%s %s: the change under review edits the rules that judge it, so they were read at commit %s; the change's version applies once it is merged",
			c.Path, c.What, gitrev.Short(s.Commit)))
	}
	return out
}

// Config reads the configuration file explicit, or else the nearest
// config.DefaultFile (see configCandidates), through the trust boundary:
// when the working tree is the change under review it is read as it is at
// the base, so a change cannot loosen the configuration that judges it.
// The configuration is nil when there is none. Where it was read from,
// and every nearer file that was left out, go to reads.
func Config(explicit string, b trust.Boundary, checks config.Checks, reads *Reads) (*config.Config, error) {
	candidates := []string{explicit}
	if explicit == "" {
		candidates = configCandidates()
	}
	var sources []trust.Source
	for _, path := range candidates {
		data, src, exists, err := b.File(path)
		if err != nil {
			return nil, fmt.Errorf("cannot read the configuration file: %w", err)
		}
		if explicit == "" {
			if err := noMisnamedConfig(b, path); err != nil {
				return nil, err
			}
		}
		if !exists {
			if explicit != "" && len(src.Ignored) == 0 {
				return nil, fmt.Errorf("cannot read the configuration file %s: it does not exist", explicit)
			}
			if len(src.Ignored) > 0 || len(src.Changes) > 0 {
				sources = append(sources, src)
			}
			continue
		}
		cfg, err := config.Parse(path, data, checks)
		if err != nil {
			return nil, err
		}
		for _, s := range append(sources, src) {
			reads.add(s)
		}
		return cfg, nil
	}
	for _, s := range sources {
		reads.add(s)
	}
	return nil, nil
}

// misnamedConfigs are the names a configuration file is easily given
// instead of config.DefaultFile. A file under one of them would not be
// read, and what it asks for (the team's policies, a stricter fail level,
// the runs to check) would silently not happen.
var misnamedConfigs = []string{".h3a-check.yml", "h3a-check.yaml", "h3a-check.yml"}

// noMisnamedConfig is an error when the folder of a candidate holds a
// file under one of misnamedConfigs, as the trust boundary reads it: the
// configuration someone meant is not the one the check would read.
func noMisnamedConfig(b trust.Boundary, candidate string) error {
	dir := filepath.Dir(candidate)
	for _, name := range misnamedConfigs {
		p := filepath.Join(dir, name)
		_, _, exists, err := b.File(p)
		if err != nil {
			return fmt.Errorf("cannot read the configuration file: %w", err)
		}
		if exists {
			return fmt.Errorf("%s is not read: the configuration file is named %s; rename it, or name it with --config", p, config.DefaultFile)
		}
	}
	// A name that is one of those in another case (.H3A-check.yaml) is
	// read on a file system that ignores case and not on one that keeps
	// it: what it asks for would apply on one machine and silently not in
	// CI.
	names, err := b.NamesBeside(candidate)
	if err != nil {
		return fmt.Errorf("cannot read the configuration file: %w", err)
	}
	for _, n := range names {
		if n == config.DefaultFile || slices.Contains(misnamedConfigs, n) {
			continue
		}
		if configNamed(n) {
			return fmt.Errorf("%s is not read: the configuration file is named %s, in that case; rename it, or name it with --config", filepath.Join(dir, n), config.DefaultFile)
		}
	}
	return nil
}

// configCandidates are the places config.DefaultFile is looked for,
// nearest first: the working directory and each folder above it up to the
// top of the git work tree that holds it (outside one, the working
// directory only). A run checked from runs/ is judged by the same
// configuration as from the top. Each path is relative to the working
// directory, so the trust boundary reads the same repository path at the
// base, and the report names it as the user would type it.
func configCandidates() []string {
	out := []string{config.DefaultFile}
	wd, err := os.Getwd()
	if err != nil {
		return out
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	top := gitrev.TopLevel(context.Background(), wd)
	if top == "" || top == wd {
		return out
	}
	rel, err := filepath.Rel(top, wd)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return out
	}
	up := ""
	for range strings.Split(filepath.ToSlash(rel), "/") {
		up = filepath.Join(up, "..")
		out = append(out, filepath.Join(up, config.DefaultFile))
	}
	return out
}

// PolicyDirError is a policy folder the trust boundary could not read.
type PolicyDirError struct {
	Dir string
	Err error
}

func (e *PolicyDirError) Error() string { return fmt.Sprintf("policy folder %s: %v", e.Dir, e.Err) }
func (e *PolicyDirError) Unwrap() error { return e.Err }

// PolicyDirs reads every policy folder through the trust boundary: when
// the working tree is the change under review, a repository-local folder
// is read as it is at the base, so a change cannot delete or weaken the
// rule that would catch it. A folder that exists only in the working tree
// is left out (with a finding that says the change adds rules); one that
// exists nowhere is an error. kept are the folders to load, and fromBase
// the files of those read at the base.
func PolicyDirs(b trust.Boundary, dirs []string, reads *Reads) (kept []string, fromBase map[string]fs.FS, err error) {
	for _, d := range dirs {
		fsys, src, exists, err := b.Dir(d)
		if err != nil {
			return nil, nil, &PolicyDirError{Dir: d, Err: err}
		}
		reads.add(src)
		if !exists {
			if len(src.Ignored) > 0 {
				continue
			}
			return nil, nil, fmt.Errorf("%s: cannot read the policy folder: it does not exist", d)
		}
		kept = append(kept, d)
		if src.Origin == trust.Base {
			if fromBase == nil {
				fromBase = map[string]fs.FS{}
			}
			fromBase[d] = fsys
		}
	}
	return kept, fromBase, nil
}

// AllowedSigners reads the allowed signers file the configuration names
// (humans: allowed-signers) through the trust boundary like the
// configuration itself, so a change cannot add its own key; nil when the
// configuration names none.
func AllowedSigners(b trust.Boundary, cfg *config.Config, reads *Reads) ([]byte, error) {
	s := cfg.Humans.AllowedSigners
	if !s.Set() {
		return nil, nil
	}
	p := cfg.Resolve(s.Value)
	data, src, exists, err := b.File(p)
	if err != nil {
		return nil, fmt.Errorf("%s:%d:%d: humans: allowed-signers: %w", cfg.File, s.Line, s.Column, err)
	}
	reads.add(src)
	if !exists {
		return nil, cfg.Errorf(s, "humans: allowed-signers: %s does not exist where the configuration is read from (%s); commit the allowed_signers file, or remove the key", p, src.Reason)
	}
	return data, nil
}

// NoConfigNearerRuns is an error when a folder between the working
// directory and a run holds a configuration file, as the trust boundary reads it: the check reads the
// one at or above the working directory, so what the nearer file asks of
// the runs below it (the team's policies, a stricter fail level, waivers
// written for them) would silently not apply here, and would apply to a
// check started from its folder. runDirs are absolute; a run outside the
// working directory is not looked along. A run's own folder is not looked
// in: no check is started from inside a run, and a folder listing per run
// would cost a check of many runs (at the base, a git round trip each)
// more than all the folders that hold them.
func NoConfigNearerRuns(b trust.Boundary, runDirs []string) error {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, run := range runDirs {
		rel, err := filepath.Rel(wd, filepath.Dir(run))
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		dir := ""
		for _, seg := range strings.Split(rel, string(filepath.Separator)) {
			dir = filepath.Join(dir, seg)
			if seen[dir] {
				continue
			}
			seen[dir] = true
			names, err := b.NamesBeside(filepath.Join(dir, config.DefaultFile))
			if err != nil {
				return fmt.Errorf("cannot read the configuration file: %w", err)
			}
			for _, n := range names {
				if configNamed(n) {
					return fmt.Errorf("%s is not read: the configuration file is read from the working directory or a folder above it, so it does not apply to the runs below it, which a check from %s would judge by it; run the check from there, or name the file with --config",
						filepath.Join(dir, n), dir)
				}
			}
		}
	}
	return nil
}

// configNamed reports whether a file of this name is meant as a
// configuration file: config.DefaultFile or one of misnamedConfigs, in
// any case.
func configNamed(name string) bool {
	for _, want := range append([]string{config.DefaultFile}, misnamedConfigs...) {
		if strings.EqualFold(name, want) {
			return true
		}
	}
	return false
}
