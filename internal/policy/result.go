package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
)

// elementFields are the fields an element may carry besides its rule id.
var elementFields = []string{"msg", "file", "pointer", "line", "column", "gate", "task_id", "needs_human", "remediation", "severity"}

// elements turns one package's deny or warn set into findings; an element
// that breaks the contract becomes a BadResult finding instead.
func (e *Engine) elements(b binding, v any) []finding.Finding {
	list, ok := v.([]any)
	if !ok {
		return []finding.Finding{BadResult.New("", "data.%s.%s is %s, expected a set of findings", b.pkg, b.kind, describe(v))}
	}
	out := make([]finding.Finding, 0, len(list))
	for _, el := range list {
		f, why := e.element(b, el)
		if why != "" {
			out = append(out, BadResult.New("", "%s", why))
			continue
		}
		out = append(out, f)
	}
	return out
}

func (e *Engine) element(b binding, el any) (finding.Finding, string) {
	source := fmt.Sprintf("an element of data.%s.%s", b.pkg, b.kind)
	obj, ok := el.(map[string]any)
	if !ok {
		return finding.Finding{}, fmt.Sprintf("%s is %s, expected an object built with lib.finding(rego.metadata.rule(), {\"msg\": ...})", source, describe(el))
	}
	id, ok := obj["rule"].(string)
	if !ok {
		return finding.Finding{}, fmt.Sprintf("%s names no rule (no \"rule\" field): build it with lib.finding(rego.metadata.rule(), {...}) so it carries its rule's id", source)
	}
	r, ok := e.rules[id]
	if !ok {
		return finding.Finding{}, fmt.Sprintf("%s names rule %q, which no # METADATA block in the policies defines", source, id)
	}
	if r.Package != b.pkg || r.Kind != b.kind {
		return finding.Finding{}, fmt.Sprintf("%s names rule %q, which is a %s rule of package %s (%s): pass rego.metadata.rule(), not another rule's id", source, id, r.Kind, r.Package, r.Location)
	}
	source = fmt.Sprintf("an element of rule %s (%s)", id, r.Location)
	f := finding.Finding{Rule: id, Category: r.Category, Severity: r.Severity, Remediation: r.Remediation}
	msg, _ := obj["msg"].(string)
	if f.Details = strings.TrimSpace(msg); f.Details == "" {
		return finding.Finding{}, fmt.Sprintf("%s has no \"msg\" text, so the finding would say nothing", source)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if why := setField(&f, k, obj[k]); why != "" {
			return finding.Finding{}, fmt.Sprintf("%s: %s", source, why)
		}
	}
	return f, ""
}

// setField copies one element field into the finding; why says what is wrong
// with it.
func setField(f *finding.Finding, key string, v any) string {
	str := func(dst *string) string {
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("%q is %s, expected a string", key, describe(v))
		}
		*dst = s
		return ""
	}
	switch key {
	case "rule", "msg":
		return ""
	case "file":
		if why := str(&f.File); why != "" {
			return why
		}
		if f.File != "" && !finding.InRun(f.File) {
			return fmt.Sprintf("\"file\" %q is not a path inside the run (expected e.g. \"state.json\")", f.File)
		}
		return ""
	case "pointer":
		if why := str(&f.Pointer); why != "" {
			return why
		}
		if f.Pointer != "" && !strings.HasPrefix(f.Pointer, "/") {
			return fmt.Sprintf("\"pointer\" %q is not a JSON pointer (expected \"\" or one starting with \"/\")", f.Pointer)
		}
		return ""
	case "line", "column":
		n, ok := positive(v)
		if !ok {
			return fmt.Sprintf("%q is %s, expected a whole number from 1 (or 0 for unknown)", key, describe(v))
		}
		if key == "line" {
			f.Line = n
		} else {
			f.Column = n
		}
		return ""
	case "gate":
		return str(&f.Gate)
	case "task_id":
		return str(&f.TaskID)
	case "remediation":
		// What to do about this finding, with its own values; the rule's
		// custom.remediation is the general advice it replaces.
		var s string
		if why := str(&s); why != "" {
			return why
		}
		if strings.TrimSpace(s) == "" {
			return "\"remediation\" is empty: leave it out to use the rule's custom.remediation"
		}
		f.Remediation = strings.TrimSpace(s)
		return ""
	case "severity":
		// How bad this finding is, in place of the rule's custom.severity:
		// a rule may judge a run that declares no schema version leniently.
		s, ok := v.(string)
		sev, err := finding.ParseSeverity(s)
		if !ok || err != nil {
			return fmt.Sprintf("\"severity\" is %s, expected \"error\", \"warning\" or \"info\"", describe(v))
		}
		f.Severity = sev
		return ""
	case "needs_human":
		b, ok := v.(bool)
		if !ok {
			return fmt.Sprintf("\"needs_human\" is %s, expected true or false", describe(v))
		}
		f.NeedsHuman = b
		return ""
	}
	return fmt.Sprintf("unknown field %q (expected %s)", key, strings.Join(elementFields, ", "))
}

// positive reads a line or column number; 0 stands for unknown.
func positive(v any) (int, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	n, err := num.Int64()
	if err != nil || n < 0 || n > 1<<31 {
		return 0, false
	}
	return int(n), true
}

// describe names a value's JSON type for messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("%t", x)
	case json.Number:
		return "the number " + x.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
