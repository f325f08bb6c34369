# Gate evidence: logged and verified in the evidence log.
# (The package and its metadata: evidence.rego.)
package h3a.rules.evidence

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Gate evidence missing, unlogged or unverified
# description: >-
#   Every artifact a passed gate requires is present, logged in EVIDENCE_LOG.md and its hash
#   verified: G1 the RED and GREEN test outputs and coverage_delta.json; G2
#   security_scan.json and mutation_report.txt; G3 pre_deploy_checklist.md and
#   rollback_plan.md. The path is the one the reports name, else the specification's.
#   gate_framework.md, Core Principle: "No artifact = No progress"; Evidence Protocol,
#   Artifact Requirements by Gate; G3 Entry Criteria: "All artifacts logged", "Hash
#   verification | All artifact hashes in EVIDENCE_LOG match actual files".
# custom:
#   id: h3a.evidence.required_artifact
#   category: evidence
#   severity: error
#   remediation: >-
#     produce the artifact by running the step, save it under artifacts/ and log it with
#     h3a-check log RUN FILE "description"; no artifact, no gate
deny contains f if {
	some r in required
	problem := model.evidence_problem(r.path)
	position := object.filter(r, ["file", "pointer", "line"])
	f := lib.finding(rego.metadata.rule(), element(r.gate, object.union(position, {
		"msg": sprintf("%s is passed but its %s %q %s", [model.gate_names[r.gate], r.what, r.path, problem]),
	})))
}

required contains r if {
	1 in model.claimed_passed
	some phase, field in tdd_outputs
	p := phases[phase][field]
	lib.filled(p)
	r := {
		"gate": 1, "what": sprintf("%s test output", [upper(phase)]), "path": p,
		"file": lib.doc_file.executor_report,
		"pointer": sprintf("/tdd_cycles/%d/tdd_phases/%s/%s", [model.current_cycle, phase, field]),
	}
}

required contains r if {
	1 in model.claimed_passed
	some phase, field in tdd_outputs
	not current_cycle_names(phase, field)
	r := object.union(model.claim_position(1), {
		"gate": 1, "what": sprintf("%s test output", [upper(phase)]),
		"path": sprintf("artifacts/executor/test_output_%s.txt", [phase]),
	})
}

tdd_outputs := {"red": "failure_output", "green": "test_output"}

required contains r if {
	1 in model.claimed_passed
	r := object.union({"gate": 1, "what": "coverage report"}, coverage_artifact)
}

coverage_artifact := {"path": p, "file": lib.doc_file.executor_report, "pointer": sprintf("/tdd_cycles/%d/artifacts/%d", [model.current_cycle, j])} if {
	paths := [[k, x] | some k, x in lib.items(model.cycles[model.current_cycle].artifacts); is_string(x); endswith(x, "coverage_delta.json")]
	count(paths) > 0
	[j, p] := paths[0]
} else := object.union(model.claim_position(1), {"path": "artifacts/executor/coverage_delta.json"})

validator_reports := {
	"security": {"what": "security scan", "path": "artifacts/validator/security_scan.json"},
	"mutation": {"what": "mutation report", "path": "artifacts/validator/mutation_report.txt"},
}

required contains r if {
	2 in model.claimed_passed
	some check, spec in validator_reports
	p := model.verdicts[model.current_verdict].verification_results[check].report
	lib.filled(p)
	r := {
		"gate": 2, "what": spec.what, "path": p,
		"file": lib.doc_file.validator_report,
		"pointer": sprintf("/verdicts/%d/verification_results/%s/report", [model.current_verdict, check]),
	}
}

required contains r if {
	2 in model.claimed_passed
	some check, spec in validator_reports
	not verdict_names(check)
	r := object.union(model.claim_position(2), {"gate": 2, "what": spec.what, "path": spec.path})
}

verdict_names(check) if lib.filled(model.verdicts[model.current_verdict].verification_results[check].report)

system_artifacts := {"pre_deploy_checklist.md": "pre-deploy checklist", "rollback_plan.md": "rollback plan"}

required contains r if {
	3 in model.claimed_passed
	some name, what in system_artifacts
	logged := [e | some e in lib.items(input.docs.evidence_log.entries); endswith(e.path, sprintf("/%s", [name]))]
	count(logged) > 0
	e := logged[count(logged) - 1]
	r := {"gate": 3, "what": what, "path": e.path, "file": lib.doc_file.evidence_log, "line": e.line}
}

required contains r if {
	3 in model.claimed_passed
	some name, what in system_artifacts
	not name_logged(name)
	r := object.union(model.claim_position(3), {"gate": 3, "what": what, "path": sprintf("artifacts/system/%s", [name])})
}

name_logged(name) if {
	some e in lib.items(input.docs.evidence_log.entries)
	endswith(e.path, sprintf("/%s", [name]))
}
