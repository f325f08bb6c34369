package layout

import (
	"regexp"
	"strconv"
	"sync"
	"time"
)

// stigmergyTimestamp matches a timestamp as a stigmergy ledger may write it
// (ISO 8601): seconds and their fraction optional, Z or an offset with or
// without its colon.
var stigmergyTimestamp = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$`)
})

// stigmergyTimestamps gives, for the history and issue_log of a ledger,
// what each entry's timestamp says (stigmergyStamp), index for index; nil
// for an entry that is no object or has no timestamp. Parsing is Go's: the
// rules only compare the instants and name the problems.
func stigmergyTimestamps(ledger map[string]any) map[string]any {
	out := map[string]any{}
	for _, list := range []string{"history", "issue_log"} {
		entries, _ := ledger[list].([]any)
		stamps := make([]any, len(entries))
		for i, e := range entries {
			entry, ok := e.(map[string]any)
			if !ok {
				continue
			}
			if raw, ok := entry["timestamp"]; ok {
				stamps[i] = stigmergyStamp(raw)
			}
		}
		out[list] = stamps
	}
	return out
}

// stigmergyStamp reads one timestamp: iso8601 says whether it is written as
// ISO 8601, real whether it also names a real date and time (no 30
// February, no hour 24; an offset up to 24:60 is accepted, as Go reads RFC
// 3339). A real one carries its instant as [Unix seconds, nanoseconds]
// (compared as a pair: nanoseconds since 1970 overflow for years a ledger
// may write) and rfc3339, the time as Go writes it (RFC 3339 with the
// fraction's trailing zeros left out, Z for a zero offset).
func stigmergyStamp(raw any) map[string]any {
	s, _ := raw.(string)
	m := stigmergyTimestamp().FindStringSubmatch(s)
	if m == nil {
		return map[string]any{"iso8601": false, "real": false}
	}
	num := func(t string) int { n, _ := strconv.Atoi(t); return n } // digits only, matched above
	year, month, day, hour, minute := num(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5])
	sec := num("0" + m[6])
	nanos := num((m[7] + "000000000")[:9])
	sign, offH, offM := 1, num("0"+m[9]), num("0"+m[10])
	if m[8] == "-" {
		sign = -1
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || minute > 59 || sec > 59 || offH > 24 || offM > 60 {
		return map[string]any{"iso8601": true, "real": false}
	}
	zone := time.FixedZone("", sign*(offH*3600+offM*60))
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, zone)
	return map[string]any{
		"iso8601": true,
		"real":    true,
		"instant": []any{t.Unix(), t.Nanosecond()},
		"rfc3339": t.Format(time.RFC3339Nano),
	}
}

// daysIn is the number of days of month in year (proleptic Gregorian).
func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
