// Package waiver decides which findings of a run a configured waiver
// accepts, and reports waivers that expired or match nothing.
//
// A waiver is about the runs its path covers. Within such a run it accepts
// every finding whose rule, path (and task, when given) it matches, until
// its expiry date. An expired waiver accepts nothing and is an error in
// every run it covers; a live waiver that accepts nothing in a run it
// covers is a warning there, since the problem was fixed or the waiver is
// mistyped. Waivers about runs that were not checked say nothing, so a
// pre-commit check of one run is not flooded with other runs' waivers.
// A run that is new since the base the history was compared with had no
// findings when the waiver was written: no waiver accepts them; nor does one
// accept a finding a run the base holds did not have there (ApplySince).
package waiver

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// DateLayout is the form of an expiry date.
const DateLayout = "2006-01-02"

// Waiver accepts matching findings until Expires.
type Waiver struct {
	Rule    string // a rule id, or a pattern such as "h3a.integrity.*"
	Path    string // slash-separated pattern relative to Set.Base; see CheckPattern
	Task    string // a task id; empty matches any task
	Reason  string
	Expires string // YYYY-MM-DD: the last day the waiver holds
	Source  string // file:line of the waiver, for messages
}

// Set is the waivers of one configuration file.
type Set struct {
	Base    string // absolute directory the waiver paths are relative to
	Today   string // YYYY-MM-DD in UTC; a waiver expiring before it has expired
	Waivers []Waiver

	// How each live waiver fared over the runs Apply saw, by index in
	// Waivers: runs are checked on several goroutines.
	mu  sync.Mutex
	use map[int]*usage
}

// usage counts the runs a live waiver covers and the findings it matched.
type usage struct{ runs, matched int }

// Today returns the current UTC date in DateLayout.
func Today(now time.Time) string { return now.UTC().Format(DateLayout) }

// Apply returns the findings of the run in runDir (absolute) with the ones
// a live waiver covers marked as waived, followed by one finding per
// expired waiver that covers the run (it changes this run's verdict). A
// finding is marked by the first waiver that matches it. fs is not
// modified. A live waiver that matches nothing is not reported here but by
// Unused, once, after every run: a glob over many runs would otherwise warn
// in each.
func (s *Set) Apply(runDir string, fs []finding.Finding) []finding.Finding {
	return s.ApplySince(runDir, Since{}, fs)
}

// Since is what the history says of a run against the base it was
// compared with; the zero value when none was (Apply).
type Since struct {
	// Base is the base's short commit.
	Base string
	// NewRun: the run is new since Base. A waiver was a person's decision
	// about the findings that existed when it was written; a run the change
	// under review adds had none then, and the change chooses its folder
	// name, so it can always land under an existing glob. A live waiver
	// therefore accepts none of such a run's findings: each waiver that
	// matches some says so in a finding of its own, and the findings count
	// until the run is at the base.
	NewRun bool
	// MovedFrom is where the run was at Base (absolute; shown as
	// MovedName), when it moved since. A waiver was written about the runs
	// its path covered then: it accepts a finding only when it matches it
	// at the run's folder at the base as well, so moving a run under a
	// glob does not waive what the base did not.
	MovedFrom, MovedName string
	// IsNew, for a run the base holds, tells the findings the run did not
	// have at Base: a record the change appends to a log, a file it adds,
	// or a finding an edit elsewhere put on a line it left alone is no
	// finding the waiver was about, so a waiver accepts none that IsNew
	// reports, and says so in a finding of its own.
	IsNew func(finding.Finding) bool
}

