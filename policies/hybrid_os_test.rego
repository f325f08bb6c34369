package h3a.tests.hybrid_os

import data.h3a.rules.hybrid_os
import data.h3a.test
import data.h3a.test.fixture

findings(ops) := fs if {
	inp := json.patch(fixture.hybrid_complete, ops)
	deny := hybrid_os.deny with input as inp
	warn := hybrid_os.warn with input as inp
	fs := deny | warn
}

x2_findings(ops) := fs if {
	inp := json.patch(fixture.hybrid_x2, ops)
	deny := hybrid_os.deny with input as inp
	warn := hybrid_os.warn with input as inp
	fs := deny | warn
}

# located lists [rule, file, pointer] of findings.
located(fs) := {[f.rule, f.file, object.get(f, "pointer", "")] | some f in fs}

msgs(fs) := {f.msg | some f in fs}

set(path, value) := {"op": "replace", "path": path, "value": value}

put(path, value) := {"op": "add", "path": path, "value": value}

cut(path) := {"op": "remove", "path": path}

plan := "plans/core/p_greet.json"

greet := "registry/code/a_greet.json"

util := "registry/code/a_util.json"

unit1 := "logs/log_unit_1.jsonl"

unit2 := "logs/log_unit_2.jsonl"

test_hybrid_runs_are_clean if {
	count(test.all_findings) == 0 with input as fixture.hybrid_complete
	count(test.all_findings) == 0 with input as fixture.hybrid_x2
}

test_quiet_on_other_layouts if {
	count(hybrid_os.deny) == 0 with input as fixture.complete
	count(hybrid_os.warn) == 0 with input as fixture.complete
	count(hybrid_os.deny) == 0 with input as fixture.gate_state_complete
	count(hybrid_os.warn) == 0 with input as fixture.contract_rounds
}

# Rules of other layouts stay quiet on a hybrid-os run even when it is broken.
test_other_rules_quiet_on_hybrid if {
	fs := test.all_findings with input as json.patch(fixture.hybrid_complete, [
		set("/docs/state/st", "ERROR"),
		set("/docs/state/g", 99),
	])
	count(fs) == 3
	every f in fs {
		contains(f.rule, ".hybrid_")
	}
}

# --- summaries ---

test_summary_missing if {
	fs := findings([set("/docs/plan_summary", null), set("/files/plan_summary.json", {"present": false})])
	located(fs) == {
		["h3a.integrity.hybrid_orphan", "plan_summary.json", ""],
		["h3a.traceability.hybrid_unknown_plan", "state.json", "/cp"],
	}
	"plan_summary.json is missing but 1 plan file(s) exist; every plan file must be in its summary" in msgs(fs)
}

# A summary that is present but unreadable is reported by the loader.
test_summary_unreadable_is_no_orphan if {
	located(findings([set("/docs/plan_summary", null), set("/files/plan_summary.json", {"present": true})])) == {["h3a.traceability.hybrid_unknown_plan", "state.json", "/cp"]}
}

test_entry_points_at_nothing if {
	fs := findings([
		put("/docs/registry_summary/map/a~1gone", {"path": "registry/code/gone.json", "v": 1}),
		put("/docs/paths/registry~1code~1gone.json", {"clean": "registry/code/gone.json", "file": false}),
	])
	located(fs) == {["h3a.integrity.hybrid_orphan", "registry_summary.json", "/map/a~1gone"]}
	msgs(fs) == {`artifact "a/gone" points at "registry/code/gone.json", which does not exist`}
}

# An entry may point at a file outside the families, if it exists.
test_entry_points_at_another_file if {
	count(findings([
		put("/docs/registry_summary/map/a_doc", "docs/a.md"),
		put("/docs/paths/docs~1a.md", {"clean": "docs/a.md", "file": true}),
	])) == 0
}

test_entry_points_at_a_file_of_another_id if {
	fs := findings([set("/docs/artifacts/registry~1code~1a_util.json/id", "a_helper")])
	located(fs) == {
		["h3a.integrity.hybrid_orphan", "registry_summary.json", "/map/a_util"],
		["h3a.traceability.hybrid_unknown_reference", greet, "/dep/0"],
		["h3a.traceability.hybrid_unknown_reference", greet, "/loc"],
	}
	`artifact "a_util" points at "registry/code/a_util.json", whose id is "a_helper"` in msgs(fs)
}

test_file_not_in_its_summary if {
	fs := findings([cut("/docs/plan_summary/map/p_greet")])
	located(fs) == {
		["h3a.integrity.hybrid_orphan", plan, ""],
		["h3a.traceability.hybrid_unknown_plan", "state.json", "/cp"],
	}
	`plan file "plans/core/p_greet.json" is not in plan_summary.json (an orphan); expected an entry mapping "p_greet" to it` in msgs(fs)
}

# An entry names its file as written: a path spelt otherwise lists no file.
test_entry_path_as_written if {
	fs := findings([
		set("/docs/plan_summary/map/p_greet/path", "./plans/core/p_greet.json"),
		put("/docs/paths/.~1plans~1core~1p_greet.json", {"clean": plan, "file": true}),
	])
	located(fs) == {["h3a.integrity.hybrid_orphan", plan, ""]}
}

test_loc_missing if {
	fs := findings([set("/docs/annotations/registry~1code~1a_util.json", {"loc": "src/util.py", "missing": true, "purpose": false, "depends_on": null, "issues": []})])
	located(fs) == {["h3a.integrity.hybrid_orphan", util, "/loc"]}
	msgs(fs) == {`artifact "a_util" has loc "src/util.py", which does not exist`}
}

test_duplicate_id if {
	fs := findings([
		put("/docs/artifacts/registry~1code~1b_copy.json", {"id": "a_util", "v": 1}),
		put("/docs/registry_summary/map/b_copy", "registry/code/b_copy.json"),
		put("/docs/paths/registry~1code~1b_copy.json", {"clean": "registry/code/b_copy.json", "file": true}),
	])
	located(fs) == {
		["h3a.integrity.hybrid_duplicate_id", "registry/code/b_copy.json", "/id"],
		["h3a.integrity.hybrid_orphan", "registry_summary.json", "/map/b_copy"],
	}
	`artifact id "a_util" is also the id of registry/code/a_util.json; ids must be unique` in msgs(fs)
}

test_version_drift if {
	fs := findings([set("/docs/plans/plans~1core~1p_greet.json/v", 3)])
	located(fs) == {["h3a.integrity.hybrid_version_drift", plan, "/v"]}
	msgs(fs) == {`plan "p_greet" has v 3 but plan_summary.json last recorded v 2`}
}

