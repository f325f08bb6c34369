package audit

// Stage statuses: where a run's own documents say one of its stages
// stands. The job summary's gate matrix shows them.
const (
	StagePassed     = "passed"
	StageFailed     = "failed"
	StagePending    = "pending"
	StageNeedsHuman = "needs-human"
)

// Stage is one step of a run's own process, as its layout names them:
// the gates G0–G3 of an h3a run (state.json gates), each round of a
// contract run (its verdict), each gate of a gate-state pipeline (its
// output's status), the phases of a hybrid-os run (state.json ph and st),
// the stages of a stigmergy project (project_status).
type Stage struct {
	Name   string `json:"name"`
	Status string `json:"status"` // one of the Stage* constants
}

// Event is one gate event of a run's ledger (GATES_LEDGER.md), in ledger
// order, as written there.
type Event struct {
	Time   string `json:"time"`
	Stage  string `json:"stage"`
	Status string `json:"status"`
	Agent  string `json:"agent,omitempty"`
}

// EvidenceCount is how many of a run's logged artifacts exist with the
// hash logged for them.
type EvidenceCount struct {
	Verified int `json:"verified"`
	Logged   int `json:"logged"`
}
