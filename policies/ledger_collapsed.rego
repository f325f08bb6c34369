# Gate events a reader of the rendered ledger does not see.
# (The package and its metadata: ledger.rego.)
package h3a.rules.ledger

import data.h3a.lib
import data.h3a.model

# METADATA
# title: Gate status changed by a collapsed event
# description: >-
#   The last event that moved a gate (STARTED, PASSED, FAILED, REJECTED, ESCALATION,
#   ESCALATED) stands inside a <details> element without the open attribute, and its status
#   is not the status of the gate's last move outside such elements. GitHub shows the
#   element closed: a person reading the ledger sees the visible event (FAILED, say) as the
#   gate's latest, while the rules would read the hidden one (PASSED). The Gate Events Log
#   is the record that agents append to "on status changes" for the person who reads the
#   ledger and invokes the next agent; a status change that record does not show was not
#   made there, so the gate stands where the visible events leave it, and passing it on the
#   hidden event is refused. Events inside a collapsed element that change no gate's status
#   (evidence, notes, a repeated status) are not reported. h3a-state-specification.md,
#   GATES_LEDGER.md Update Protocol: "Agents append to "Gate Events Log" on status
#   changes", "Never delete history"; SESSION_HANDOFF.json: "Human reads this to know next
#   agent to invoke".
# custom:
#   id: h3a.gates.ledger_collapsed_status
#   category: gates
#   severity: error
#   remediation: >-
#     write the gate's status changes as lines of the Gate Events Log outside <details>
#     (keep only evidence and notes collapsed), or add the open attribute ("<details open>")
#     so that the rendered ledger shows the event
deny contains f if {
	some n, last in model.ledger_latest
	last.collapsed == true
	visible := {i | some i in model.gate_move_indexes[n]; not events[i].collapsed}
	count(visible) > 0
	shown := events[max(visible)]
	shown.status != last.status
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %s at %s (line %d) stands inside a collapsed <details> block, which GitHub shows closed, so a reader sees %s %s (line %d) as the gate's latest event while the rules would read %s", [last.gate, last.status, last.time, last.line, shown.gate, shown.status, shown.line, last.status]),
		"file": ledger_file,
		"line": last.line,
		"gate": sprintf("G%d", [n]),
	})
}