# A bare path records no version, and a version that is not a whole number
# is none; 2.0 is the whole number 2.
test_no_recorded_version_no_drift if {
	count(findings([set("/docs/plans/plans~1core~1p_greet.json/v", 3), set("/docs/plan_summary/map/p_greet", plan)])) == 0
	count(findings([set("/docs/plans/plans~1core~1p_greet.json/v", 3), set("/docs/plan_summary/map/p_greet/v", "2")])) == 0
	count(findings([set("/docs/plans/plans~1core~1p_greet.json/v", 3), set("/docs/plan_summary/map/p_greet/v", 2.5)])) == 0
	msgs(findings([set("/docs/plans/plans~1core~1p_greet.json/v", 3), set("/docs/plan_summary/map/p_greet/v", 2.0)])) == {`plan "p_greet" has v 3 but plan_summary.json last recorded v 2`}
}

# --- the log ---

test_log_id_does_not_increase if {
	fs := findings([set(sprintf("/docs/logs/%s/0/id", ["logs~1log_unit_2.jsonl"]), 5)])
	located(fs) == {["h3a.integrity.hybrid_log_counter", unit2, "/0/id"]}
	msgs(fs) == {"log id 5 does not increase: the entry before it (logs/log_unit_1.jsonl line 5) has id 5"}
}

# Records without a whole-number id are passed over.
test_log_id_skips_records_without_one if {
	count(findings([set("/docs/logs/logs~1log_unit_1.jsonl/4/id", "5")])) == 0
	count(findings([set("/docs/logs/logs~1log_unit_1.jsonl/4/id", 5.0)])) == 0
}

test_g_is_not_the_last_id if {
	fs := findings([set("/docs/state/g", 7)])
	located(fs) == {["h3a.integrity.hybrid_log_counter", "state.json", "/g"]}
	msgs(fs) == {"g is 7 but the last log entry (logs/log_unit_2.jsonl line 3) has id 8; g must equal it"}
}

test_ln_is_not_the_newest_unit_size if {
	fs := findings([set("/docs/state/ln", 2)])
	located(fs) == {["h3a.integrity.hybrid_log_rollover", "state.json", "/ln"]}
	msgs(fs) == {"ln is 2 but the newest log unit logs/log_unit_2.jsonl has 3 entries"}
}

test_ln_not_below_max if {
	msgs(findings([set("/docs/state/max", 3)])) == {
		"ln 3 is not below max 3; the log should have rolled over to a new unit",
		"full log unit logs/log_unit_1.jsonl has 5 entries; a unit rolls over at exactly max 3",
	}
}

test_full_unit_short if {
	fs := findings([
		cut("/docs/logs/logs~1log_unit_1.jsonl/4"),
		set("/docs/units/0/lines", [1, 2, 3, 4]),
	])
	located(fs) == {["h3a.integrity.hybrid_log_rollover", unit1, ""]}
	msgs(fs) == {"full log unit logs/log_unit_1.jsonl has 4 entries; a unit rolls over at exactly max 5"}
}

test_no_log_no_log_rules if {
	count(findings([set("/docs/units", []), set("/docs/logs", {})])) == 0
}

# --- the process ---

test_phase_skipped if {
	fs := findings([set("/docs/logs/logs~1log_unit_1.jsonl/2/ph", "V")])
	located(fs) == {["h3a.gates.hybrid_phase_transition", unit1, "/2/ph"]}
	msgs(fs) == {`phase changes from "B" (logs/log_unit_1.jsonl line 2) to "V"; after "B" comes "C"`}
}

test_phase_after_validation if {
	msgs(findings([set("/docs/logs/logs~1log_unit_2.jsonl/2/ph", "A"), set("/docs/state/ph", "A")])) == {`phase changes from "V" (logs/log_unit_2.jsonl line 2) to "A"; after "V" comes "C" or "I"`}
}

# state.json's phase goes on from the last logged one (C, "t2 started"): idle
# there skips the validation the log never shows.
test_state_phase_skipped if {
	fs := findings([set("/docs/state/ph", "I")])
	located(fs) == {["h3a.gates.hybrid_phase_transition", "state.json", "/ph"]}
	msgs(fs) == {`state.json ph is "I", but the last logged phase is "C" (logs/log_unit_2.jsonl line 3); after "C" comes "V"`}
	located(findings([set("/docs/state/ph", "A")])) == {["h3a.gates.hybrid_phase_transition", "state.json", "/ph"]}
}

test_state_phase_quiet if {
	# the phase the log is in, or the next one
	count(findings([set("/docs/state/ph", "V")])) == 0

	# a word that is no phase, or no log
	count([f | some f in findings([set("/docs/state/ph", "CONSTRUCT")]); f.rule == "h3a.gates.hybrid_phase_transition"]) == 0
	count(findings([set("/docs/state/ph", "I"), set("/docs/units", []), set("/docs/logs", {})])) == 0
}

# Words that are no phase are passed over.
test_unknown_phase_is_passed_over if {
	count(findings([set("/docs/logs/logs~1log_unit_1.jsonl/4/ph", "CONSTRUCT")])) == 0
	count(findings([set("/docs/logs/logs~1log_unit_1.jsonl/4/ph", 3)])) == 0
}

test_error_unlogged if {
	fs := findings([set("/docs/state/st", "ERROR")])
	located(fs) == {["h3a.evidence.hybrid_error_unlogged", "state.json", "/st"], stopped}
	located(findings([set("/docs/state/st", "ERROR"), set("/docs/logs/logs~1log_unit_2.jsonl/1/L", "E")])) == {stopped}
}

stopped := ["h3a.gates.hybrid_stopped", "state.json", "/st"]

# ERROR, BLK_MAX and BLK_CON stop the run until a person clears them: a
# warning that asks for a human, naming the task.
test_stopped_needs_human if {
	every st in ["ERROR", "BLK_MAX", "BLK_CON"] {
		some f in findings([set("/docs/state/st", st), set("/docs/logs/logs~1log_unit_2.jsonl/1/L", "E")])
		f.rule == "h3a.gates.hybrid_stopped"
		f.needs_human == true
		f.task_id == "t2"
	}
	msgs(findings([set("/docs/state/st", "BLK_CON")])) == {`st is "BLK_CON" (an optimistic lock conflict): the run stopped and a person must resolve it and clear the state`}
	every f in findings([set("/docs/state/st", "BLK_MAX"), set("/docs/state/ct", null)]) {
		not f.task_id
	}
}

# A run in progress passes.
test_running_passes if {
	every st in ["READY", "BUSY"] {
		count(findings([set("/docs/state/st", st)])) == 0
	}
}

