// --changed: what git says changed since the base, asked before anything
// is discovered, so that discovery looks only along the changes.

package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// changedScope is what --changed asks git before anything is discovered:
// for each searched folder inside a work tree with a base commit, the
// files changed since that base (diff and untracked). Discovery and the
// base's listing then look only at the folders on the way to those files,
// so that the check costs what changed, not what the repository holds. A
// run is checked when a file below it changed, as before; a run deleted
// or moved since the base has its files in the diff, so its old place is
// on the way too.
type changedScope struct {
	bases map[*gitrev.Repo]*repoBase // the bases chosen, reused by the history plan
	files map[*gitrev.Repo][]string  // the files changed since each base
	// onPath holds, per repository, every folder (relative to its top
	// level, "" for the top) that holds a changed file at any depth.
	onPath map[*gitrev.Repo]map[string]bool
	// wholeDirs holds, per repository, the changed folders that git names
	// as one entry: another repository inside (untracked, or a gitlink),
	// whose files the outer diff does not list. Each is searched in full.
	wholeDirs map[*gitrev.Repo]map[string]bool
	// searched maps each searched folder, absolute, to its place: every
	// folder below it is checked against onPath.
	searched []scopedPath
}

type scopedPath struct {
	abs  string
	repo *gitrev.Repo
	rel  string // abs relative to the repository's top level
	// whole: this path is searched in full (outside a work tree, no base
	// commit, a repository with submodules whose changes git's diff of
	// the outer repository does not show).
	whole bool
}

// findChanged asks git what changed under each path. An error is the one
// the history plan would give for the same repository and base.
func findChanged(scope Scope, maxRead int64, paths []string, getenv func(string) string) (*changedScope, error) {
	sc := &changedScope{bases: map[*gitrev.Repo]*repoBase{}, files: map[*gitrev.Repo][]string{}, onPath: map[*gitrev.Repo]map[string]bool{}, wholeDirs: map[*gitrev.Repo]map[string]bool{}}
	// Each repository's untracked files are listed from the moment it is
	// found, while its base is chosen: the listing is the longest wait of
	// --changed. One not used in the end is waited for here.
	pending := map[*gitrev.Repo]*gitrev.ChangeList{}
	defer func() {
		for _, cl := range pending {
			cl.Discard()
		}
	}()
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		dir := abs
		if info, err := os.Stat(abs); err == nil && !info.IsDir() {
			dir = filepath.Dir(abs)
		}
		repo, err := scope.Locator.Repo(dir)
		if errors.Is(err, gitrev.ErrNotWorkTree) || err != nil {
			// The history plan says what is wrong (or that there is no
			// history to compare): everything is searched.
			sc.searched = append(sc.searched, scopedPath{abs: abs, whole: true})
			continue
		}
		rb, ok := sc.bases[repo]
		if !ok {
			if _, listed := sc.files[repo]; !listed && pending[repo] == nil {
				pending[repo] = repo.StartChanged()
			}
			repo.MaxRead = maxRead
			b, err := gitrev.ChooseBase(repo, scope.Base, getenv)
			if err != nil {
				return nil, err
			}
			rb = &repoBase{repo: repo, base: b}
			sc.bases[repo] = rb
		}
		rel, err := repo.Rel(abs)
		whole := err != nil || rb.base.Commit == "" || hasSubmodules(repo)
		if !whole {
			if _, done := sc.files[repo]; !done {
				cl := pending[repo]
				delete(pending, repo)
				if cl == nil {
					cl = repo.StartChanged()
				}
				files, err := cl.Since(rb.base.Commit)
				if err != nil {
					return nil, optionError(OptionChanged, "listing the files changed since %s: %w", gitrev.Short(rb.base.Commit), err)
				}
				sc.files[repo] = files
				sc.onPath[repo] = foldersHolding(files)
				sc.wholeDirs[repo] = foldersNamed(repo.Root, files)
			}
		}
		if rel == "." {
			rel = ""
		}
		sc.searched = append(sc.searched, scopedPath{abs: abs, repo: repo, rel: rel, whole: whole})
	}
	return sc, nil
}

// hasSubmodules: a submodule's own changes are not files of the outer
// repository's diff, so a folder holding one is searched in full.
func hasSubmodules(repo *gitrev.Repo) bool {
	_, err := os.Lstat(filepath.Join(repo.Root, ".gitmodules"))
	return err == nil
}

// foldersHolding is every folder above a changed file, the top level
// ("") included. An untracked folder git names as "dir/" (a nested
// repository) is a folder holding changes itself.
func foldersHolding(files []string) map[string]bool {
	out := map[string]bool{"": true}
	for _, f := range files {
		d := path.Dir(strings.TrimSuffix(f, "/"))
		if strings.HasSuffix(f, "/") {
			d = strings.TrimSuffix(f, "/")
		}
		for d != "." && d != "/" && d != "" && !out[d] {
			out[d] = true
			d = path.Dir(d)
		}
	}
	return out
}

// attributesFolder is the folder whose files a changed .gitattributes
// governs ("" for the top level). git applies the attributes when it
// writes a file out (eol, text, ident, filter, working-tree-encoding), so
// a change to them alone changes the bytes of files below that folder on
// every checkout, while their blobs, and so git's diff, stay the same.
func attributesFolder(f string) (string, bool) {
	if path.Base(f) != ".gitattributes" {
		return "", false
	}
	return topRel(path.Dir(f)), true
}

