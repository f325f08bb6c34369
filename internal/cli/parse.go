package cli

import (
	"context"
	"fmt"

	"github.com/h3a-check/h3a-check/internal/report"
	"github.com/h3a-check/h3a-check/internal/runner"
	"github.com/h3a-check/h3a-check/internal/trust"
	"github.com/h3a-check/h3a-check/internal/trusted"
)

// runParse prints the policy input document of one run: what a policy sees
// as `input`.
func runParse(ctx context.Context, args []string, e *env) int {
	if len(args) != 1 {
		return fail(e, usageError{"parse takes one run directory"})
	}
	// The configuration's params are part of the input a policy sees.
	cfg, err := trusted.Config("", trust.Boundary{}, configChecks, new(trusted.Reads))
	if err != nil {
		return fail(e, err)
	}
	// Human decisions count as a check counts them on the person's own
	// machine; elsewhere parse reads no keys, so a decision the working
	// tree adds shows as claimed.
	opts := runner.Options{
		Scope:  runner.Scope{Paths: args, Getenv: e.getenv},
		Rules:  runner.Rules{Humans: &runner.Humans{Local: !trust.InCI(e.getenv)}},
		Record: runner.Record{ToolName: Name, ToolVersion: Version()},
		Output: runner.Output{KeepInputs: true},
	}
	if cfg != nil {
		opts.Rules.Params = cfg.Params
	}
	res, err := runner.Check(ctx, opts)
	if err != nil {
		return fail(e, err)
	}
	if len(res.Inputs) != 1 {
		return fail(e, fmt.Errorf("%s holds %d runs; parse takes exactly one run directory", args[0], len(res.Inputs)))
	}
	if res.Inputs[0] == nil {
		// A run folder that is a link, or one that cannot be opened, is
		// not read: it has no input, and "null" would pass for one.
		why := "it could not be read"
		if len(res.Audits) == 1 && len(res.Audits[0].Findings) > 0 {
			why = res.Audits[0].Findings[0].Details
		}
		return fail(e, fmt.Errorf("%s has no policy input: %s", args[0], why))
	}
	b, err := report.MarshalSorted(res.Inputs[0])
	if err != nil {
		return fail(e, err)
	}
	if _, err := e.stdout.Write(b); err != nil {
		return fail(e, fmt.Errorf("writing the policy input: %w", err))
	}
	return ExitPass
}
