package gitrev_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

func TestReadStreamList(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{
		"my runs/ünï cödé/state.json": `{"steps": []}`,
		"my runs/ünï cödé/big.txt":    strings.Repeat("x", 5000),
		"top.txt":                     "top\n",
	})
	base := g.Commit("base")
	g.Write(map[string]string{"my runs/ünï cödé/state.json": `{"steps": [1]}`})

	repo, err := gitrev.Open(filepath.Join(g.Dir, "my runs"))
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	repo.MaxRead = 1000

	tests := []struct {
		name   string
		path   string
		want   string
		exists bool
		err    error
	}{
		{"unicode and spaces", "my runs/ünï cödé/state.json", `{"steps": []}`, true, nil},
		{"unclean path", "./my runs//ünï cödé/../ünï cödé/state.json", `{"steps": []}`, true, nil},
		{"top level file", "top.txt", "top\n", true, nil},
		{"missing", "my runs/nope.json", "", false, nil},
		{"folder", "my runs", "", true, gitrev.ErrNotFile},
		{"over the limit", "my runs/ünï cödé/big.txt", "", true, gitrev.ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, exists, err := repo.Read(base, tc.path)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if exists != tc.exists || string(data) != tc.want {
				t.Errorf("got %q exists=%v, want %q exists=%v", data, exists, tc.want, tc.exists)
			}
		})
	}

	// Stream is not bound by MaxRead, and bytes fn leaves unread do not
	// disturb the next answer.
	var sum string
	exists, err := repo.Stream(base, "my runs/ünï cödé/big.txt", func(r io.Reader) error {
		h := sha256.New()
		_, err := io.Copy(h, r)
		sum = hex.EncodeToString(h.Sum(nil))
		return err
	})
	want := sha256.Sum256([]byte(strings.Repeat("x", 5000)))
	if err != nil || !exists || sum != hex.EncodeToString(want[:]) {
		t.Errorf("stream: exists=%v err=%v sum %s", exists, err, sum)
	}
	if _, err := repo.Stream(base, "my runs/ünï cödé/big.txt", func(r io.Reader) error {
		_, err := r.Read(make([]byte, 10))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if data, _, err := repo.Read(base, "top.txt"); err != nil || string(data) != "top\n" {
		t.Errorf("read after a partial stream: %q %v", data, err)
	}

	files, err := repo.List(base, "my runs")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files, "|"); got != "my runs/ünï cödé/big.txt|my runs/ünï cödé/state.json" {
		t.Errorf("list: %s", got)
	}
	if all, _ := repo.List(base, ""); len(all) != 3 {
		t.Errorf("list of the top level: %v", all)
	}
	if repo.Processes() != 1 {
		t.Errorf("%d cat-file processes, want 1", repo.Processes())
	}
}

// TestConcurrentReads: many goroutines share one process; run with -race.
func TestConcurrentReads(t *testing.T) {
	g := gittest.Init(t)
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("d/f%02d.txt", i)] = strings.Repeat(fmt.Sprint(i), i*100+1)
	}
	g.Write(files)
	base := g.Commit("base")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				p := fmt.Sprintf("d/f%02d.txt", (i+w)%50)
				data, ok, err := repo.Read(base, p)
				if err != nil || !ok || string(data) != files[p] {
					t.Errorf("%s: ok=%v err=%v, %d bytes", p, ok, err, len(data))
					return
				}
			}
		}()
	}
	wg.Wait()
	if repo.Processes() != 1 || repo.Requests() != 400 {
		t.Errorf("%d processes, %d requests; want 1 and 400", repo.Processes(), repo.Requests())
	}
}

func TestClosedReaderFails(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"a.txt": "a"})
	base := g.Commit("base")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := repo.Read(base, "a.txt"); err != nil {
		t.Fatal(err)
	}
	repo.Close()
	if _, _, err := repo.Read(base, "a.txt"); err == nil || gitrev.IsFileError(err) {
		t.Errorf("read after close: %v, want a reader error", err)
	}
	if _, _, err := repo.Read(base, "line\nbreak"); err == nil {
		t.Error("a path with a line break was sent to cat-file")
	}
}