# A summary conflict the consistency scan may repair still leaves a state
# that was never cleared: a person must clear it.
test_summary_conflict_needs_human if {
	every st in ["BLK_SUM", "BLK_PSUM"] {
		fs := findings([set("/docs/state/st", st)])
		located(fs) == {stopped}
		every f in fs {
			f.needs_human == true
		}
	}
	msgs(findings([set("/docs/state/st", "BLK_PSUM")])) == {`st is "BLK_PSUM" (a plan summary load/write conflict): the run stopped and a person must resolve it and clear the state`}
}

cleared := ["h3a.gates.hybrid_error_cleared", "state.json", "/st"]

last_is_error := set("/docs/logs/logs~1log_unit_2.jsonl/2/L", "E")

# The last entry logged an error, and st is no error state: nothing records
# the recovery, so a person must confirm it.
test_error_cleared_needs_human if {
	every st in ["READY", "BUSY"] {
		fs := findings([set("/docs/state/st", st), last_is_error])
		located(fs) == {cleared}
		some f in fs
		f.needs_human == true
		f.task_id == "t2"
	}
	msgs(findings([last_is_error])) == {`the last log entry (logs/log_unit_2.jsonl line 3, id 8) has level "E" but st is "READY": the error sets st to ERROR, and no recovery is logged after it; a person must confirm it was resolved`}
	msgs(findings([last_is_error, cut("/docs/logs/logs~1log_unit_2.jsonl/2/id"), set("/docs/state/g", 7)])) == {`the last log entry (logs/log_unit_2.jsonl line 3) has level "E" but st is "READY": the error sets st to ERROR, and no recovery is logged after it; a person must confirm it was resolved`}
}

# An error logged before the last entry, with st cleared: a later entry is
# not a recorded resolution, so a person must confirm it; the latest error
# is named.
test_earlier_error_cleared_needs_human if {
	fs := findings([set("/docs/logs/logs~1log_unit_1.jsonl/4/L", "E")])
	located(fs) == {cleared}
	some f in fs
	f.needs_human == true
	msgs(fs) == {`the log entry logs/log_unit_1.jsonl line 5, id 5 has level "E" but st is "READY": the error sets st to ERROR, and no entry after it (3 logged) records a resolution; a person must confirm it was resolved`}
	msgs(findings([set("/docs/logs/logs~1log_unit_1.jsonl/0/L", "E"), set("/docs/logs/logs~1log_unit_2.jsonl/1/L", "E")])) == {`the log entry logs/log_unit_2.jsonl line 2, id 7 has level "E" but st is "READY": the error sets st to ERROR, and no entry after it (1 logged) records a resolution; a person must confirm it was resolved`}
}

# A stopped state is h3a.gates.hybrid_stopped's; a lock conflict logs an
# error and sets BLK_CON or a summary state.
# An error snippet in err under READY or BUSY with no logged error: the
# error was never logged nor resolved on record, so a person must confirm it.
test_error_unlogged_needs_human if {
	every st in ["READY", "BUSY"] {
		fs := findings([set("/docs/state/st", st), set("/docs/state/err", "pytest: 3 failed")])
		located(fs) == {["h3a.gates.hybrid_err_snippet_unlogged", "state.json", "/err"]}
		some f in fs
		f.needs_human == true
		f.task_id == "t2"
	}
	msgs(findings([set("/docs/state/err", "pytest: 3 failed")])) == {`err holds "pytest: 3 failed" but st is "READY" and no log entry has level "E": the error was never logged, so nothing shows it was resolved; a person must confirm it was`}
	located(findings([set("/docs/state/err", "pytest: 3 failed"), last_is_error])) == {cleared}
	located(findings([set("/docs/state/err", "pytest: 3 failed"), set("/docs/state/st", "ERROR"), last_is_error])) == {stopped}
	count(findings([set("/docs/state/err", " ")])) == 0
}

# The snippet under the later generation's name, last_error, in state.json
# or a vX.2 state.txt (whose st is read as the status it spells), asks for a
# person all the same.
test_last_error_needs_human if {
	fs := findings([put("/docs/state/last_error", "pytest: 3 failed")])
	located(fs) == {["h3a.gates.hybrid_err_snippet_unlogged", "state.json", "/last_error"]}
	located(findings([put("/docs/state/last_error", "pytest: 3 failed"), last_is_error])) == {cleared}
	every st in ["READY", "busy", " Ready "] {
		x2 := x2_findings([set("/docs/x2_state/st", st), set("/docs/x2_state/last_error", "pytest: 3 failed")])
		located(x2) - {["h3a.schema.hybrid_drift", "state.txt", "/st"]} == {["h3a.gates.hybrid_err_snippet_unlogged", "state.txt", "/last_error"]}
		[f] := [f | some f in x2; f.rule == "h3a.gates.hybrid_err_snippet_unlogged"]
		f.needs_human == true
		f.task_id == "t1"
	}
	msgs(x2_findings([set("/docs/x2_state/last_error", "pytest: 3 failed")])) == {`last_error holds "pytest: 3 failed" but st is "READY" (vX.2): nothing in the state shows the error was logged or resolved; a person must confirm it was`}
	located(x2_findings([put("/docs/x2_state/err", "boom")])) == {["h3a.gates.hybrid_err_snippet_unlogged", "state.txt", "/err"]}
	count(x2_findings([set("/docs/x2_state/last_error", null)])) == 0
	count(x2_findings([set("/docs/x2_state/last_error", "")])) == 0
	located(x2_findings([set("/docs/x2_state/st", "BLK_CON"), set("/docs/x2_state/last_error", "lock")])) == {["h3a.gates.hybrid_stopped", "state.txt", "/st"]}
}

# A task its plan marks done while it keeps an error snippet ended on an
# error the log never recorded: a person must confirm it was resolved.
test_done_task_with_error_needs_human if {
	t1 := "/docs/plans/plans~1core~1p_greet.json/tasks/0"
	fs := findings([put(concat("", [t1, "/last_error"]), "pytest: 3 failed")])
	located(fs) == {["h3a.gates.hybrid_err_snippet_unlogged", plan, "/tasks/0/last_error"]}
	msgs(fs) == {`tasks/0/last_error holds "pytest: 3 failed" but st is "READY" in state.json, task "t1" is st "DONE" in plans/core/p_greet.json and no log entry has level "E": the error was never logged, so nothing shows it was resolved; a person must confirm it was`}
	every f in fs {
		f.needs_human == true
	}
	located(findings([put(concat("", [t1, "/err"]), "boom"), set(concat("", [t1, "/st"]), "completed")])) == {["h3a.gates.hybrid_err_snippet_unlogged", plan, "/tasks/0/err"]}
	count(findings([put("/docs/plans/plans~1core~1p_greet.json/tasks/1/err", "retrying")])) == 0

	# done spelt otherwise, or under the later generation's key status
	every spelt in ["Completed_Success", " done ", "completed-success"] {
		located(findings([put(concat("", [t1, "/err"]), "boom"), set(concat("", [t1, "/st"]), spelt)])) == {["h3a.gates.hybrid_err_snippet_unlogged", plan, "/tasks/0/err"]}
	}
	under_status := findings([
		put(concat("", [t1, "/err"]), "boom"),
		{"op": "remove", "path": concat("", [t1, "/st"])},
		put(concat("", [t1, "/status"]), "DONE"),
	])
	located(under_status) == {["h3a.gates.hybrid_err_snippet_unlogged", plan, "/tasks/0/err"]}
	some f in under_status
	contains(f.msg, `task "t1" is status "DONE"`)
	count(findings([put(concat("", [t1, "/err"]), "boom"), set(concat("", [t1, "/st"]), "PENDING")])) == 0
	count(findings([put(concat("", [t1, "/err"]), null)])) == 0
	located(findings([put(concat("", [t1, "/err"]), "boom"), last_is_error])) == {cleared}
}

