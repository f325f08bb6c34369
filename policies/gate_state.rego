# METADATA
# title: Gate-state pipelines
# description: >-
#   Runs of the gate-state layout (gate-state-management.md): a .state/ folder of
#   pipeline files and gate outputs, grouped by their name prefix ("" for the guide's
#   short names, pipeline.json and gate1-output.json). The shapes are the
#   schemas' to check (h3a.schema.violation); these rules hold the documents to one
#   another and to their file names. A gate output is read under the guide's field
#   names (input.docs.pipelines[_].gates[_].doc); a finding about a field the file
#   names otherwise points at the name it uses (read_from). Every rule is guarded
#   by the layout, so it never fires on another layout's runs. Each rule quotes the
#   section of gate-state-management.md it enforces.
# schemas:
#   - input: schema.input["gate-state"]
package h3a.rules.gate_state

import data.h3a.lib

gate_state if input.run.layout == "gate-state"

pipelines := lib.items(input.docs.pipelines) if gate_state

# pass_score is the validation score at which a gate counts as SUCCESS.
pass_score := 70

# final_gate is the orchestrator's completion mark: the guide pushes it onto
# completedGates without writing an output for it.
final_gate := 5

# gate_from_number reads a gate number written as a JSON number: a whole
# number from 0 to a million (model.gate_from_name reads "G1" and the like).
gate_from_number(v) := floor(v) if {
	is_number(v)
	v >= 0
	v <= 1000000
	floor(v) == v
}

# gates(p) maps each gate number of pipeline p (from its output's file
# name) to the gate output.
gates(p) := {to_number(key): g | some key, g in p.gates; regex.match(`^[0-9]+$`, key)}

# output_file names the output file gate n of pipeline p would have: the
# guide's short name (.state/gate1-output.json) for a pipeline whose files
# have no name prefix.
output_file(p, n) := sprintf(".state/%s", [output_name(p, n)])

output_name(p, n) := sprintf("gate%d-output.json", [n]) if p.prefix == ""

else := sprintf("%s-gate%d-output.json", [p.prefix, n])

# pipeline_file names the pipeline file of pipeline p.
pipeline_file(p) := ".state/pipeline.json" if p.prefix == ""

else := sprintf(".state/%s-pipeline.json", [p.prefix])

# prefix_text names pipeline p in a message.
prefix_text(p) := "(no name prefix)" if p.prefix == ""

else := p.prefix

# gate_list says gate numbers in a message: "gate 2", "gates 1, 2".
gate_list(numbers) := sprintf("gate %d", numbers) if count(numbers) == 1

else := sprintf("gates %s", [concat(", ", [sprintf("%d", [n]) | some n in numbers])])

# field_pointer is where the file holds one of the guide's fields: under the
# sibling documents' name when it used that one instead.
field_pointer(g, field) := concat("", ["/", object.get(g.read_from, field, field)])

# misnamed gives the domain-feature a document's metadata names when its
# file's prefix is neither that nor a request id (the older naming puts a
# request id, which the document need not repeat, where domain-feature
# stands: a prefix that does not start with the document's domain is taken
# for one). Undefined when the name fits or the metadata has no domain and
# feature (a shape problem, the schema's to report).
misnamed(prefix, doc) := want if {
	md := doc.metadata
	is_string(md.domain)
	is_string(md.feature)
	want := concat("-", [md.domain, md.feature])
	prefix != want
	object.get(doc, "requestId", null) != prefix
	object.get(md, "requestId", null) != prefix
	startswith(prefix, concat("", [md.domain, "-"]))
}

# completed(p) lists [index, gate] of each gate number in completedGates.
completed(p) := [[i, n] | some i, v in lib.items(lib.get(p.pipeline, "completedGates")); n := gate_from_number(v)]

# last_completed(p, i) is the highest gate completed before index i of
# completedGates, -1 for none.
last_completed(p, i) := max({n | some [j, n] in completed(p); j < i} | {-1})

