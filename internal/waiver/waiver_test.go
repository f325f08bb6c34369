package waiver

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/h3a-check/h3a-check/internal/finding"
)

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"runs/a/state.json", "runs/a/state.json", true},
		{"runs/*/state.json", "runs/a/state.json", true},
		{"runs/*/state.json", "runs/a/b/state.json", false},
		{"runs/**/state.json", "runs/state.json", true},
		{"runs/**/state.json", "runs/a/b/state.json", true},
		{"runs/**", "runs/a/b/c.txt", true},
		{"runs/**", "other/a", false},
		{"**", "anything/at/all", true},
		{"**/EVIDENCE_LOG.md", "runs/a/state/EVIDENCE_LOG.md", true},
		{"**/EVIDENCE_LOG.md", "runs/a/state/EVIDENCE_LOG.md.bak", false},
		{"runs/a", "runs/a", true},
		{"runs/a", "runs/a/state.json", false},
		{"runs/202509??-*/artifacts/**/*.txt", "runs/20250929-x/artifacts/executor/out.txt", true},
		{"runs/[ab]/x", "runs/c/x", false},
		{"**/**/x", "x", true},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/y/b/c/d", false},
	}
	for _, tc := range tests {
		if got := matchPath(tc.pattern, tc.name); got != tc.want {
			t.Errorf("matchPath(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestCoversDir(t *testing.T) {
	tests := []struct {
		pattern, dir string
		want         bool
	}{
		{"runs/a/state/EVIDENCE_LOG.md", "runs/a", true},
		{"runs/a/state/EVIDENCE_LOG.md", "runs/b", false},
		{"runs/*", "runs/a", true},
		{"runs/**", "runs/a", true},
		{"**/x.txt", "runs/a", true},
		{"runs/a", "runs/ab", false},
		{"runs/a/b", "runs", true},
		{"other/**", "runs/a", false},
		{"x", ".", true},
	}
	for _, tc := range tests {
		if got := coversDir(tc.pattern, tc.dir); got != tc.want {
			t.Errorf("coversDir(%q, %q) = %v, want %v", tc.pattern, tc.dir, got, tc.want)
		}
	}
}

// TestMatchManyStars: matching stays fast whatever the number of "**".
func TestMatchManyStars(t *testing.T) {
	pattern := strings.Repeat("**/", 40) + "z"
	name := strings.Repeat("a/", 200) + "y"
	done := make(chan bool)
	go func() { done <- matchPath(pattern, name) }()
	select {
	case got := <-done:
		if got {
			t.Error("matched a name that does not end in z")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("matching hung")
	}
}

func TestCheckPattern(t *testing.T) {
	tests := []struct {
		pattern string
		err     string
	}{
		{"runs/**/artifacts/*.txt", ""},
		{"runs/*", ""},
		{"", "empty"},
		{"/etc/passwd", "absolute"},
		{"runs/../x", `".."`},
		{"runs//x", "empty"},
		{"./runs", `"."`},
		{`runs\x`, "backslash"},
		{"runs/a**", "whole segment"},
		{"runs/[", "malformed"},
	}
	for _, tc := range tests {
		err := CheckPattern(tc.pattern)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("CheckPattern(%q) = %v, want nil", tc.pattern, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("CheckPattern(%q) = %v, want an error mentioning %q", tc.pattern, err, tc.err)
		}
	}
	if err := CheckRulePattern("h3a.integrity.*"); err != nil {
		t.Error(err)
	}
	if err := CheckRulePattern("h3a.[x"); err == nil {
		t.Error("malformed rule pattern accepted")
	}
}

func TestApply(t *testing.T) {
	base := filepath.FromSlash("/repo")
	run := filepath.Join(base, "runs", "r1")
	hash := finding.Finding{Rule: "h3a.integrity.hash_mismatch", Severity: finding.Error, File: "state/EVIDENCE_LOG.md", Line: 17, TaskID: "T001", Details: "hash"}
	bom := finding.Finding{Rule: "h3a.schema.bom", Severity: finding.Warning, File: "state.json", Line: 1, Details: "bom"}
	runLevel := finding.Finding{Rule: "h3a.structure.run_dir_name", Severity: finding.Error, Details: "name"}
	live := func(rule, p string) Waiver {
		return Waiver{Rule: rule, Path: p, Reason: "accepted for the demo", Expires: "2025-06-30", Source: ".h3a-check.yaml:4"}
	}
	tests := []struct {
		name    string
		waivers []Waiver
		in      []finding.Finding
		waived  []string // rules of the findings marked waived
		extra   []string // rule: details fragment of added findings
	}{
		{"exact rule and file", []Waiver{live("h3a.integrity.hash_mismatch", "runs/r1/state/EVIDENCE_LOG.md")},
			[]finding.Finding{hash, bom}, []string{"h3a.integrity.hash_mismatch"}, nil},
		{"rule pattern and path glob", []Waiver{live("h3a.*", "runs/**")},
			[]finding.Finding{hash, bom}, []string{"h3a.integrity.hash_mismatch", "h3a.schema.bom"}, nil},
		{"run-level finding matched by the run path", []Waiver{live("h3a.structure.run_dir_name", "runs/r1")},
			[]finding.Finding{runLevel}, []string{"h3a.structure.run_dir_name"}, nil},
		{"a rule whose result is unknown is never waived", []Waiver{live("*", "runs/**")},
			[]finding.Finding{bom, {Rule: "h3a.policy.timeout", Severity: finding.Error, Details: "no policy result is known"}, {Rule: "h3a.policy.builtin_error", Severity: finding.Error, File: "state.json", Details: "x"}},
			[]string{"h3a.schema.bom"}, nil},
		{"a file spelt as the run is not the run", []Waiver{live("h3a.user.team.x", "runs/r1")},
			[]finding.Finding{{Rule: "h3a.user.team.x", Severity: finding.Error, File: ".", Details: "x"}, {Rule: "h3a.user.team.x", Severity: finding.Error, File: "state/..", Details: "x"}},
			nil, []string{"h3a.waiver.unused: .h3a-check.yaml:4:"}},
		{"a file spelt through another run is not that run's", []Waiver{live("h3a.schema.bom", "runs/*/state.json")},
			[]finding.Finding{{Rule: "h3a.schema.bom", Severity: finding.Warning, File: "../r2/state.json", Details: "x"}, {Rule: "h3a.schema.bom", Severity: finding.Warning, File: "./state.json", Details: "x"}},
			nil, []string{"h3a.waiver.unused: .h3a-check.yaml:4:"}},
		{"task must match when given", []Waiver{{Rule: "h3a.integrity.hash_mismatch", Path: "runs/r1/**", Task: "T002", Reason: "r", Expires: "2025-06-30", Source: "c:9"}},
			[]finding.Finding{hash}, nil, []string{`h3a.waiver.unused: c:9: waiver of "h3a.integrity.hash_mismatch" on "runs/r1/**" for task "T002" matches no finding`}},
		{"task matches", []Waiver{{Rule: "h3a.integrity.hash_mismatch", Path: "runs/r1/**", Task: "T001", Reason: "r", Expires: "2025-06-30", Source: "c:9"}},
			[]finding.Finding{hash}, []string{"h3a.integrity.hash_mismatch"}, nil},
		{"other rule: unused", []Waiver{live("h3a.integrity.missing_artifact", "runs/r1/**")},
			[]finding.Finding{hash}, nil, []string{"h3a.waiver.unused: .h3a-check.yaml:4: waiver of"}},
		{"same rule, other file of the run: unused", []Waiver{live("h3a.schema.bom", "runs/r1/state/CURRENT_TASK.json")},
			[]finding.Finding{bom}, nil, []string{`h3a.waiver.unused: .h3a-check.yaml:4: waiver of "h3a.schema.bom" on "runs/r1/state/CURRENT_TASK.json" matches no finding`}},
		{"other run: silent", []Waiver{live("h3a.integrity.hash_mismatch", "runs/r2/**")},
			[]finding.Finding{hash}, nil, nil},
		{"expires today: still live", []Waiver{{Rule: "h3a.schema.bom", Path: "runs/**", Reason: "r", Expires: "2025-06-01", Source: "c:2"}},
			[]finding.Finding{bom}, []string{"h3a.schema.bom"}, nil},
		{"expired yesterday", []Waiver{{Rule: "h3a.schema.bom", Path: "runs/**", Reason: "vendor fix pending", Expires: "2025-05-31", Source: "c:2"}},
			[]finding.Finding{bom}, nil, []string{`h3a.waiver.expired: c:2: waiver of "h3a.schema.bom" on "runs/**" expired on 2025-05-31 (its reason was "vendor fix pending"); the 1 finding it matches counts again`}},
		{"expired and matching nothing is still an error", []Waiver{{Rule: "h3a.x", Path: "runs/r1", Reason: "r", Expires: "2024-01-01", Source: "c:3"}},
			[]finding.Finding{bom}, nil, []string{"h3a.waiver.expired: c:3: waiver of \"h3a.x\" on \"runs/r1\" expired on 2024-01-01 (its reason was \"r\"); it matches no finding in this run"}},
		{"first matching waiver wins; the second is unused", []Waiver{live("h3a.schema.bom", "runs/**"), {Rule: "h3a.schema.*", Path: "runs/r1/*", Reason: "r", Expires: "2025-06-30", Source: "c:8"}},
			[]finding.Finding{bom}, []string{"h3a.schema.bom"}, []string{"h3a.waiver.unused: c:8:"}},
		{"no waivers", nil, []finding.Finding{hash}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Set{Base: base, Today: "2025-06-01", Waivers: tc.waivers}
			in := append([]finding.Finding(nil), tc.in...)
			// Unused speaks after every run; here there is one.
			got := append(s.Apply(run, in), s.Unused()...)
			for i := range in {
				if in[i] != tc.in[i] {
					t.Fatal("Apply modified its input")
				}
			}
			var waived, extra []string
			for i, f := range got {
				if f.IsWaived() {
					waived = append(waived, f.Rule)
					if f.Waived.Source == "" || f.Waived.Expires == "" {
						t.Errorf("waived finding lacks source or expiry: %+v", f.Waived)
					}
				}
				if i >= len(tc.in) {
					extra = append(extra, f.Rule+": "+f.Details)
				}
			}
			if strings.Join(waived, ",") != strings.Join(tc.waived, ",") {
				t.Errorf("waived %v, want %v", waived, tc.waived)
			}
			if len(extra) != len(tc.extra) {
				t.Fatalf("added %q, want %d findings like %q", extra, len(tc.extra), tc.extra)
			}
			for i := range extra {
				if !strings.HasPrefix(extra[i], tc.extra[i]) {
					t.Errorf("added %q, want it to start with %q", extra[i], tc.extra[i])
				}
			}
		})
	}
}

// TestUnusedOncePerWaiver: a waiver whose glob covers many runs and
// matches nothing in any is one warning, naming how many runs it covered;
// one that matched in some run is used.
func TestUnusedOncePerWaiver(t *testing.T) {
	base := filepath.FromSlash("/repo")
	bom := finding.Finding{Rule: "h3a.schema.bom", Severity: finding.Warning, File: "state.json", Line: 1, Details: "bom"}
	s := &Set{Base: base, Today: "2025-06-01", Waivers: []Waiver{
		{Rule: "h3a.integrity.*", Path: "runs/**", Reason: "r", Expires: "2025-06-30", Source: "c:2"},
		{Rule: "h3a.schema.bom", Path: "runs/**", Reason: "r", Expires: "2025-06-30", Source: "c:7"},
		{Rule: "h3a.schema.bom", Path: "elsewhere/**", Reason: "r", Expires: "2025-06-30", Source: "c:9"},
	}}
	for _, r := range []string{"r1", "r2", "r3"} {
		var in []finding.Finding
		if r == "r2" {
			in = []finding.Finding{bom}
		}
		for _, f := range s.Apply(filepath.Join(base, "runs", r), in) {
			if f.Rule == "h3a.waiver.unused" {
				t.Errorf("run %s: an unused waiver reported with the run: %s", r, f.Details)
			}
		}
	}
	got := s.Unused()
	if len(got) != 1 || got[0].Rule != "h3a.waiver.unused" ||
		got[0].Details != `c:2: waiver of "h3a.integrity.*" on "runs/**" matches no finding in the 3 runs it covers` {
		t.Errorf("Unused() = %+v, want one warning for the waiver at c:2", got)
	}
}

// TestApplyOutsideBase: a run outside the configuration's directory is
// never matched, whatever the pattern.
func TestApplyOutsideBase(t *testing.T) {
	s := &Set{Base: filepath.FromSlash("/repo/sub"), Today: "2025-01-01",
		Waivers: []Waiver{{Rule: "*", Path: "**", Reason: "r", Expires: "2099-01-01", Source: "c:1"}}}
	got := s.Apply(filepath.FromSlash("/repo/runs/r1"), []finding.Finding{{Rule: "h3a.schema.bom", Details: "d"}})
	if len(got) != 1 || got[0].IsWaived() {
		t.Errorf("got %+v", got)
	}
	var nilSet *Set
	if got := nilSet.Apply("/x", []finding.Finding{{Rule: "r"}}); len(got) != 1 {
		t.Errorf("nil set: %+v", got)
	}
}

// TestApplyNewRun: in a run new since the base no live waiver accepts a
// finding; each that would says so, and none is counted as used or unused.
// An expired one is still an error there.
func TestApplyNewRun(t *testing.T) {
	s := &Set{Base: filepath.FromSlash("/repo"), Today: "2025-01-01", Waivers: []Waiver{
		{Rule: "h3a.integrity.*", Path: "runs/**", Reason: "r", Expires: "2099-01-01", Source: "c:1"},
		{Rule: "h3a.schema.*", Path: "runs/**", Reason: "r", Expires: "2099-01-01", Source: "c:2"},
		{Rule: "h3a.evidence.*", Path: "runs/**", Reason: "r", Expires: "2024-12-31", Source: "c:3"},
	}}
	in := []finding.Finding{
		{Rule: "h3a.integrity.hash_mismatch", File: "state/EVIDENCE_LOG.md", Details: "d"},
		{Rule: "h3a.integrity.hash_mismatch", File: "state/EVIDENCE_LOG.md", Line: 2, Details: "d"},
		{Rule: "h3a.evidence.required_artifact", Details: "d"},
	}
	got := s.ApplySince(filepath.FromSlash("/repo/runs/b/r1"), Since{Base: "abc123", NewRun: true}, in)
	var rules []string
	for _, f := range got {
		if f.IsWaived() {
			t.Errorf("waived in a new run: %+v", f)
		}
		rules = append(rules, f.Rule)
	}
	want := []string{"h3a.integrity.hash_mismatch", "h3a.integrity.hash_mismatch", "h3a.evidence.required_artifact", "h3a.waiver.new_run", "h3a.waiver.expired"}
	if strings.Join(rules, " ") != strings.Join(want, " ") {
		t.Fatalf("rules %v, want %v", rules, want)
	}
	if d := got[3].Details; d != `c:1: waiver of "h3a.integrity.*" on "runs/**" does not accept the 2 findings it matches: the run is new since base abc123, and the waiver was written before the run existed; they count` {
		t.Errorf("details %q", d)
	}
	if u := s.Unused(); len(u) != 0 {
		t.Errorf("Unused() = %+v after a new run only", u)
	}
}

// TestApplyMoved: a run that moved since the base keeps a waiver only for
// the findings the waiver matched at the run's folder at the base too.
func TestApplyMoved(t *testing.T) {
	s := &Set{Base: filepath.FromSlash("/repo"), Today: "2025-01-01", Waivers: []Waiver{
		{Rule: "h3a.integrity.*", Path: "runs/legacy/**", Reason: "r", Expires: "2099-01-01", Source: "c:1"},
		{Rule: "h3a.schema.*", Path: "runs/**", Reason: "r", Expires: "2099-01-01", Source: "c:2"},
	}}
	in := []finding.Finding{
		{Rule: "h3a.integrity.hash_mismatch", File: "state/EVIDENCE_LOG.md", Details: "d"},
		{Rule: "h3a.schema.bom", File: "state.json", Details: "d"},
	}
	got := s.ApplySince(filepath.FromSlash("/repo/runs/legacy/r1"), Since{Base: "abc123", MovedFrom: filepath.FromSlash("/repo/runs/new/r1"), MovedName: "runs/new/r1"}, in)
	if len(got) != 3 || got[0].IsWaived() || !got[1].IsWaived() || got[2].Rule != "h3a.waiver.new_run" ||
		got[2].Details != `c:1: waiver of "h3a.integrity.*" on "runs/legacy/**" does not accept the 1 finding it matches here: the run moved since base abc123 from "runs/new/r1", where the waiver did not cover it; it counts` {
		t.Fatalf("got %+v", got)
	}
	if u := s.Unused(); len(u) != 0 {
		t.Errorf("Unused() = %+v", u)
	}
	got = s.ApplySince(filepath.FromSlash("/repo/runs/legacy/r2"), Since{Base: "abc123", MovedFrom: filepath.FromSlash("/repo/runs/legacy/old/r2"), MovedName: "runs/legacy/old/r2"}, in[:1])
	if len(got) != 1 || !got[0].IsWaived() {
		t.Errorf("a move within the waiver's glob: %+v", got)
	}
}

// TestApplySince: in a run the base holds, a waiver accepts the findings
// the run had at the base and none that isNew reports; each waiver refused
// so says so once, and still counts as used for what it accepted.
func TestApplySince(t *testing.T) {
	s := &Set{Base: filepath.FromSlash("/repo"), Today: "2025-01-01", Waivers: []Waiver{
		{Rule: "h3a.integrity.*", Path: "runs/**", Reason: "r", Expires: "2099-01-01", Source: "c:1"},
	}}
	in := []finding.Finding{
		{Rule: "h3a.integrity.hash_mismatch", File: "state/EVIDENCE_LOG.md", Line: 5, Details: "d"},
		{Rule: "h3a.integrity.hash_mismatch", File: "state/EVIDENCE_LOG.md", Line: 9, Details: "d"},
	}
	isNew := func(f finding.Finding) bool { return f.Line == 9 }
	got := s.ApplySince(filepath.FromSlash("/repo/runs/r1"), Since{Base: "abc123", IsNew: isNew}, in)
	if len(got) != 3 || !got[0].IsWaived() || got[1].IsWaived() || got[2].Rule != "h3a.waiver.new_run" ||
		got[2].Details != `c:1: waiver of "h3a.integrity.*" on "runs/**" does not accept the 1 finding it matches that the run did not have at base abc123 (a file or record the change adds or rewrites, or one an edit elsewhere made): the waiver was written before it existed; it counts` {
		t.Fatalf("got %+v", got)
	}
	if u := s.Unused(); len(u) != 0 {
		t.Errorf("Unused() = %+v", u)
	}
}

func TestToday(t *testing.T) {
	// 23:30 on 31 May in UTC-5 is 1 June in UTC.
	now := time.Date(2025, 5, 31, 23, 30, 0, 0, time.FixedZone("x", -5*3600))
	if got := Today(now); got != "2025-06-01" {
		t.Errorf("Today = %s", got)
	}
}

func FuzzMatchPath(f *testing.F) {
	for _, s := range [][2]string{{"runs/**/x", "runs/a/x"}, {"**", "a"}, {"a/[b", "a/b"}, {"*/*", "a/b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if CheckPattern(pattern) != nil {
			return
		}
		m := matchPath(pattern, name)
		if m && !coversDir(pattern, name) {
			t.Errorf("%q matches %q but does not cover it", pattern, name)
		}
	})
}
