# Time: timestamps in ISO 8601 and history in time order.
# (The package and its metadata: stigmergy.rego.)
package h3a.rules.stigmergy

import data.h3a.lib

# stamp is what the checker read from timestamp i of list (history or
# issue_log): iso8601, real and, for a real one, instant ([Unix seconds,
# nanoseconds]) and rfc3339 (docs.timestamps; parsing is Go's).
stamp(list, i) := s if {
	s := input.docs.timestamps[list][i]
	is_object(s)
} else := {}

# METADATA
# title: Timestamp not ISO 8601
# description: >-
#   A history or issue_log timestamp is not an ISO 8601 date and time (e.g.
#   2025-09-01T10:00:00Z). stigmergy-state-schema.md, Root Object, history and issue_log:
#   "`timestamp` (String): ISO 8601 timestamp".
# custom:
#   id: h3a.schema.stigmergy_timestamp
#   category: schema
#   severity: error
#   remediation: write the time as YYYY-MM-DDTHH:MM:SS with Z or an offset
deny contains f if {
	some item in timestamp_problems
	f := lib.finding(rego.metadata.rule(), judged(item))
}

# stamped lists [list, index, timestamp as written] of every entry of
# history and issue_log that has a timestamp.
stamped contains [list, i, entry.timestamp] if {
	some list in ["history", "issue_log"]
	some i, entry in lib.items(ledger[list])
	is_object(entry)
	"timestamp" in object.keys(entry)
}

timestamp_problems contains item if {
	some [list, i, raw] in stamped
	object.get(stamp(list, i), "iso8601", false) != true
	item := {
		"msg": sprintf("%s[%d].timestamp %s is not an ISO 8601 date and time", [list, i, lib.describe(raw)]),
		"file": ledger_file,
		"pointer": sprintf("/%s/%d/timestamp", [list, i]),
	}
}

timestamp_problems contains item if {
	some [list, i, raw] in stamped
	stamp(list, i).iso8601 == true
	object.get(stamp(list, i), "real", false) != true
	item := {
		"msg": sprintf("%s[%d].timestamp %q is not a real date and time", [list, i, raw]),
		"file": ledger_file,
		"pointer": sprintf("/%s/%d/timestamp", [list, i]),
	}
}

# timed lists [index, instant, as Go writes it, as written] of the history
# entries whose timestamp is a real date and time, in order.
timed := [[i, s.instant, s.rfc3339, raw] |
	some i, entry in lib.items(ledger.history)
	raw := entry.timestamp
	s := stamp("history", i)
	s.real == true
]

# METADATA
# title: History out of time order
# description: >-
#   A history entry is older than the one before it. Clocks and hand edits make this
#   common, so it is a warning; the order of the ledger is its order in the file.
#   stigmergy-state-schema.md, Root Object: "`history` (Array of Objects): The immutable
#   ledger of all system actions. This is append-only."
# custom:
#   id: h3a.schema.stigmergy_time_order
#   category: schema
#   severity: warning
#   remediation: append entries as they happen; do not insert or re-time old ones
warn contains f if {
	some k, [i, t, _, raw] in timed
	k > 0
	[before, earlier, earlier_text, _] := timed[k - 1]
	t < earlier
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("history[%d] (%s) is older than history[%d] (%s)", [i, raw, before, earlier_text]),
		"file": ledger_file,
		"pointer": sprintf("/history/%d/timestamp", [i]),
	}))
}