# METADATA
# title: Gate output uses a sibling document's field names
# description: >-
#   The file uses agentName, outputData, validationResult (0–1 score) or executionTrace,
#   the names of the guide's sibling documents; they are read as agent, output and
#   validation. gate-state-management.md, Standardized Schema: "agent", "output",
#   "validation: { score: <0_TO_100>, ... }". Information only: the guide's siblings
#   spell them so.
# custom:
#   id: h3a.schema.gate_state_variant
#   category: schema
#   severity: info
#   remediation: nothing to do, or rename the fields to the guide's names
warn contains f if {
	some p in pipelines
	some g in p.gates
	is_object(g.doc)
	count(g.variants) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("uses %s of the guide's sibling documents, read as the guide's fields", [concat(", ", g.variants)]),
		"file": g.path,
	})
}

# METADATA
# title: Gate output says one field twice, differently
# description: >-
#   The file writes one of the guide's fields under both names, the guide's and its
#   sibling documents' (agent and agentName, output and outputData, validation and
#   validationResult, whose 0–1 score is compared on the 0–100 scale), with different
#   values. The rules read the guide's name, so the other value, which may be a failed
#   validation, would go unread; which one the gate meant cannot be told from the file,
#   so a person decides (needs-human, exit 3). gate-state-management.md, Standardized
#   Schema: each gate output has one "agent", one "output" and one "validation: {
#   score: <0_TO_100>, issues: [...], passed: <BOOLEAN> }".
# custom:
#   id: h3a.schema.gate_state_conflict
#   category: schema
#   severity: warning
#   remediation: keep one of the two fields, the one that says what the gate did
warn contains f if {
	some p in pipelines
	some g in p.gates
	is_object(g.doc)
	some c in lib.items(object.get(g, "conflicts", []))
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("has both %s and %s with different values; %s is read and %s would go unread: a person must decide which holds", [c.field, c.variant, c.field, c.variant]),
		"file": g.path,
		"pointer": concat("", ["/", c.variant]),
		"needs_human": true,
	})
}

# METADATA
# title: File name disagrees with the document
# description: >-
#   A gate output's file name {domain}-{feature}-gate{N}-output.json must carry the
#   document's gate number, and its domain and feature; a pipeline file's name its
#   domain and feature. gate-state-management.md, File Naming Convention: "**Format:**
#   `{domain}-{feature}-gate{N}-output.json`"; Constraints, ALWAYS: "Use consistent
#   domain-feature naming pattern".
# custom:
#   id: h3a.traceability.gate_state_file_name
#   category: traceability
#   severity: error
#   remediation: rename the file, or correct gate/metadata in the document
deny contains f if {
	some item in misnamed_files
	f := lib.finding(rego.metadata.rule(), item)
}

misnamed_files contains item if {
	some p in pipelines
	some n, g in gates(p)
	is_object(g.doc)
	written := gate_from_number(g.doc.gate)
	written != n
	item := {
		"msg": sprintf("file is named for gate %d but gate is %d", [n, written]),
		"file": g.path,
		"pointer": field_pointer(g, "gate"),
	}
}

misnamed_files contains item if {
	some p in pipelines
	some g in p.gates
	is_object(g.doc)
	want := misnamed(p.prefix, g.doc)
	item := {"msg": sprintf("file is named %q but metadata says domain-feature %q", [p.prefix, want]), "file": g.path, "pointer": "/metadata"}
}

misnamed_files contains item if {
	some p in pipelines
	is_object(p.pipeline)
	want := misnamed(p.prefix, p.pipeline)
	item := {"msg": sprintf("file is named %q but metadata says domain-feature %q", [p.prefix, want]), "file": p.path, "pointer": "/metadata"}
}

# METADATA
# title: Gate output names another page than its pipeline
# description: >-
#   A gate output's metadata.url, when it names a page, is its pipeline's: every gate runs
#   on the pipeline's metadata and writes the request's url into its output. An output
#   naming another page validated that page, so its SUCCESS says nothing about the one the
#   pipeline works on, and completedGates would count it. gate-state-management.md,
#   Pattern 5: Orchestration Pipeline State: "url: request.url" and "await
#   executeGate(gate, pipelineState.metadata)"; Pattern 4: Write State File: "metadata: {
#   domain: metadata.domain, feature: metadata.feature, url: input.url }". A trailing "/"
#   and the case of scheme and host do not count.
# custom:
#   id: h3a.traceability.gate_state_url
#   category: traceability
#   severity: error
#   remediation: >-
#     run the gate again on the pipeline's page, or, if the pipeline's url is the wrong
#     one, start a pipeline for the page the gates ran on
deny contains f if {
	some p in pipelines
	is_object(p.pipeline)
	want := page(lib.get(p.pipeline, "metadata"))
	some g in p.gates
	is_object(g.doc)
	got := page(lib.get(g.doc, "metadata"))
	same_page(got, want) == false
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("metadata.url is %q, but the pipeline %s works on %q: the gate ran on another page", [got, pipeline_file(p), want]),
		"file": g.path,
		"pointer": "/metadata/url",
	})
}