test_error_cleared_quiet_otherwise if {
	located(findings([set("/docs/state/st", "ERROR"), last_is_error])) == {stopped}
	every st in ["BLK_SUM", "BLK_PSUM"] {
		located(findings([set("/docs/state/st", st), last_is_error])) == {stopped}
	}
	count(findings([set("/docs/logs/logs~1log_unit_2.jsonl/2/L", "W")])) == 0
}

test_x2_stopped_needs_human if {
	fs := x2_findings([set("/docs/x2_state/st", "BLK_MAX")])
	located(fs) == {["h3a.gates.hybrid_stopped", "state.txt", "/st"]}
	every f in fs {
		f.needs_human == true
	}
	count(x2_findings([set("/docs/x2_state/st", "BUSY")])) == 0
}

# A vX.2 state.txt whose rt holds a count over max_retries under a st that
# does not read as BLK_MAX asks for a human: lenient, but never a pass.
test_x2_retry_limit_needs_human if {
	fs := x2_findings([set("/docs/x2_state/rt", {"t1": 4})])
	located(fs) == {["h3a.retries.hybrid_retry_limit", "state.txt", "/rt/t1"]}
	every f in fs {
		f.severity == "warning"
		f.needs_human == true
	}
	msgs(fs) == {`vX.2: task "t1" has 4 retries in state.txt rt, over the configuration's max_retries 3, but st is "READY"; expected "BLK_MAX" (an error in a v1.4 state.json; a person decides whether it holds here)`}
	count(x2_findings([set("/docs/x2_state/rt", {"t1": 3})])) == 0
	located(x2_findings([set("/docs/x2_state/rt", {"t1": 4}), set("/docs/x2_state/st", "blk max")])) == {
		["h3a.gates.hybrid_stopped", "state.txt", "/st"],
		["h3a.schema.hybrid_drift", "state.txt", "/st"],
	}
}

# A vX.2 plan file keeps its tasks' counts as rt or retry_count; one over
# max_retries under a st that does not read as BLK_MAX asks for a human.
test_x2_plan_txt_retry_limit_needs_human if {
	fs := x2_findings([put("/docs/x2_plans/plans~1plan_a.txt/tasks/0/retry_count", 5)])
	located(fs) == {["h3a.retries.hybrid_retry_limit", "plans/plan_a.txt", "/tasks/0/retry_count"]}
	every f in fs {
		f.severity == "warning"
		f.needs_human == true
	}
	msgs(fs) == {`vX.2: task "t1" has 5 retries in plans/plan_a.txt retry_count, over the configuration's max_retries 3, but state.txt st is "READY"; expected "BLK_MAX" (an error beside a v1.4 state.json; a person decides whether it holds here)`}
	located(x2_findings([put("/docs/x2_plans/plans~1plan_a.txt/tasks/0/rt", 4)])) == {["h3a.retries.hybrid_retry_limit", "plans/plan_a.txt", "/tasks/0/rt"]}

	# at the limit, or blocked
	count(x2_findings([put("/docs/x2_plans/plans~1plan_a.txt/tasks/0/retry_count", 3)])) == 0
	not "h3a.retries.hybrid_retry_limit" in {f.rule | some f in x2_findings([put("/docs/x2_plans/plans~1plan_a.txt/tasks/0/retry_count", 5), set("/docs/x2_state/st", "BLK_MAX")])}
}

# A state.txt without st is not BLK_MAX: a count past the limit still asks
# for a human.
test_x2_retry_limit_without_st if {
	fs := x2_findings([set("/docs/x2_state/rt", {"t1": 5}), cut("/docs/x2_state/st")])
	{f.rule | some f in fs; f.needs_human == true} == {"h3a.retries.hybrid_retry_limit"}
	located([f | some f in fs; f.rule == "h3a.retries.hybrid_retry_limit"]) == {["h3a.retries.hybrid_retry_limit", "state.txt", "/rt/t1"]}
	plan := x2_findings([put("/docs/x2_plans/plans~1plan_a.txt/tasks/0/retry_count", 5), cut("/docs/x2_state/st")])
	"h3a.retries.hybrid_retry_limit" in {f.rule | some f in plan}
}

# A v1.4 plan file beside a vX.2 state.txt is held to its retry limit too.
test_x2_plan_retry_limit_needs_human if {
	plan := {"v": 1, "id": "p_greet", "max_rt": 3, "tasks": [{"id": "t2", "rt": 4}]}
	fs := x2_findings([set("/docs/plans", {"plans/core/p_greet.json": plan})])
	located(fs) == {["h3a.retries.hybrid_retry_limit", "plans/core/p_greet.json", "/tasks/0/rt"]}
	every f in fs {
		f.severity == "warning"
		f.needs_human == true
	}
	msgs(fs) == {`vX.2: task "t2" has 4 retries in plans/core/p_greet.json, over its plan's max_rt 3, but state.txt st is "READY"; expected "BLK_MAX" (an error beside a v1.4 state.json; a person decides whether it holds here)`}
	count(x2_findings([set("/docs/plans", {"plans/core/p_greet.json": object.union(plan, {"tasks": [{"id": "t2", "rt": 3}]})})])) == 0

	# a v1.4 run is held by its own state.json, never by this reading
	v14 := findings([set("/docs/state/st", "BLK_MAX"), set("/docs/plans/plans~1core~1p_greet.json/tasks/1/rt", 4)])
	not "h3a.retries.hybrid_retry_limit" in {f.rule | some f in v14}
}

