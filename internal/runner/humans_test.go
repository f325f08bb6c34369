package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

const humanEvent = "[2025-09-29T16:00:00Z] G2_validation - REVIEWED - human - Human review: proceed"

// addLedgerLine puts line after the last event of the example run's
// gates ledger.
func addLedgerLine(t *testing.T, run, line string) {
	t.Helper()
	p := filepath.Join(run, "state", "GATES_LEDGER.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	last := "[2025-09-29T15:00:00Z] G2_validation - PASSED - validator - All checks passed, mutation score 91.3%\n"
	if !strings.Contains(string(b), last) {
		t.Fatal("the example's last event moved")
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), last, last+line+"\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// eventProvenances checks runs/<example> of dir and returns, by agent and
// status, the provenance of each gates ledger event in the policy input.
func eventProvenances(t *testing.T, dir string, humans *Humans, base string) map[string]string {
	t.Helper()
	res, err := Check(context.Background(), Options{
		Scope:  Scope{Paths: []string{filepath.Join(dir, "runs", exampleID)}, Base: base, Getenv: noEnv},
		Rules:  Rules{Humans: humans},
		Output: Output{KeepInputs: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	docs := res.Inputs[0]["docs"].(map[string]any)
	out := map[string]string{}
	for _, e := range docs["gates_ledger"].(map[string]any)["events"].([]any) {
		ev := e.(map[string]any)
		p, _ := ev["provenance"].(string)
		out[ev["agent"].(string)+" "+ev["status"].(string)] = p
	}
	return out
}

// TestEventProvenance: each gates ledger event is the base's, or, added
// since, signed, local or claimed, by where it came from.
func TestEventProvenance(t *testing.T) {
	g := gittest.Init(t)
	copyExample(t, filepath.Join(g.Dir, "runs", exampleID))
	base := g.Commit("the run")
	run := filepath.Join(g.Dir, "runs", exampleID)
	addLedgerLine(t, run, humanEvent)
	g.Commit("a human's decision, unsigned")

	verified := []string{}
	signedBy := map[string]gitrev.Signature{}
	fake := func(h *Humans) *Humans {
		h.verify = func(_ *gitrev.Repo, commit string, allowed []byte) (gitrev.Signature, error) {
			verified = append(verified, commit)
			return signedBy[commit], nil
		}
		return h
	}
	head := g.Git("rev-parse", "HEAD")

	for _, tc := range []struct {
		name   string
		humans *Humans
		sig    gitrev.Signature
		want   string
	}{
		{"no keys configured", fake(&Humans{}), gitrev.Signature{}, provenanceClaimed},
		{"nil humans", nil, gitrev.Signature{}, provenanceClaimed},
		{"unsigned", fake(&Humans{AllowedSigners: []byte("x")}), gitrev.Signature{Status: "N"}, provenanceClaimed},
		{"ssh key allowed", fake(&Humans{AllowedSigners: []byte("x")}), gitrev.Signature{Status: "G", Fingerprint: "SHA256:abc"}, provenanceSigned},
		{"ssh key not allowed", fake(&Humans{AllowedSigners: []byte("x")}), gitrev.Signature{Status: "U", Fingerprint: "SHA256:abc"}, provenanceClaimed},
		{"gpg key listed", fake(&Humans{GPGFingerprints: []string{"ABCDEF"}}), gitrev.Signature{Status: "U", Fingerprint: "abcdef"}, provenanceSigned},
		{"gpg subkey of a listed key", fake(&Humans{GPGFingerprints: []string{"ABCDEF"}}), gitrev.Signature{Status: "G", Fingerprint: "0123", Primary: "ABCDEF"}, provenanceSigned},
		{"gpg key trusted but not listed", fake(&Humans{GPGFingerprints: []string{"ABCDEF"}}), gitrev.Signature{Status: "G", Fingerprint: "012345"}, provenanceClaimed},
		{"gpg bad signature", fake(&Humans{GPGFingerprints: []string{"ABCDEF"}}), gitrev.Signature{Status: "B", Fingerprint: "ABCDEF"}, provenanceClaimed},
		{"local", &Humans{Local: true}, gitrev.Signature{}, provenanceLocal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			signedBy[head] = tc.sig
			got := eventProvenances(t, g.Dir, tc.humans, base)
			if got["human REVIEWED"] != tc.want {
				t.Errorf("human event: %q, want %q (%v)", got["human REVIEWED"], tc.want, got)
			}
			if got["planner STARTED"] != provenanceBase {
				t.Errorf("an event the base holds: %q, want base", got["planner STARTED"])
			}
		})
	}

	// A line edited since the last commit was signed by nobody.
	t.Run("uncommitted", func(t *testing.T) {
		signedBy[head] = gitrev.Signature{Status: "G", Fingerprint: "SHA256:abc"}
		p := filepath.Join(run, "state", "GATES_LEDGER.md")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "Human review: proceed", "Human review: proceed, edited", 1)), 0o644)
		defer os.WriteFile(p, b, 0o644)
		if got := eventProvenances(t, g.Dir, fake(&Humans{AllowedSigners: []byte("x")}), base); got["human REVIEWED"] != provenanceClaimed {
			t.Errorf("edited line: %q, want claimed", got["human REVIEWED"])
		}
	})
	// No history compared: claimed, unless the working tree is the person's.
	t.Run("no history", func(t *testing.T) {
		if got := eventProvenances(t, g.Dir, &Humans{}, "none"); got["human REVIEWED"] != provenanceClaimed || got["planner STARTED"] != provenanceClaimed {
			t.Errorf("--base none: %v", got)
		}
		if got := eventProvenances(t, g.Dir, &Humans{Local: true}, "none"); got["human REVIEWED"] != provenanceLocal {
			t.Errorf("--base none, local: %v", got)
		}
	})
	for _, c := range verified {
		if c != head {
			t.Errorf("verified %s, which added no human event", gitrev.Short(c))
		}
	}

	// An event a later commit inserts above the decision was not before
	// the person who signed it.
	t.Run("an event inserted above by a later commit", func(t *testing.T) {
		signedBy[head] = gitrev.Signature{Status: "G", Fingerprint: "SHA256:abc"}
		p := filepath.Join(run, "state", "GATES_LEDGER.md")
		b, _ := os.ReadFile(p)
		i := strings.Index(string(b), humanEvent)
		inserted := "[2025-09-29T15:30:00Z] G2_validation - ESCALATION - validator - unseen\n"
		os.WriteFile(p, []byte(string(b[:i])+inserted+string(b[i:])), 0o644)
		g.Commit("an event inserted above the decision, unsigned")
		if got := eventProvenances(t, g.Dir, fake(&Humans{AllowedSigners: []byte("x")}), base); got["human REVIEWED"] != provenanceClaimed {
			t.Errorf("decision below an inserted event: %q, want claimed", got["human REVIEWED"])
		}
	})
}

// TestTextMovedIntoTheEventsLogIsNoDecision: a human's line the base holds
// outside the events log, which the change makes an event by editing the
// headings around it, is claimed: git blames the line on the base, but the
// base held no such event.
func TestTextMovedIntoTheEventsLogIsNoDecision(t *testing.T) {
	g := gittest.Init(t)
	run := filepath.Join(g.Dir, "runs", exampleID)
	copyExample(t, run)
	p := filepath.Join(run, "state", "GATES_LEDGER.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	heading := "## Current Gate: G2_validation\n"
	if !strings.Contains(string(b), "---\n\n"+heading) {
		t.Fatal("the example's Current Gate heading moved")
	}
	os.WriteFile(p, []byte(strings.Replace(string(b), heading, heading+humanEvent+"\n", 1)), 0o644)
	base := g.Commit("a human's line outside the events log")
	b, _ = os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "---\n\n"+heading, "", 1)), 0o644)
	g.Commit("the headings go, the line becomes an event")

	humans := &Humans{AllowedSigners: []byte("x"), verify: func(*gitrev.Repo, string, []byte) (gitrev.Signature, error) {
		return gitrev.Signature{Status: "G", Fingerprint: "SHA256:abc"}, nil
	}}
	got := eventProvenances(t, g.Dir, humans, base)
	if got["human REVIEWED"] != provenanceClaimed {
		t.Errorf("human event: %q, want claimed (%v)", got["human REVIEWED"], got)
	}
}
