# METADATA
# title: Artifact references
# description: Every artifact a document points at is logged in EVIDENCE_LOG.md, and every file under artifacts/ is logged.
# schemas:
#   - input: schema.input.h3a
package h3a.rules.references

import data.h3a.lib
import data.h3a.model

# ref_paths are the paths the references name, as written. A clean run stops
# after this cheap pass: the references' positions (refs) are worked out
# only for paths that break a rule.
ref_paths contains p if {
	some step in lib.items(input.docs.state.steps)
	some p in lib.items(step.artifacts)
}

ref_paths contains p if {
	some step in lib.items(input.docs.state.steps)
	some cmd in lib.items(step.commands_run)
	p := cmd.artifact
}

ref_paths contains p if {
	some step in lib.items(input.docs.state.steps)
	is_object(step.tdd_evidence)
	some p in step.tdd_evidence
}

ref_paths contains p if {
	some key, list in report_lists
	some entry in lib.items(input.docs[key][list])
	some p in lib.items(entry.artifacts)
}

ref_paths contains p if {
	some cycle in model.cycles
	some phase, field in cycle_outputs
	p := cycle.tdd_phases[phase][field]
}

ref_paths contains p if {
	some verdict in model.verdicts
	some field in ["red_evidence", "green_evidence"]
	p := verdict.verification_results.tdd_compliance[field]
}

ref_paths contains p if {
	some verdict in model.verdicts
	is_object(verdict.verification_results)
	some result in verdict.verification_results
	p := result.report
}

report_lists := {"planner_report": "reports", "executor_report": "tdd_cycles", "validator_report": "verdicts"}

cycle_outputs := {"red": "failure_output", "green": "test_output", "refactor": "test_output"}

# dir_refs are the folder references; file_refs the clean paths of the others.
dir_refs := {p | some p in ref_paths; is_string(p); lib.is_dir_ref(p)}

file_refs := {lib.clean(p) | some p in ref_paths; is_string(p); not lib.is_dir_ref(p)}

# unlogged_paths are the files some reference names that no entry logs:
# set differences, computed by builtins rather than rule by rule.
unlogged_paths := (file_refs | {f | some d in dir_refs; some f in lib.files_under(d)}) - object.keys(input.evidence)

empty_dirs := {d | some d in dir_refs; lib.filled(d); count(lib.files_under(d)) == 0}

# refs lists every artifact reference in the state documents and reports, with
# where it is written.
refs contains r if {
	some i, step in lib.items(input.docs.state.steps)
	some j, p in lib.items(step.artifacts)
	r := ref(p, lib.doc_file.state, sprintf("/steps/%d/artifacts/%d", [i, j]))
}

refs contains r if {
	some i, step in lib.items(input.docs.state.steps)
	some j, cmd in lib.items(step.commands_run)
	r := ref(cmd.artifact, lib.doc_file.state, sprintf("/steps/%d/commands_run/%d/artifact", [i, j]))
}

refs contains r if {
	some i, step in lib.items(input.docs.state.steps)
	is_object(step.tdd_evidence)
	some phase, p in step.tdd_evidence
	r := ref(p, lib.doc_file.state, sprintf("/steps/%d/tdd_evidence/%s", [i, lib.escape_token(phase)]))
}

refs contains r if {
	some key, list in report_lists
	some i, entry in lib.items(input.docs[key][list])
	some j, p in lib.items(entry.artifacts)
	r := ref(p, lib.doc_file[key], sprintf("/%s/%d/artifacts/%d", [list, i, j]))
}

refs contains r if {
	some i, cycle in model.cycles
	some phase, field in cycle_outputs
	r := ref(cycle.tdd_phases[phase][field], lib.doc_file.executor_report, sprintf("/tdd_cycles/%d/tdd_phases/%s/%s", [i, phase, field]))
}

refs contains r if {
	some i, verdict in model.verdicts
	some field in ["red_evidence", "green_evidence"]
	r := ref(
		verdict.verification_results.tdd_compliance[field], lib.doc_file.validator_report,
		sprintf("/verdicts/%d/verification_results/tdd_compliance/%s", [i, field]),
	)
}

