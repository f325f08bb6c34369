# The artifacts: references to artifacts and issues, and what their files say.
# (The package and its metadata: hybrid_os.rego.)
package h3a.rules.hybrid_os

import data.h3a.lib

artifacts := objects(input.docs.artifacts) if v14

# registered holds the id of every artifact ("" for one without a string id).
registered := {id_of(a) | some a in artifacts}

# issue_statuses gives the status of each issue of known_issues.json.
issue_statuses := {id: lib.str(lib.get(issue, "st")) | some id, issue in input.docs.known_issues.issues} if is_object(input.docs.known_issues.issues)

else := {}

has_issues if is_object(input.docs.known_issues)

# METADATA
# title: Reference to an unknown artifact or issue
# description: >-
#   A Depends on list or dep[] names an artifact id that is not registered, or an Issue:
#   tag or ki[] names an issue that known_issues.json does not hold.
#   hybrid-ai-os-v1.4.md, Task Execution Output Schema: `"dep": ["<artifact id>"]`;
#   Annotation Rules: "`// Depends on: [ArtifactID]` list", "`// Issue: <issueId>` tags";
#   Issue Handling: "RECORD: add issue entry, link id into artifact `ki[]`".
# custom:
#   id: h3a.traceability.hybrid_unknown_reference
#   category: traceability
#   severity: error
#   remediation: register the artifact or issue, or correct the id
deny contains f if {
	some item in unknown_references
	f := lib.finding(rego.metadata.rule(), item)
}

unknown_references contains item if {
	some p, a in artifacts
	some i, dep in lib.string_items(lib.get(a, "dep"))
	not dep in registered
	item := {
		"msg": sprintf("artifact %q depends on %q, which is not a registered artifact", [id_of(a), dep]),
		"file": p,
		"pointer": sprintf("/dep/%d", [i]),
	}
}

unknown_references contains item if {
	has_issues
	some p, a in artifacts
	some i, issue in lib.string_items(lib.get(a, "ki"))
	not issue in object.keys(issue_statuses)
	item := {
		"msg": sprintf("artifact %q links issue %q, which known_issues.json does not hold", [id_of(a), issue]),
		"file": p,
		"pointer": sprintf("/ki/%d", [i]),
	}
}

unknown_references contains item if {
	some p, fact in annotations
	some dep in lib.items(fact.depends_on)
	not dep in registered
	item := {
		"msg": sprintf("%s says it depends on %q, which is not a registered artifact", [fact.loc, dep]),
		"file": p,
		"pointer": "/loc",
	}
}

unknown_references contains item if {
	has_issues
	some p, fact in annotations
	some issue in fact.issues
	not issue in object.keys(issue_statuses)
	item := {
		"msg": sprintf("%s tags issue %q, which known_issues.json does not hold", [fact.loc, issue]),
		"file": p,
		"pointer": "/loc",
	}
}

# METADATA
# title: Resolved issue still linked
# description: >-
#   RESOLVE unlinks an issue from its artifacts; an artifact whose ki[] still names an
#   issue that is RES was not updated. hybrid-ai-os-v1.4.md, Issue Handling: "RESOLVE:
#   mark `known_issues.json`, unlink from artifact".
# custom:
#   id: h3a.traceability.hybrid_resolved_issue_linked
#   category: traceability
#   severity: error
#   remediation: remove the issue id from the artifact's ki[] in the same write that resolved it
deny contains f if {
	some p, a in artifacts
	some i, issue in lib.string_items(lib.get(a, "ki"))
	issue_statuses[issue] == "RES"
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("artifact %q still links issue %q, which is resolved (RES); resolving unlinks it", [id_of(a), issue]),
		"file": p,
		"pointer": sprintf("/ki/%d", [i]),
	})
}

# cached_issues are the ids state.json iss caches: its keys when it is an
# object, its strings when it is an array.
cached_issues := object.keys(state.iss) if is_object(state.iss)

else := {id | some id in state.iss; is_string(id)} if is_array(state.iss)

iss_pointer(id) := concat("", ["/iss/", lib.escape_token(id)]) if is_object(state.iss)

else := sprintf("/iss/%d", [min({i | some i, x in state.iss; x == id})])

