package atomicfile

import "testing"

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]string{
		".audit.json.h3a-check-0123456789abcdef.tmp": "audit.json",
		".a.h3a-check-0123456789abcdef.tmp":          "a",
		".audit.json.h3a-check-0123456789ABCDEF.tmp": "",
		".audit.json.h3a-check-0123.tmp":             "",
		"audit.json.h3a-check-0123456789abcdef.tmp":  "",
		".audit.json.123456.tmp":                     "",
		".h3a-check-0123456789abcdef.tmp":            "",
	} {
		target, ok := IsTemp(name)
		if ok != (want != "") || target != want {
			t.Errorf("IsTemp(%q) = %q, %v; want %q", name, target, ok, want)
		}
	}
	if target, ok := IsTemp(tempName("report.sarif")); !ok || target != "report.sarif" {
		t.Errorf("a temporary name of its own is not recognised: %q, %v", target, ok)
	}
}