# A vX.2 st that spells a stopping status in another case or with other
# spacing is read as that status: drift, and a stopped run.
test_x2_stopped_spelled_otherwise if {
	every st in ["error", "Blk_Max", "blk-con", " ERROR "] {
		fs := x2_findings([set("/docs/x2_state/st", st)])
		located(fs) == {["h3a.gates.hybrid_stopped", "state.txt", "/st"], ["h3a.schema.hybrid_drift", "state.txt", "/st"]}
		some f in fs
		f.rule == "h3a.gates.hybrid_stopped"
		f.needs_human == true
	}
	msgs([f | some f in x2_findings([set("/docs/x2_state/st", "error")]); f.rule == "h3a.gates.hybrid_stopped"]) == {`st is "error", read as ERROR (a logging call with level E): the run stopped and a person must resolve it and clear the state`}
	"h3a.gates.hybrid_stopped" in {f.rule | some f in x2_findings([set("/docs/x2_state/st", "blk sum")])}
	every st in ["busy", "CONSTRUCT", "VALIDATING", "IDLE", "BLOCKCHAIN_SYNC"] {
		not "h3a.gates.hybrid_stopped" in {f.rule | some f in x2_findings([set("/docs/x2_state/st", st)])}
	}
}

# A vX.2 st that says the run is blocked, failed or halted in a word the spec
# does not name is drift, and a stopped run all the same.
test_x2_stopped_in_another_word if {
	every st in ["BLOCK_INPUT", "blocked", "Blocked on input", "BLK_INPUT", "FAILED", "halted", "stopped"] {
		fs := x2_findings([set("/docs/x2_state/st", st)])
		located(fs) == {["h3a.gates.hybrid_stopped", "state.txt", "/st"], ["h3a.schema.hybrid_drift", "state.txt", "/st"]}
		[f] := [f | some f in fs; f.rule == "h3a.gates.hybrid_stopped"]
		f.needs_human == true
		f.task_id == "t1"
	}
	msgs([f | some f in x2_findings([set("/docs/x2_state/st", "BLOCK_INPUT")]); f.rule == "h3a.gates.hybrid_stopped"]) == {`st is "BLOCK_INPUT" (a stopped state the specification does not name): the run stopped and a person must resolve it and clear the state`}
	located([f | some f in x2_findings([set("/docs/x2_state/st", "Blk_Max")]); f.rule == "h3a.gates.hybrid_stopped"]) == {["h3a.gates.hybrid_stopped", "state.txt", "/st"]}
	count([f | some f in findings([set("/docs/state/st", "BLOCKED")]); f.rule == "h3a.gates.hybrid_stopped"]) == 0
}

test_unknown_plan if {
	fs := findings([set("/docs/state/cp", "p_other")])
	located(fs) == {["h3a.traceability.hybrid_unknown_plan", "state.json", "/cp"]}
	msgs(fs) == {`cp "p_other" is not a plan in plan_summary.json`}
	count(findings([set("/docs/state/cp", null), set("/docs/state/ct", "t9")])) == 0
}

test_unknown_task if {
	fs := findings([set("/docs/state/ct", "t9")])
	located(fs) == {["h3a.traceability.hybrid_unknown_plan", "state.json", "/ct"]}
	msgs(fs) == {`ct "t9" is not a task of plan "p_greet" (tasks: "t1" or "t2")`}
	msgs(findings([set("/docs/state/ct", "t9"), set("/docs/plans/plans~1core~1p_greet.json/tasks", [])])) == {`ct "t9" is not a task of plan "p_greet" (tasks: none)`}
}

# retried sets the retries of t1 in state.json and in its plan alike.
retried(n) := [set("/docs/state/rt/t1", n), set("/docs/plans/plans~1core~1p_greet.json/tasks/0/rt", n)]

test_retry_limit if {
	fs := findings(retried(4))
	located(fs) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}
	msgs(fs) == {`task "t1" has 4 retries in state.json rt, over the limit 3, the max_rt of plans/core/p_greet.json, which lists the task, but st is "READY"; expected "BLK_MAX"`}
	every f in fs {
		not f.severity
	}
	located(findings(array.concat(retried(4), [set("/docs/state/st", "BLK_MAX")]))) == {["h3a.gates.hybrid_stopped", "state.json", "/st"]}
	count(findings(retried(3))) == 0
}

# The plan's max_rt is the limit where it is lower; without one the
# configuration's alone holds, an error all the same: it sets MAX, and a
# plan that deletes its max_rt must not make the finding a warning.
test_retry_limit_of_the_plan if {
	msgs(findings(array.concat(retried(2), [set("/docs/plans/plans~1core~1p_greet.json/max_rt", 1)]))) == {`task "t1" has 2 retries in state.json rt, over the limit 1, the max_rt of plans/core/p_greet.json, which lists the task, but st is "READY"; expected "BLK_MAX"`}
	fs := findings(array.concat(retried(4), [cut("/docs/plans/plans~1core~1p_greet.json/max_rt")]))
	msgs(fs) == {`task "t1" has 4 retries in state.json rt, over the configuration's max_retries 3 (plans/core/p_greet.json, which lists the task, states no max_rt), but st is "READY"; expected "BLK_MAX"`}
	every f in fs {
		not f.severity
	}
}

# configured sets the configuration's max_retries.
configured(n) := set("/params/max_retries", n)

# A plan cannot raise the configured limit: its max_rt 100 leaves t1 held
# to max_retries 3, an error as for any plan that states its limit, and
# the message names the configuration and the max_rt it overrides.
test_retry_limit_plan_cannot_raise if {
	raised := set("/docs/plans/plans~1core~1p_greet.json/max_rt", 100)
	fs := findings(array.concat(retried(4), [raised]))
	located(fs) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}
	msgs(fs) == {`task "t1" has 4 retries in state.json rt, over the configuration's max_retries 3 (the max_rt 100 of plans/core/p_greet.json, which lists the task, cannot raise it), but st is "READY"; expected "BLK_MAX"`}
	every f in fs {
		not f.severity
	}
	count(findings(array.concat(retried(3), [raised]))) == 0

	# The counter the plan file persists alike.
	fs2 := findings(array.concat(next_plan([]), [raised, set("/docs/plans/plans~1core~1p_greet.json/tasks/1/rt", 5)]))
	msgs(fs2) == {`task "t2" has 5 retries in plans/core/p_greet.json, over the configuration's max_retries 3 (its plan's max_rt 100 cannot raise it), but st is "READY"; expected "BLK_MAX"`}
	every f in fs2 {
		not f.severity
	}

	# A task no plan lists: every plan raises its max_rt, so the
	# configuration's limit stands in, and 4 is over MAX itself: an error.
	fs3 := findings([raised, put("/docs/state/rt/t_old", 4)])
	msgs(fs3) == {`task "t_old" has 4 retries in state.json rt, over the configuration's max_retries 3, since no plan file lists the task and none states a lower max_rt, but st is "READY"; expected "BLK_MAX"`}
	every f in fs3 {
		not f.severity
	}
}

