package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// stagedScope is what a commit of the index changes under the PATHs: the
// paths to search (each staged file, or for a deleted one the nearest
// folder still there, so that a run that lost a file and a folder that
// lost a run are both found) and, per repository, the staged files and
// the index they were read from.
type stagedScope struct {
	paths   []string
	changes map[*gitrev.Repo][]gitrev.Change
	index   map[*gitrev.Repo]string
}

// findStaged lists the staged changes under each path. Only their runs
// are checked, so a commit that touches no run costs a git diff and
// nothing more, however many runs the repository holds.
func findStaged(l *gitrev.Locator, paths []string, getenv func(string) string) (*stagedScope, error) {
	s := &stagedScope{changes: map[*gitrev.Repo][]gitrev.Change{}, index: map[*gitrev.Repo]string{}}
	seen := map[string]bool{}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
		}
		repo, err := l.Repo(p)
		if err != nil {
			return nil, fmt.Errorf("--staged: %w", err)
		}
		prefix, err := repo.Rel(p)
		if err != nil {
			return nil, fmt.Errorf("--staged: %w", err)
		}
		changes, ok := s.changes[repo]
		if !ok {
			s.index[repo] = hookIndex(repo, getenv)
			if changes, err = repo.Staged(s.index[repo]); err != nil {
				return nil, fmt.Errorf("--staged: listing the staged changes: %w", err)
			}
			s.changes[repo] = changes
		}
		for _, c := range changes {
			rest, ok := under(c.Path, prefix)
			if !ok {
				continue
			}
			candidate := nearestExisting(p, rest)
			if !seen[candidate] {
				seen[candidate] = true
				s.paths = append(s.paths, candidate)
			}
		}
	}
	slices.Sort(s.paths)
	return s, nil
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

// under returns file relative to the folder prefix (both top-level
// relative; "" is the top level), and whether file lies under it.
func under(file, prefix string) (string, bool) {
	if prefix == "" {
		return file, true
	}
	if file == prefix {
		return "", true
	}
	rest, ok := strings.CutPrefix(file, prefix+"/")
	return rest, ok
}

// nearestExisting is base joined with rel, or with the longest leading
// part of rel that still exists.
func nearestExisting(base, rel string) string {
	parts := strings.Split(rel, "/")
	for n := len(parts); n > 0; n-- {
		p := filepath.Join(append([]string{base}, parts[:n]...)...)
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	return base
}

// keep selects the runs holding a staged change, and makes sure that each
// is on disk what the commit records: a file changed since it was staged,
// or one the index does not hold, would make the check read something
// the commit leaves out (a logged artifact that is never added, for
// instance), so the check stops and says which.
func (s *stagedScope) keep(hp *historyPlan, runs []rundir.Run) ([]rundir.Run, error) {
	var kept []rundir.Run
	byRepo := map[*gitrev.Repo][]string{}
	display := map[string]string{}
	for _, r := range runs {
		rb, err := hp.of(r.Dir)
		if err != nil {
			return nil, err
		}
		if rb.repo == nil {
			continue
		}
		if !slices.ContainsFunc(s.changes[rb.repo], func(c gitrev.Change) bool { _, ok := under(c.Path, rb.rel); return ok }) {
			continue
		}
		kept = append(kept, r)
		byRepo[rb.repo] = append(byRepo[rb.repo], rb.rel)
		display[rb.rel] = r.Display
	}
	var problems []string
	for repo, dirs := range byRepo {
		files, err := repo.NotStaged(s.index[repo], dirs)
		if err != nil {
			return nil, fmt.Errorf("--staged: comparing the runs with the index: %w", err)
		}
		for _, f := range files {
			for _, d := range dirs {
				if rest, ok := under(f, d); ok {
					problems = append(problems, fmt.Sprintf("%s: %q", display[d], rest))
				}
			}
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		const most = 10
		more := ""
		if len(problems) > most {
			more = fmt.Sprintf(" and %d more", len(problems)-most)
			problems = problems[:most]
		}
		return nil, fmt.Errorf("--staged: the working tree differs from what the commit records in %s%s (untracked, or changed since \"git add\"); stage these files (git add) or move them out of the run, so that the check reads what the commit records", strings.Join(problems, ", "), more)
	}
	return kept, nil
}
