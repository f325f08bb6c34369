package finding

// The rules of the stigmergy layout (.ai/state.json and the engine's
// .stigmergy/state/current.json), implemented in Go by the layout.
var (
	StigmergyDuplicateTask = Rule{"h3a.traceability.stigmergy_duplicate_task", CategoryTraceability, Error,
		"Duplicate task id",
		"Two tasks of project_manifest.tasks share an id, so dependencies and issues cannot tell them apart.",
		"give each task its own id, as the blueprint does"}
	StigmergyUnknownTask = Rule{"h3a.traceability.stigmergy_unknown_task", CategoryTraceability, Error,
		"Reference to an unknown task",
		"A task's dependencies or an issue_log entry's task_id_ref names a task id that the manifest does not hold.",
		"correct the id, or add the task to the blueprint and the manifest"}
	StigmergyDependencyCycle = Rule{"h3a.gates.stigmergy_dependency_cycle", CategoryGates, Error,
		"Dependency cycle",
		"The task dependencies form a cycle, so none of the tasks on it can ever start.",
		"break the cycle in the blueprint and re-derive the manifest"}
	StigmergyDependencyIncomplete = Rule{"h3a.gates.stigmergy_dependency_incomplete", CategoryGates, Error,
		"Task started before its dependencies",
		"A task IN_PROGRESS or COMPLETED has a dependency that is not COMPLETED.",
		"finish the dependency first, or correct the task's status"}
	StigmergyProjectComplete = Rule{"h3a.gates.stigmergy_project_complete", CategoryGates, Error,
		"Project status disagrees with its tasks",
		"project_status is PROJECT_COMPLETE exactly when every manifest task is COMPLETED.",
		"set project_status from the tasks: PROJECT_COMPLETE only once all of them are COMPLETED"}
	StigmergyMissingDocument = Rule{"h3a.evidence.stigmergy_missing_document", CategoryEvidence, Error,
		"Stage passed without its document",
		"A project_status past a NEEDS_X stage requires that stage's document: docs/brief.md, docs/prd.md, docs/architecture.md, execution-blueprint.yml.",
		"write the missing document, or set project_status back to the stage that produces it"}
	StigmergyBlueprintMismatch = Rule{"h3a.traceability.stigmergy_blueprint_mismatch", CategoryTraceability, Error,
		"Blueprint and manifest disagree",
		"The manifest is derived from execution-blueprint.yml: both must hold the same task ids.",
		"re-derive the manifest from the blueprint, or add the task to the blueprint"}
	StigmergyFailureLimit = Rule{"h3a.retries.stigmergy_failure_limit", CategoryRetries, Error,
		"Failure limit reached without escalation",
		"A task whose failure_count is at or over the limit (2) must be FAILED and have an open issue_log entry (OPEN or IN_PROGRESS) referencing it, for a Responder.",
		"mark the task FAILED and log an issue referencing it"}
	StigmergyTimestamp = Rule{"h3a.schema.stigmergy_timestamp", CategorySchema, Error,
		"Timestamp not ISO 8601",
		"A history or issue_log timestamp is not an ISO 8601 date and time (e.g. 2025-09-01T10:00:00Z).",
		"write the time as YYYY-MM-DDTHH:MM:SS with Z or an offset"}
	StigmergyTimeOrder = Rule{"h3a.schema.stigmergy_time_order", CategorySchema, Warning,
		"History out of time order",
		"A history entry is older than the one before it. Clocks and hand edits make this common, so it is a warning; the order of the ledger is its order in the file.",
		"append entries as they happen; do not insert or re-time old ones"}
	StigmergyDrift = Rule{"h3a.schema.stigmergy_drift", CategorySchema, Warning,
		"State differs from schema 3.0",
		"The state file declares another schema_version (or none, or is the engine's current.json): it is checked for what it shares with schema 3.0, and the differences are reported as warnings naming the version.",
		"migrate the file to schema 3.0, or ignore the warning if the engine of that version wrote it"}
	StigmergyIssueReopened = Rule{"h3a.append_only.stigmergy_issue_reopened", CategoryAppendOnly, Error,
		"Resolved issue reopened silently",
		"An issue_log entry that was RESOLVED at the base is missing or no longer RESOLVED in head, and no history entry added since names it.",
		"keep the resolved entry; log a new issue for the new failure, or add a history entry saying why it was reopened"}
)

// StigmergyRules lists the stigmergy rules for GoRules.
var StigmergyRules = []Rule{
	StigmergyDuplicateTask, StigmergyUnknownTask, StigmergyDependencyCycle, StigmergyDependencyIncomplete,
	StigmergyProjectComplete, StigmergyMissingDocument, StigmergyBlueprintMismatch, StigmergyFailureLimit,
	StigmergyTimestamp, StigmergyTimeOrder, StigmergyDrift, StigmergyIssueReopened,
}
