// A staged check's scope: what a commit of the index (or the end of
// pre-commit's range) records under the paths, and which runs it touches.

package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/history"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// StagedMode says what a staged check looked at.
type StagedMode int

const (
	// StagedIndex: the commit in progress, the index against HEAD.
	StagedIndex StagedMode = iota
	// StagedAll: nothing is staged while pre-commit or CI runs the check
	// ("pre-commit run --all-files"): every run, as the index records it.
	StagedAll
	// StagedRange: pre-commit's --from-ref/--to-ref
	// (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF): the runs changed between
	// the two, as of the second.
	StagedRange
)

// stagedScope is what a staged check reads: the runs a commit (of the
// index, or the commit at the end of a range) touches, each written from
// the git objects into a private folder, so that the check reads what the
// commit records whatever the working tree holds; the runs it deletes;
// and the submodules it moves whose runs could not be checked.
type stagedScope struct {
	mode   StagedMode
	what   string // what was read, for messages
	tmp    string
	runs   []rundir.Run
	source map[string]string    // run folder -> private folder its files are read from
	at     map[string]stagedRun // run folder -> its repository, path there and base
	extra  []stagedExtra        // deleted runs, submodules not checked
	// changes counts the files the change touches, runs or not.
	changes int
	// forced is the forced layout, or "": runs are found by every
	// layout's detector, and one the forced layout does not claim is
	// refused (rundir.OtherLayoutError), never passed over.
	forced string
}

// stagedExtra is an audit reported once, beside the runs: a submodule
// not checked, or the runs a folder lost since the base. Those are
// settled once the runs moved elsewhere are known (fromStaged): a run
// moved is not also deleted.
type stagedExtra struct {
	audit *audit.Audit
	gone  *goneRuns
}

// goneRuns are the runs the base holds in the folder listing.rel and the
// commit does not.
type goneRuns struct {
	listing baseListing
	runs    []history.RunAt
}

type stagedRun struct {
	repo *gitrev.Repo
	rel  string
	base gitrev.Base
	head fs.FS // the repository as the commit records it, from its top level
}

// CommitRange is pre-commit's --from-ref and --to-ref, from the variables
// it sets for hooks (the older names too); empty when not set. Values
// from the environment never reach git as options.
func CommitRange(getenv func(string) string) (from, to string, err error) {
	from, to = getenv("PRE_COMMIT_FROM_REF"), getenv("PRE_COMMIT_TO_REF")
	names := "PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF"
	if from == "" && to == "" {
		from, to = getenv("PRE_COMMIT_ORIGIN"), getenv("PRE_COMMIT_SOURCE")
		names = "PRE_COMMIT_ORIGIN and PRE_COMMIT_SOURCE"
	}
	if (from == "") != (to == "") {
		return "", "", optionError(OptionStaged, "%s must be set together (pre-commit run --from-ref REF --to-ref REF sets both)", names)
	}
	if from == "" {
		return "", "", nil
	}
	for _, rev := range []string{from, to} {
		if err := gitrev.CheckRev(rev); err != nil {
			return "", "", optionError(OptionStaged, "%s: %w", names, err)
		}
	}
	return from, to, nil
}

// findStaged reads what the commit records under each path and finds the
// runs it touches. Only those are checked, so a commit that touches no
// run costs a git diff and nothing more.
func findStaged(l *gitrev.Locator, paths []string, getenv, targetEnv func(string) string, forced string) (s *stagedScope, err error) {
	if _, err := rundir.Only(layout.Detectors(), forced); err != nil {
		return nil, err
	}
	detectors := layout.Detectors()
	from, to, err := CommitRange(getenv)
	if err != nil {
		return nil, err
	}
	s = &stagedScope{source: map[string]string{}, at: map[string]stagedRun{}, what: "the index, against HEAD", forced: forced}
	if from != "" {
		s.mode = StagedRange
		s.what = fmt.Sprintf("the runs changed from %s to %s (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF), as of %s", from, to, to)
	}
	targets, err := s.snapshots(l, paths, from, to, getenv, targetEnv)
	if err != nil {
		return nil, err
	}
	if s.mode == StagedIndex && s.changes == 0 && (gitrev.InCI(getenv) || isSet(getenv("PRE_COMMIT"))) {
		s.mode = StagedAll
		s.what = "every run, as the index records it (nothing is staged: pre-commit run --all-files, or CI)"
	}
	if s.tmp, err = os.MkdirTemp("", "h3a-check-staged-"); err != nil {
		return nil, err
	}
	scope := s
	defer func() {
		if err != nil {
			scope.close() // s is nil by then
		}
	}()
	for _, t := range targets {
		if err := s.collect(l, t.snap, t.path, t.prefix, detectors, 0); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(s.runs, func(a, b rundir.Run) int { return strings.Compare(a.Dir, b.Dir) })
	return s, nil
}

// stagedTarget is a PATH, where it lies in its repository, and the
// snapshot of that repository.
type stagedTarget struct {
	path, prefix string
	snap         *snapshot
}

// snapshots takes the snapshot of each path's repository, once per
// repository, and counts the files the change touches.
func (s *stagedScope) snapshots(l *gitrev.Locator, paths []string, from, to string, getenv, targetEnv func(string) string) ([]stagedTarget, error) {
	var targets []stagedTarget
	snaps := map[*gitrev.Repo]*snapshot{}
	staged := 0
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
		}
		repo, err := l.Repo(p)
		if err != nil {
			return nil, optionError(OptionStaged, "%w", err)
		}
		prefix, err := repo.Rel(p)
		if err != nil {
			return nil, optionError(OptionStaged, "%w", err)
		}
		snap := snaps[repo]
		if snap == nil {
			if s.mode == StagedRange {
				snap, err = rangeSnapshot(repo, from, to, targetEnv)
			} else {
				snap, err = indexSnapshot(repo, hookIndex(repo, getenv))
			}
			if err != nil {
				return nil, err
			}
			snaps[repo] = snap
			staged += len(snap.changes)
		}
		targets = append(targets, stagedTarget{p, prefix, snap})
	}
	s.changes = staged
	return targets, nil
}

// isSet reads a flag variable such as CI: set unless empty, "0" or "false".
func isSet(v string) bool {
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

func (s *stagedScope) close() {
	if s != nil && s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// hookIndex is the index a commit in progress records: git hands a hook
// its own in GIT_INDEX_FILE ("git commit -a" and "git commit PATH" build a
// temporary one), relative to the top level where git runs the hook. It
// applies only to the repository whose top level is the working
// directory; any other repository's own index is read.
func hookIndex(repo *gitrev.Repo, getenv func(string) string) string {
	index := getenv("GIT_INDEX_FILE")
	if index == "" {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(wd); err == nil {
		wd = resolved
	}
	if wd != repo.Root {
		return ""
	}
	if !filepath.IsAbs(index) {
		index = filepath.Join(wd, index)
	}
	return index
}
