package finding

import "fmt"

// Rule describes one check: its id, where it reports, how bad it is by
// default and what to do about it. Policy rules carry the same facts in
// their # METADATA blocks; the rules below are implemented in Go.
type Rule struct {
	ID          string
	Category    Category
	Severity    Severity
	Title       string
	Description string
	Remediation string
}

// New makes a finding of this rule about file; position and pointer are
// filled in by the caller, which knows them.
func (r Rule) New(file, format string, args ...any) Finding {
	return Finding{
		Rule:        r.ID,
		Category:    r.Category,
		Severity:    r.Severity,
		File:        file,
		Details:     fmt.Sprintf(format, args...),
		Remediation: r.Remediation,
	}
}

// The rules implemented in Go, one variable each so call sites name them.
var (
	MissingFile = Rule{
		ID:          "h3a.structure.missing_file",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Required file missing",
		Description: "Every file the layout requires must exist in the run directory.",
		Remediation: "restore the file from the agent that owns it, or re-initialise the run; never hand-write state",
	}
	NotRegular = Rule{
		ID:          "h3a.structure.not_regular_file",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Not a regular file",
		Description: "A state file or artifact is a directory, FIFO, socket or device. It is never opened, so a FIFO cannot stall the check.",
		Remediation: "replace it with a regular file",
	}
	SymlinkLoop = Rule{
		ID:          "h3a.structure.symlink_loop",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Symbolic link loop",
		Description: "Resolving the path runs into a cycle of symbolic links.",
		Remediation: "replace the links with the real file",
	}
	TooLarge = Rule{
		ID:          "h3a.structure.too_large",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Document over the size limit",
		Description: "A document is larger than the configured limit (--max-json-size), or would expand in memory past what the checker allows a run (three times the size of its documents plus 32 MiB: a value takes about 400 bytes once checked, a ledger line 4 KiB, and YAML aliases count every value they repeat); it is not parsed.",
		Remediation: "split or archive the document, or raise --max-json-size if the size is expected; keep YAML free of aliases that repeat one another",
	}
	Unreadable = Rule{
		ID:          "h3a.structure.unreadable",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "File cannot be read",
		Description: "The operating system refused to read the file.",
		Remediation: "check permissions and that the file is not being written",
	}
	TmpLeftover = Rule{
		ID:          "h3a.structure.tmp_leftover",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Interrupted atomic write",
		Description: "A *.tmp file is left in the run: an atomic write (temp file + rename) was interrupted, so the file beside it may be stale. h3a-state-specification.md, Error Handling, Corrupted JSON: \"Check for .tmp file (interrupted write)\", then \"raise RuntimeError\".",
		Remediation: "find out which write was interrupted, re-run that step, then delete the .tmp file",
	}
	CheckerTmpLeftover = Rule{
		ID:          "h3a.structure.checker_tmp_leftover",
		Category:    CategoryStructure,
		Severity:    Warning,
		Title:       "Leftover of an interrupted h3a-check write",
		Description: "A .<file>.h3a-check-<random>.tmp file is left in the run: h3a-check itself was stopped while it wrote <file> (--write-audit), before renaming it into place. The file it was writing is as it was before; no agent's write was interrupted.",
		Remediation: "delete the .tmp file (the next h3a-check --write-audit removes it too)",
	}
	RunDirName = Rule{
		ID:          "h3a.structure.run_dir_name",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Run directory misnamed",
		Description: "A run under a runs/ folder must be named YYYYMMDD-HHMMSS-<uuid4> with a real UTC date and time and a version-4 UUID. h3a-state-specification.md, Run Identifier Format: \"<YYYYMMDD>-<HHMMSS>-<uuid4>\".",
		Remediation: "rename the directory to the run id recorded in state.json",
	}
	RunDirNameLoose = Rule{
		ID:          "h3a.structure.run_dir_name_loose",
		Category:    CategoryStructure,
		Severity:    Warning,
		Title:       "Run directory not named by its run id",
		Description: "A run outside a runs/ folder whose directory name is not a run id; the name cannot be checked against state.json.",
		Remediation: "keep runs under runs/<run-id>/ so their names can be verified",
	}
	NestedRun = Rule{
		ID:          "h3a.structure.nested_run",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Run holds another run",
		Description: "A run directory holds another run below it. Each run is checked on its own, but a run inside another blurs which files belong to which run, and a folder made to look like a run must never hide the runs below it.",
		Remediation: "move the inner run out to a folder of runs (runs/<run-id>/); if the outer folder is not a run, remove the file that makes it look like one",
	}
	Symlink = Rule{
		ID:          "h3a.structure.symlink",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Symbolic link in place of a run's folder or file",
		Description: "A run's folder, one of the files its layout defines, or a folder on the way to one (a contract round rounds/round-<n>/, state/) is a symbolic link. The run is then not what its folder holds: the linked content is not checked as part of it, and its history in git is the link, not the content. h3a-state-specification.md, Directory Structure: \"Every H3A run creates an immutable, self-contained directory\"; artifact-contract.md names each round's handoff.json, verdict.json and audit.json as files of the run.",
		Remediation: "replace the link with the real folder or file (git mv the content into place), or remove it if it is a shortcut for people",
	}
	LayoutAmbiguous = Rule{
		ID:          "h3a.structure.layout_ambiguous",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Folder holds the defining files of two layouts",
		Description: "One folder holds what makes it a run of two layouts (an h3a run's state.json and state/ together with a contract run's rounds/round-<n>/, say). It is checked as the first layout only, so the files of the other would pass unchecked.",
		Remediation: "move one run into a folder of its own; if the folder is one run, remove the files that make it look like the other, or force its layout with --layout (or layout: in .h3a-check.yaml)",
	}
	NameCase = Rule{
		ID:          "h3a.structure.name_case",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Run found only by names in another case",
		Description: "A folder is a run of its layout only when the case of some names is ignored, or when names are read as they show: State/ for state/, .AI/state.json for .ai/state.json, ROUNDS/ROUND-1/ for rounds/round-1/, state.json with a space after it (which GitHub lists as nothing and Windows drops, as it drops a dot there), a state folder with a zero-width space in its name, a CURRENT_TASK.json written with a Cyrillic С. A reviewer reads the variant as the layout's file (beside it, a second copy of it). Likewise a file that shows as an artifact the evidence log names but is another (a second artifacts/executor/test_output_green.txt, a space after its name): the hash verified is the logged file's, while a reader may open the other. The check reads a run by the names its layout writes, so what the variants hold (gate claims, ledgers, the evidence log and the hashes it names) is not checked; on a file system that ignores case (macOS, Windows) the same folder is the run the layout names. Each layout's specification names its files exactly: h3a-state-specification.md, Directory Structure; hybrid-ai-os-v1.4.md; stigmergy-state-schema.md; gate-state-management.md; artifact-contract.md.",
		Remediation: "rename each variant to the name the layout writes (git mv State state.tmp && git mv state.tmp state, which works on a file system that ignores case too)",
	}
	SubmoduleNotChecked = Rule{
		ID:          "h3a.structure.submodule_not_checked",
		Category:    CategoryStructure,
		Severity:    Warning,
		Title:       "Runs in a submodule not checked",
		Description: "The change adds, moves or removes a submodule whose commit is not checked out here (or whose previous commit the clone lacks), so the runs inside it were not checked with the change. Runs are checked in the repository that records them; the specification says nothing of submodules, so this is a warning.",
		Remediation: "check out the submodule at the new commit (git submodule update --init -- PATH) and check again, or check the runs in the submodule's own repository",
	}
	MalformedRecord = Rule{
		ID:          "h3a.structure.malformed_record",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Malformed ledger record",
		Description: "A line in ROADMAP.md, GATES_LEDGER.md or EVIDENCE_LOG.md looks like a record but does not follow the record format, so the checker cannot use it.",
		Remediation: "rewrite the line in the format the spec gives for that ledger",
	}
	NotEvaluated = Rule{
		ID:          "h3a.structure.not_evaluated",
		Category:    CategoryStructure,
		Severity:    Info,
		Title:       "Check not evaluated",
		Description: "A check could not run because a document it needs is missing or unparseable; it is reported here instead of being guessed.",
		Remediation: "fix the finding that made the document unusable",
	}

	JSONSyntax = Rule{
		ID:          "h3a.schema.json_syntax",
		Category:    CategorySchema,
		Severity:    Error,
		Title:       "Invalid JSON",
		Description: "The document is not valid JSON (syntax error, truncation, trailing data or excessive nesting).",
		Remediation: "restore the file from its last good version and re-run the step that writes it; writes must be atomic (temp file + rename)",
	}
	YAMLSyntax = Rule{
		ID:          "h3a.schema.yaml_syntax",
		Category:    CategorySchema,
		Severity:    Error,
		Title:       "Invalid YAML",
		Description: "The document is not valid YAML (syntax error, a key that is not a scalar, excessive nesting, or aliases expanding past the bound).",
		Remediation: "restore the file from its last good version; keep it a plain mapping or sequence with scalar keys",
	}
	DuplicateKey = Rule{
		ID:          "h3a.schema.duplicate_key",
		Category:    CategorySchema,
		Severity:    Error,
		Title:       "Duplicate JSON key",
		Description: "An object has the same key twice, or two keys that show alike (they differ only by characters that show as nothing, such as a zero-width space or a variation selector, or by characters drawn like ASCII ones, such as a Cyrillic, Greek, Armenian or Cherokee letter, a fullwidth form, a letterlike symbol, a Roman numeral or a dash); most readers silently keep the last value, and a person takes the later of two alike keys for the one that holds, so two tools, or a tool and a person, can read different data.",
		Remediation: "remove one of the two members",
	}
	BOM = Rule{
		ID:          "h3a.schema.bom",
		Category:    CategorySchema,
		Severity:    Warning,
		Title:       "UTF-8 byte order mark",
		Description: "The JSON document starts with a UTF-8 BOM, which RFC 8259 forbids; it is accepted but some readers fail on it.",
		Remediation: "save the file as UTF-8 without a BOM",
	}
	InvalidUTF8 = Rule{
		ID:          "h3a.schema.invalid_utf8",
		Category:    CategorySchema,
		Severity:    Error,
		Title:       "Invalid UTF-8",
		Description: "The document contains bytes that are not valid UTF-8; readers replace them, so the text is not what was written.",
		Remediation: "re-encode the file as UTF-8",
	}
	NumberRange = Rule{
		ID:          "h3a.schema.number_range",
		Category:    CategorySchema,
		Severity:    Error,
		Title:       "Whole number beyond 64 bits",
		Description: "The document holds a whole number that no 64-bit integer holds (99999999999999999999, 1e19, 1e400): readers disagree on its value, and the checker reads counts, ids and versions as 64-bit integers, so no rule reads it as one.",
		Remediation: "write the number within -9223372036854775808 to 9223372036854775807",
	}
	SchemaViolation = Rule{
		ID:          "h3a.schema.violation",
		Category:    CategorySchema,
		Severity:    Error,
		Title:       "Schema violation",
		Description: "A JSON document does not match its schema (required fields, types, enums, formats, patterns).",
		Remediation: "correct the value; h3a-check schema lists the schemas with the document each describes (state: H3A state.json, stigmergy_state: .ai/state.json, …), and h3a-check schema NAME prints the expected shape",
	}

	HashMismatch = Rule{
		ID:          "h3a.integrity.hash_mismatch",
		Category:    CategoryIntegrity,
		Severity:    Error,
		Title:       "Artifact hash mismatch",
		Description: "The SHA-256 of a logged artifact does not start with the hash in its last EVIDENCE_LOG.md entry: the artifact changed after it was logged. A hash too short to verify (h3a.integrity.hash_unverifiable) is compared all the same: digits, however few, that the digest does not start with are a mismatch. h3a-state-specification.md, Hash Verification: \"Detect artifact tampering or corruption\"; Error Handling, Hash Mismatch: \"raise IntegrityError\".",
		Remediation: "re-run the step and log the new artifact (h3a-check log RUN FILE \"description\" appends its hash); never edit a logged artifact",
	}
	EntryNotSuperseded = Rule{
		ID:          "h3a.integrity.entry_not_superseded",
		Category:    CategoryIntegrity,
		Severity:    Error,
		Title:       "Evidence entry contradicted, not superseded",
		Description: "An EVIDENCE_LOG.md entry logs a hash the artifact does not have, and no later entry of the same path carries a later time: two entries of one time with different hashes, or a later line with an earlier time, leave the log saying the artifact had other content with nothing updating it. An artifact changed and logged again (a later entry with a later time) is allowed; the last entry is the one the file must match (h3a.integrity.hash_mismatch). gate_framework.md, G3 Entry Criteria: \"Hash verification | All artifact hashes in EVIDENCE_LOG match actual files\"; Troubleshooting, Hash Mismatch: \"If file modified: Update hash in EVIDENCE_LOG and note reason\"; h3a-state-specification.md, EVIDENCE_LOG.md update protocol: \"Agents append entries when creating artifacts\", \"Include timestamp\", \"Never delete entries (immutable audit log)\".",
		Remediation: "if the artifact was rewritten on purpose, log it again (h3a-check log RUN FILE \"description\" appends an entry with the current time) and say why in the description; otherwise restore the content the contradicted entry logged; never edit or delete an entry",
	}
	MissingArtifact = Rule{
		ID:          "h3a.integrity.missing_artifact",
		Category:    CategoryIntegrity,
		Severity:    Error,
		Title:       "Logged artifact missing",
		Description: "An EVIDENCE_LOG.md entry names a file that does not exist in the run. gate_framework.md, G3 Entry Criteria: \"All artifacts logged\"; Troubleshooting: \"If artifacts truly missing, revert gate to FAILED and re-run\".",
		Remediation: "restore the artifact (git checkout BASE -- PATH if it was committed), or re-run the step that produces it and log it again (h3a-check log RUN FILE \"description\")",
	}
	HashUnverifiable = Rule{
		ID:          "h3a.integrity.hash_unverifiable",
		Category:    CategoryIntegrity,
		Severity:    Warning,
		Title:       "Logged hash too short to verify",
		Description: "The logged hash has fewer than 16 hex digits (with or without a trailing \"...\"), or more than a SHA-256 digest's 64; the entry is not counted as verified. Digits too few to verify can still be wrong: the file is hashed all the same, and digits its digest does not start with are a mismatch (h3a.integrity.hash_mismatch, or h3a.integrity.entry_not_superseded for an earlier entry). h3a-state-specification.md, EVIDENCE_LOG.md update protocol: \"Hash format: First 16 chars of SHA-256 hex digest\".",
		Remediation: "log the artifact again with h3a-check log RUN FILE \"description\" (16 hex digits of its SHA-256; --full writes all 64): the new entry is the one verified, and this one stays as history, since entries are never edited",
	}
	HashEllipsis = Rule{
		ID:          "h3a.integrity.hash_ellipsis",
		Category:    CategoryIntegrity,
		Severity:    Warning,
		Title:       "Logged hash ends with an ellipsis",
		Description: "The logged hash carries the 16 (or more) hex digits the spec asks for, followed by \"...\" or \"…\". The digits are verified as usual; the ellipsis is drift from the spec's form [hash:<16 hex>]. h3a-state-specification.md, EVIDENCE_LOG.md update protocol: \"Hash format: First 16 chars of SHA-256 hex digest\".",
		Remediation: "from now on log with h3a-check log RUN FILE \"description\", which writes [hash:<16 hex digits>] without an ellipsis; this entry stays as history, since entries are never edited",
	}
	HashTooShort = Rule{
		ID:          "h3a.integrity.hash_too_short",
		Category:    CategoryIntegrity,
		Severity:    Error,
		Title:       "Evidence hash shorter than the team requires",
		Description: "The last logged hash of an artifact has fewer hex digits than evidence: min-hash-digits in .h3a-check.yaml requires. The spec's 16 digits are 64 bits: one collision costs about 2^32 hashes, which a team may judge too cheap. h3a-state-specification.md, EVIDENCE_LOG.md: \"Authoritative index of all artifacts with SHA-256 hashes for integrity verification\"; \"Hash format: First 16 chars of SHA-256 hex digest\" is the least the checker accepts by default.",
		Remediation: "log the artifact again with h3a-check log --full RUN FILE \"description\" (all 64 digits): the last entry of a path is the one that counts",
	}
	HashMalformed = Rule{
		ID:          "h3a.integrity.hash_malformed",
		Category:    CategoryIntegrity,
		Severity:    Error,
		Title:       "Logged hash malformed",
		Description: "The hash field of an EVIDENCE_LOG.md entry is empty or not hexadecimal. h3a-state-specification.md, EVIDENCE_LOG.md update protocol: \"Hash format: First 16 chars of SHA-256 hex digest\".",
		Remediation: "log the artifact again with h3a-check log RUN FILE \"description\" (--full for all 64 digits): the new entry is the one verified, and this one stays as history, since entries are never edited",
	}

	PathEscape = Rule{
		ID:          "h3a.security.path_escape",
		Category:    CategorySecurity,
		Severity:    Error,
		Title:       "Path leaves the run directory",
		Description: "A referenced path contains \"..\" or resolves through a symbolic link to a place outside the run directory. It is never opened.",
		Remediation: "keep every artifact inside the run directory and reference it by a relative path without \"..\"",
	}
	AbsolutePath = Rule{
		ID:          "h3a.security.absolute_path",
		Category:    CategorySecurity,
		Severity:    Error,
		Title:       "Absolute path",
		Description: "A referenced path is absolute; runs must be self-contained and relocatable. It is never opened.",
		Remediation: "copy the artifact into the run's artifacts/ folder and reference it relative to the run",
	}

	HistoryNotCompared = Rule{
		ID:          "h3a.append_only.not_compared",
		Category:    CategoryAppendOnly,
		Severity:    Info,
		Title:       "History not compared",
		Description: "The append-only files were not compared with a base revision (--base none, no git work tree, or a repository without a commit), so nothing proves that history was only added to.",
		Remediation: "run the check inside the git work tree that holds the run, with --base REV (default HEAD)",
	}
	NewRun = Rule{
		ID:          "h3a.append_only.new_run",
		Category:    CategoryAppendOnly,
		Severity:    Info,
		Title:       "Run is new since the base",
		Description: "The run does not exist at the base revision, so it has no history to compare.",
		Remediation: "nothing to do; the next change to the run is compared with this version",
	}
	BaseUnreadable = Rule{
		ID:          "h3a.append_only.base_unreadable",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "Base version could not be read, so not compared (needs a human)",
		Description: "An append-only file of the run, or an artifact its base evidence log names, exists at the base revision, but the base's version could not be read or parsed there (not valid JSON, not a regular file, larger than the checker reads), and head's differs from it; or a line of a base ledger is written as a record (a gate event, an evidence entry, a task) but was malformed there, so the records compared leave it out, and head no longer holds it as it was; or a JSON member is written twice at the base (a duplicate key), of which only the later value is compared, and head's version differs. Whether head only added to it cannot be shown: a change that repairs the file and rewrites its history in the same edit would pass unseen, so a person compares the two versions and the gate is needs-human (exit 3). h3a-state-specification.md, Append-Only Pattern: \"Never delete or rewrite history in `state.json` or `GATES_LEDGER.md`\"; EVIDENCE_LOG.md: \"Never delete entries (immutable audit log)\".",
		Remediation: "compare the file with its base version (git show BASE:PATH shows it) and confirm that the change only repaired it and added to it; if so a maintainer approves the change, otherwise restore what it rewrote",
	}
	EntryRewritten = Rule{
		ID:          "h3a.append_only.entry_rewritten",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Append-only entry rewritten",
		Description: "An append-only JSON array (state.json steps[], SESSION_HANDOFF history[], planner reports[], executor tdd_cycles[], validator verdicts[]) no longer starts with its base version: an entry that existed at the base was changed, removed or reordered. New entries may only be appended. h3a-state-specification.md, Append-Only Pattern: \"Never delete or rewrite history in state.json\"; SESSION_HANDOFF.json: \"Agent appends to history[]\"; Directory Structure: \"Every H3A run creates an immutable, self-contained directory\".",
		Remediation: "restore the entries from the base revision (git show BASE:PATH shows them) and append a new entry instead; in state.json amend an entry with a correction step {\"corrects\": \"<task_id>\", \"reason\": …}",
	}
	BadCorrection = Rule{
		ID:          "h3a.append_only.bad_correction",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Correction names no earlier entry",
		Description: "A state.json step with \"corrects\" is the only way to amend history, and it must name the task_id of an earlier step; this one names none. h3a-state-specification.md, state.json update protocol: \"Corrections add a new step with corrects: <task_id>\".",
		Remediation: "set \"corrects\" to the task_id of the step being corrected",
	}
	GateEventRewritten = Rule{
		ID:          "h3a.append_only.gate_event_rewritten",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Gate event rewritten",
		Description: "The gate events log of GATES_LEDGER.md no longer starts with its base events: an event that existed at the base was changed, removed or reordered. Events may only be appended. h3a-state-specification.md, GATES_LEDGER.md update protocol: \"Never delete history\"; Append-Only Pattern: \"Never delete or rewrite history in state.json or GATES_LEDGER.md\".",
		Remediation: "restore the events from the base revision (git show BASE:PATH shows them) and append a new event (e.g. \"FAILED\" then a later \"PASSED\") instead of editing an old one",
	}
	EvidenceEntryRewritten = Rule{
		ID:          "h3a.append_only.evidence_entry_rewritten",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Evidence entry rewritten",
		Description: "An EVIDENCE_LOG.md entry that existed at the base is gone, changed (path, hash, time or description) or out of order. Entries may only be added. h3a-state-specification.md, EVIDENCE_LOG.md update protocol: \"Never delete entries (immutable audit log)\".",
		Remediation: "restore the entry from the base revision (git show BASE:PATH shows it); log a new artifact with a new entry (h3a-check log RUN FILE \"description\")",
	}
	TaskRemoved = Rule{
		ID:          "h3a.append_only.task_removed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Roadmap task removed",
		Description: "A ROADMAP.md task that existed at the base is no longer in the task queue. h3a-state-specification.md, ROADMAP.md update protocol: \"Never delete history, only add completion markers\".",
		Remediation: "restore the task line from the base revision (git show BASE:PATH shows it); tasks are never deleted, only completed",
	}
	TaskReworded = Rule{
		ID:          "h3a.append_only.task_reworded",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Roadmap task reworded",
		Description: "The description of a ROADMAP.md task differs from its base version. h3a-state-specification.md, ROADMAP.md update protocol: \"Never delete history, only add completion markers\".",
		Remediation: "restore the task's wording from the base revision (git show BASE:PATH shows it); add a new task for new scope",
	}
	TaskUnticked = Rule{
		ID:          "h3a.append_only.task_unticked",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Completed task unticked",
		Description: "A ROADMAP.md task marked [x] at the base is [ ] in head: completion marks are never taken back. h3a-state-specification.md, ROADMAP.md update protocol: \"Never delete history, only add completion markers\".",
		Remediation: "restore the [x]; if the work turned out incomplete, add a new task for the rework",
	}
	CompletionChanged = Rule{
		ID:          "h3a.append_only.completion_changed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Task completion time changed",
		Description: "The \"(Completed: <time>)\" of a ROADMAP.md task differs from its base version or was removed. h3a-state-specification.md, ROADMAP.md update protocol: \"Executor marks tasks complete with timestamps\"; \"Never delete history\".",
		Remediation: "restore the completion time from the base revision (git show BASE:PATH shows it)",
	}
	CriterionChanged = Rule{
		ID:          "h3a.append_only.criterion_changed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Success criterion removed, reworded or unticked",
		Description: "A checkbox of the ROADMAP.md \"Success Criteria\" at the base is gone from head, reworded, or [x] at the base and [ ] in head. Text added after a criterion (\"- [x] Coverage ≥ 90%: 94.2%\") is allowed; the criterion's own words are not changed, since deleting or weakening an open criterion (\"Mutation score ≥ 85%\" to \"≥ 60%\") would let a run claim the success it had not reached. h3a-state-specification.md, ROADMAP.md update protocol: \"Never delete history, only add completion markers\".",
		Remediation: "restore the criterion from the base revision (git show BASE:PATH shows it); if the plan changed, a person says so in the change, and a new criterion is added rather than an old one rewritten",
	}
	ArtifactChanged = Rule{
		ID:          "h3a.append_only.artifact_changed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Logged artifact changed since the base",
		Description: "A file logged in the base EVIDENCE_LOG.md has different content in head. A logged artifact never changes, even when its log line is rewritten to match; only line endings may differ.",
		Remediation: "restore the artifact from the base revision (git checkout BASE -- PATH); write new evidence to a new file and log it (h3a-check log RUN FILE \"description\")",
	}
	ArtifactRelogged = Rule{
		ID:          "h3a.append_only.artifact_relogged",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "Logged artifact rewritten and logged again",
		Description: "A file logged in the base EVIDENCE_LOG.md has different content in head, and a new evidence entry logs the new content. Re-running a step may rewrite its output, so this is no error, but a reviewer must see it.",
		Remediation: "say in the change why the step was re-run; where the old output is evidence of its own, write the new output to a new file instead",
	}
	ArtifactLFSPointer = Rule{
		ID:          "h3a.append_only.artifact_lfs_pointer",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Logged artifact replaced by a Git LFS pointer",
		Description: "A file logged in the base EVIDENCE_LOG.md was committed with its content and is now a Git LFS pointer, though .gitattributes at the base does not track the path with LFS: the content it stands for is not in the repository, whatever hash the pointer claims.",
		Remediation: "restore the artifact from the base revision (git checkout BASE -- PATH); to move artifacts to LFS, track them in .gitattributes first, in a change of its own",
	}
	ArtifactDeleted = Rule{
		ID:          "h3a.append_only.artifact_deleted",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Logged artifact deleted since the base",
		Description: "A file logged in the base EVIDENCE_LOG.md exists at the base but not in head.",
		Remediation: "restore the artifact from the base revision (git checkout BASE -- PATH)",
	}
	FileRemoved = Rule{
		ID:          "h3a.append_only.file_removed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "File of the run deleted since the base",
		Description: "A file of the run's layout that is optional, or one of a family such as rounds/round-*/verdict.json, exists at the base revision but not in head. (A required file that is missing is h3a.structure.missing_file.)",
		Remediation: "restore the file from the base revision (git checkout BASE -- PATH); a run's files are never deleted",
	}
	FrozenChanged = Rule{
		ID:          "h3a.append_only.frozen_changed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Committed file changed since the base",
		Description: "A file that never changes once committed differs from its base version: a contract round's handoff.json, verdict.json or audit.json, or the summary.json of a finished contract run.",
		Remediation: "restore the file from the base revision (git checkout BASE -- PATH); a new attempt is a new round",
	}
	IterationCountLowered = Rule{
		ID:          "h3a.append_only.iteration_count_lowered",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Iteration count lowered without a human decision",
		Description: "state/CURRENT_TASK.json iteration_count is lower in head than at the base for the same task_id, and GATES_LEDGER.md gained no event by agent \"human\" since the base, or logs more FAILED events after the last such event than head's count (a reset counts from the decision, and each attempt that failed after it counts again). gate_framework.md, Escalation Process, allows the reset only after human review: \"4. Human reviews and provides guidance [...] 6. Reset `iteration_count = 0` and retry\"; otherwise the count of attempts only grows (Iteration Limits: \"Max 2 iterations per gate before escalation\"). A new task_id starts its own count. Whether that event is a person's decision is judged apart (docs/trust-model.md): one the change under review only claims makes the run needs-human (h3a.security.human_claimed), not this error.",
		Remediation: "restore iteration_count from the base revision (git show BASE:PATH shows it); if a human reviewed the failed attempts and decided on a retry, that person records the decision as a GATES_LEDGER.md event by agent \"human\" in the same change as the reset, in a commit signed with a key the base's humans.allowed-signers lists",
	}
	RunDeleted = Rule{
		ID:          "h3a.append_only.run_deleted",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Run deleted since the base",
		Description: "A run directory that exists at the base revision is gone from the folder that holds runs. Runs are immutable; people archive them, agents never delete them.",
		Remediation: "restore the run (git checkout BASE -- DIR); if a person archived it on purpose, review and land that change on its own",
	}

	LayoutChanged = Rule{
		ID:          "h3a.append_only.layout_changed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Run changed its layout since the base",
		Description: "A run directory that holds a run of one layout at the base revision holds a run of another layout in head (its state/ folder gone and a contract's handoff.json and verdict.json added, say). Deleting every append-only file and adding another layout's files must not turn a run with history into a new one. The run is still compared with its base under the layout it had there: each of those files missing in head is h3a.append_only.file_removed. h3a-state-specification.md, Directory Structure: \"Every H3A run creates an immutable, self-contained directory\"; Append-Only Pattern: \"Never delete or rewrite history in state.json or GATES_LEDGER.md\".",
		Remediation: "restore the run's files from the base revision (git checkout BASE -- DIR) and remove the files that made it look like the other layout; a run of another layout is a new run in a folder of its own",
	}
	RunMoved = Rule{
		ID:          "h3a.append_only.run_moved",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "Run moved since the base (needs a human)",
		Description: "A run that exists at the base revision is gone from its folder and the same run (same run id, its append-only files equal or only grown) is in another searched folder, such as archive/. Only a person archives a run, and the change under review cannot prove who moved it, so the gate is needs-human (exit 3). The run's history is compared with its base at the old place, so a move that also rewrites history fails. A run moved out of every searched folder is h3a.append_only.run_deleted. h3a-state-specification.md, Compliance & Audit, Retention: \"Runs are immutable and never deleted automatically\", \"Human can archive old runs (e.g., `mv runs/old-run-id/ archive/`)\".",
		Remediation: "if a person archived the run on purpose, a maintainer approves the change; otherwise move it back (git mv NEW OLD)",
	}
	RunCopied = Rule{
		ID:          "h3a.append_only.run_copied",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Run copied under the id of a run the base holds",
		Description: "An h3a run new since the base goes by the run id (its folder name, or its state.json run_id, either ignoring case) that names the folder of an h3a run the base holds and head still holds, anywhere in the repository (searched or not; --changed and --staged look it up too). A run id is globally unique, so the new run is a copy, and nothing the change writes shows which of the two the id names: a copy with its history rewritten would pass as the run, while the run itself stays as it was. The run the base holds is compared with the base as before. h3a-state-specification.md, Run Identifier Format: \"Globally unique (UUID collision probability < 10⁻³⁶)\"; Compliance & Audit, Retention: \"Runs are immutable\".",
		Remediation: "delete the copy; a new run gets an id of its own (h3a-check init), and a person who archives a run moves it (git mv) rather than copies it",
	}

	HybridVersionDecreased = Rule{
		ID:          "h3a.append_only.hybrid_version_decreased",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Version went down since the base",
		Description: "Under the optimistic lock every write raises v, and g only grows; a lower v or g than at the base means a write was lost or a file was overwritten with an older copy. hybrid-ai-os-v1.4.md, Optimistic Lock Protocol: \"2. Increment in-memory version. 3. Write; on disk version higher → conflict.\"; state.json: \"g | int | Global monotonic event counter\".",
		Remediation: "restore the newer file from the base revision (git show BASE:PATH shows it) and replay the later change on top of it",
	}
	HybridLogShrunk = Rule{
		ID:          "h3a.append_only.hybrid_log_shrunk",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Log unit rewritten",
		Description: "A log unit that existed at the base no longer starts with its base lines: log entries were changed or removed. Log units only grow. hybrid-ai-os-v1.4.md, Logging: \"Fields: `id` (global event)\", \"Rollover triggered when `ln ≥ max`; new file created, counter reset\" (entries are added to the newest unit, never rewritten); state.json: \"g | int | Global monotonic event counter\".",
		Remediation: "restore the unit from the base revision (git checkout BASE -- PATH); append new entries instead",
	}
	HybridRetriesLowered = Rule{
		ID:          "h3a.append_only.hybrid_retries_lowered",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "Retry count went down since the base (needs a human)",
		Description: "A task's retry count, in state.json rt or in the plan file that lists it, is lower in head than at the base revision, or a plan dropped a task whose count was above 0. The count is what stops a task: exceeding the limit sets st = BLK_MAX, a state that only recovery clears, so a reset count lets a task past its limit look fresh. The spec has no step that lowers a count, and the change cannot show that a person made the recovery, so the gate is needs-human (exit 3). hybrid-ai-os-v1.4.md, Retries: \"Per-task retry counter in `state.rt` and persisted in plan file. Exceeding `MAX` sets `st = BLK_MAX`\"; Error States: \"Recovery requires manual or programmed conflict resolution followed by state clearance\".",
		Remediation: "if a person reset the task's retries on purpose, a maintainer approves the change; otherwise restore the count from the base revision (git show BASE:PATH shows it)",
	}
	StigmergyIssueReopened = Rule{
		ID:          "h3a.append_only.stigmergy_issue_reopened",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Resolved issue reopened silently",
		Description: "An issue_log entry that was RESOLVED at the base is missing or no longer RESOLVED in head, and no history entry added since names it. stigmergy-state-schema.md, Root Object: \"`history` (Array of Objects): The immutable ledger of all system actions\" (reopening an issue is an action the ledger records), \"This file is the sacred ledger of the swarm's activity and the sole source of truth\".",
		Remediation: "keep the resolved entry; log a new issue for the new failure, or add a history entry saying why it was reopened",
	}

	StigmergyIssueClosed = Rule{
		ID:          "h3a.append_only.stigmergy_issue_closed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Open issue resolved or removed silently",
		Description: "An issue_log issue that was not RESOLVED at the base (OPEN, IN_PROGRESS, FAILED_TO_RESOLVE) is RESOLVED in head with no history entry added since that names it, or has lost entries of the issue log. An open issue holds the gate (PROJECT_COMPLETE over one asks for a human), so resolving or dropping it without a word would pass it. stigmergy-state-schema.md, Root Object: \"`issue_log` (Array of Objects): A log of persistent failures requiring a Responder\", \"`history` (Array of Objects): The immutable ledger of all system actions\" (resolving an issue is an action the ledger records).",
		Remediation: "keep the issue's entries; when a Responder resolved it, add a history entry naming the issue id that says so",
	}

	StigmergyTaskDropped = Rule{
		ID:          "h3a.append_only.stigmergy_task_dropped",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "Manifest task dropped since the base (needs a human)",
		Description: "A task of project_manifest at the base revision is not in head's manifest. The manifest is the project's master plan, and PROJECT_COMPLETE means every task of it is COMPLETED, so a task that failed and was taken out of the manifest (and the blueprint) would let the project read as complete. The spec has no step that drops a task, and the change cannot show a person replanned, so the gate is needs-human (exit 3). stigmergy-state-schema.md, Root Object: \"`project_manifest` (Object): The master plan derived from the blueprint\"; project_status: \"`PROJECT_COMPLETE`: All manifest tasks are complete\".",
		Remediation: "if a person replanned the project without the task, a maintainer approves the change; otherwise restore the task from the base revision (git show BASE:PATH shows it)",
	}

	StigmergyHaltLifted = Rule{
		ID:          "h3a.append_only.stigmergy_halt_lifted",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "Halted project resumed since the base (needs a human)",
		Description: "The ledger's project_status is EXECUTION_HALTED at the base revision and another status in head. A halt is a critical error the spec calls unrecoverable, which the gate hands to a person (h3a.gates.stigmergy_halted); the swarm writes the ledger, so the change that lifts the halt cannot show a person decided it, and the gate is needs-human (exit 3). stigmergy-state-schema.md, Root Object, project_status: \"`EXECUTION_HALTED`: A critical, unrecoverable error occurred\".",
		Remediation: "if a person decided that the project goes on, a maintainer approves the change; otherwise set project_status back to EXECUTION_HALTED",
	}

	GateStateFailureLifted = Rule{
		ID:          "h3a.append_only.gate_state_failure_lifted",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "Failed gate or pipeline passed since the base (needs a human)",
		Description: "A gate-state pipeline file or gate output whose status is FAILED at the base revision has another status in head: the failed gate was run again, or the closed pipeline reopened, by the change under review. A FAILED gate stops its pipeline and a FAILED pipeline is closed, which the gate hands to a person (h3a.gates.gate_state_needs_human); the change cannot show that a person decided to go on, so the gate is needs-human (exit 3). gate-state-management.md, Pattern 3: \"Cannot execute GATE ${<GATE_NUMBER>}: Previous gate failed\"; Pattern 5, FINAL: Mark Pipeline Complete: \"pipelineState.status = overallStatus // 'SUCCESS', 'PARTIAL', or 'FAILED'\".",
		Remediation: "if a person decided to run the gate again or reopen the pipeline, a maintainer approves the change; otherwise restore the file from the base revision (git checkout BASE -- PATH)",
	}

	ContractNeedsHumanLifted = Rule{
		ID:          "h3a.append_only.contract_needs_human_lifted",
		Category:    CategoryAppendOnly,
		Severity:    Warning,
		Title:       "A flat contract run's needs-human rewritten since the base (needs a human)",
		Description: "The verdict.json verdict, or audit.json gate, at the top of a contract run without rounds is needs-human at the base revision and something else in head. needs-human hands the run to a person (h3a.gates.contract_needs_human); the change that rewrites it cannot show that a person settled it, so the gate is needs-human (exit 3). A run of rounds goes on in a new round instead, which h3a.security.contract_human_claimed judges. artifact-contract.md, verdict.json Rules: \"`verdict` must be `pass|reject|needs-human`\"; audit.json Rules: \"`gate` must be `pass|fail|needs-human`\"; loop-orchestrator SKILL.md: \"`needs-human` -> final `needs-human`\".",
		Remediation: "if a person settled the question, a maintainer approves the change; otherwise restore the file from the base revision (git checkout BASE -- PATH)",
	}

	SchemaVersionChanged = Rule{
		ID:          "h3a.append_only.schema_version_changed",
		Category:    CategoryAppendOnly,
		Severity:    Error,
		Title:       "Schema version changed since the base",
		Description: "A file whose schema is chosen by a version it declares (a stigmergy .ai/state.json held to schema 3.0 by schema_version \"3.0\") declares at the base a version that holds it to a schema, and in head another version, or none, that does not hold it to that schema. The version is what the file says of itself: rewriting it would release a ledger with history from its schema and turn its errors into warnings. stigmergy-state-schema.md, Root Object: \"`schema_version` (String): The version of this schema\"; \"This file is the sacred ledger of the swarm's activity\".",
		Remediation: "restore the version the file declares at the base (git show BASE:PATH shows it); a ledger of another schema is a new run in a folder of its own",
	}

	RunIDMismatch = Rule{
		ID:          "h3a.traceability.run_id_mismatch",
		Category:    CategoryTraceability,
		Severity:    Error,
		Title:       "Run id does not match its directory",
		Description: "state.json's run_id differs from the name of the run directory. h3a-state-specification.md, Directory Structure: \"runs/<run-id>/\", and state.json \"run_id\".",
		Remediation: "a run directory is named by its run id; find out which one is wrong and never reuse a run directory for another run",
	}

	DuplicateRunID = Rule{
		ID:          "h3a.traceability.duplicate_run_id",
		Category:    CategoryTraceability,
		Severity:    Error,
		Title:       "Run id shared by two runs of the check",
		Description: "Two or more h3a runs of one check have the same run id: state.json's run_id, or the run directory's name when it is a run id (YYYYMMDD-HHMMSS-<uuid4>). Each of them gets this finding, naming the others (runs/<id>/ beside archive/<id>/, or a/runs/<id>/ beside b/runs/<id>/). A run id is globally unique, so at most one of them is the run the id names, and nothing in the files shows which: a copy with its ledgers rewritten would pass beside the run itself. What makes a run id unique is its UUID, so two run ids with the same UUID and another time name one run too. A run whose id cannot be read (no state.json run_id, and a folder name that is no run id) is left out. Only h3a runs are compared: no other layout's spec calls its run ids unique. The rule sees the runs the check reads: with --changed or --staged only the runs those keep (a run copied beside one the base holds is h3a.append_only.run_copied); with --shard, every run of the paths, so that two runs in different shards are still compared. h3a-state-specification.md, Run Identifier Format: \"Globally unique (UUID collision probability < 10⁻³⁶)\".",
		Remediation: "give each run its own id: delete a copy (a person who archives a run moves it with git mv rather than copies it), and start a new run under a new id (h3a-check init)",
	}

	GateStateOutputUnread = Rule{
		ID:          "h3a.structure.gate_state_output_unread",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Gate output file not read as its gate's output",
		Description: "A file in .state/ named like a gate output cannot be read as one gate's output: its name has no gate number after \"gate\", the number is too large to read, or another file already holds the same gate of the same pipeline (gate01 beside gate1). The guide's short names (.state/gate1-output.json) are gate outputs too. Its content is not checked, so it is an error: a FAILED gate hidden this way would let the run pass. gate-state-management.md, File Naming Convention: \"**Format:** `{domain}-{feature}-gate{N}-output.json`\" (one file per gate, N its number); Pattern 1: gate N reads `.state/{domain}-{feature}-gate${previousGate}-output.json`, the one file of that name.",
		Remediation: "keep one output file per gate, named {domain}-{feature}-gate{N}-output.json (or gate{N}-output.json) with N the gate number; delete or rename the other",
	}
	ContractFileMissing = Rule{
		ID:          "h3a.evidence.contract_file_missing",
		Category:    CategoryEvidence,
		Severity:    Warning,
		Title:       "Touched file not in the repository",
		Description: "A path in the last round's handoff.json files_touched does not exist in the repository that holds the run (<repo>/.orchestrator/runs/<run>), and the round's patch.diff does not delete it. Runs elsewhere are not compared with a repository. doer-implement SKILL.md, Output Rules: \"Keep `files_touched` repo-relative.\" A warning: the file may have been renamed or moved by a later change.",
		Remediation: "correct files_touched to the paths the change really touched, or apply the round's patch.diff",
	}

	ContractRoundNumber = Rule{
		ID:          "h3a.structure.contract_round_number",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Round folder without a readable number",
		Description: "A contract run's folder rounds/round-*/ holds a round's documents (handoff.json, verdict.json or audit.json), but its number cannot be read: it is too large (round-99999999999999999999) or no number at all (round-x, round-2b). The rounds' order decides which round is last, and summary.json's final_verdict, judge_verdict and audit_gate, and the gate itself, follow the last round; a round the checker cannot place makes that a guess. The folder is ordered after every numbered round (never before them, where it would hide the true last round) and left out of h3a.structure.contract_round_gap. loop-orchestrator SKILL.md, Quick Start, Inspect run artifacts: \"`rounds/round-*/handoff.json`\", \"`rounds/round-*/verdict.json`\", \"`rounds/round-*/audit.json`\"; Iterate with feedback: \"Feed judge/auditor required changes back to doer on the next round\", \"Cap iterations with `--max-rounds`\", \"Persist `summary.json` with judge and audit outcomes\" (the upstream run_loop.sh numbers rounds from 1).",
		Remediation: "rename the folder to round-<n> with the number the orchestrator gave the round (rounds count 1, 2, 3, ...), or restore the run as the orchestrator left it",
	}

	ContractFlatAndRounds = Rule{
		ID:          "h3a.structure.contract_flat_and_rounds",
		Category:    CategoryStructure,
		Severity:    Error,
		Title:       "Role files at the top of a run that has rounds",
		Description: "A contract run holds handoff.json, verdict.json or audit.json at its top as well as rounds/round-<n>/ folders. Role files at the top are the one-round form of a run with no rounds/ (docs/layouts/contract.md, Files); the orchestrator writes each round into rounds/round-<n>/ and only summary.json at the top. Beside round folders the flat files are a round with no number, so which round they are, and which round is last (the one summary.json's final_verdict, judge_verdict and audit_gate and the gate follow), is a guess. They are checked as a round before the numbered ones. loop-orchestrator SKILL.md, Quick Start, Inspect run artifacts: \"`rounds/round-*/handoff.json`\", \"`rounds/round-*/patch.diff`\", \"`rounds/round-*/verdict.json`\", \"`rounds/round-*/audit.json`\", \"`summary.json`\"; Iterate with feedback: \"Persist `summary.json` with judge and audit outcomes\".",
		Remediation: "move the files at the top into the round folder they belong to (rounds/round-<n>/, with the round's patch.diff), or remove them if they are a copy of a round; a run holds either one flat round or rounds/round-<n>/ folders, never both",
	}
	RulesChanged = Rule{
		ID:          "h3a.security.rules_changed",
		Category:    CategorySecurity,
		Severity:    Warning,
		Title:       "The change edits the rules that judge it",
		Description: "In CI or with --base, the configuration file and repository policy folders are read from the base revision, since the working tree is the change under review. This file differs in the working tree (edited, added, deleted, or replaced by a link or a folder): its version at the base was used, and the change's version applies once the change is merged.",
		Remediation: "review the change to the rules on its own; it applies once merged (a maintainer may check it with --trust-working-tree)",
	}
	WaiverExpired = Rule{
		ID:          "h3a.waiver.expired",
		Category:    CategoryPolicy,
		Severity:    Error,
		Title:       "Waiver expired",
		Description: "A waiver in the configuration file is past its expiry date. It no longer accepts anything: the findings it covered count again.",
		Remediation: "fix what the waiver was covering and delete the waiver, or, if the exception still holds, give it a new expiry date and say why in its reason",
	}
	WaiverNewRun = Rule{
		ID:          "h3a.waiver.new_run",
		Category:    CategoryPolicy,
		Severity:    Info,
		Title:       "Waiver does not cover a new run, a moved run or a new finding",
		Description: "A live waiver in the configuration file covers this run and matches some of its findings, but the run is new since the base revision the history was compared with. A waiver is a person's decision about findings that existed when it was written; this run did not exist then, and the change under review chose its folder name, so it could land under any existing glob. The waiver accepts none of the run's findings: they count as if it were not there. Once the run is at the base (merged), the waiver covers it like any other. The same holds for a run that moved since the base from a folder the waiver did not cover: it accepts only what it matched at the run's folder at the base too. And in a run the base holds, it accepts no finding the run did not have at the base: one on a file the change adds, on a line the base's file does not hold (a record appended or rewritten), on an edited file with no line to compare, on a line the change left alone when the run as the base holds it had no such finding there (an edit elsewhere made it), or of the history comparison (which is about what the change did). When the run could not be checked as the base holds it, a finding of this rule says why, and no waiver accepts a finding on an unchanged line.",
		Remediation: "fix the findings in the new run, or the new findings in the run; or have a person review them and merge the change, after which the waiver covers them (or write a waiver naming them once they exist at the base)",
	}
	WaiverUnused = Rule{
		ID:          "h3a.waiver.unused",
		Category:    CategoryPolicy,
		Severity:    Warning,
		Title:       "Waiver matches nothing",
		Description: "A waiver in the configuration file names this run (its path covers the run) but matches none of its findings: the problem was fixed, or the rule, path or task is mistyped.",
		Remediation: "delete the waiver if the problem is fixed; otherwise correct its rule, path or task",
	}
)

