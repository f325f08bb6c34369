# METADATA
# title: Helpers for H3A rules
# description: >-
#   Generic helpers, for the rules of any layout: shared by the shipped rules
#   and open to user rules (import data.h3a.lib; docs/policies.md lists them).
#   The h3a layout's own model (gates, ledger, tasks, verdicts) is the package
#   h3a.model. finding() is how every rule builds a result element: it takes
#   the rule id from the rule's own metadata, so an element always names its
#   rule.
package h3a.lib

# finding returns one result element of the rule whose metadata is meta:
# fields plus the rule id. Always pass rego.metadata.rule(), never a literal,
# so that an element cannot claim another rule's id.
finding(meta, fields) := object.union(fields, {"rule": meta.custom.id})

# --- documents --------------------------------------------------------------

# doc_file maps a key of input.docs to the file it was read from. A key
# that several files share (one per round of a layout with rounds) is left
# out: such rules name the file themselves.
doc_file := {key: path |
	some key, paths in doc_paths
	count(paths) == 1
	some path in paths
}

doc_paths[f.doc] contains path if some path, f in input.files

# filled holds for a string with something other than white space in it.
filled(x) if {
	is_string(x)
	trim_space(x) != ""
}

# items returns x when it is an array, else an empty array: rules iterate
# documents that may break their schema, and must not guess.
items(x) := x if is_array(x)

else := []

# get returns x[key], or null when x has none (x need not be an object):
# a rule negating a test of a member reads it through get, since a call
# whose argument is undefined is itself undefined, never false, and so is
# its negation.
get(x, key) := v if {
	v := x[key]
} else := null

# str is x when it is a string, else "".
str(x) := x if is_string(x)

else := ""

# int64 is x as a whole number when x is a number with no fractional part
# that a 64-bit integer holds (2, 2.0 and 2e0 alike); undefined for
# anything else. It judges the value, never its spelling: OPA reuses a
# function's result for arguments that are equal as numbers, so a rule
# that told 2.0 from 2 by its text would answer one way or the other
# depending on what it was asked first.
int64(x) := round(x) if {
	is_number(x)
	x >= -9223372036854775808
	x <= 9223372036854775807
	x == round(x)
}

# describe names a value for a message: a string quoted, a number as
# written, "an object", "an array", "null", "true" or "false".
describe(x) := sprintf("%q", [x]) if is_string(x)

else := json.marshal(x) if is_number(x)

else := "an object" if is_object(x)

else := "an array" if is_array(x)

else := sprintf("%v", [x])

# describe_field describes member key of object m, or says it is missing
# (also when m is no object).
describe_field(m, key) := describe(m[key]) if {
	is_object(m)
	key in object.keys(m)
} else := "missing"

# string_items returns the strings of x when it is an array (else none), in
# order: a list of ids read from a document that may hold other values.
string_items(xs) := [x | some x in items(xs); is_string(x)]

# finite holds for a number a 64-bit float can hold, as the checker's Go
# code reads numbers: 1e400 is no score.
finite(x) if {
	is_number(x)
	x <= 1.7976931348623157e308
	x >= -1.7976931348623157e308
}

# pointer renders a path (as walk() yields it) as an RFC 6901 JSON pointer.
pointer(path) := concat("", [sprintf("/%s", [escape_token(tok)]) | some tok in path])

# (replace builds a string replacer on every call, so a token without "~"
# or "/", which is nearly every one, is returned as it is.)
escape_token(tok) := tok if {
	is_string(tok)
	not contains(tok, "~")
	not contains(tok, "/")
} else := replace(replace(tok, "~", "~0"), "/", "~1") if is_string(tok)

else := sprintf("%v", [tok])

# human_event(ev): a person's decision: an event by agent "human" whose
# provenance (set by the checker, docs/trust-model.md) lies outside the
# change under review: the base holds it ("base"), a commit signed by a key
# the base names as a human's added it ("signed"), or the working tree is
# the person's own ("local"). An event with any other provenance, or none,
# is only claimed.
human_event(ev) if {
	lower(ev.agent) == "human"
	decided(ev)
}

decided(ev) if ev.provenance in decided_provenance

decided_provenance := {"base", "signed", "local"}

# claimed_human_event(ev): an event by agent "human" that the change under
# review wrote itself: a reviewer must confirm it.
claimed_human_event(ev) if {
	lower(ev.agent) == "human"
	not decided(ev) # (a ref inside "not x in y" that is undefined makes it undefined)
}

# event_gates[i] is the gate number of ledger event i (-1 for none), worked
# --- paths and evidence -------------------------------------------------------

# clean normalises a reference the way the checker reads evidence-log paths
# (rundir.CleanRef: surrounding space trimmed, a backslash read as "/", empty and
# "." elements dropped), so that every spelling that opens one file names it
# here too: a rule that looks a path up among the log's entries must find
# each entry the checker verified under that path, or a copy logged as
# "artifacts/x.txt/" or " artifacts/x.txt" escapes the rules about its
# content and its time. ".." and a leading "/" are kept: the checker refuses
# such a path, so it must match no verified one.
# A reference that needs none of it, nearly every one, is returned as it is:
# replace builds a string replacer on every call.
clean(p) := p if {
	not contains(p, `\`)
	not contains(p, "/./")
	not contains(p, "//")
	not startswith(p, "./")
	not endswith(p, "/")
	not endswith(p, "/.")
	p != "."
	trim_space(p) == p
} else := concat("", [leading_slash(s), concat("/", [e | some e in split(s, "/"); e != ""; e != "."])]) if {
	s := replace(trim_space(p), `\`, "/")
}

leading_slash(s) := "/" if startswith(s, "/")

else := ""

is_dir_ref(p) if endswith(p, "/")

# files_under lists the run's files inside folder reference p.
files_under(p) := [f | prefix := dir_prefix(clean(p)); some f in items(input.tree); startswith(f, prefix)]

# dir_prefix is what the path of every file inside folder d starts with.
dir_prefix(d) := "" if d == ""

else := concat("", [d, "/"]) if not endswith(d, "/")

else := d

# base_name is the last element of slash-separated path p.
base_name(p) := parts[count(parts) - 1] if parts := split(p, "/")

# in_tree holds when the run holds file p.
in_tree(p) if tree_set[clean(p)]

tree_set := {f | some f in items(input.tree)}

# --- time ---------------------------------------------------------------------

rfc3339 := `^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`

# time_ns parses an RFC 3339 time; undefined for anything else, so a rule
# comparing times skips a value it cannot read instead of guessing. The
# date is checked first: time.parse_rfc3339_ns fails (a builtin error) on a
# 30 February.
time_ns(s) := time.parse_rfc3339_ns(s) if {
	is_string(s)
	regex.match(rfc3339, s)
	day_exists(to_number(substring(s, 0, 4)), to_number(substring(s, 5, 2)), to_number(substring(s, 8, 2)))
}

month_days := [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

day_exists(_, month, day) if day <= month_days[month - 1]

day_exists(year, 2, 29) if leap(year)

leap(year) if {
	year % 4 == 0
	year % 100 != 0
}

leap(year) if year % 400 == 0

# --- secrets ------------------------------------------------------------------

# mask shows enough of a secret to find it, never the secret itself.
mask(s) := sprintf("%s… (%d characters, masked)", [substring(s, 0, 4), count(s)]) if count(s) > 8

else := sprintf("… (%d characters, masked)", [count(s)])
