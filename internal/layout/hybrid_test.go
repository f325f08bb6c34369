package layout

import (
	"os"
	"testing"
)

const hybridExample = "../../testdata/runs/ok/hybrid_complete/greeter"

func TestHybridDetect(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{hybridExample, true},
		{"../../testdata/runs/ok/hybrid_x2/app", true},
		{"../../testdata/runs/ok/complete/20250929-134215-8b6f8b9a-7c9f-4c5e-8c6a-2f0f0d2e9c1a", false},
		{"../../testdata/runs/ok/hybrid_complete/greeter/plans", false},
	} {
		if got := (Hybrid{}).Detect(os.DirFS(tc.dir), "."); got != tc.want {
			t.Errorf("Detect(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}
