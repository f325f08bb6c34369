// Package policies holds the Rego rules shipped with h3a-check (packages
// h3a.rules.<area>), their helper library (package h3a.lib) and their unit
// tests (*_test.rego). Each rule has a # METADATA block; see the package
// internal/policy for the contract between a rule and the checker.
package policies

import "embed"

// FS holds every *.rego file of this directory, tests included; the engine
// leaves *_test.rego out of the checking compiler.
//
//go:embed *.rego
var FS embed.FS
