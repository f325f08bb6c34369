# Time: timestamps in ISO 8601 and history in time order.
# (The package and its metadata: stigmergy.rego.)
package h3a.rules.stigmergy

import data.h3a.lib

# timestamp_parts reads a timestamp as the ledger may write it (ISO 8601:
# seconds and fraction optional, Z or an offset with or without its colon)
# into its numbers; undefined for any other text.
timestamp_parts(s) := [to_number(y), to_number(mo), to_number(d), to_number(h), to_number(mi), seconds, fraction, zone] if {
	is_string(s)
	[[_, y, mo, d, h, mi, sec, fraction, sign, oh, om]] := regex.find_all_string_submatch_n(`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$`, s, 1)
	seconds := to_number(concat("", ["0", sec]))
	zone := offset(sign, oh, om)
}

offset("", _, _) := [0, 0, 0]

offset(sign, h, m) := [{"+": 1, "-": -1}[sign], to_number(h), to_number(m)] if sign != ""

# instant gives the instant of a timestamp in nanoseconds from an epoch of
# its own, or is undefined when the timestamp names no real date and time
# (a 30 February, hour 24; an offset up to 24:60 is accepted, as Go reads
# RFC 3339).
instant(parts) := ((((((days_from_civil(y, mo, d) * 86400) + (h * 3600)) + (mi * 60)) + s) - (sign * ((oh * 3600) + (om * 60)))) * 1000000000) + nanoseconds(fraction) if {
	[y, mo, d, h, mi, s, fraction, [sign, oh, om]] := parts
	mo >= 1
	mo <= 12
	d >= 1
	lib.day_exists(y, mo, d)
	h <= 23
	mi <= 59
	s <= 59
	oh <= 24
	om <= 60
}

nanoseconds(fraction) := to_number(concat("", ["0", substring(concat("", [fraction, "000000000"]), 0, 9)]))

# days_from_civil counts days from 1970-01-01 (H. Hinnant's algorithm).
days_from_civil(y, m, d) := ((era * 146097) + doe) - 719468 if {
	year := y - to_number(m <= 2)
	era := floor(year / 400)
	yoe := year - (era * 400)
	mp := (m + 9) % 12
	doy := (floor(((153 * mp) + 2) / 5) + d) - 1
	doe := (((yoe * 365) + floor(yoe / 4)) - floor(yoe / 100)) + doy
}

# written_as gives a timestamp as Go writes it in RFC 3339: seconds always,
# the fraction without trailing zeros, Z for a zero offset.
written_as(parts) := concat("", [
	sprintf("%04d-%02d-%02dT%02d:%02d:%02d", [y, mo, d, h, mi, s]),
	fraction_text(fraction),
	zone_text(zone),
]) if {
	[y, mo, d, h, mi, s, fraction, zone] := parts
}

fraction_text(fraction) := "" if trim_right(substring(fraction, 0, 9), "0") == ""

else := concat("", [".", trim_right(substring(fraction, 0, 9), "0")])

# zone_text writes an offset as Go does, from its minutes: +00:60 is +01:00.
zone_text([sign, h, m]) := "Z" if h + m == 0

else := sprintf("%s%02d:%02d", [{1: "+", -1: "-"}[sign], floor(((h * 60) + m) / 60), ((h * 60) + m) % 60])

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
	not timestamp_parts(raw)
	item := {
		"msg": sprintf("%s[%d].timestamp %s is not an ISO 8601 date and time", [list, i, lib.describe(raw)]),
		"file": ledger_file,
		"pointer": sprintf("/%s/%d/timestamp", [list, i]),
	}
}

timestamp_problems contains item if {
	some [list, i, raw] in stamped
	not instant(timestamp_parts(raw))
	timestamp_parts(raw)
	item := {
		"msg": sprintf("%s[%d].timestamp %q is not a real date and time", [list, i, raw]),
		"file": ledger_file,
		"pointer": sprintf("/%s/%d/timestamp", [list, i]),
	}
}

# timed lists [index, instant, parts, as written] of the history entries
# whose timestamp is a real date and time, in order.
timed := [[i, t, parts, raw] |
	some i, entry in lib.items(ledger.history)
	raw := entry.timestamp
	parts := timestamp_parts(raw)
	t := instant(parts)
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
	[before, earlier, parts, _] := timed[k - 1]
	t < earlier
	f := lib.finding(rego.metadata.rule(), labelled({
		"msg": sprintf("history[%d] (%s) is older than history[%d] (%s)", [i, raw, before, written_as(parts)]),
		"file": ledger_file,
		"pointer": sprintf("/history/%d/timestamp", [i]),
	}))
}
