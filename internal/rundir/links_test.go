package rundir

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestDiscoverLinks: a symbolic link that stands where a run would be is
// found as a run, with its target in Link, whether it is named directly
// or found while searching, and whether it leads inside or outside the
// searched tree; a real run has no Link.
func TestDiscoverLinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"tree/runs/real", "tree/store/kept", "outside-run"} {
		base := root
		if d == "outside-run" {
			base = outside
		}
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, d, "RUN.mark"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "tree/plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"tree/runs/inside":  "../store/kept",                       // a run inside the searched tree
		"tree/runs/outside": filepath.Join(outside, "outside-run"), // a run outside it
		"tree/runs/folder":  "../plain",                            // a folder that is no run
		"direct":            filepath.Join("tree", "runs", "real"), // named on the command line
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	ds := []Detector{markerDetector}
	byDir := func(runs []Run) map[string]string {
		out := map[string]string{}
		for _, r := range runs {
			p, _ := filepath.Rel(root, r.Dir)
			out[filepath.ToSlash(p)] = r.Link
		}
		return out
	}

	runs, err := Discover([]string{filepath.Join(root, "tree")}, ds, "")
	if err != nil {
		t.Fatal(err)
	}
	got := byDir(runs)
	want := map[string]string{
		"tree/runs/real":    "",
		"tree/store/kept":   "",
		"tree/runs/inside":  "../store/kept",
		"tree/runs/outside": filepath.Join(outside, "outside-run"),
	}
	if len(got) != len(want) {
		t.Errorf("searching: got %v, want %v", got, want)
	}
	for dir, link := range want {
		if l, ok := got[dir]; !ok || l != link {
			t.Errorf("searching: %s: link %q (found %v), want %q", dir, l, ok, link)
		}
	}

	for _, arg := range []string{filepath.Join(root, "direct"), filepath.Join(root, "direct", "RUN.mark")} {
		runs, err = Discover([]string{arg}, ds, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].Link == "" {
			t.Errorf("%s: got %+v, want the link as a run with its target", arg, runs)
		}
	}
}

// TestDiscoverTwoLayouts: a folder two layouts claim names both, in
// detector order, whether found by searching or named; a forced layout
// is a choice and names one.
func TestDiscoverTwoLayouts(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "runs", "both")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"RUN.mark", "OTHER"} {
		if err := os.WriteFile(filepath.Join(run, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds := []Detector{markerDetector, otherDetector}
	for _, arg := range []string{root, run, filepath.Join(run, "RUN.mark")} {
		runs, err := Discover([]string{arg}, ds, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].Layout != "marker" || !slices.Equal(runs[0].Also, []string{"other"}) {
			t.Errorf("%s: got %+v, want layout marker, also other", arg, runs)
		}
	}
	runs, err := Discover([]string{root}, ds, "other")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Layout != "other" || len(runs[0].Also) != 0 {
		t.Errorf("forced: got %+v, want layout other alone", runs)
	}
}

// TestDiscoverLinkToRuns: a symbolic link to a folder of runs out of the
// searched tree is found, with the runs it leads to in Through, since no
// other search reaches them; one to a folder inside the tree hides
// nothing (its runs are found where they are), and one to a folder too
// large to search is an error.
func TestDiscoverLinkToRuns(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{filepath.Join(root, "tree/runs/real"), filepath.Join(root, "tree/store/kept"), filepath.Join(outside, "batch/one"), filepath.Join(outside, "batch/deep/two")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "RUN.mark"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(outside, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"tree/runs/batch": filepath.Join(outside, "batch"), // runs out of the tree
		"tree/runs/alias": "../store",                      // runs inside the tree
		"tree/runs/empty": filepath.Join(outside, "empty"), // no run anywhere
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	runs, err := Discover([]string{filepath.Join(root, "tree")}, []Detector{markerDetector}, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Run{}
	for _, r := range runs {
		p, _ := filepath.Rel(root, r.Dir)
		got[filepath.ToSlash(p)] = r
	}
	if len(got) != 3 {
		t.Errorf("got %v, want the two real runs and the link to the folder of runs", got)
	}
	batch, ok := got["tree/runs/batch"]
	if !ok || batch.Link == "" || !slices.Equal(batch.Through, []string{"deep/two", "one"}) || batch.Layout != markerDetector.ID() {
		t.Errorf("the link to a folder of runs: got %+v (found %v), want its target and the runs deep/two and one", batch, ok)
	}
	for _, dir := range []string{"tree/runs/real", "tree/store/kept"} {
		if r, ok := got[dir]; !ok || r.Link != "" || r.Through != nil {
			t.Errorf("%s: got %+v (found %v), want a real run", dir, r, ok)
		}
	}

	defer func(n int) { maxThroughFolders = n }(maxThroughFolders)
	maxThroughFolders = 20
	big := filepath.Join(outside, "big")
	for i := range maxThroughFolders + 1 {
		if err := os.MkdirAll(filepath.Join(big, strconv.Itoa(i/10), strconv.Itoa(i%10)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(big, filepath.Join(root, "tree/runs/big")); err != nil {
		t.Fatal(err)
	}
	if _, err := Discover([]string{filepath.Join(root, "tree")}, []Detector{markerDetector}, ""); err == nil {
		t.Error("a link to a folder too large to search: no error, want one (a run there could be missed)")
	}
}

// TestDiscoverLinkChain: a link out of the searched tree to a folder that
// holds no run but a link to one (or to a folder of runs) out of the tree
// hides those runs as well as one link would: they are in Through. A link
// back to a folder already searched, or into the tree, adds nothing.
func TestDiscoverLinkChain(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{filepath.Join(root, "tree/runs/real"), filepath.Join(outside, "far/run"), filepath.Join(outside, "lone")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "RUN.mark"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(outside, "near/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		filepath.Join(root, "tree/runs/hop"):       filepath.Join(outside, "near"),
		filepath.Join(outside, "near/sub/far"):     filepath.Join(outside, "far"),    // a folder of runs
		filepath.Join(outside, "near/lone"):        filepath.Join(outside, "lone"),   // a run
		filepath.Join(outside, "near/back"):        filepath.Join(outside, "near"),   // a cycle
		filepath.Join(outside, "near/sub/intree"):  filepath.Join(root, "tree/runs"), // the searched tree
		filepath.Join(outside, "near/sub/realrun"): filepath.Join(root, "tree/runs/real"),
	}
	for name, target := range links {
		if err := os.Symlink(target, name); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	runs, err := Discover([]string{filepath.Join(root, "tree")}, []Detector{markerDetector}, "")
	if err != nil {
		t.Fatal(err)
	}
	var hop *Run
	for i := range runs {
		if filepath.Base(runs[i].Dir) == "hop" {
			hop = &runs[i]
		}
	}
	if hop == nil || hop.Link == "" || !slices.Equal(hop.Through, []string{"lone", "sub/far/run"}) {
		t.Errorf("a link to a folder holding links to runs: got %+v, want the link with the runs lone and sub/far/run in Through", hop)
	}
}
