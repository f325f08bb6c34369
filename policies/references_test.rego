package h3a.tests.references

import data.h3a.lib
import data.h3a.rules.references
import data.h3a.test
import data.h3a.test.fixture

unlogged := "h3a.evidence.unlogged_reference"

test_references_quiet_on_ok_runs if {
	count(references.deny) == 0 with input as fixture.complete
	count(references.warn) == 0 with input as fixture.complete
	count(references.deny) == 0 with input as fixture.fresh
}

# Every place the issue lists is read as a reference.
test_every_reference_place_is_read if {
	places := {r.pointer | some r in references.refs} with input as fixture.complete
	{
		"/steps/0/artifacts/1", "/steps/1/commands_run/0/artifact", "/steps/1/tdd_evidence/red",
		"/reports/0/artifacts/0", "/tdd_cycles/0/artifacts/2", "/verdicts/0/artifacts/1",
		"/tdd_cycles/0/tdd_phases/red/failure_output", "/tdd_cycles/0/tdd_phases/green/test_output",
		"/verdicts/0/verification_results/tdd_compliance/red_evidence",
		"/verdicts/0/verification_results/mutation/report",
	} - places == set()
}

test_unlogged_reference_to_a_missing_file if {
	inp := test.patch([{"op": "add", "path": "/docs/state/steps/1/artifacts/-", "value": "./artifacts/executor/lint_output.txt"}])
	[f] := test.of(references.deny, unlogged) with input as inp
	f.msg == "\"artifacts/executor/lint_output.txt\" is not logged in state/EVIDENCE_LOG.md, and the run holds no such file"
	f.file == "state.json"
	f.pointer == "/steps/1/artifacts/4"
}

test_unlogged_reference_named_twice if {
	inp := test.patch([
		{"op": "remove", "path": "/evidence/artifacts~1executor~1coverage_delta.json"},
	])
	[f] := test.of(references.deny, unlogged) with input as inp
	f.msg == "\"artifacts/executor/coverage_delta.json\" is not logged in state/EVIDENCE_LOG.md; 3 references name it, this is the first"
	f.file == "executor_report.json"
	f.pointer == "/tdd_cycles/0/artifacts/2"
	count(references.warn) == 0 with input as inp
}

test_folder_reference if {
	inp := test.patch([
		{"op": "add", "path": "/docs/state/steps/1/artifacts/-", "value": "artifacts/executor/"},
		{"op": "add", "path": "/tree/-", "value": "artifacts/executor/notes.txt"},
	])
	[f] := test.of(references.deny, unlogged) with input as inp
	f.msg == "\"artifacts/executor/notes.txt\" is not logged in state/EVIDENCE_LOG.md (named through folder \"artifacts/executor/\")"
	count(references.warn) == 0 with input as inp
}

test_folder_reference_fully_logged if {
	inp := test.patch([{"op": "add", "path": "/docs/state/steps/1/artifacts/-", "value": "artifacts/executor/"}])
	count(references.deny) == 0 with input as inp
}

test_empty_folder_reference if {
	inp := test.patch([{"op": "add", "path": "/docs/state/steps/1/artifacts/-", "value": "artifacts/system/"}])
	[f] := test.of(references.deny, unlogged) with input as inp
	f.msg == "folder \"artifacts/system/\" holds no file, so nothing in it can be evidence"
}

test_unlogged_file if {
	inp := test.patch([
		{"op": "add", "path": "/tree/-", "value": "artifacts/executor/scratch.log"},
		{"op": "add", "path": "/tree/-", "value": "artifacts/executor/.gitkeep"},
		{"op": "add", "path": "/tree/-", "value": "notes/todo.txt"},
	])
	fs := references.warn with input as inp
	count(fs) == 1
	some f in fs
	f.rule == "h3a.evidence.unlogged_file"
	f.file == "artifacts/executor/scratch.log"
	f.msg == "\"artifacts/executor/scratch.log\" is under artifacts/ but no EVIDENCE_LOG.md entry logs it"
}

# Every place refs locates is also read by the cheap pass (ref_paths): a
# place added to refs only would never be found unlogged. Each place in
# turn gets a path of its own, which the cheap pass must see.
test_cheap_pass_reads_every_positioned_place if {
	places := {[key, r.pointer] |
		some r in references.refs
		some key, file in lib.doc_file
		file == r.file
	} with input as fixture.complete
	count(places) >= 10
	every place in places {
		[key, pointer] := place
		inp := test.patch([{"op": "replace", "path": sprintf("/docs/%s%s", [key, pointer]), "value": "zz/only-here.txt"}])
		"zz/only-here.txt" in references.ref_paths with input as inp
	}
}
