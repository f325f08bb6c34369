# The judge's and the auditor's optional results beside their artifacts: eval-results.json, audit-results.json.
# (The package and its metadata: contract.rego.)
package h3a.rules.contract

import data.h3a.lib

# METADATA
# title: Pass over failed eval or audit commands
# description: >-
#   A round whose judge's verdict is pass while its eval-results.json records a failed
#   eval command, or whose auditor's gate is pass while its audit-results.json records a
#   failed artifact check or command: the record the role wrote shows a failure that its
#   decision passes over. A command or check is read as failed by a status that is not
#   pass, ok or success (in any case), by an exit_code other than 0 or passed, ok or
#   success false, whatever its status says (as a smoke check is read), and the file as a whole by a summary failed count larger than the failed entries
#   it lists. The command list is read under results or commands in either file: the
#   documents name it only in prose. A results file that joins no round (no role file beside it: at the top of a
#   run with round folders, or in a round folder holding none) is read against no
#   decision, so under a pass of its role a person reads it. The one exception is the auditor's requirements_traceability check of
#   unknown, which its script writes when the handoff names no requirement (the audit's
#   requirements_coverage carries it, which h3a.gates.contract_pass_with_undecided_check
#   leaves out too). An entry that says
#   nothing readable about its outcome (no status and no exit_code) under a pass was not
#   shown to pass either. An auditor's failed check or command is accepted when the
#   audit's notes name it (a command by eval_commands) and accept it, as for
#   h3a.gates.contract_audit_gate_contradiction. artifact-contract.md is silent on both
#   files; the upstream role documents define them: judge-evaluate
#   references/artifact-contract.md, "Optional: eval-results.json": "status and exit code
#   per command", "pass/fail summary counts"; judge-evaluate SKILL.md, Evaluate
#   implementation evidence: "Treat failed eval commands as evidence for rejection unless
#   out of scope"; auditor-gate references/artifact-contract.md, "Optional:
#   audit-results.json": "artifact check list (`name`, `status`, `details`)", "executed
#   command results (`command`, `status`, `exit_code`)", "summary counts"; auditor-gate
#   gate-rubric.md, Decision Mapping: "`pass`: no failed artifact/traceability checks". As
#   the spec does not name the files, this is a warning that asks for a person, never an
#   error: whether a failed command was out of scope is theirs to say.
# custom:
#   id: h3a.gates.contract_eval_failed_under_pass
#   category: gates
#   severity: warning
#   remediation: >-
#     a person reads the failed command's log: the judge re-evaluates (reject with the
#     failure as a reason, or pass once the command passes on a re-run recorded in a new
#     eval-results.json), or the auditor re-decides (fail, or accept the check by name in
#     the notes)
warn contains f if {
	some item in results_under_pass
	f := lib.finding(rego.metadata.rule(), object.union(item, {"needs_human": true}))
}

# result_lists names, per results file, the role's decision that must be pass
# and the lists of entries the file holds, each with the summary count of its
# failures. The upstream documents name the lists only in prose ("command
# list", "executed command results"), so commands are read under results or
# commands in either file, as a hand-written file may name them.
result_lists := [
	{
		"key": "eval_results", "role": "verdict", "decision": ["verdict", "verdict"],
		"lists": [["results", "command", "failed"], ["commands", "command", "failed"]],
	},
	{
		"key": "audit_results", "role": "audit", "decision": ["audit", "gate"],
		"lists": [["checks", "name", "checks_failed"], ["commands", "command", "commands_failed"], ["results", "command", "commands_failed"]],
	},
]

# passed_round(r, spec): the round's decision for the results file is pass.
passed_round(r, spec) if object.get(r, spec.decision, null) == "pass"

# results_under_pass lists each entry of a results file under a pass that
# failed or says nothing of its outcome, then each summary count of failures
# larger than the entries that show one.
results_under_pass contains item if {
	some r in rounds
	some spec in result_lists
	passed_round(r, spec)
	doc := r[spec.key]
	is_object(doc)
	some [list, name_key, _] in spec.lists
	some i, entry in lib.items(doc[list])
	how := entry_outcome(entry)
	how != "pass"
	not accepted_result(r, spec, list, entry, name_key)
	item := {
		"msg": sprintf("%s is pass but %s %s %d (%s) %s; a person must confirm that it passes", [decision_name(r, spec), r.files[spec.key], singular[list], i, entry_name(entry, name_key), how]),
		"file": r.files[spec.key],
		"pointer": sprintf("/%s/%d", [list, i]),
	}
}