// GoRules lists every rule implemented in Go. The catalogue that `rules`,
// `explain` and each check's report use adds the policy rules to them and
// sorts all by id, so the order here is free: rules are grouped by stage.
var GoRules = []Rule{
	MissingFile, NotRegular, SymlinkLoop, TooLarge, Unreadable, TmpLeftover, CheckerTmpLeftover,
	RunDirName, RunDirNameLoose, NestedRun, Symlink, LayoutAmbiguous, NameCase, SubmoduleNotChecked, MalformedRecord, NotEvaluated,
	JSONSyntax, YAMLSyntax, DuplicateKey, BOM, InvalidUTF8, NumberRange, SchemaViolation,
	HashMismatch, EntryNotSuperseded, MissingArtifact, HashUnverifiable, HashEllipsis, HashMalformed, HashTooShort,
	PathEscape, AbsolutePath,
	RunIDMismatch, DuplicateRunID, ContractFileMissing, ContractRoundNumber, ContractFlatAndRounds, GateStateOutputUnread,
	WaiverExpired, WaiverNewRun, WaiverUnused, RulesChanged,
	HistoryNotCompared, NewRun, BaseUnreadable, EntryRewritten, BadCorrection, GateEventRewritten,
	EvidenceEntryRewritten, TaskRemoved, TaskReworded, TaskUnticked, CompletionChanged, CriterionChanged,
	ArtifactChanged, ArtifactRelogged, ArtifactLFSPointer, ArtifactDeleted, RunDeleted, RunMoved, RunCopied, LayoutChanged, FileRemoved, FrozenChanged, IterationCountLowered,
	HybridVersionDecreased, HybridLogShrunk, HybridRetriesLowered, StigmergyIssueReopened, StigmergyIssueClosed, StigmergyTaskDropped, StigmergyHaltLifted, GateStateFailureLifted, ContractNeedsHumanLifted, SchemaVersionChanged,
}

// ResultUnknown holds the rules whose findings say that a rule's result is
// not known for the run: the policy stage's own rules (internal/policy's
// EngineRules). A waiver of one, or a lower severity, would pass a run
// whose rules did not run, and the run's content can bring them about, so
// no waiver matches them and the configuration cannot name them.
var ResultUnknown = map[string]bool{
	"h3a.policy.eval_error":    true,
	"h3a.policy.timeout":       true,
	"h3a.policy.builtin_error": true,
	"h3a.policy.bad_result":    true,
}