// ApplySince is Apply for a run whose history was compared with a base.
func (s *Set) ApplySince(runDir string, since Since, fs []finding.Finding) []finding.Finding {
	base, isNew := since.Base, since.IsNew
	newSince := ""
	if since.NewRun {
		newSince = base
	}
	out := append([]finding.Finding(nil), fs...)
	if s == nil || len(s.Waivers) == 0 {
		return out
	}
	run, ok := relative(s.Base, runDir)
	if !ok {
		return out
	}
	fromRun, fromOK := "", false
	if since.MovedFrom != "" {
		fromRun, fromOK = relative(s.Base, since.MovedFrom)
	}
	var extra []finding.Finding
	for wi, w := range s.Waivers {
		if !coversDir(w.Path, run) {
			continue
		}
		expired := w.Expires < s.Today
		matched, refused, fresh := 0, 0, 0
		for i := range out {
			f := &out[i]
			if f.IsWaived() || !w.matches(run, *f) {
				continue
			}
			matched++
			switch {
			case expired:
			case newSince != "", since.MovedFrom != "" && (!fromOK || !w.matches(fromRun, *f)):
				refused++
			case isNew != nil && isNew(*f):
				refused++
				fresh++
			default:
				f.Waived = finding.Waiver{Reason: w.Reason, Expires: w.Expires, Source: w.Source}
			}
		}
		switch {
		case expired:
			extra = append(extra, finding.WaiverExpired.New("",
				"%s: waiver of %s expired on %s (its reason was %q); %s",
				w.Source, w.describe(), w.Expires, w.Reason, expiredEffect(matched)))
		case newSince != "":
			// Neither used nor unused: whether the waiver still matches
			// what it was written for is for the runs at the base to say.
			if matched > 0 {
				extra = append(extra, finding.WaiverNewRun.New("",
					"%s: waiver of %s does not accept the %s it matches: the run is new since base %s, and the waiver was written before the run existed; %s",
					w.Source, w.describe(), count(matched, "finding"), newSince, newRunEffect(matched)))
			}
		case refused > 0:
			if moves := refused - fresh; moves > 0 {
				extra = append(extra, finding.WaiverNewRun.New("",
					"%s: waiver of %s does not accept the %s it matches here: the run moved since base %s from %q, where the waiver did not cover %s; %s",
					w.Source, w.describe(), count(moves, "finding"), base, since.MovedName, map[bool]string{true: "it", false: "them"}[moves == 1], newRunEffect(moves)))
			}
			if fresh > 0 {
				extra = append(extra, finding.WaiverNewRun.New("",
					"%s: waiver of %s does not accept the %s it matches that the run did not have at base %s (a file or record the change adds or rewrites, or one an edit elsewhere made): the waiver was written before %s existed; %s",
					w.Source, w.describe(), count(fresh, "finding"), base, map[bool]string{true: "it", false: "they"}[fresh == 1], newRunEffect(fresh)))
			}
			if matched > refused {
				s.count(wi, matched-refused)
			}
		default:
			s.count(wi, matched)
		}
	}
	return append(out, extra...)
}

func (s *Set) count(i, matched int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.use == nil {
		s.use = map[int]*usage{}
	}
	u := s.use[i]
	if u == nil {
		u = &usage{}
		s.use[i] = u
	}
	u.runs++
	u.matched += matched
}

// Unused returns one warning per live waiver that covered at least one of
// the runs Apply saw and matched no finding in any of them: the problem was
// fixed, or the waiver is mistyped.
func (s *Set) Unused() []finding.Finding {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []finding.Finding
	for i, w := range s.Waivers {
		u := s.use[i]
		if u == nil || u.matched > 0 {
			continue
		}
		out = append(out, finding.WaiverUnused.New("",
			"%s: waiver of %s matches no finding in the %d run%s it covers", w.Source, w.describe(), u.runs, plural(u.runs)))
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (w Waiver) matches(run string, f finding.Finding) bool {
	if finding.ResultUnknown[f.Rule] {
		return false
	}
	if w.Task != "" && f.TaskID != w.Task {
		return false
	}
	if ok, _ := path.Match(w.Rule, f.Rule); !ok {
		return false
	}
	name := run
	if f.File != "" {
		// A finding about one place is never waived by a waiver
		// written for another.
		if !finding.InRun(f.File) {
			return false
		}
		name = run + "/" + f.File
		if run == "." {
			name = f.File
		}
	}
	return matchPath(w.Path, name)
}

func (w Waiver) describe() string {
	s := fmt.Sprintf("%q on %q", w.Rule, w.Path)
	if w.Task != "" {
		s += fmt.Sprintf(" for task %q", w.Task)
	}
	return s
}

// relative gives dir relative to base with forward slashes, and false when
// dir is not inside base (a waiver can only be about what lies below the
// configuration file).
func relative(base, dir string) (string, bool) {
	rel, err := filepath.Rel(base, dir)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func newRunEffect(matched int) string {
	if matched == 1 {
		return "it counts"
	}
	return "they count"
}

func expiredEffect(matched int) string {
	switch matched {
	case 0:
		return "it matches no finding in this run"
	case 1:
		return "the 1 finding it matches counts again"
	}
	return fmt.Sprintf("the %d findings it matches count again", matched)
}
