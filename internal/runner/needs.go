// The rest of the load stage: what the layout's checks need besides its
// files, read within what is left of the run's memory budget.

package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// loadNeeds reads or looks at what the layout's checks need besides its
// files (layout.Needer), each once: a file of the run through the run's
// confined root, a repository path through a root confined to the
// repository, a text within what is left of the run's memory budget. A
// text that is there but cannot be read is a finding: the check that
// needed it is not made, and must not pass in silence.
func (c *checker) loadNeeds(s *runState, budget int) {
	needer, ok := s.lay.(layout.Needer)
	if !ok {
		return
	}
	repos := map[string]*os.Root{}
	defer func() {
		for _, r := range repos {
			if r != nil {
				r.Close()
			}
		}
	}()
	for range layout.MaxNeedRounds {
		fresh := false
		for _, n := range needer.Needs(s.run) {
			if s.run.Met(n) {
				continue
			}
			fresh = true
			switch {
			case n.Repo != "" && n.Want == layout.Entry:
				s.run.Record(n, lookInRepo(repos, n))
			case n.Repo != "":
				// Only an entry is looked for outside the run.
				s.run.Record(n, layout.Found{})
			case n.Want == layout.Text:
				budget -= c.readText(s, n, budget)
			case n.Want == layout.RegularFile:
				_, _, p := s.root.Stat(n.Path)
				s.run.Record(n, layout.Found{OK: p == nil, Missing: p != nil && p.Kind == rundir.Missing})
			default:
				s.run.Record(n, layout.Found{})
			}
		}
		if !fresh {
			return
		}
	}
}

// readText reads the run's file n.Path whole, at most n.Limit bytes and no
// more than budget, and returns what it took of the budget. Anything but
// a missing file that keeps it from being read is a finding where the run
// names the file.
func (c *checker) readText(s *runState, n layout.Need, budget int) int {
	limit := min(n.Limit, int64(max(budget, 0)))
	data, p := s.root.ReadFile(n.Path, max(limit, 1))
	if p == nil && int64(len(data)) > limit {
		p = &rundir.Problem{Kind: rundir.TooLarge, Path: n.Path, Detail: fmt.Sprintf("%q is over %d bytes", n.Path, limit)}
	}
	if p == nil {
		s.run.Record(n, layout.Found{OK: true, Data: data})
		return len(data)
	}
	s.run.Record(n, layout.Found{Missing: p.Kind == rundir.Missing})
	if p.Kind == rundir.Missing {
		return 0
	}
	file := n.NamedBy
	if file == "" {
		file = n.Path
	}
	if p.Kind == rundir.TooLarge {
		size := "over that"
		if _, info, sp := s.root.Stat(n.Path); sp == nil {
			size = fmt.Sprintf("%d bytes", info.Size())
		}
		p.Detail = fmt.Sprintf("%q is %s, more than the %d bytes the checker reads of it (at most %d, and no more than is left of the run's memory budget, %s): what it says is not checked",
			n.Path, size, limit, n.Limit, budgetRule)
	}
	f := problemFinding(p, file, finding.MissingFile)
	f.Pointer = n.Pointer
	s.add(f)
	return 0
}

// lookInRepo reports whether anything is at n.Path inside the repository
// n.Repo, through a root confined to it (opened once per repository): a
// link on the way that leads out of it counts as nothing there.
func lookInRepo(repos map[string]*os.Root, n layout.Need) layout.Found {
	root, ok := repos[n.Repo]
	if !ok {
		root, _ = os.OpenRoot(n.Repo)
		repos[n.Repo] = root
	}
	if root == nil {
		return layout.Found{}
	}
	_, err := root.Lstat(filepath.FromSlash(n.Path))
	return layout.Found{OK: err == nil, Missing: errors.Is(err, fs.ErrNotExist)}
}