# page is the url a document's metadata names, when it names one.
page(md) := md.url if {
	is_object(md)
	lib.filled(md.url)
}

# same_page compares two urls as one page: surrounding space and a trailing
# "/" dropped, scheme and host in any case.
same_page(a, b) := page_key(a) == page_key(b)

page_key(u) := key if {
	t := trim_right(trim_space(u), "/")
	parts := regex.find_all_string_submatch_n(`^([A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)(.*)$`, t, 1)
	count(parts) == 1
	key := concat("", [lower(parts[0][1]), parts[0][2]])
} else := trim_right(trim_space(u), "/")

# METADATA
# title: Gate status disagrees with its score
# description: >-
#   A SUCCESS gate has a validation score of at least 70; a PARTIAL gate scores below
#   70. gate-state-management.md, Pattern 4: Write State File: "status: validationScore
#   >= 70 ? \"SUCCESS\" : \"PARTIAL\"". A SUCCESS gate with passed false, or a FAILED
#   gate with passed true, is a warning: the guide does not tie passed to the status. The
#   first asks a human, since the output says both that it passed and that it did not,
#   and a warning alone would leave the run green.
# custom:
#   id: h3a.gates.gate_state_score
#   category: gates
#   severity: error
#   remediation: set the status from the validation score, or correct the score
deny contains f if {
	some item in score_problems
	f := lib.finding(rego.metadata.rule(), item)
}

score_problems contains item if {
	some [g, score] in scored
	g.doc.status == "SUCCESS"
	score < pass_score
	item := {
		"msg": sprintf("status is SUCCESS but validation score is %v, expected at least %d", [score, pass_score]),
		"file": g.path,
		"pointer": concat("", [field_pointer(g, "validation"), "/score"]),
	}
}

score_problems contains item if {
	some [g, score] in scored
	g.doc.status == "PARTIAL"
	score >= pass_score
	item := {
		"msg": sprintf("status is PARTIAL but validation score is %v, expected below %d (or status SUCCESS)", [score, pass_score]),
		"file": g.path,
		"pointer": concat("", [field_pointer(g, "validation"), "/score"]),
	}
}

score_problems contains item if {
	some [status, passed] in [["SUCCESS", false], ["FAILED", true]]
	some p in pipelines
	some g in p.gates
	g.doc.status == status
	g.doc.validation.passed == passed
	item := object.union(
		{
			"msg": sprintf("status is %s but validation passed is %v", [status, passed]),
			"file": g.path,
			"pointer": concat("", [field_pointer(g, "validation"), "/passed"]),
			"severity": "warning",
		},
		{"needs_human": true | status == "SUCCESS"},
	)
}

# scored lists [gate, score] of every gate output with a finite score.
scored contains [g, score] if {
	some p in pipelines
	some g in p.gates
	score := g.doc.validation.score
	lib.finite(score)
}

# METADATA
# title: Gate output without the previous gate's
# description: >-
#   Gate N reads gate N−1's output, so gate N's file exists only if gate N−1's does
#   (gate 0 is optional). gate-state-management.md, Pattern 2: Pre-Flight Validation:
#   "✗ GATE 1 output file missing: .state/gate1-output.json → Remediation: Ensure GATE 1
#   completed successfully"; Constraints, NEVER: "Skip writing state files".
# custom:
#   id: h3a.gates.gate_state_gate_order
#   category: gates
#   severity: error
#   remediation: run the previous gate first, or remove the out-of-order output
deny contains f if {
	some p in pipelines
	by_number := gates(p)
	some n, g in by_number
	n > 1
	not by_number[n - 1]
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("gate %d's output exists but gate %d's does not (expected %s)", [n, n - 1, output_name(p, n - 1)]),
		"file": g.path,
	})
}
