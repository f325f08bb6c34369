package rundir

import (
	"fmt"
	"regexp"
	"time"
)

var runIDPattern = regexp.MustCompile(`^([0-9]{8})-([0-9]{6})-([0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{12})$`)

// CheckRunID reports why name is not a run id of the form
// YYYYMMDD-HHMMSS-<uuid4>: a real UTC date and time and a version-4,
// RFC 4122 variant UUID in lower case. It returns "" for a valid id.
func CheckRunID(name string) string {
	m := runIDPattern.FindStringSubmatch(name)
	if m == nil {
		return fmt.Sprintf("%q is not of the form YYYYMMDD-HHMMSS-<uuid4> (e.g. 20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a)", name)
	}
	if _, err := time.Parse("20060102-150405", m[1]+"-"+m[2]); err != nil {
		return fmt.Sprintf("%q does not start with a real date and time (%s-%s)", name, m[1], m[2])
	}
	if m[4] != "4" {
		return fmt.Sprintf("%q has a version-%s UUID; run ids use version 4", name, m[4])
	}
	switch m[5] {
	case "8", "9", "a", "b":
	default:
		return fmt.Sprintf("%q has a UUID whose variant digit %q is not 8, 9, a or b", name, m[5])
	}
	return ""
}
