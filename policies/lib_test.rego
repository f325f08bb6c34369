package h3a.tests.lib

import data.h3a.lib

test_mask_never_shows_the_secret if {
	m := lib.mask("AKIAABCDEFGHIJKLMNOP")
	not contains(m, "ABCDEFGHIJKLMNOP")
	startswith(m, "AKIA")
	contains(m, "20 characters")
	lib.mask("hunter2") == "… (7 characters, masked)"
}

test_clean if {
	lib.clean("./artifacts//x.txt") == "artifacts/x.txt"
	lib.clean(`artifacts\executor\a.txt`) == "artifacts/executor/a.txt"
	lib.clean("artifacts/./x") == "artifacts/x"
	lib.clean("artifacts/x.txt") == "artifacts/x.txt"
	lib.clean(".artifacts/x") == ".artifacts/x"
}

# Every spelling the checker opens as one logged file is that file here too.
test_clean_reads_paths_as_the_checker_opens_them if {
	lib.clean("artifacts/x.txt/") == "artifacts/x.txt"
	lib.clean("artifacts/x.txt/.") == "artifacts/x.txt"
	lib.clean(" artifacts/x.txt\t") == "artifacts/x.txt"
	lib.clean("artifacts///x.txt") == "artifacts/x.txt"
	lib.clean("././artifacts/x.txt") == "artifacts/x.txt"
}

# A path the checker refuses matches no verified one.
test_clean_keeps_what_the_checker_refuses if {
	lib.clean("/artifacts/x.txt") == "/artifacts/x.txt"
	lib.clean("//artifacts/x.txt") == "/artifacts/x.txt"
	lib.clean("artifacts/../x.txt") == "artifacts/../x.txt"
}

test_files_under_a_folder_only if {
	tree := ["artifacts/executor/a.txt", "artifacts/executor2/b.txt", "state.json"]
	lib.files_under("artifacts/executor/") == ["artifacts/executor/a.txt"] with input.tree as tree
	lib.files_under("./artifacts//executor/") == ["artifacts/executor/a.txt"] with input.tree as tree
}

test_time_ns if {
	lib.time_ns("2025-09-29T14:05:30Z") < lib.time_ns("2025-09-29T14:05:31Z")
	lib.time_ns("2025-09-29T21:05:30+07:00") == lib.time_ns("2025-09-29T14:05:30Z")
	lib.time_ns("2025-09-29T14:05:30.500Z") > lib.time_ns("2025-09-29T14:05:30Z")
	not lib.time_ns("yesterday")
	not lib.time_ns("2025-13-01T00:00:00Z")
	not lib.time_ns("2025-02-29T00:00:00Z")
	not lib.time_ns("2025-04-31T00:00:00Z")
	lib.time_ns("2024-02-29T00:00:00Z")
	lib.time_ns("2000-02-29T00:00:00Z")
	not lib.time_ns("1900-02-29T00:00:00Z")
	not lib.time_ns(20250929)
}

test_items if {
	lib.items([1]) == [1]
	lib.items(null) == []
	lib.items({"a": 1}) == []
}

test_pointer_escapes if {
	lib.pointer(["steps", 0, "a/b~c"]) == "/steps/0/a~1b~0c"
	lib.pointer(["steps", 0, "a~b", "plain"]) == "/steps/0/a~0b/plain"
}

test_doc_file if {
	lib.doc_file.state == "state.json" with input.files as {"state.json": {"doc": "state"}}
}

test_int64_judges_the_value if {
	lib.int64(2) == 2
	json.marshal(lib.int64(2.0)) == "2"
	lib.int64(2e0) == 2
	lib.int64(-9223372036854775808) == -9223372036854775808
	not lib.int64(2.5)
	not lib.int64(9223372036854775808)
	not lib.int64(1e300)
	not lib.int64("2")
	not lib.int64(null)
}

test_string_items if {
	lib.string_items(["a", 1, null, "b"]) == ["a", "b"]
	lib.string_items("a") == []
}

test_base_name if {
	lib.base_name("rounds/round-1/verdict.json") == "verdict.json"
	lib.base_name("summary.json") == "summary.json"
}
