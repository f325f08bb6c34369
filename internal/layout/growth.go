package layout

import "github.com/h3a-check/h3a-check/internal/finding"

// AppendOnly is one append-only file of a layout (or a family of them: a
// pattern of the layout's Files) and how it may change since the base
// revision. A layout lists them in the order they are compared: a rule
// may read what an earlier file gained (IterationCount reads the gates
// ledger).
type AppendOnly struct {
	Path string
	Grows
}

// Grows is one way a file may change since the base revision. The history
// stage implements each (internal/history); a layout only names them.
type Grows interface{ grows() }

// ArrayPrefix: the JSON array at Pointer at the base is a prefix of the
// head's, element by element. With Corrections, an appended entry with
// "corrects" must name the task_id of an earlier entry.
type ArrayPrefix struct {
	Pointer     string
	Corrections bool
}

// VersionsRise: each integer member of Keys at the top of a JSON file
// never goes down; a lower value is a finding of this severity.
type VersionsRise struct {
	Severity finding.Severity
	Keys     []string
}

// RecordsPrefix: the records of a JSON Lines file at the base are a prefix
// of the head's.
type RecordsPrefix struct{}

// Frozen: a JSON file never changes once committed; Why ends the finding.
// With WhenStatus, only once the base version's top-level "status" is one
// of these (a gate output is frozen once it is done).
type Frozen struct {
	Why        string
	WhenStatus []string
}

// GateEvents: the events log of a GATES_LEDGER.md at the base is a prefix
// of the head's.
type GateEvents struct{}

// EvidenceEntries: every entry of an EVIDENCE_LOG.md at the base is still
// there, unchanged and in order, and every artifact it logs hashes the
// same in head.
type EvidenceEntries struct{}

// RoadmapTasks: no ROADMAP.md task of the base is removed, reworded or
// unticked, and completion times never change.
type RoadmapTasks struct{}

// IterationCount: a task's iteration_count goes down only when the gates
// ledger at Ledger gained an event by agent "human" (list the ledger
// before this file).
type IterationCount struct{ Ledger string }

// RetriesKept: no task's retry count, in a Hybrid_AI_OS state.json rt or
// plan file's tasks, is lower than at the base, and no plan drops a task
// whose count was above 0.
type RetriesKept struct{}

// ResolvedIssuesStay: an issue_log entry RESOLVED at the base stays so,
// unless a history entry added since names it.
type ResolvedIssuesStay struct{}

// OpenIssuesStay: an issue_log issue not RESOLVED at the base keeps its
// entries in head, and is RESOLVED there only if a history entry added
// since names it.
type OpenIssuesStay struct{}

// ManifestTasksStay: every task of a stigmergy ledger's project_manifest
// at the base is in head's, or a person confirms it was dropped.
type ManifestTasksStay struct{}

// HaltStays: a stigmergy ledger whose project_status is EXECUTION_HALTED
// at the base is halted in head too, or a person confirms it goes on.
type HaltStays struct{}

// FailedStays: a file whose top-level "status" is FAILED at the base is
// FAILED in head too, or a person confirms the change; What names the file
// in the finding ("pipeline", "gate output").
type FailedStays struct{ What string }

// NeedsHumanStays: the top-level Member of a JSON file that is
// "needs-human" at the base is so in head too, or a person confirms the
// change.
type NeedsHumanStays struct{ Member string }

// SchemaKept: a file whose schema is chosen by a version member of its own
// (File.Versioned) is held in head to the schema its base version is held
// to: the version is what the file says of itself, so rewriting it must not
// release a file with history from its schema.
type SchemaKept struct{}

func (ArrayPrefix) grows()        {}
func (VersionsRise) grows()       {}
func (RecordsPrefix) grows()      {}
func (Frozen) grows()             {}
func (GateEvents) grows()         {}
func (EvidenceEntries) grows()    {}
func (RoadmapTasks) grows()       {}
func (IterationCount) grows()     {}
func (ResolvedIssuesStay) grows() {}
func (RetriesKept) grows()        {}
func (SchemaKept) grows()         {}
func (HaltStays) grows()          {}
func (OpenIssuesStay) grows()     {}
func (ManifestTasksStay) grows()  {}
func (FailedStays) grows()        {}
func (NeedsHumanStays) grows()    {}
