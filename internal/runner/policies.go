// The policy stage's engine, compiled in the background while the runs
// are found and loaded.

package runner

import (
	"context"

	"github.com/h3a-check/h3a-check/internal/policy"
)

// pendingPolicies is the policy engine being compiled in the background.
type pendingPolicies struct {
	done   chan struct{}
	engine *policy.Engine
	err    error
}

// loadPolicies starts compiling the shipped and --policy rules.
func loadPolicies(ctx context.Context, rules Rules) *pendingPolicies {
	p := &pendingPolicies{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.engine, p.err = policy.Load(ctx, policy.Options{Dirs: rules.PolicyDirs, Sources: rules.PolicySources, Timeout: rules.PolicyTimeout, Debug: rules.PolicyDebug})
	}()
	return p
}

// wait returns the compiled engine, or why the policies cannot be used.
func (p *pendingPolicies) wait() (*policy.Engine, error) {
	<-p.done
	return p.engine, p.err
}
