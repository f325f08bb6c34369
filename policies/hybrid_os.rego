# METADATA
# title: Hybrid_AI_OS
# description: >-
#   Runs of the hybrid-os layout (hybrid-ai-os-v1.4.md): the consistency scan the spec
#   describes (summaries and the files they list, the log and its counters), the process
#   (phases, retries, errors, the current plan) and the artifacts' references; and, for
#   the later vX.2 generation, its drift from the v1.4 vocabulary as warnings. What
#   needs a file read is in the input: which summary paths are files of the run
#   (docs.paths), the log units in order with their lines (docs.units), and what each
#   annotated artifact's file says (docs.annotations). Every rule is guarded by the
#   layout, so it never fires on another layout's runs.
# schemas:
#   - input: schema.input["hybrid-os"]
package h3a.rules.hybrid_os

import data.h3a.lib

hybrid if input.run.layout == "hybrid-os"

v14 if {
	hybrid
	input.docs.generation == "v1.4"
}

x2 if {
	hybrid
	input.docs.generation == "vX.2"
}

# METADATA
# title: Two generations' states in one root
# description: >-
#   The root holds both the v1.4 state.json and the vX.2 generation's state.txt. The run
#   is checked as v1.4, by state.json, so what state.txt says (a task blocked past its
#   retries, an error not logged) passes unchecked, while a reader may take it for the
#   run's state. hybrid-ai-os-v1.4.md, Directory Layout: "state.json # Single
#   authoritative state (optimistic lock)".
# custom:
#   id: h3a.structure.hybrid_two_states
#   category: structure
#   severity: error
#   remediation: >-
#     keep one state: delete the file of the generation the run no longer follows (git rm),
#     after carrying over to the other what it holds that the other does not
deny contains f if {
	v14
	input.files["state.json"].present
	input.files["state.txt"].present
	f := lib.finding(rego.metadata.rule(), {
		"msg": "the root holds two states, state.json (v1.4) and state.txt (vX.2); the run is checked by state.json only, so what state.txt says is not: keep one",
		"file": "state.txt",
	})
}

# state is state.json when it holds an object.
state := input.docs.state if {
	v14
	is_object(input.docs.state)
}

# --- summaries ----------------------------------------------------------------

# families are the two summaries, each with the files it lists (the files
# that hold an object).
families := [
	{"summary": "plan_summary.json", "what": "plan", "doc": input.docs.plan_summary, "files": objects(input.docs.plans)},
	{"summary": "registry_summary.json", "what": "artifact", "doc": input.docs.registry_summary, "files": objects(input.docs.artifacts)},
] if v14

objects(family) := {p: doc | some p, doc in family; is_object(doc)}

# entries lists the entries of a summary that name a path: its id, the path
# as written, and the version it recorded (null when it records none).
entries(summary) := [{"id": id, "path": p, "v": recorded_version(e)} |
	is_object(summary.map)
	some id, e in summary.map
	p := entry_path(e)
	p != ""
]

entry_path(e) := e if is_string(e)

else := lib.str(lib.get(e, "path"))

recorded_version(e) := v if {
	is_object(e)
	v := lib.int64(e.v)
} else := null

# named holds for a string that is not empty.
named(x) if {
	is_string(x)
	x != ""
}

# id_of is an object's id when it is a string, else "".
id_of(x) := lib.str(lib.get(x, "id"))

map_pointer(id) := concat("", ["/map/", lib.escape_token(id)])

# METADATA
# title: Summary and files disagree
# description: >-
#   A plan_summary.json or registry_summary.json entry points at a file that does not
#   exist, or a plan or artifact file is not in its summary (an orphan), or an
#   artifact's loc names a missing file. hybrid-ai-os-v1.4.md, Consistency Check:
#   "Verify summary mappings to physical files. Detect orphans"; Summaries: "map
#   identifiers to file paths".
# custom:
#   id: h3a.integrity.hybrid_orphan
#   category: integrity
#   severity: error
#   remediation: >-
#     re-run the consistency scan's repair: add the missing summary entry or remove the
#     entry whose file is gone, in the same write as the file
deny contains f if {
	some item in orphans
	f := lib.finding(rego.metadata.rule(), item)
}

orphans contains item if {
	some fam in families
	not is_object(fam.doc)
	n := count(fam.files)
	n > 0
	not input.files[fam.summary].present
	item := {
		"msg": sprintf("%s is missing but %d %s file(s) exist; every %s file must be in its summary", [fam.summary, n, fam.what, fam.what]),
		"file": fam.summary,
	}
}

orphans contains item if {
	some fam in families
	some e in entries(fam.doc)
	target := input.docs.paths[e.path]
	not fam.files[target.clean]
	not target.file
	item := {
		"msg": sprintf("%s %q points at %q, which does not exist", [fam.what, e.id, e.path]),
		"file": fam.summary,
		"pointer": map_pointer(e.id),
	}
}

orphans contains item if {
	some fam in families
	some e in entries(fam.doc)
	doc := fam.files[input.docs.paths[e.path].clean]
	id := doc.id
	named(id)
	id != e.id
	item := {
		"msg": sprintf("%s %q points at %q, whose id is %q", [fam.what, e.id, e.path, id]),
		"file": fam.summary,
		"pointer": map_pointer(e.id),
	}
}

orphans contains item if {
	some fam in families
	is_object(fam.doc)
	listed := {e.path | some e in entries(fam.doc)}
	some p, doc in fam.files
	not p in listed
	item := {
		"msg": sprintf("%s file %q is not in %s (an orphan); expected an entry mapping %q to it", [fam.what, p, fam.summary, id_of(doc)]),
		"file": p,
	}
}

orphans contains item if {
	some p, a in artifacts
	fact := input.docs.annotations[p]
	fact.missing
	item := {
		"msg": sprintf("artifact %q has loc %q, which does not exist", [id_of(a), fact.loc]),
		"file": p,
		"pointer": "/loc",
	}
}

# METADATA
# title: Duplicate id
# description: >-
#   Two plan files, or two artifact records, carry the same id, so the summary can point
#   at only one of them. hybrid-ai-os-v1.4.md, Consistency Check: "Detect orphans,
#   duplicate ids, version drift".
# custom:
#   id: h3a.integrity.hybrid_duplicate_id
#   category: integrity
#   severity: error
#   remediation: give one of them a new id and register it under that id
deny contains f if {
	some fam in families
	some p, doc in fam.files
	id := doc.id
	named(id)
	first := min({q | some q, other in fam.files; other.id == id})
	first != p
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s id %q is also the id of %s; ids must be unique", [fam.what, id, first]),
		"file": p,
		"pointer": "/id",
	})
}

# METADATA
# title: File version differs from its summary
# description: >-
#   A plan or artifact file's v is not the version its summary recorded at the last
#   write: a write finished on one side only (the spec's BLK_SUM/BLK_PSUM case) and was
#   never reconciled. hybrid-ai-os-v1.4.md, Consistency Check: "Detect orphans, duplicate
#   ids, version drift"; Summaries: "updated after each successful write of a
#   corresponding entity".
# custom:
#   id: h3a.integrity.hybrid_version_drift
#   category: integrity
#   severity: error
#   remediation: re-read the file and write the summary entry with the file's current v, then clear the blocked state
deny contains f if {
	some fam in families
	some e in entries(fam.doc)
	e.v != null
	p := input.docs.paths[e.path].clean
	v := lib.int64(fam.files[p].v)
	v != e.v
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %q has v %d but %s last recorded v %d", [fam.what, e.id, v, fam.summary, e.v]),
		"file": p,
		"pointer": "/v",
	})
}
