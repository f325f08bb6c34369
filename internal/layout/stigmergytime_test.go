package layout

import (
	"reflect"
	"testing"
)

// TestStigmergyStamp: what the stigmergy rules are told about a ledger
// timestamp (schemas/input.stigmergy.schema.json, docs.timestamps).
func TestStigmergyStamp(t *testing.T) {
	notISO := map[string]any{"iso8601": false, "real": false}
	notReal := map[string]any{"iso8601": true, "real": false}
	real := func(sec int64, nanos int, text string) map[string]any {
		return map[string]any{"iso8601": true, "real": true, "instant": []any{sec, nanos}, "rfc3339": text}
	}
	for _, tc := range []struct {
		raw  any
		want map[string]any
	}{
		{"2025-09-01T10:00:00Z", real(1756720800, 0, "2025-09-01T10:00:00Z")},
		{"2025-09-01T10:00Z", real(1756720800, 0, "2025-09-01T10:00:00Z")},
		{"2025-09-01T10:00:00.123456789Z", real(1756720800, 123456789, "2025-09-01T10:00:00.123456789Z")},
		{"2025-09-01T10:00:00.1234567891Z", real(1756720800, 123456789, "2025-09-01T10:00:00.123456789Z")}, // past nanoseconds: cut
		{"2025-09-01T12:00:00+0200", real(1756720800, 0, "2025-09-01T12:00:00+02:00")},
		{"2025-09-01T13:30:00+02:00", real(1756726200, 0, "2025-09-01T13:30:00+02:00")},
		{"2024-02-29T10:00:00-01:30", real(1709206200, 0, "2024-02-29T10:00:00-01:30")},
		{"2025-09-01T10:00:00.500+00:60", real(1756717200, 500000000, "2025-09-01T10:00:00.5+01:00")}, // an offset's minutes carry
		{"2025-09-01T10:00:00-00:00", real(1756720800, 0, "2025-09-01T10:00:00Z")},
		{"2000-02-29T00:00:00Z", real(951782400, 0, "2000-02-29T00:00:00Z")},
		{"0000-01-01T00:00:00+24:60", real(-62167309200, 0, "0000-01-01T00:00:00+25:00")},
		{"9999-12-31T23:59:59.999999999Z", real(253402300799, 999999999, "9999-12-31T23:59:59.999999999Z")},
		{"2025-02-30T10:00:00Z", notReal},
		{"1900-02-29T00:00:00Z", notReal},
		{"2025-04-31T00:00:00Z", notReal},
		{"2025-13-01T00:00:00Z", notReal},
		{"2025-00-01T00:00:00Z", notReal},
		{"2025-09-00T00:00:00Z", notReal},
		{"2025-09-01T24:00:00Z", notReal},
		{"2025-09-01T10:60:00Z", notReal},
		{"2025-09-01T10:00:60Z", notReal},
		{"2025-09-01T10:00:00+25:00", notReal},
		{"2025-09-01T10:00:00+00:61", notReal},
		{"1 Sep 2025", notISO},
		{"2025-09-01", notISO},
		{"2025-09-01 10:00:00Z", notISO},
		{"2025-09-01T10:00:00", notISO},
		{"2025-09-01T10:00:00.Z", notISO},
		{"2025-09-01T10:00:00+2:00", notISO},
		{"2025-09-01T10:00:00Z\n", notISO},
		{"２025-09-01T10:00:00Z", notISO},
		{float64(1756720800), notISO},
		{nil, notISO},
	} {
		if got := stigmergyStamp(tc.raw); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("stigmergyStamp(%#v) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

// TestStigmergyTimestamps: one reading per entry of history and issue_log,
// index for index, nil where an entry is no object or has no timestamp.
func TestStigmergyTimestamps(t *testing.T) {
	ledger := map[string]any{
		"history":   []any{map[string]any{"timestamp": "x"}, "not an object", map[string]any{"agent": "a"}, map[string]any{"timestamp": nil}},
		"issue_log": "not a list",
	}
	got := stigmergyTimestamps(ledger)
	notISO := map[string]any{"iso8601": false, "real": false}
	want := map[string]any{"history": []any{notISO, nil, nil, notISO}, "issue_log": []any{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if got := stigmergyTimestamps(nil); !reflect.DeepEqual(got, map[string]any{"history": []any{}, "issue_log": []any{}}) {
		t.Errorf("no ledger: %v", got)
	}
}
