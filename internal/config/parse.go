package config

import (
	"fmt"
	"github.com/h3a-check/h3a-check/internal/textdist"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/waiver"
)

// rawConfig is decoded strictly (KnownFields): its yaml tags are the only
// accepted keys. params, severity and waivers stay nodes and are checked
// here, because the decoder drops a list element that fails (which would
// misnumber the waivers) and keeps no position for mapping keys.
type rawConfig struct {
	Paths         []str     `yaml:"paths"`
	Layout        str       `yaml:"layout"`
	Base          str       `yaml:"base"`
	Policies      []str     `yaml:"policies"`
	Params        yaml.Node `yaml:"params"`
	Severity      yaml.Node `yaml:"severity"`
	FailLevel     str       `yaml:"fail-level"`
	Waivers       yaml.Node `yaml:"waivers"`
	MaxWaiverDays yaml.Node `yaml:"max-waiver-days"`
	Evidence      yaml.Node `yaml:"evidence"`
	Humans        yaml.Node `yaml:"humans"`
}

// str is a scalar with its position. Implementing yaml.Unmarshaler only on
// scalars keeps the strict decoding of every mapping around them.
type str Str

func (s *str) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		// A *yaml.TypeError is collected and decoding goes on, so every
		// problem of the file is reported at once.
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: column %d: expected a single value, got %s", n.Line, n.Column, kindName(n))}}
	}
	*s = str{Value: n.Value, Line: n.Line, Column: n.Column}
	return nil
}

const (
	maxParamDepth = 32
	maxParamNodes = 10000
)

type parser struct {
	cfg    *Config
	checks Checks
	errs   Errors
	params int // nodes converted so far
}

func (p *parser) errorf(line, col int, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.cfg.File, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) check(raw *rawConfig) {
	c := p.cfg
	for _, s := range raw.Paths {
		if p.nonEmpty("paths", s) {
			c.Paths = append(c.Paths, Str(s))
		}
	}
	for _, s := range raw.Policies {
		if p.nonEmpty("policies", s) {
			c.Policies = append(c.Policies, Str(s))
		}
	}
	if raw.Layout.Line > 0 && p.nonEmpty("layout", raw.Layout) {
		c.Layout = Str(raw.Layout)
		if p.checks.Layout != nil {
			if msg := p.checks.Layout(raw.Layout.Value); msg != "" {
				p.errorf(raw.Layout.Line, raw.Layout.Column, "%s", msg)
			}
		}
	}
	if raw.Base.Line > 0 && p.nonEmpty("base", raw.Base) {
		c.Base = Str(raw.Base)
	}
	if fl := raw.FailLevel; fl.Line > 0 {
		if fl.Value == "error" || fl.Value == "warning" {
			c.FailLevel = Str(fl)
		} else {
			p.errorf(fl.Line, fl.Column, "fail-level %q: expected \"error\" or \"warning\"", fl.Value)
		}
	}
	p.checkSeverity(&raw.Severity)
	p.checkParams(&raw.Params)
	p.checkWaivers(&raw.Waivers)
	p.checkMaxWaiverDays(&raw.MaxWaiverDays)
	p.checkEvidence(&raw.Evidence)
	p.checkHumans(&raw.Humans)
}

// checkEvidence reads evidence: {min-hash-digits: N}, N a whole number
// from the spec's 16 to a whole SHA-256 digest's 64.
func (p *parser) checkEvidence(n *yaml.Node) {
	for _, kv := range p.section("evidence", n, EvidenceKeys, strings.Join(EvidenceKeys, ", ")) {
		v := kv[1]
		d, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || err != nil || d < evidence.SpecDigits || d > evidence.DigestDigits {
			p.errorf(v.Line, v.Column, "evidence: min-hash-digits %s: expected a whole number from %d (the spec's) to %d (a whole SHA-256 digest)",
				kindName(v), evidence.SpecDigits, evidence.DigestDigits)
			continue
		}
		p.cfg.Evidence = Evidence{MinHashDigits: d, Line: v.Line, Column: v.Column}
	}
}

// section reads a mapping of known keys under the top-level key where:
// nothing when it is absent or null; otherwise every entry whose key is
// one of keys and not a repeat, in file order, with an error at each that
// is not. expected names the keys in the message for a value that is not
// a mapping.
func (p *parser) section(where string, n *yaml.Node, keys []string, expected string) [][2]*yaml.Node {
	if n.Kind == 0 || isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, n.Column, "%s: expected a mapping with %s, got %s", where, expected, kindName(n))
		return nil
	}
	var out [][2]*yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode || !slices.Contains(keys, k.Value):
			p.errorf(k.Line, k.Column, "%s: unknown key %s: expected one of %s%s", where, kindName(k), strings.Join(keys, ", "), suggest(k.Value, keys))
			continue
		case seen[k.Value] > 0:
			p.errorf(k.Line, k.Column, "%s: duplicate key %q (first defined at line %d)", where, k.Value, seen[k.Value])
			continue
		}
		seen[k.Value] = k.Line
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

