// A repository as a commit records it (the index, or the end of
// pre-commit's range), read from git's objects, never the working tree.

package runner

import (
	"io/fs"
	"path"

	"github.com/h3a-check/h3a-check/internal/gitrev"
)

// snapshot is one repository as a commit records it.
type snapshot struct {
	repo    *gitrev.Repo
	files   []gitrev.SnapshotFile
	fsys    *gitrev.FilesFS
	changes []gitrev.Change
	base    gitrev.Base
}

func newSnapshot(repo *gitrev.Repo, files []gitrev.SnapshotFile, changes []gitrev.Change, base gitrev.Base) *snapshot {
	objects := make(map[string]string, len(files))
	var names, links []string
	for _, f := range files {
		if f.Mode == gitrev.ModeSubmodule {
			continue
		}
		objects[f.Path] = f.Object
		names = append(names, f.Path)
		if f.Mode == gitrev.ModeLinkText {
			links = append(links, f.Path)
		}
	}
	// Links show as links, as on disk: a run whose state/ folder is a
	// link is a run (with that link an error), not a folder of files.
	fsys := gitrev.NewFilesFS(names, func(name string) ([]byte, error) {
		oid, ok := objects[name]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return repo.ReadObject(oid, maxDetectRead)
	}).WithLinks(links)
	return &snapshot{repo: repo, files: files, fsys: fsys, changes: changes, base: base}
}

// indexSnapshot is the index a commit in progress records, against HEAD.
func indexSnapshot(repo *gitrev.Repo, index string) (*snapshot, error) {
	changes, err := repo.Staged(index)
	if err != nil {
		return nil, optionError(OptionStaged, "listing the staged changes: %w", err)
	}
	files, err := repo.IndexFiles(index)
	if err != nil {
		return nil, optionError(OptionStaged, "reading the index: %w", err)
	}
	// A commit of the index is checked against its parent, in CI too.
	base, err := gitrev.HeadBase(repo)
	if err != nil {
		return nil, err
	}
	return newSnapshot(repo, files, changes, base), nil
}

// rangeSnapshot is commit to, with what changed since where it left from
// (their merge base: from itself when to descends from it), the base its
// history is compared with. In CI a from off the history of the revision
// the change cannot write (gitrev.ConfineRulesBase, read with getenv) is
// a commit the change may have written: a human decision it holds would
// count as the base's, and a ledger it rewrote would be the one the range
// is held to. The range then starts where to left that revision.
func rangeSnapshot(repo *gitrev.Repo, fromRef, toRef string, getenv func(string) string) (*snapshot, error) {
	from, err := repo.Resolve(fromRef)
	if err != nil {
		return nil, optionError(OptionStaged, "PRE_COMMIT_FROM_REF: %w", err)
	}
	to, err := repo.Resolve(toRef)
	if err != nil {
		return nil, optionError(OptionStaged, "PRE_COMMIT_TO_REF: %w", err)
	}
	base := gitrev.Base{Commit: from, From: fromRef}
	confined, err := gitrev.ConfineRulesBase(repo, base, getenv)
	if err != nil {
		return nil, err
	}
	if confined.Commit != from {
		from, fromRef = confined.Commit, confined.From
		base = confined
	}
	if mb, found, err := repo.MergeBase(from, to); err != nil {
		return nil, err
	} else if found && mb != from {
		base = gitrev.Base{Commit: mb, From: "the merge base of " + fromRef + " and " + toRef}
	}
	changes, err := repo.Between(base.Commit, to)
	if err != nil {
		return nil, optionError(OptionStaged, "listing the changes from %s to %s: %w", fromRef, toRef, err)
	}
	files, err := repo.CommitFiles(to)
	if err != nil {
		return nil, optionError(OptionStaged, "listing %s: %w", toRef, err)
	}
	return newSnapshot(repo, files, changes, base), nil
}

// nearestFolder is dir, or the nearest folder above it that the snapshot
// holds, never above stop.
func (snap *snapshot) nearestFolder(dir, stop string) string {
	for {
		if dir == stop || dir == "" {
			return fsName(dir)
		}
		if info, err := fs.Stat(snap.fsys, dir); err == nil && info.IsDir() {
			return dir
		}
		dir = relName(path.Dir(dir))
	}
}

// fsName turns a top-level-relative folder into its name in a snapshot.
func fsName(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

func relName(name string) string {
	if name == "." {
		return ""
	}
	return name
}