func TestLocator(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"a/b/c/x.txt": "x", "a/d/y.txt": "y"})
	g.Commit("base")
	inner := gittest.At(t, filepath.Join(g.Dir, "a", "nested"))
	if err := os.MkdirAll(inner.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	inner.Git("init", "-q")
	outside := t.TempDir()

	var l gitrev.Locator
	defer l.Close()
	r1, err := l.Repo(filepath.Join(g.Dir, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := l.Repo(filepath.Join(g.Dir, "a", "d"))
	if err != nil || r2 != r1 {
		t.Fatalf("two folders of one repository gave two repositories (%v)", err)
	}
	r3, err := l.Repo(inner.Dir)
	if err != nil || r3 == r1 {
		t.Fatalf("a nested repository was not told apart (%v)", err)
	}
	if _, err := l.Repo(outside); !errors.Is(err, gitrev.ErrNotWorkTree) {
		t.Errorf("outside any repository: %v, want ErrNotWorkTree", err)
	}
	if _, err := l.Repo(filepath.Join(g.Dir, ".git")); err == nil {
		t.Error("the .git folder was taken for a work tree")
	}
	rel, err := r1.Rel(filepath.Join(g.Dir, "a", "b"))
	if err != nil || rel != "a/b" {
		t.Errorf("Rel: %q %v", rel, err)
	}
	if _, err := r1.Rel(outside); err == nil {
		t.Error("Rel accepted a path outside the repository")
	}
}

// TestShallowClone: a base the clone does not hold is an error with the
// remedy, never "the file is new"; once fetched, it reads.
func TestShallowClone(t *testing.T) {
	origin := gittest.Init(t)
	origin.Write(map[string]string{"f.txt": "one"})
	first := origin.Commit("first")
	origin.Write(map[string]string{"f.txt": "two"})
	origin.Commit("second")
	origin.Git("config", "uploadpack.allowAnySHA1InWant", "true")

	clone := gittest.At(t, filepath.Join(t.TempDir(), "clone"))
	origin.Git("clone", "-q", "--depth", "1", "file://"+origin.Dir, clone.Dir)
	repo, err := gitrev.Open(clone.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()

	_, err = repo.Resolve(first)
	var missing *gitrev.MissingCommitError
	if !errors.As(err, &missing) || !missing.Shallow {
		t.Fatalf("resolve an unfetched base: %v, want a shallow MissingCommitError", err)
	}
	for _, want := range []string{"fetch-depth: 0", "git fetch --no-tags --depth=1 origin " + first} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks the remedy %q", err, want)
		}
	}

	clone.Git("fetch", "-q", "--no-tags", "--depth=1", "origin", first)
	sha, err := repo.Resolve(first)
	if err != nil || sha != first {
		t.Fatalf("after fetching: %q %v", sha, err)
	}
	data, ok, err := repo.Read(sha, "f.txt")
	if err != nil || !ok || string(data) != "one" {
		t.Errorf("read at the fetched base: %q %v %v", data, ok, err)
	}
}

func TestResolve(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"f": "1"})
	c1 := g.Commit("one")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	tests := []struct {
		rev, want, err string
	}{
		{"HEAD", c1, ""},
		{c1[:10], c1, ""},
		{"main", c1, ""},
		{"nope", "", `"nope" does not name a commit`},
		{strings.Repeat("ab", 20), "", "is not in this repository; fetch it first"},
		{"HEAD^{tree}", "", "does not name a commit"},
		{"--output=x", "", `starts with "-"`},
	}
	for _, tc := range tests {
		got, err := repo.Resolve(tc.rev)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.rev, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.rev, got, err, tc.want)
		}
	}
	// Answered by the shared process, not a git process per question.
	if exchanges, _ := repo.Traffic(); repo.Processes() != 1 || exchanges != len(tests)-1 {
		t.Errorf("%d processes, %d exchanges; want 1 and %d", repo.Processes(), exchanges, len(tests)-1)
	}
}