// MaxWaiverDaysLimit bounds max-waiver-days: ten years is no cap.
const MaxWaiverDaysLimit = 3650

// checkMaxWaiverDays reads max-waiver-days: N, a whole number of days
// from 1 to MaxWaiverDaysLimit.
func (p *parser) checkMaxWaiverDays(n *yaml.Node) {
	if n.Kind == 0 {
		return
	}
	d, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || err != nil || d < 1 || d > MaxWaiverDaysLimit {
		p.errorf(n.Line, n.Column, "max-waiver-days %s: expected a whole number of days from 1 to %d", kindName(n), MaxWaiverDaysLimit)
		return
	}
	p.cfg.MaxWaiverDays = Str{Value: n.Value, Line: n.Line, Column: n.Column}
}

func (p *parser) nonEmpty(key string, s str) bool {
	if strings.TrimSpace(s.Value) == "" {
		p.errorf(s.Line, s.Column, "%s: empty value: expected a path or name", key)
		return false
	}
	return true
}

func (p *parser) checkSeverity(n *yaml.Node) {
	if n.Kind == 0 || isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, n.Column, "severity: expected a mapping of rule ids to \"error\", \"warning\" or \"info\", got %s", kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			p.errorf(k.Line, k.Column, "severity: expected a rule id as key, got %s", kindName(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errorf(k.Line, k.Column, "severity: duplicate key %q (first defined at line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		if p.checks.RuleID != nil {
			if msg := p.checks.RuleID(k.Value, false); msg != "" {
				p.errorf(k.Line, k.Column, "severity: %s", msg)
			}
		}
		if v.Kind != yaml.ScalarNode {
			p.errorf(v.Line, v.Column, "severity of %q: expected \"error\", \"warning\" or \"info\", got %s", k.Value, kindName(v))
			continue
		}
		sev, err := finding.ParseSeverity(v.Value)
		if err != nil {
			p.errorf(v.Line, v.Column, "severity of %q: %v", k.Value, err)
			continue
		}
		p.cfg.Severity = append(p.cfg.Severity, SeverityOverride{Rule: Str{Value: k.Value, Line: k.Line, Column: k.Column}, Severity: sev})
	}
}

func (p *parser) checkWaivers(n *yaml.Node) {
	if n.Kind == 0 || isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n.Line, n.Column, "waivers: expected a list of waivers, got %s", kindName(n))
		return
	}
	for i, item := range n.Content {
		p.checkWaiver(i+1, item)
	}
}

func (p *parser) checkWaiver(num int, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, n.Column, "waiver %d: expected a mapping with %s, got %s", num, strings.Join(WaiverKeys, ", "), kindName(n))
		return
	}
	errs := len(p.errs)
	values := map[string]Str{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode || !slices.Contains(WaiverKeys, k.Value):
			name := kindName(k)
			p.errorf(k.Line, k.Column, "waiver %d: unknown key %s: expected one of %s%s", num, name, strings.Join(WaiverKeys, ", "), suggest(k.Value, WaiverKeys))
		case values[k.Value].Line > 0:
			p.errorf(k.Line, k.Column, "waiver %d: duplicate key %q (first defined at line %d)", num, k.Value, values[k.Value].Line)
		case v.Kind != yaml.ScalarNode:
			p.errorf(v.Line, v.Column, "waiver %d: %s: expected a single value, got %s", num, k.Value, kindName(v))
		default:
			values[k.Value] = Str{Value: v.Value, Line: v.Line, Column: v.Column}
		}
	}
	required := func(key string) bool {
		s := values[key]
		if strings.TrimSpace(s.Value) != "" {
			return true
		}
		if s.Line > 0 {
			p.errorf(s.Line, s.Column, "waiver %d: empty %s", num, key)
		} else {
			p.errorf(n.Line, n.Column, "waiver %d: missing %s: a waiver needs rule, path, reason and expires", num, key)
		}
		return false
	}
	w := Waiver{Rule: values["rule"], Path: values["path"], Task: values["task"], Reason: values["reason"], Expires: values["expires"],
		Line: n.Line, Column: n.Column}
	if required("rule") {
		if err := waiver.CheckRulePattern(w.Rule.Value); err != nil {
			p.errorf(w.Rule.Line, w.Rule.Column, "waiver %d: %v", num, err)
		} else if p.checks.RuleID != nil {
			if msg := p.checks.RuleID(w.Rule.Value, true); msg != "" {
				p.errorf(w.Rule.Line, w.Rule.Column, "waiver %d: %s", num, msg)
			}
		}
	}
	if required("path") {
		if err := waiver.CheckPattern(w.Path.Value); err != nil {
			p.errorf(w.Path.Line, w.Path.Column, "waiver %d: %v", num, err)
		}
	}
	if w.Task.Line > 0 && strings.TrimSpace(w.Task.Value) == "" {
		p.errorf(w.Task.Line, w.Task.Column, "waiver %d: empty task: leave the key out to match any task", num)
	}
	required("reason")
	if required("expires") {
		if _, err := time.Parse(waiver.DateLayout, w.Expires.Value); err != nil {
			p.errorf(w.Expires.Line, w.Expires.Column, "waiver %d: expires %q: expected a date as YYYY-MM-DD", num, w.Expires.Value)
		}
	}
	if len(p.errs) == errs {
		p.cfg.Waivers = append(p.cfg.Waivers, w)
	}
}

