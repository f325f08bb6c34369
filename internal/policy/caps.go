package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// forbidden are builtins that are deterministic by OPA's own flag but still
// have no place in a checker whose verdict must depend on the run alone:
// signature verification reads the clock, certificate verification too, and
// opa.runtime exposes the environment.
var forbidden = map[string]bool{
	"opa.runtime":                               true,
	"io.jwt.encode_sign":                        true,
	"io.jwt.encode_sign_raw":                    true,
	"io.jwt.decode_verify":                      true,
	"io.jwt.verify_es256":                       true,
	"io.jwt.verify_es384":                       true,
	"io.jwt.verify_es512":                       true,
	"io.jwt.verify_hs256":                       true,
	"io.jwt.verify_hs384":                       true,
	"io.jwt.verify_hs512":                       true,
	"io.jwt.verify_ps256":                       true,
	"io.jwt.verify_ps384":                       true,
	"io.jwt.verify_ps512":                       true,
	"io.jwt.verify_rs256":                       true,
	"io.jwt.verify_rs384":                       true,
	"io.jwt.verify_rs512":                       true,
	"io.jwt.verify_eddsa":                       true,
	"crypto.x509.parse_and_verify_certificates": true,
	"crypto.x509.parse_and_verify_certificates_with_options": true,
	"json.match_schema":  true,
	"json.verify_schema": true,
	// These run as long as their input makes them, and never look at the
	// evaluation's deadline: nested template loops, a deeply nested query.
	"strings.render_template":  true,
	"graphql.is_valid":         true,
	"graphql.parse":            true,
	"graphql.parse_and_verify": true,
	"graphql.parse_query":      true,
	"graphql.parse_schema":     true,
	"graphql.schema_is_valid":  true,
}

// Capabilities returns the language surface policies may use: this OPA's
// builtins without any nondeterministic one (http.send, net.lookup_ip_addr,
// time.now_ns, rand.intn, uuid.rfc4122, ...) and without the ones above, and
// no network host at all. A policy calling a removed builtin fails to
// compile with "undefined function" at its file and line.
func Capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := make([]*ast.Builtin, 0, len(caps.Builtins))
	for _, b := range caps.Builtins {
		if b.Nondeterministic || forbidden[b.Name] {
			continue
		}
		kept = append(kept, b)
	}
	caps.Builtins = kept
	caps.AllowNet = []string{} // empty, not nil: nil would mean "any host"
	return caps
}