# A plan may lower the configured limit: max_rt 2 under max_retries 5.
test_retry_limit_plan_lowers if {
	fs := findings(array.concat(retried(3), [configured(5), set("/docs/plans/plans~1core~1p_greet.json/max_rt", 2)]))
	msgs(fs) == {`task "t1" has 3 retries in state.json rt, over the limit 2, the max_rt of plans/core/p_greet.json, which lists the task, but st is "READY"; expected "BLK_MAX"`}
	every f in fs {
		not f.severity
	}
	count(findings(array.concat(retried(2), [configured(5), set("/docs/plans/plans~1core~1p_greet.json/max_rt", 2)]))) == 0
}

# The configuration sets the limit: max_retries 5 lets 4 retries pass,
# whether the plan states no max_rt or a higher one; 6 are over it. The
# plan's max_rt 3 of the fixture still holds t1 to 3.
test_retry_limit_configured if {
	count(findings(array.concat(retried(4), [configured(5), cut("/docs/plans/plans~1core~1p_greet.json/max_rt")]))) == 0
	count(findings(array.concat(retried(4), [configured(5), set("/docs/plans/plans~1core~1p_greet.json/max_rt", 100)]))) == 0
	count(findings(array.concat(retried(5), [configured(5), set("/docs/plans/plans~1core~1p_greet.json/max_rt", 100)]))) == 0
	msgs(findings(array.concat(retried(6), [configured(5), set("/docs/plans/plans~1core~1p_greet.json/max_rt", 100)]))) == {`task "t1" has 6 retries in state.json rt, over the configuration's max_retries 5 (the max_rt 100 of plans/core/p_greet.json, which lists the task, cannot raise it), but st is "READY"; expected "BLK_MAX"`}
	located(findings(array.concat(retried(4), [configured(5)]))) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}

	# An input without a whole max_retries of at least 1 (the configuration
	# refuses one) is held to 3.
	located(findings(array.concat(retried(4), [cut("/params/max_retries"), cut("/docs/plans/plans~1core~1p_greet.json/max_rt")]))) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}
	located(findings(array.concat(retried(4), [configured(0), cut("/docs/plans/plans~1core~1p_greet.json/max_rt")]))) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}
	count(findings(array.concat(retried(3), [cut("/params/max_retries"), cut("/docs/plans/plans~1core~1p_greet.json/max_rt")]))) == 0
}

# next_plan adds a plan p_next (max_rt 50, tasks n1 and those given) and
# makes it the current one, at its task n1.
next_plan(tasks) := [
	put("/docs/plans/plans~1core~1p_next.json", {"v": 1, "id": "p_next", "max_rt": 50, "tasks": array.concat([{"id": "n1", "st": "PENDING", "rt": 0}], tasks)}),
	put("/docs/plan_summary/map/p_next", {"path": "plans/core/p_next.json", "v": 1}),
	put("/docs/paths/plans~1core~1p_next.json", {"clean": "plans/core/p_next.json", "file": true}),
	set("/docs/state/cp", "p_next"),
	set("/docs/state/ct", "n1"),
]

# A task's retries are held to the plan that lists it, not to the current
# plan: t1 of p_greet (max_rt 3) with 9 retries is over its limit while the
# current plan p_next allows 50 (under a configured max_retries of 60).
test_retry_limit_of_the_plan_holding_the_task if {
	fs := findings(array.concat(retried(9), array.concat(next_plan([]), [configured(60)])))
	located(fs) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}
	msgs(fs) == {`task "t1" has 9 retries in state.json rt, over the limit 3, the max_rt of plans/core/p_greet.json, which lists the task, but st is "READY"; expected "BLK_MAX"`}
	every f in fs {
		not f.severity
	}

	# With no current plan the same.
	located(findings(array.concat(retried(9), [configured(60), set("/docs/state/cp", null), set("/docs/state/ct", null)]))) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}

	# The current plan's own tasks still take its limit: n1 at 9 of 50.
	count(findings(array.concat(next_plan([]), [configured(60), put("/docs/state/rt/n1", 9), set("/docs/plans/plans~1core~1p_next.json/tasks/0/rt", 9)]))) == 0

	# Under the default max_retries 3, p_next's 50 is capped: n1 at 9 is over.
	located(findings(array.concat(next_plan([]), [put("/docs/state/rt/n1", 9), set("/docs/plans/plans~1core~1p_next.json/tasks/0/rt", 9)]))) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/n1"]}
}

# The counter the plan file persists is held to its plan's max_rt too, even
# when state.json rt holds less (or none) of it.
test_retry_limit_in_the_plan_file if {
	fs := findings(array.concat(next_plan([]), [set("/docs/plans/plans~1core~1p_greet.json/tasks/1/rt", 5)]))
	located(fs) == {["h3a.retries.hybrid_retry_limit", plan, "/tasks/1/rt"]}
	msgs(fs) == {`task "t2" has 5 retries in plans/core/p_greet.json, over its plan's max_rt 3, but st is "READY"; expected "BLK_MAX"`}
	fs2 := findings(array.concat(next_plan([]), [set("/docs/plans/plans~1core~1p_greet.json/tasks/1/rt", 5), cut("/docs/plans/plans~1core~1p_greet.json/max_rt")]))
	msgs(fs2) == {`task "t2" has 5 retries in plans/core/p_greet.json, over the configuration's max_retries 3 (its plan states no max_rt), but st is "READY"; expected "BLK_MAX"`}
	every f in fs2 {
		not f.severity
	}

	# Both counters over the limit but different: each is reported, and the
	# current plan's counters disagree (hybrid_retry_mismatch).
	located(findings([set("/docs/state/rt/t1", 4), set("/docs/plans/plans~1core~1p_greet.json/tasks/0/rt", 5)])) == {
		["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"],
		["h3a.retries.hybrid_retry_limit", plan, "/tasks/0/rt"],
		["h3a.retries.hybrid_retry_mismatch", plan, "/tasks/0/rt"],
	}
	count(findings(array.concat(retried(4), [set("/docs/state/st", "BLK_MAX")]))) == 1
}