// checkParams converts params into JSON-compatible values: the policy
// input is JSON, so timestamps stay the text written, non-finite numbers
// and non-string keys are refused, and aliases are not expanded.
func (p *parser) checkParams(n *yaml.Node) {
	if n.Kind == 0 || isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, n.Column, "params: expected a mapping of names to values, got %s", kindName(n))
		return
	}
	v, ok := p.paramValue(n, "params", 0)
	if !ok {
		return
	}
	params := v.(map[string]any)
	valid := true
	for _, name := range limitParams {
		if lim, present := params[name]; present {
			if count, isInt := lim.(int64); !isInt || count < 1 {
				k := mappingKey(n, name)
				p.errorf(k.Line, k.Column, "params.%s: expected a whole number of at least 1, got %v", name, lim)
				valid = false
			}
		}
	}
	if valid {
		p.cfg.Params = params
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p.cfg.ParamNames = append(p.cfg.ParamNames, Str{Value: k.Value, Line: k.Line, Column: k.Column})
		}
	}
}

// limitParams are the params the shipped rules read as limits: each a
// whole number of at least 1 (max_iterations for the h3a layout,
// max_retries for hybrid-os), which a run's own files can lower, never
// raise.
var limitParams = []string{"max_iterations", "max_retries"}

func (p *parser) paramValue(n *yaml.Node, where string, depth int) (any, bool) {
	p.params++
	if p.params > maxParamNodes || depth > maxParamDepth {
		p.errorf(n.Line, n.Column, "%s: too large or too deeply nested (at most %d values, %d levels)", where, maxParamNodes, maxParamDepth)
		return nil, false
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		p.errorf(n.Line, n.Column, "%s: YAML anchors and aliases are not supported in params: write the value out", where)
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		seen := map[string]int{}
		ok := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				p.errorf(k.Line, k.Column, "%s: expected a name as key, got %s", where, kindName(k))
				ok = false
				continue
			}
			if first, dup := seen[k.Value]; dup {
				p.errorf(k.Line, k.Column, "%s: duplicate key %q (first defined at line %d)", where, k.Value, first)
				ok = false
				continue
			}
			seen[k.Value] = k.Line
			val, vok := p.paramValue(v, where+"."+k.Value, depth+1)
			ok = ok && vok
			m[k.Value] = val
		}
		return m, ok
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		ok := true
		for i, item := range n.Content {
			val, vok := p.paramValue(item, fmt.Sprintf("%s[%d]", where, i), depth+1)
			ok = ok && vok
			list = append(list, val)
		}
		return list, ok
	case yaml.ScalarNode:
		return p.scalar(n, where)
	}
	p.errorf(n.Line, n.Column, "%s: unsupported YAML value", where)
	return nil, false
}

func (p *parser) scalar(n *yaml.Node, where string) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
		p.errorf(n.Line, n.Column, "%s: %s is out of range for a whole number", where, n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
		p.errorf(n.Line, n.Column, "%s: %s is not a finite number", where, n.Value)
		return nil, false
	case "!!str", "!!timestamp":
		return n.Value, true
	}
	p.errorf(n.Line, n.Column, "%s: unsupported value %s (tag %s): expected a string, number, boolean, null, list or mapping", where, strconv.Quote(n.Value), n.ShortTag())
	return nil, false
}

func mappingKey(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return n
}