refs contains r if {
	some i, verdict in model.verdicts
	is_object(verdict.verification_results)
	some check, result in verdict.verification_results
	r := ref(result.report, lib.doc_file.validator_report, sprintf("/verdicts/%d/verification_results/%s/report", [i, lib.escape_token(check)]))
}

ref(p, file, pointer) := {"path": p, "file": file, "pointer": pointer} if lib.filled(p)

# METADATA
# title: Referenced artifact not logged
# description: >-
#   Every artifact that a document points at (state.json steps' artifacts, commands_run
#   artifacts and tdd_evidence; report artifacts, failure_output, test_output, red and green
#   evidence and report paths) is logged in EVIDENCE_LOG.md. A folder reference such as
#   "artifacts/executor/" means every file under it. Whether a logged file is present and
#   unchanged is the integrity check's part. h3a-state-specification.md, EVIDENCE_LOG.md:
#   "Authoritative index of all artifacts with SHA-256 hashes"; update protocol: "Agents
#   append entries when creating artifacts"; gate_framework.md, Evidence Protocol: "All
#   artifacts in EVIDENCE_LOG.md must include SHA-256 hash".
# custom:
#   id: h3a.evidence.unlogged_reference
#   category: evidence
#   severity: error
#   remediation: >-
#     log the artifact when it is created (h3a-check log RUN FILE "description" appends
#     its entry to EVIDENCE_LOG.md), or correct the reference if it names the wrong file
deny contains f if {
	some v in unlogged
	f := lib.finding(rego.metadata.rule(), v)
}

# unlogged_files lists every file that a reference names and no entry logs, by
# its clean path: a folder reference names every file under it.
unlogged_files[p] contains r if {
	count(unlogged_paths) > 0
	some r in refs
	not lib.is_dir_ref(r.path)
	p := lib.clean(r.path)
	unlogged_paths[p]
}

unlogged_files[p] contains r if {
	count(unlogged_paths) > 0
	some r in refs
	lib.is_dir_ref(r.path)
	some p in lib.files_under(r.path)
	unlogged_paths[p]
}

# One finding per file, at its first reference, so one missing entry is one error.
unlogged contains v if {
	some p, named in unlogged_files
	places := sort([[r.file, r.pointer, r.path] | some r in named])
	[file, pointer, written] := places[0]
	v := {
		"msg": sprintf("%q is not logged in state/EVIDENCE_LOG.md%s%s%s", [p, folder_note(written), absent_note(p), others_note(count(places))]),
		"file": file,
		"pointer": pointer,
	}
}

folder_note(written) := sprintf(" (named through folder %q)", [written]) if lib.is_dir_ref(written)

else := ""

absent_note(p) := "" if lib.in_tree(p)

else := ", and the run holds no such file"

others_note(n) := sprintf("; %d references name it, this is the first", [n]) if n > 1

else := ""

unlogged contains v if {
	count(empty_dirs) > 0
	some r in refs
	empty_dirs[r.path]
	v := {"msg": sprintf("folder %q holds no file, so nothing in it can be evidence", [r.path]), "file": r.file, "pointer": r.pointer}
}

# METADATA
# title: Artifact file not logged
# description: >-
#   A file under artifacts/ that no EVIDENCE_LOG.md entry logs and no document names: either
#   evidence that was never logged or a stray file. (A file that a document names is an
#   error of h3a.evidence.unlogged_reference instead.) Hidden files (.gitkeep) are ignored.
#   h3a-state-specification.md, EVIDENCE_LOG.md update protocol: "Agents append entries when
#   creating artifacts"; a file nothing names may be no artifact at all, so this is a
#   warning.
# custom:
#   id: h3a.evidence.unlogged_file
#   category: evidence
#   severity: warning
#   remediation: >-
#     log the file (h3a-check log RUN FILE "description" appends its entry to
#     EVIDENCE_LOG.md), or remove it from artifacts/ if it is not evidence
warn contains f if {
	some p in (artifact_files - object.keys(input.evidence))
	not startswith(lib.base_name(p), ".")
	not unlogged_files[p]
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%q is under artifacts/ but no EVIDENCE_LOG.md entry logs it", [p]),
		"file": p,
	})
}

artifact_files := {p | some p in lib.items(input.tree); startswith(p, "artifacts/")}