func TestChooseBase(t *testing.T) {
	g := gittest.Init(t)
	empty, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	if b, err := gitrev.ChooseBase(empty, "", noEnv); err != nil || b.Commit != "" || !strings.Contains(b.Skip, "no commit yet") {
		t.Errorf("no commit yet: %+v %v", b, err)
	}
	if _, err := gitrev.ChooseBase(empty, "HEAD", noEnv); err == nil {
		t.Error("--base HEAD without a commit was accepted")
	}

	g.Write(map[string]string{"f": "1"})
	fork := g.Commit("fork point")
	g.Git("checkout", "-q", "-b", "feature")
	g.Write(map[string]string{"f": "feature"})
	head := g.Commit("feature work")
	g.Git("checkout", "-q", "main")
	g.Write(map[string]string{"f": "main moved on"})
	mainTip := g.Commit("main work")
	g.Git("checkout", "-q", "feature")

	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"base": {"sha": "`+mainTip+`"}}, "merge_group": {"base_sha": "`+mainTip+`"}}`), 0o644)
	actions := func(name string) func(string) string {
		return func(k string) string {
			return map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": event}[k]
		}
	}
	// History is compared with the change's own diff (the merge base);
	// rules come from the tip of the branch the change lands on.
	tests := []struct {
		name, asked    string
		getenv         func(string) string
		history, rules string
	}{
		{"local: the merge base with main, rules from HEAD", "", noEnv, fork, head},
		{"local: --base HEAD", "HEAD", noEnv, head, head},
		{"explicit", "main", noEnv, mainTip, mainTip},
		{"none: no history, rules from the event's target", "none", actions("pull_request"), "", mainTip},
		{"pull_request", "", actions("pull_request"), fork, mainTip},
		{"pull_request_target", "", actions("pull_request_target"), fork, mainTip},
		{"merge_group", "", actions("merge_group"), fork, mainTip},
		{"explicit in the target's history wins over the event", "main~1", actions("pull_request"), fork, fork},
		// HEAD is the change itself: it judges nothing in CI.
		{"explicit the change wrote gives way to the event", "HEAD", actions("pull_request"), fork, mainTip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := gitrev.ChooseBase(repo, tc.asked, tc.getenv)
			if err != nil || b.Commit != tc.history {
				t.Errorf("history: %+v %v, want commit %s", b, err, tc.history)
			}
			if b.Commit == "" && b.Skip == "" {
				t.Error("no commit and no reason")
			}
			r, err := gitrev.ChooseRulesBase(repo, tc.asked, tc.getenv)
			if err != nil || r.Commit != tc.rules || r.From == "" {
				t.Errorf("rules: %+v %v, want commit %s", r, err, tc.rules)
			}
		})
	}
}

func TestReadEvent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	sha := strings.Repeat("a1", 20)
	pr := write("good.json", `{"pull_request":{"base":{"sha":"`+sha+`"}}}`)
	tests := []struct {
		name, event, path string
		want              string
		ok                bool
		err               string
	}{
		{"not actions", "", "", "", false, ""},
		{"push", "push", "", "", false, ""},
		{"pull_request", "pull_request", pr, sha, true, ""},
		{"pull_request_target", "pull_request_target", pr, sha, true, ""},
		{"pull_request_review", "pull_request_review", pr, sha, true, ""},
		{"pull_request_review_comment", "pull_request_review_comment", pr, sha, true, ""},
		{"pull_request_review without a base", "pull_request_review", write("review.json", `{"review":{"state":"approved"}}`), "", false, "no pull_request.base.sha"},
		{"merge_group", "merge_group", write("mg.json", `{"merge_group":{"base_sha":"`+sha+`","head_sha":"`+strings.Repeat("b2", 20)+`"}}`), sha, true, ""},
		{"merge_group without base_sha", "merge_group", pr, "", false, "no merge_group.base_sha"},
		{"no path", "pull_request", "", "", false, "GITHUB_EVENT_PATH is not set"},
		{"unreadable", "pull_request_target", filepath.Join(dir, "missing.json"), "", false, "cannot read the pull_request_target event"},
		{"not json", "pull_request", write("bad.json", `{`), "", false, "not valid JSON"},
		{"no sha", "pull_request", write("nosha.json", `{"pull_request":{"base":{}}}`), "", false, "no pull_request.base.sha"},
		{"short sha", "pull_request", write("short.json", `{"pull_request":{"base":{"sha":"abc"}}}`), "", false, "no pull_request.base.sha"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"GITHUB_EVENT_NAME": tc.event, "GITHUB_EVENT_PATH": tc.path}
			if tc.event != "" {
				env["GITHUB_ACTIONS"] = "true"
			}
			got, ok, err := gitrev.ReadEvent(func(k string) string { return env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || ok != tc.ok || got.Target != tc.want {
				t.Errorf("%+v %v %v", got, ok, err)
			}
		})
	}
}

func TestFake(t *testing.T) {
	f := &gitrev.Fake{Files: map[string]map[string][]byte{"base": {"run/state.json": []byte("{}"), "run/x/y": []byte("y")}}}
	if data, ok, err := f.Read("base", "run/state.json"); err != nil || !ok || string(data) != "{}" {
		t.Errorf("read: %q %v %v", data, ok, err)
	}
	if _, ok, err := f.Read("base", "run/new.json"); err != nil || ok {
		t.Errorf("missing: %v %v", ok, err)
	}
	if _, _, err := f.Read("base", "run/x"); !errors.Is(err, gitrev.ErrNotFile) {
		t.Errorf("folder: %v", err)
	}
	var missing *gitrev.MissingCommitError
	if _, _, err := f.Read("other", "run/state.json"); !errors.As(err, &missing) {
		t.Errorf("unknown revision: %v", err)
	}
	if list, _ := f.List("base", "run/x"); len(list) != 1 {
		t.Errorf("list: %v", list)
	}
	var buf bytes.Buffer
	if ok, err := f.Stream("base", "run/x/y", func(r io.Reader) error { _, err := io.Copy(&buf, r); return err }); !ok || err != nil || buf.String() != "y" {
		t.Errorf("stream: %v %v %q", ok, err, buf.String())
	}
	if f.Reads() != 5 {
		t.Errorf("%d reads counted, want 5", f.Reads())
	}
}

func TestTreeID(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{"runs/r 1/state.json": "{}", "top.txt": "x"})
	base := g.Commit("base")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	oid, ok, err := repo.TreeID(base, "runs/r 1")
	if err != nil || !ok || len(oid) != 40 {
		t.Fatalf("TreeID: %q %v %v", oid, ok, err)
	}
	if data, ok, err := repo.Read(oid, "state.json"); err != nil || !ok || string(data) != "{}" {
		t.Errorf("read through the tree: %q %v %v", data, ok, err)
	}
	if root, ok, err := repo.TreeID(base, ""); err != nil || !ok || root == oid {
		t.Errorf("top-level tree: %q %v %v", root, ok, err)
	}
	if _, ok, err := repo.TreeID(base, "runs/missing"); err != nil || ok {
		t.Errorf("missing folder: %v %v", ok, err)
	}
	if _, _, err := repo.TreeID(base, "top.txt"); !errors.Is(err, gitrev.ErrNotFile) {
		t.Errorf("a file as a folder: %v", err)
	}
}

// TestListNamesSubfoldersByObject: List asks for each subfolder by its
// tree's object name, not by its path. By path, git would search every
// folder on the way again for each one (the folder holding a thousand runs
// once per run), and a folder whose name holds a line break could not be
// asked for at all.
func TestListNamesSubfoldersByObject(t *testing.T) {
	g := gittest.Init(t)
	g.Write(map[string]string{
		"runs/a\nb/state.json": "{}",
		"runs/c/d/e.txt":       "e",
	})
	base := g.Commit("base")
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	files, err := repo.List(base, "runs")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files, "|"); got != "runs/a\nb/state.json|runs/c/d/e.txt" {
		t.Errorf("list: %q", got)
	}
	// Named by path, that folder cannot be asked for: an error, never an
	// empty listing that would read as "no run at the base".
	if files, err := repo.List(base, "runs/a\nb"); err == nil {
		t.Errorf("list of a folder named with a line break: %q and no error", files)
	}
}