// nullValues refuses a null where a value is needed: the YAML decoder
// calls no unmarshaler for a null, so "fail-level:" with nothing after it
// would leave the default in force, and a null item of paths or policies
// would drop out of the list: a folder of the team's rules silently not
// loaded. A whole section left null (waivers: ~) stays "none".
func (p *parser) nullValues(data []byte) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return
	}
	var mapping func(m *yaml.Node, depth int)
	mapping = func(m *yaml.Node, depth int) {
		m = dealias(m)
		if depth > maxParamDepth {
			return
		}
		if m.Kind == yaml.SequenceNode {
			for _, item := range m.Content {
				mapping(item, depth+1) // <<: [*a, *b]
			}
			return
		}
		if m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, at := m.Content[i], m.Content[i+1]
			v := dealias(at)
			if k.Tag == "!!merge" {
				mapping(v, depth+1)
				continue
			}
			switch k.Value {
			case "fail-level", "layout", "base":
				if isNull(v) {
					p.errorf(at.Line, at.Column, "%s: expected a value, got nothing (null): leave the key out for the default", k.Value)
				}
			case "paths", "policies":
				if v.Kind != yaml.SequenceNode {
					continue
				}
				for _, item := range v.Content {
					if isNull(dealias(item)) {
						p.errorf(item.Line, item.Column, "%s: an item is nothing (null): expected a path", k.Value)
					}
				}
			}
		}
	}
	mapping(doc.Content[0], 0)
}

// dealias follows a YAML alias to the node it names.
func dealias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxParamDepth; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing (null)"
		}
		return strconv.Quote(n.Value)
	}
	return "an empty document"
}

var (
	reLine      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): (?:column (\d+): )?(.*)$`) })
	reUnknown   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type \S*?(\w+)$`) })
	reDuplicate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`) })
	reCannot    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
	})
	reSyntax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })
)

// typeError rewrites one message of a *yaml.TypeError in this project's
// terms: the key that was not expected and the keys that are.
func typeError(file, msg string) *Error {
	e := &Error{File: file, Msg: msg}
	m := reLine().FindStringSubmatch(msg)
	if m == nil {
		return e
	}
	e.Line, _ = strconv.Atoi(m[1])
	e.Column, _ = strconv.Atoi(m[2])
	e.Msg = m[3]
	if u := reUnknown().FindStringSubmatch(e.Msg); u != nil {
		e.Msg = fmt.Sprintf("unknown key %q: expected one of %s%s", u[1], strings.Join(Keys, ", "), suggest(u[1], Keys))
	} else if d := reDuplicate().FindStringSubmatch(e.Msg); d != nil {
		e.Msg = fmt.Sprintf("duplicate key %q (first defined at line %s)", d[1], d[2])
	} else if c := reCannot().FindStringSubmatch(e.Msg); c != nil {
		e.Msg = fmt.Sprintf("expected %s, got %s", typeName(c[3]), tagName(c[1], c[2]))
	}
	return e
}

func syntaxError(file string, err error) *Error {
	e := &Error{File: file, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := reSyntax().FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "not valid YAML: " + m[2]
	}
	return e
}

func typeName(goType string) string {
	switch {
	case strings.HasSuffix(goType, "rawConfig"):
		return "a mapping of settings (" + strings.Join(Keys, ", ") + ")"
	case strings.HasPrefix(goType, "[]"):
		return "a list of values"
	}
	return "a single value"
}

func tagName(tag, value string) string {
	switch tag {
	case "map":
		return "a mapping"
	case "seq":
		return "a list"
	case "null":
		return "nothing (null)"
	}
	return strconv.Quote(value)
}

// suggest names the known key closest to a misspelt one.
func suggest(got string, keys []string) string {
	best, ok := textdist.Nearest(got, keys)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func sortErrors(es Errors) {
	slices.SortStableFunc(es, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}

// checkHumans reads humans: {allowed-signers: PATH, gpg-fingerprints: [...]}.
func (p *parser) checkHumans(n *yaml.Node) {
	for _, kv := range p.section("humans", n, HumanKeys, strings.Join(HumanKeys, " or ")) {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "allowed-signers":
			if v.Kind != yaml.ScalarNode {
				p.errorf(v.Line, v.Column, "humans: allowed-signers: expected a path, got %s", kindName(v))
				continue
			}
			if p.nonEmpty("humans: allowed-signers", str{Value: v.Value, Line: v.Line, Column: v.Column}) {
				p.cfg.Humans.AllowedSigners = Str{Value: v.Value, Line: v.Line, Column: v.Column}
			}
		case "gpg-fingerprints":
			if v.Kind != yaml.SequenceNode {
				p.errorf(v.Line, v.Column, "humans: gpg-fingerprints: expected a list of key fingerprints, got %s", kindName(v))
				continue
			}
			for _, item := range v.Content {
				fp := strings.ToUpper(strings.ReplaceAll(item.Value, " ", ""))
				if item.Kind != yaml.ScalarNode || (len(fp) != 40 && len(fp) != 64) || strings.Trim(fp, "0123456789ABCDEF") != "" {
					p.errorf(item.Line, item.Column, "humans: gpg-fingerprints: %q is not a full key fingerprint: expected 40 or 64 hex digits, as gpg --fingerprint prints them", item.Value)
					continue
				}
				p.cfg.Humans.GPGFingerprints = append(p.cfg.Humans.GPGFingerprints, Str{Value: fp, Line: item.Line, Column: item.Column})
			}
		}
	}
}
