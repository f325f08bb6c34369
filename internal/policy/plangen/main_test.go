package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/h3a-check/h3a-check/internal/longtest"
)

// TestShippedPlanIsCurrent regenerates the plan of the shipped policies and
// requires the committed internal/policy/shipped_plan.go to be exactly it,
// so the checker never evaluates a plan of rules that have since changed.
func TestShippedPlanIsCurrent(t *testing.T) {
	longtest.Skip(t)
	want, err := generate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../" + output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("internal/policy/%s is out of date with policies/*.rego: run go generate ./internal/policy", output)
	}
}