# A task id in two plans: the current plan's task first, else the
# strictest plan listing it (under a configured max_retries of 60).
test_retry_limit_task_in_two_plans if {
	both := array.concat(next_plan([{"id": "t1", "st": "DONE", "rt": 9}]), [configured(60)])

	# p_next is current and lists t1: its 50 holds for state.json rt; the
	# t1 of p_greet persists 1 retry, under its 3.
	count(findings(array.concat(both, [set("/docs/state/rt/t1", 9)]))) == 0

	# No current plan: the strictest of the two, p_greet's 3.
	fs := findings(array.concat(both, [set("/docs/state/rt/t1", 9), set("/docs/state/cp", null), set("/docs/state/ct", null)]))
	located(fs) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t1"]}
	msgs(fs) == {`task "t1" has 9 retries in state.json rt, over the limit 3, the max_rt of plans/core/p_greet.json, which lists the task, but st is "READY"; expected "BLK_MAX"`}
}

# A counter of state.json rt whose task no plan file lists has no known
# limit: the lowest of any plan stands in, and the finding is a warning
# while the count is not over the configuration's max_retries (MAX), an
# error once it is.
test_retry_limit_task_in_no_plan if {
	fs := findings([configured(5), put("/docs/state/rt/t_old", 4)])
	located(fs) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t_old"]}
	msgs(fs) == {`task "t_old" has 4 retries in state.json rt, over the limit 3, the lowest max_rt of any plan (plans/core/p_greet.json), since no plan file lists the task, but st is "READY"; expected "BLK_MAX"`}
	{f.severity | some f in fs} == {"warning"}
	count(findings([put("/docs/state/rt/t_old", 3)])) == 0
	over := findings([put("/docs/state/rt/t_old", 4)])
	located(over) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t_old"]}
	every f in over {
		not f.severity
	}

	# The lowest of several plans, whichever is current.
	located(findings(array.concat(next_plan([]), [put("/docs/state/rt/t_old", 4)]))) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/t_old"]}

	# No plan states a limit, or there is no plan file: the configuration's.
	msgs(findings([put("/docs/state/rt/a~1b", 4), cut("/docs/plans/plans~1core~1p_greet.json/max_rt")])) == {`task "a/b" has 4 retries in state.json rt, over the configuration's max_retries 3, since no plan file lists the task and none states a lower max_rt, but st is "READY"; expected "BLK_MAX"`}
	nothing := [set("/docs/plans", {}), set("/docs/plan_summary/map", {}), set("/docs/state/cp", null), set("/docs/state/ct", null), put("/docs/state/rt/a~1b", 4)]
	located(findings(nothing)) == {["h3a.retries.hybrid_retry_limit", "state.json", "/rt/a~1b"]}
	every f in findings(nothing) {
		not f.severity
	}
	count(findings(array.concat(nothing, [configured(5)]))) == 0
}

test_retry_mismatch if {
	fs := findings([set("/docs/state/rt/t1", 2)])
	located(fs) == {["h3a.retries.hybrid_retry_mismatch", plan, "/tasks/0/rt"]}
	msgs(fs) == {`task "t1" has 2 retries in state.json rt but 1 in plans/core/p_greet.json; the plan file persists the same counter`}
	msgs(findings([set("/docs/plans/plans~1core~1p_greet.json/tasks/1/rt", 2)])) == {`task "t2" has 0 retries in state.json rt but 2 in plans/core/p_greet.json; the plan file persists the same counter`}
	msgs(findings([cut("/docs/plans/plans~1core~1p_greet.json/tasks/0/rt")])) == {`task "t1" has 1 retries in state.json rt but 0 in plans/core/p_greet.json; the plan file persists the same counter`}
}

# Only the current plan's tasks are compared: counters of other plans'
# tasks, or with no current plan, are not the plan's to agree with; an rt
# that is no object is the schema's to report.
test_retry_mismatch_current_plan_only if {
	count(findings([put("/docs/state/rt/t_old", 2)])) == 0
	count(findings([set("/docs/state/rt/t1", 2), set("/docs/state/cp", null), set("/docs/state/ct", null)])) == 0
	count(findings([set("/docs/state/rt", [])])) == 0
}

# --- artifacts ---

test_unknown_dependency if {
	fs := findings([put("/docs/artifacts/registry~1code~1a_greet.json/dep/-", "a_none")])
	located(fs) == {["h3a.traceability.hybrid_unknown_reference", greet, "/dep/1"]}
	msgs(fs) == {`artifact "a_greet" depends on "a_none", which is not a registered artifact`}
}

test_unknown_issue if {
	fs := findings([put("/docs/artifacts/registry~1code~1a_util.json/ki/-", "i_none")])
	located(fs) == {["h3a.traceability.hybrid_unknown_reference", util, "/ki/0"]}
	msgs(fs) == {`artifact "a_util" links issue "i_none", which known_issues.json does not hold`}
	count(findings([put("/docs/artifacts/registry~1code~1a_util.json/ki/-", "i_none"), set("/docs/known_issues", null)])) == 0
}

test_issue_cache if {
	fs := findings([set("/docs/state/iss", {"i_old": "ACTIVE", "i_new": "ACTIVE"})])
	located(fs) == {
		["h3a.traceability.hybrid_issue_cache", "state.json", "/iss/i_old"],
		["h3a.traceability.hybrid_issue_cache", "state.json", "/iss/i_new"],
		["h3a.traceability.hybrid_issue_cache", "state.json", "/iss"],
	}
	msgs(fs) == {
		`iss caches issue "i_old", which is "RES" in known_issues.json; the cache holds the ACTIVE issues`,
		`iss caches issue "i_new", which is missing in known_issues.json; the cache holds the ACTIVE issues`,
		`issue "i_lint" is ACTIVE in known_issues.json but iss does not cache it`,
	}
}

# iss may be a list of ids; without it, or without known_issues.json,
# there is nothing to compare.
test_issue_cache_forms if {
	count(findings([set("/docs/state/iss", ["i_lint"])])) == 0
	located(findings([set("/docs/state/iss", ["i_lint", "i_old", "i_old"])])) == {["h3a.traceability.hybrid_issue_cache", "state.json", "/iss/1"]}
	count(findings([cut("/docs/state/iss")])) == 0
	count(findings([set("/docs/state/iss", {}), set("/docs/known_issues", null)])) == 0
}

test_domain_mismatch if {
	fs := findings([set("/docs/artifacts/registry~1code~1a_util.json/dom", "lib")])
	located(fs) == {["h3a.integrity.hybrid_domain_mismatch", util, "/dom"]}
	msgs(fs) == {`artifact "a_util" has dom "lib" but sits in registry/code/; a record sits in the folder of its domain`}
	located(findings([put("/docs/plans/plans~1core~1p_greet.json/dom", "web")])) == {["h3a.integrity.hybrid_domain_mismatch", plan, "/dom"]}
	count(findings([put("/docs/plans/plans~1core~1p_greet.json/dom", "core")])) == 0
}