# METADATA
# title: Active-issue cache differs from known_issues.json
# description: >-
#   state.json iss caches the active issues: every id it holds is an ACTIVE issue of
#   known_issues.json, and every ACTIVE issue is in it. hybrid-ai-os-v1.4.md, state.json:
#   "iss | obj | Active issues cache"; Issue Ledger: "status ACTIVE / RES"; Startup
#   Sequence: "Load active issues into memory".
# custom:
#   id: h3a.traceability.hybrid_issue_cache
#   category: traceability
#   severity: error
#   remediation: >-
#     rebuild iss from known_issues.json: the ids of its ACTIVE issues, in the same write
#     that records or resolves an issue
deny contains f if {
	some item in issue_cache_problems
	f := lib.finding(rego.metadata.rule(), item)
}

issue_cache_problems contains item if {
	has_issues
	some id in cached_issues
	not issue_statuses[id] == "ACTIVE"
	item := {
		"msg": sprintf("iss caches issue %q, which is %s in known_issues.json; the cache holds the ACTIVE issues", [id, issue_state_text(id)]),
		"file": "state.json",
		"pointer": iss_pointer(id),
	}
}

issue_cache_problems contains item if {
	has_issues
	cached_issues
	some id, st in issue_statuses
	st == "ACTIVE"
	not id in cached_issues
	item := {
		"msg": sprintf("issue %q is ACTIVE in known_issues.json but iss does not cache it", [id]),
		"file": "state.json",
		"pointer": "/iss",
	}
}

issue_state_text(id) := sprintf("%q", [issue_statuses[id]]) if issue_statuses[id]

else := "missing"

# METADATA
# title: Record in another domain's folder
# description: >-
#   An artifact record's dom (or a plan's, when it has one) is not the <dom> folder it
#   sits in. hybrid-ai-os-v1.4.md, Directory Layout: "registry/ └── <domain>/<id>.json #
#   Artifact records", "plans/ └── <domain>/<id>.json"; Task Execution Output Schema:
#   `"dom": "<registry domain>"`.
# custom:
#   id: h3a.integrity.hybrid_domain_mismatch
#   category: integrity
#   severity: error
#   remediation: move the record to the folder of its dom and update its summary entry, or correct dom
deny contains f if {
	some fam in families
	some p, doc in fam.files
	dom := doc.dom
	is_string(dom)
	folder := split(p, "/")[1]
	dom != folder
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s %q has dom %q but sits in %s/; a record sits in the folder of its domain", [fam.what, id_of(doc), dom, concat("/", array.slice(split(p, "/"), 0, 2))]),
		"file": p,
		"pointer": "/dom",
	})
}

# annotations are the annotated artifacts' files the checker could read.
annotations := {p: fact | some p, fact in input.docs.annotations; artifacts[p]; not fact.missing}

# METADATA
# title: Artifact lacks its annotations
# description: >-
#   A code, config or doc artifact registered with a loc inside the repository must
#   embed a purpose statement ("Purpose:") and a "Depends on: [ids]" list; the Validator
#   rejects artifacts without them. hybrid-ai-os-v1.4.md, Annotation Rules: "Code,
#   config, and doc artifacts created or modified in phase C must embed: Purpose
#   statement. [...] `// Depends on: [ArtifactID]` list", "Validator rejects artifacts
#   lacking these annotations".
# custom:
#   id: h3a.evidence.hybrid_annotation_missing
#   category: evidence
#   severity: error
#   remediation: add the purpose statement and the Depends on list to the file and re-validate the task
deny contains f if {
	some p, fact in annotations
	lacks := [what |
		some [what, has] in [
			[`a purpose statement ("Purpose: …")`, fact.purpose],
			[`a "Depends on: [ids]" list`, fact.depends_on != null],
		]
		not has
	]
	count(lacks) > 0
	f := lib.finding(rego.metadata.rule(), {
		"msg": sprintf("%s artifact %q at %q lacks %s", [lib.str(lib.get(artifacts[p], "type")), id_of(artifacts[p]), fact.loc, concat(" and ", lacks)]),
		"file": p,
		"pointer": "/loc",
	})
}