results_under_pass contains item if {
	some r in rounds
	some spec in result_lists
	passed_round(r, spec)
	doc := r[spec.key]
	is_object(doc)
	some count_key in {c | some [_, _, c] in spec.lists}
	n := lib.get(doc.summary, count_key)
	is_number(n)
	lists := [list | some [list, _, c] in spec.lists; c == count_key]
	listed := count([1 | some list in lists; some entry in lib.items(doc[list]); entry_outcome(entry) != "pass"])
	n > listed
	not accepted_count(r, spec, lists)
	item := {
		"msg": sprintf("%s is pass but %s counts %v failed in summary.%s, and %s lists %d failed or unreadable; a person must confirm that every one passes", [decision_name(r, spec), r.files[spec.key], n, count_key, concat(" or ", lists), listed]),
		"file": r.files[spec.key],
		"pointer": sprintf("/summary/%s", [count_key]),
	}
}

# entry_name names an entry in a message: its command or name as written.
entry_name(entry, key) := written(object.get(entry, key, null)) if is_object(entry)

else := written(entry)

singular := {"results": "command", "checks": "check", "commands": "command"}

decision_name(r, spec) := sprintf("%s %s", [r.files[spec.role], spec.decision[1]]) if r.files[spec.role]

else := spec.decision[1]

# entry_outcome reads one entry: "pass" when it shows a pass, else how it
# shows a failure or why it shows nothing.
entry_outcome(entry) := "is not an object" if not is_object(entry)

else := sprintf("has status %s%s", [written(entry.status), exit_suffix(entry)]) if {
	"status" in object.keys(entry)
	not pass_status(entry.status)
	not unknown_check(entry)
} else := how if {
	how := exit_code_failure(entry)
} else := how if {
	how := flag_failure(entry)
} else := "has neither status nor exit_code" if {
	not "status" in object.keys(entry)
	not is_number(object.get(entry, "exit_code", null))
} else := "pass"

# exit_suffix gives an entry's exit_code other than 0 after its status.
exit_suffix(entry) := sprintf(" and exit_code %v", [entry.exit_code]) if {
	is_number(entry.exit_code)
	entry.exit_code != 0
} else := ""

pass_status(s) if {
	is_string(s)
	regex.match(`^(pass(es|ed|ing)?|ok|success(ful)?|succeeded)$`, lower(trim_space(s)))
}

# unknown_check: run_audit.py writes requirements_traceability unknown when
# the handoff names no requirement; the audit's own
# traceability.requirements_coverage carries it, and
# h3a.gates.contract_pass_with_undecided_check leaves that one out too.
unknown_check(entry) if {
	entry.name == "requirements_traceability"
	lower(trim_space(entry.status)) == "unknown"
}

# accepted_result: the auditor's notes accept a failed check by its name, or
# the failed commands as eval_commands.
accepted_result(r, spec, "checks", entry, name_key) if {
	spec.key == "audit_results"
	name := entry[name_key]
	is_string(name)
	name != ""
	notes_accept(r.audit, name)
}

accepted_result(r, spec, list, _, _) if {
	list in {"commands", "results"}
	accepted_commands(r, spec)
}

accepted_count(r, spec, lists) if {
	"commands" in lists
	accepted_commands(r, spec)
}

accepted_commands(r, spec) if {
	spec.key == "audit_results"
	notes_accept(r.audit, "eval_commands")
}

# A results file that joins no round (no role file beside it: at the top of
# a run with round folders, or in a round folder without handoff.json,
# verdict.json or audit.json) is read against no decision, so under a pass of
# that role what its commands say goes unread: a person reads it.
results_under_pass contains item if {
	contract
	some p, f in input.files
	f.present == true
	some spec in result_lists
	f.doc == spec.key
	not placed_results[p]
	passes := [r | some r in rounds; passed_round(r, spec)]
	count(passes) > 0
	item := {
		"msg": sprintf("%s sits beside no handoff.json, verdict.json or audit.json, so which round it belongs to is unknown and it is read against no decision, while %s is pass; a person must read it", [p, decision_name(passes[count(passes) - 1], spec)]),
		"file": p,
	}
}

placed_results contains p if {
	some r in rounds
	some key in ["eval_results", "audit_results"]
	p := r.files[key]
}
