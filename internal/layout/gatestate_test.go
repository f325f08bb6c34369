package layout

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestGateStateSynonymScore(t *testing.T) {
	gd := normaliseGate(map[string]any{"validationResult": map[string]any{"score": jsonNumber("0.57")}, "agentName": "A"})
	val, _ := gd.doc["validation"].(map[string]any)
	if s, _ := jsonFloat(val["score"]); s != 57 || gd.doc["agent"] != "A" {
		t.Errorf("normalised %+v, want agent A and score 57", gd.doc)
	}
	if !slices.Equal(gd.variants, []string{"agentName", "validationResult"}) {
		t.Errorf("variants %q", gd.variants)
	}
	// A finding about a field points where the file holds it.
	for field, want := range map[string]string{"validation": "/validationResult", "agent": "/agentName", "output": "/output"} {
		if got := gd.pointer(field); got != want {
			t.Errorf("pointer(%q) = %q, want %q", field, got, want)
		}
	}
}

func jsonNumber(s string) any { return json.Number(s) }
