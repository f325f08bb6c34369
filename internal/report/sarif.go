package report

import (
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/audit"
	"github.com/h3a-check/h3a-check/internal/finding"
)

// SARIF 2.1.0: the subset this tool fills. Field order is output order
// before MarshalSorted sorts keys.
const (
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifVersion = "2.1.0"
	// InformationURI is the tool's home page, named in SARIF and summaries.
	InformationURI = "https://github.com/h3a-check/h3a-check"
	// srcRoot is the base every artifact URI is relative to: the
	// repository root, which code scanning maps to the checkout.
	srcRoot = "%SRCROOT%"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	Results    []sarifResult `json:"results"`
	ColumnKind string        `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 *sarifHelp     `json:"help,omitempty"`
	DefaultConfiguration sarifRuleLevel `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifRuleLevel struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID       string             `json:"ruleId"`
	RuleIndex    int                `json:"ruleIndex"`
	Level        string             `json:"level"`
	Message      sarifText          `json:"message"`
	Locations    []sarifLocation    `json:"locations"`
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
	Properties   map[string]any     `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

// SARIF prints one SARIF 2.1.0 run holding every finding of every checked
// run: locations relative to the repository root (uriBaseId %SRCROOT%),
// columns in Unicode code points, one rules[] entry per rule id at its
// own severity, each result at the level of what the gate did with it
// (sarifResultLevel), and waived findings as accepted external
// suppressions.
func SARIF(w io.Writer, in *Input, opts Options) error {
	rules := ruleCatalogue(in)
	index := make(map[string]int, len(rules))
	driver := sarifDriver{
		Name:            in.Tool.Name,
		Version:         sarifToolVersion(in.Tool.Version),
		SemanticVersion: semanticVersion(sarifToolVersion(in.Tool.Version)),
		InformationURI:  InformationURI,
		Rules:           make([]sarifRule, 0, len(rules)),
	}
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRuleOf(r))
	}
	results := []sarifResult{}
	for _, a := range in.Audits {
		for _, f := range a.Findings {
			results = append(results, sarifResultOf(a, f, index[f.Rule], opts))
		}
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results, ColumnKind: "unicodeCodePoints"}},
	}
	b, err := MarshalSorted(log)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func sarifRuleOf(r finding.Rule) sarifRule {
	title := r.Title
	if title == "" {
		title = r.ID
	}
	description := r.Description
	if description == "" {
		description = title + "."
	}
	rule := sarifRule{
		ID:                   r.ID,
		Name:                 ruleName(r.ID),
		ShortDescription:     sarifText{Text: Escape(title)},
		FullDescription:      sarifText{Text: Escape(description)},
		DefaultConfiguration: sarifRuleLevel{Level: sarifLevel(r.Severity)},
		Properties:           map[string]any{"category": string(r.Category), "tags": []string{string(r.Category)}},
	}
	if r.Remediation != "" {
		rule.Help = &sarifHelp{
			Text:     Escape(r.Remediation),
			Markdown: mdInline(Escape(r.Remediation)) + "\n\nRun " + mdCode("h3a-check explain "+Escape(r.ID)) + " for the full documentation.",
		}
	}
	return rule
}

func sarifResultOf(a *audit.Audit, f finding.Finding, ruleIndex int, opts Options) sarifResult {
	run := a.Run
	uri := opts.repoPath(run, f.File)
	if f.File == "" && !strings.HasSuffix(uri, "/") {
		uri += "/" // the run directory itself
	}
	loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: escapeURI(uri), URIBaseID: srcRoot}}
	switch {
	case f.Line > 0:
		loc.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
	case f.File != "":
		// About the whole file: viewers expect a region, and line 1 is
		// where a reader starts. A run-level finding names a directory,
		// which has no lines, so it gets none.
		loc.Region = &sarifRegion{StartLine: 1}
	}
	// severity is the finding's own, after the configuration's overrides;
	// the level says what the gate did with it (sarifResultLevel).
	props := map[string]any{"run": run, "category": string(f.Category), "severity": f.Severity.String()}
	for k, v := range map[string]string{"pointer": f.Pointer, "gate": f.Gate, "task_id": f.TaskID, "remediation": f.Remediation} {
		if v != "" {
			props[k] = v
		}
	}
	if f.NeedsHuman {
		props["needs_human"] = true
	}
	res := sarifResult{
		RuleID:     f.Rule,
		RuleIndex:  ruleIndex,
		Level:      sarifResultLevel(a, f),
		Message:    sarifText{Text: sentence(Escape(f.Details))},
		Locations:  []sarifLocation{{PhysicalLocation: loc}},
		Properties: props,
	}
	if f.IsWaived() {
		res.Suppressions = []sarifSuppression{{
			Kind:          "external",
			Status:        "accepted",
			Justification: Escape(f.Waived.Reason + " (waiver " + f.Waived.Source + ", until " + f.Waived.Expires + ")"),
		}}
	}
	return res
}

// sarifResultLevel says what the gate does with a finding: "error" when
// its severity fails the run's gate (a warning under --fail-level
// warning too), as code scanning's merge protection blocks on errors;
// else its severity's level. A waived finding gets the level it would
// have without its waiver: its accepted suppression says that the gate
// set it aside, as for a waived error.
func sarifResultLevel(a *audit.Audit, f finding.Finding) string {
	if a.Fails(f.Severity) {
		return "error"
	}
	return sarifLevel(f.Severity)
}

// sarifLevel is a severity's level: a rule's default configuration, and
// a result's when it does not fail the gate.
func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "note"
}

// sentence ends a message with a full stop, as SARIF viewers expect of
// message text; the finding itself keeps the project's style.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// ruleName turns "h3a.integrity.hash_mismatch" into "IntegrityHashMismatch":
// SARIF rule names are identifiers, distinct from the id.
func ruleName(id string) string {
	var b strings.Builder
	parts := strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == '_' || r == '-' })
	for i, p := range parts {
		if i == 0 && p == "h3a" && len(parts) > 1 {
			continue
		}
		r, size := utf8.DecodeRuneInString(p)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(p[size:])
	}
	return b.String()
}

// sarifToolVersion gives a version that starts with a number, as SARIF
// consumers compare versions: "v1.2.3" becomes "1.2.3" and a development
// build ("devel") becomes "0.0.0-devel", which sorts before any release.
func sarifToolVersion(v string) string {
	switch {
	case v == "":
		return "0.0.0-devel"
	case len(v) > 1 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9':
		return v[1:]
	case v[0] >= '0' && v[0] <= '9':
		return v
	}
	return "0.0.0-" + strings.Map(func(r rune) rune {
		if r < 0x80 && (isUnreserved(byte(r)) && r != '_' && r != '~') {
			return r
		}
		return '-'
	}, v)
}

var semver = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$`)
})

// semanticVersion gives the version without its "v" when it is one.
func semanticVersion(v string) string {
	if m := semver().FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return ""
}

// escapeURI percent-encodes what a relative URI reference cannot hold
// as is; slashes stay. A colon is encoded too, or "a:b/c" would read as a
// URI with the scheme "a".
func escapeURI(p string) string {
	var b strings.Builder
	for _, c := range []byte(p) {
		if c < 0x80 && (isUnreserved(c) || strings.IndexByte("/!$&'()*+,;=@", c) >= 0) {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
