package finding

// The rules of the hybrid-os layout (Hybrid_AI_OS v1.4 and its vX.2
// generation), implemented in Go by the layout's consistency scan.
var (
	HybridOrphan = Rule{"h3a.integrity.hybrid_orphan", CategoryIntegrity, Error,
		"Summary and files disagree",
		"A plan_summary.json or registry_summary.json entry points at a file that does not exist, or a plan or artifact file is not in its summary (an orphan), or an artifact's loc names a missing file.",
		"re-run the consistency scan's repair: add the missing summary entry or remove the entry whose file is gone, in the same write as the file"}
	HybridDuplicateID = Rule{"h3a.integrity.hybrid_duplicate_id", CategoryIntegrity, Error,
		"Duplicate id",
		"Two plan files, or two artifact records, carry the same id, so the summary can point at only one of them.",
		"give one of them a new id and register it under that id"}
	HybridVersionDrift = Rule{"h3a.integrity.hybrid_version_drift", CategoryIntegrity, Error,
		"File version differs from its summary",
		"A plan or artifact file's v is not the version its summary recorded at the last write: a write finished on one side only (the spec's BLK_SUM/BLK_PSUM case) and was never reconciled.",
		"re-read the file and write the summary entry with the file's current v, then clear the blocked state"}
	HybridLogCounter = Rule{"h3a.integrity.hybrid_log_counter", CategoryIntegrity, Error,
		"Event counter out of step with the log",
		"Log ids must strictly increase across all units, and state.json g must equal the id of the last log entry (the startup sequence syncs g from it).",
		"find the lost or duplicated log entry; set g from the last log entry"}
	HybridLogRollover = Rule{"h3a.integrity.hybrid_log_rollover", CategoryIntegrity, Error,
		"Log rollover inconsistent",
		"state.json ln must equal the number of entries in the newest log unit and be below max, and every earlier (full) unit must hold exactly max entries.",
		"find the unit that lost or gained lines; restore it from version control and set ln to the newest unit's line count"}
	HybridPhaseTransition = Rule{"h3a.gates.hybrid_phase_transition", CategoryGates, Error,
		"Illegal phase transition",
		"The phases logged in order must follow A → B → C → V → (C|I), and I → A for a new goal; any other change skips a phase (for example construct without a blueprint, or idle without validation).",
		"run the skipped phase, or find the log entry written with the wrong ph"}
	HybridRetryLimit = Rule{"h3a.retries.hybrid_retry_limit", CategoryRetries, Error,
		"Retry limit exceeded without blocking",
		"A task's retry count in state.json rt is above the limit (the plan's max_rt, else 3) but st is not BLK_MAX.",
		"set st to BLK_MAX and hand the task to a person; do not retry further"}
	HybridErrorUnlogged = Rule{"h3a.evidence.hybrid_error_unlogged", CategoryEvidence, Error,
		"Error state without a logged error",
		"st = ERROR is set by a logging call with level E, so the log must hold an E entry.",
		"log the error that caused the state, or clear the state if there was none"}
	HybridUnknownPlan = Rule{"h3a.traceability.hybrid_unknown_plan", CategoryTraceability, Error,
		"Current plan or task unknown",
		"state.json cp must name a plan of plan_summary.json and ct a task of that plan.",
		"point cp and ct at the plan and task being worked on, or set them to null"}
	HybridAnnotationMissing = Rule{"h3a.evidence.hybrid_annotation_missing", CategoryEvidence, Error,
		"Artifact lacks its annotations",
		"A code, config or doc artifact registered with a loc inside the repository must embed a purpose statement (\"Purpose:\") and a \"Depends on: [ids]\" list; the Validator rejects artifacts without them.",
		"add the purpose statement and the Depends on list to the file and re-validate the task"}
	HybridUnknownReference = Rule{"h3a.traceability.hybrid_unknown_reference", CategoryTraceability, Error,
		"Reference to an unknown artifact or issue",
		"A Depends on list or dep[] names an artifact id that is not registered, or an Issue: tag or ki[] names an issue that known_issues.json does not hold.",
		"register the artifact or issue, or correct the id"}
	HybridResolvedIssueLinked = Rule{"h3a.traceability.hybrid_resolved_issue_linked", CategoryTraceability, Error,
		"Resolved issue still linked",
		"RESOLVE unlinks an issue from its artifacts; an artifact whose ki[] still names an issue that is RES was not updated.",
		"remove the issue id from the artifact's ki[] in the same write that resolved it"}
	HybridDrift = Rule{"h3a.schema.hybrid_drift", CategorySchema, Warning,
		"Drift from the Hybrid_AI_OS vocabulary",
		"A vX.2 control file uses a value or shape the specification does not define (an unknown st or ph, a missing ph, rt that is not an object, a reference in a form the files do not use). It changes what a reader can rely on, so it is reported, but it is not a broken gate.",
		"use the specification's vocabulary: ph A|B|C|V|I (or ANALYZE, BLUEPRINT, CONSTRUCT, VALIDATE, IDLE), st READY|BUSY|BLK_CON|BLK_SUM|BLK_PSUM|BLK_MAX|ERROR, rt an object of counts"}
	HybridVersionDecreased = Rule{"h3a.append_only.hybrid_version_decreased", CategoryAppendOnly, Error,
		"Version went down since the base",
		"Under the optimistic lock every write raises v, and g only grows; a lower v or g than at the base means a write was lost or a file was overwritten with an older copy.",
		"restore the newer file from the base revision (git show BASE:PATH shows it) and replay the later change on top of it"}
	HybridLogShrunk = Rule{"h3a.append_only.hybrid_log_shrunk", CategoryAppendOnly, Error,
		"Log unit rewritten",
		"A log unit that existed at the base no longer starts with its base lines: log entries were changed or removed. Log units only grow.",
		"restore the unit from the base revision (git checkout BASE -- PATH); append new entries instead"}
)

// HybridRules lists the hybrid-os rules for GoRules.
var HybridRules = []Rule{
	HybridOrphan, HybridDuplicateID, HybridVersionDrift, HybridLogCounter, HybridLogRollover,
	HybridPhaseTransition, HybridRetryLimit, HybridErrorUnlogged, HybridUnknownPlan,
	HybridAnnotationMissing, HybridUnknownReference, HybridResolvedIssueLinked, HybridDrift,
	HybridVersionDecreased, HybridLogShrunk,
}
