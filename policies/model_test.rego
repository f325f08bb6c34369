package h3a.tests.model

import data.h3a.model

test_parse_gate_status if {
	model.parse_gate_status("G2_passed") == {"gate": 2, "status": "passed"}
	model.parse_gate_status("G0_not_started") == {"gate": 0, "status": "not_started"}
	not model.parse_gate_status("G4_passed")
	not model.parse_gate_status("G1-passed")
	not model.parse_gate_status(7)
}

test_status_frontier if {
	model.status_frontier({"gate": 2, "status": "passed"}) == 2
	model.status_frontier({"gate": 2, "status": "in_progress"}) == 1
	model.status_frontier({"gate": 0, "status": "pending"}) == -1
}

test_gate_from_name if {
	model.gate_from_name("G1") == 1
	model.gate_from_name("G3_production_ready") == 3
	not model.gate_from_name("G9")
	not model.gate_from_name("gate 1")
}

test_limit_from_params_without_max_iterations if {
	model.limit == 4 with input as {"docs": {"current_task": {}}, "params": {"max_iterations": 4}}
	model.limit == 3 with input as {"docs": {"current_task": {"max_iterations": 3}}, "params": {"max_iterations": 4}}
}

test_limit_never_above_params if {
	model.limit == 2 with input as {"docs": {"current_task": {"max_iterations": 100}}, "params": {"max_iterations": 2}}
	model.limit == 2 with input as {"docs": {"current_task": {"max_iterations": 2.5}}, "params": {"max_iterations": 2}}
	model.limit == 1 with input as {"docs": {"current_task": {"max_iterations": 1}}, "params": {"max_iterations": 2}}
	model.limit == 2 with input as {"docs": {"current_task": {"max_iterations": "100"}}, "params": {"max_iterations": 2}}
}

test_event_gates if {
	model.event_gates == [0, -1, 2] with input.docs.gates_ledger.events as [{"gate": "G0_planning"}, {"gate": "G9"}, {"gate": "G2"}]
}