test_resolved_issue_linked if {
	fs := findings([put("/docs/artifacts/registry~1code~1a_util.json/ki/-", "i_old")])
	located(fs) == {["h3a.traceability.hybrid_resolved_issue_linked", util, "/ki/0"]}
	msgs(fs) == {`artifact "a_util" still links issue "i_old", which is resolved (RES); resolving unlinks it`}
}

test_annotations_missing if {
	fs := findings([
		set("/docs/annotations/registry~1code~1a_util.json/purpose", false),
		set("/docs/annotations/registry~1code~1a_util.json/depends_on", null),
	])
	located(fs) == {["h3a.evidence.hybrid_annotation_missing", util, "/loc"]}
	msgs(fs) == {`code artifact "a_util" at "src/util.py" lacks a purpose statement ("Purpose: …") and a "Depends on: [ids]" list`}
	msgs(findings([set("/docs/annotations/registry~1code~1a_util.json/depends_on", null)])) == {`code artifact "a_util" at "src/util.py" lacks a "Depends on: [ids]" list`}
}

test_file_names_unknown_references if {
	fs := findings([
		set("/docs/annotations/registry~1code~1a_util.json/depends_on", ["a_greet", "a_none"]),
		set("/docs/annotations/registry~1code~1a_util.json/issues", ["i_lint", "i_none"]),
	])
	located(fs) == {["h3a.traceability.hybrid_unknown_reference", util, "/loc"]}
	msgs(fs) == {
		`src/util.py says it depends on "a_none", which is not a registered artifact`,
		`src/util.py tags issue "i_none", which known_issues.json does not hold`,
	}
}

# Without known_issues.json no issue id can be checked.
test_issue_tags_need_known_issues if {
	count(findings([set("/docs/annotations/registry~1code~1a_util.json/issues", ["i_none"]), set("/docs/known_issues", null)])) == 0
}

# An entry of known_issues.json that is not an object has no status.
test_issue_without_status if {
	count(findings([set("/docs/known_issues/issues/i_old", "RES"), put("/docs/artifacts/registry~1code~1a_util.json/ki/-", "i_old")])) == 0
}

# --- vX.2 ---

test_x2_drift if {
	fs := x2_findings([
		set("/docs/x2_state/v", "4"),
		cut("/docs/x2_state/g"),
		set("/docs/x2_state/ph", "BUILD"),
		set("/docs/x2_state/st", 3),
		set("/docs/x2_state/rt", 0),
	])
	located(fs) == {
		["h3a.schema.hybrid_drift", "state.txt", "/v"],
		["h3a.schema.hybrid_drift", "state.txt", "/g"],
		["h3a.schema.hybrid_drift", "state.txt", "/ph"],
		["h3a.schema.hybrid_drift", "state.txt", "/st"],
		["h3a.schema.hybrid_drift", "state.txt", "/rt"],
	}
	msgs(fs) == {
		`vX.2: v is "4", expected an integer`,
		"vX.2: g is null, expected an integer",
		`vX.2: ph is "BUILD", not a phase (A, B, C, V, I, ANALYZE, BLUEPRINT, CONSTRUCT, VALIDATE, IDLE)`,
		"vX.2: st is 3, not a status (READY, BUSY, BLK_CON, BLK_SUM, BLK_PSUM, BLK_MAX, ERROR)",
		"vX.2: rt is 0, expected an object of retry counts",
	}
}

test_x2_missing_keys if {
	msgs(x2_findings([cut("/docs/x2_state/ph"), cut("/docs/x2_state/rt"), cut("/docs/x2_state/st")])) == {
		"vX.2: state.txt has no ph; expected one of A, B, C, V, I, ANALYZE, BLUEPRINT, CONSTRUCT, VALIDATE, IDLE",
		"vX.2: state.txt has no rt; expected an object of retry counts ({} when none)",
		"vX.2: state.txt has no st; expected one of READY, BUSY, BLK_CON, BLK_SUM, BLK_PSUM, BLK_MAX, ERROR",
	}
}

test_x2_active_issues if {
	fs := x2_findings([set("/docs/x2_state/active_issue_ids", [7, "issue_a", "issue_b"])])
	located(fs) == {["h3a.schema.hybrid_drift", "state.txt", "/active_issue_ids/1"]}
	msgs(fs) == {`vX.2: active issue "issue_b" is not in issues_summary.txt`}
	msgs(x2_findings([set("/docs/x2_issues_summary/issues_map/issue_a/status", "resolved")])) == {`vX.2: active issue "issue_a" is "resolved" in issues_summary.txt`}
	count(x2_findings([set("/docs/x2_issues_summary", null), put("/docs/x2_state/active_issue_ids/-", "issue_z")])) == 0
}

# The v1.4 rules do not hold a vX.2 run, nor the vX.2 ones a v1.4 run.
test_generations_apart if {
	count(x2_findings([put("/docs/state", {"st": "ERROR", "g": 99})])) == 0
	count(findings([put("/docs/x2_state", {"v": "x"})])) == 0
}

# cp names a summary entry whose file exists but is no plan: ct and the
# retry counters of the current plan cannot be checked, so cp is unknown.
test_current_plan_maps_to_another_file if {
	fs := findings([
		set("/docs/state/cp", "p_fake"),
		set("/docs/state/ct", "nope"),
		put("/docs/plan_summary/map/p_fake", "src/greet.py"),
		put("/docs/paths/src~1greet.py", {"clean": "src/greet.py", "file": true}),
	])
	located(fs) == {["h3a.traceability.hybrid_unknown_plan", "state.json", "/cp"]}
	msgs(fs) == {`cp "p_fake" maps to "src/greet.py" in plan_summary.json, which is not a plan file (plans/<domain>/<id>.json holding an object)`}
}

# A vX.2 state.txt without st says nothing of whether the run stopped.
test_x2_state_without_st if {
	fs := x2_findings([cut("/docs/x2_state/st")])
	located(fs) == {["h3a.schema.hybrid_drift", "state.txt", ""]}
	msgs(fs) == {"vX.2: state.txt has no st; expected one of READY, BUSY, BLK_CON, BLK_SUM, BLK_PSUM, BLK_MAX, ERROR"}
}

# A v1.4 root that keeps a vX.2 state.txt too: state.txt, which no v1.4 rule
# reads, is an error of its own.
test_two_states if {
	fs := findings([
		set("/files/state.txt/present", true),
		set("/files/state.txt/parsed", true),
		set("/docs/x2_state", {"st": "BLK_MAX", "last_error": "pytest: 3 failed"}),
	])
	located(fs) == {["h3a.structure.hybrid_two_states", "state.txt", ""]}
}

test_one_state_is_quiet if {
	not "h3a.structure.hybrid_two_states" in {f.rule | some f in findings([])}
	not "h3a.structure.hybrid_two_states" in {f.rule | some f in x2_findings([])}
}