// attributesOver reports whether the changed file f is a .gitattributes
// that governs the files of the folder rel (relative to the top level).
func attributesOver(f, rel string) bool {
	d, ok := attributesFolder(f)
	return ok && (d == "" || rel == d || strings.HasPrefix(rel, d+"/"))
}

// foldersNamed is the changed entries that are folders: "dir/" in git's
// list of untracked files (a repository inside), a folder on disk where
// the diff names one entry (a gitlink), or a symbolic link: git records a
// link as one entry whatever it leads to, and a link added where a run's
// folder would be is a run folder that is a link, an error the search
// reports only if it looks there. A changed .gitattributes names the
// folder it governs (attributesFolder).
func foldersNamed(root string, files []string) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		if d, ok := attributesFolder(f); ok {
			out[d] = true
			continue
		}
		if d, ok := strings.CutSuffix(f, "/"); ok {
			out[d] = true
			continue
		}
		if info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err == nil && (info.IsDir() || info.Mode()&fs.ModeSymlink != 0) {
			out[f] = true
		}
	}
	return out
}

// within reports whether discovery should look at the absolute folder
// dir: it holds a changed file, or lies in a folder searched in full.
func (sc *changedScope) within(dir string) bool {
	for _, p := range sc.searched {
		rest, ok := below(p.abs, dir)
		if !ok {
			continue
		}
		if p.whole {
			return true
		}
		rel := topRel(path.Join(p.rel, rest))
		if sc.onPath[p.repo][rel] || sc.inWholeDir(p.repo, rel) {
			return true
		}
	}
	return false
}

// inWholeDir reports whether rel is at or below a folder searched in full.
func (sc *changedScope) inWholeDir(repo *gitrev.Repo, rel string) bool {
	whole := sc.wholeDirs[repo]
	if len(whole) == 0 {
		return false
	}
	if whole[""] {
		return true // a .gitattributes of the top level changed
	}
	for d := rel; d != "." && d != "" && d != "/"; d = path.Dir(d) {
		if whole[d] {
			return true
		}
	}
	return false
}

// keeps reports whether the run in dir is checked: a file below it
// changed, or its folder is searched in full. A run may also lie above a
// searched path (a path inside a run, or a file of it).
func (sc *changedScope) keeps(dir string) bool {
	if sc.within(dir) {
		return true
	}
	for _, p := range sc.searched {
		tail, ok := below(dir, p.abs)
		if !ok {
			continue
		}
		if p.whole {
			return true
		}
		rel, ok := strings.CutSuffix(p.rel, tail)
		if !ok || p.rel == "" {
			return true // not placed in the repository: checked, never dropped
		}
		if sc.onPath[p.repo][topRel(strings.TrimSuffix(rel, "/"))] {
			return true
		}
	}
	return false
}

// keepsLink reports whether r, a run folder that is a symbolic link or a
// link to runs out of the paths, leads to a folder where a file changed:
// the runs there are reached through the link alone (through further
// links, maybe), so a change to them is a change to what the link shows,
// though no file below the link changed. Where it leads that cannot be
// placed in a searched repository is kept: whether it changed is unknown.
func (sc *changedScope) keepsLink(r rundir.Run) bool {
	if r.Link == "" {
		return false
	}
	targets := []string{r.Dir}
	if len(r.Through) > 0 {
		targets = targets[:0]
		for _, t := range r.Through {
			targets = append(targets, filepath.Join(r.Dir, filepath.FromSlash(t)))
		}
	}
	for _, t := range targets {
		resolved, err := filepath.EvalSymlinks(t)
		if err != nil {
			return true
		}
		placed := false
		for _, p := range sc.searched {
			if p.repo == nil {
				continue
			}
			rel, err := p.repo.Rel(resolved)
			if err != nil {
				continue
			}
			placed = true
			if p.whole || sc.onPath[p.repo][rel] || sc.inWholeDir(p.repo, rel) {
				return true
			}
		}
		if !placed {
			return true
		}
	}
	return false
}

// topRel is "" for the top level, rel otherwise.
func topRel(rel string) string {
	if rel == "." {
		return ""
	}
	return rel
}

// below returns dir relative to top, slash-separated ("." for top itself).
func below(top, dir string) (string, bool) {
	if dir == top {
		return ".", true
	}
	prefix := top
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rest, ok := strings.CutPrefix(dir, prefix)
	return filepath.ToSlash(rest), ok
}

// discoverChanged finds the runs with a changed file below them; runs
// holds every one of them, each with the runs it holds listed.
func (sc *changedScope) discover(paths []string, forced string, detectors []rundir.Detector) ([]rundir.Run, error) {
	found, err := rundir.DiscoverWithin(paths, detectors, forced, sc.within)
	var notForced *rundir.ForcedLayoutError
	if errors.As(err, &notForced) {
		// No run of the forced layout along the changes: whether the
		// path holds one at all takes the whole search.
		found, err = rundir.Discover(paths, detectors, forced)
	}
	if err != nil {
		return nil, err
	}
	var kept []rundir.Run
	for _, r := range found {
		if sc.keeps(r.Dir) || sc.keepsLink(r) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// atBase reports whether the base listing of repo should look at the
// folder rel (relative to the top level): nil when the repository's
// folders are all listed.
func (sc *changedScope) atBase(repo *gitrev.Repo) func(string) bool {
	if sc == nil {
		return nil
	}
	on, ok := sc.onPath[repo]
	if !ok {
		return nil
	}
	for _, p := range sc.searched {
		if p.repo == repo && p.whole {
			return nil
		}
	}
	return func(dir string) bool {
		if dir == "." {
			dir = ""
		}
		return on[dir]
	}
}
