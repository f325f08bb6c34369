package secrets

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// notes puts a string where the old Rego tests put it: state.json
// /steps/1/notes.
func notes(s string) map[string]any {
	return map[string]any{"steps": []any{map[string]any{"notes": "fine"}, map[string]any{"notes": s}}}
}

// TestEveryShape: each pattern catches its credential, at the string's
// pointer, and only that kind.
func TestEveryShape(t *testing.T) {
	tests := []struct{ kind, value, masked string }{
		{"an AWS access key id", "key AKIAIOSFODNN7EXAMPLE in use", "AKIA… (20 characters, masked)"},
		{"an AWS access key id", "ASIAY34FZKBOKMUTVV7A", "ASIA… (20 characters, masked)"},
		{"a private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA", "----… (31 characters, masked)"},
		{"a private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "----… (37 characters, masked)"},
		{"a GitHub token", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_… (40 characters, masked)"},
		{"a GitHub token", "github_pat_11ABCDEFG0123456789_abcdefghij", "gith… (41 characters, masked)"},
		{"a GitLab token", "glpat-abcdefghij0123456789", "glpa… (26 characters, masked)"},
		{"a Slack token", "xoxb-1234567890-abcdef", "xoxb… (22 characters, masked)"},
		{"a Stripe live key", "sk_live_0123456789abcdefABCD", "sk_l… (28 characters, masked)"},
		{"a Stripe live key", "rk_live_0123456789abcdefABCD", "rk_l… (28 characters, masked)"},
		{"a Google API key", "AIzaSyA0123456789abcdefghijklmnopqrstuv", "AIza… (39 characters, masked)"},
		{"an OpenAI API key", "sk-proj-0123456789abcdefghijklmnopqrstuv", "sk-p… (40 characters, masked)"},
		{"an OpenAI API key", "sk-0123456789abcdefghijklmnopqrstuv", "sk-0… (35 characters, masked)"},
		{"an npm token", "npm_0123456789abcdefghijABCDEFGHIJ012345", "npm_… (40 characters, masked)"},
		{"a password assignment", "connect with password=hunter2hunter2", "pass… (23 characters, masked)"},
		{"a password assignment", "client secret  =  9f8e7d6c5b4a", "secr… (23 characters, masked)"},
		{"a password assignment", "SECRET:\tletmein-now", "SECR… (19 characters, masked)"},
		{"a password assignment", "api-key: 0a1b2c3d", "api-… (17 characters, masked)"},
		{"a password assignment", "rotate passwd: Winter2025!", "pass… (19 characters, masked)"},
		{"a password assignment", "AccessToken='abcdef0123'", "Acce… (23 characters, masked)"},
		{"a password assignment", "pwd=abcd", "… (8 characters, masked)"},
		{"a password assignment", "paſſword=hunter2", "paſſ… (16 characters, masked)"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			hits := Scan(notes(tt.value))
			want := []Hit{{Pointer: "/steps/1/notes", Kind: tt.kind, Masked: tt.masked}}
			if !reflect.DeepEqual(hits, want) {
				t.Errorf("Scan = %+v\nwant %+v", hits, want)
			}
			if got := Text(tt.value); len(got) != 1 || got[0].Kind != tt.kind || got[0].Pointer != "" {
				t.Errorf("Text = %+v, want one %s", got, tt.kind)
			}
		})
	}
}

// TestNotSecrets: references, placeholders and prose that merely mention
// credentials are no hits.
func TestNotSecrets(t *testing.T) {
	for _, value := range []string{
		"Secret key rotation documented", "password: <set in vault>", "token expiry after 1 hour", "cd $(pwd)",
		"password=$DB_PASSWORD", "api_key: ${API_KEY}", "secret = *****", "password: {{ vault }}",
		"the secret santa", "AKIA too short", "sk-short", "ghp_short", "npm_0123",
		"a private key is kept in the vault", "xoxb-123", "sk_test_0123456789abcdefABCD",
		"Passwörter werden nie gespeichert — siehe Tresor", "パスワードは保存しない", "",
		"XAKIAIOSFODNN7EXAMPLE", // no word boundary before AKIA
	} {
		if hits := Scan(notes(value)); len(hits) != 0 {
			t.Errorf("Scan(%q) = %+v, want none", value, hits)
		}
	}
}

// TestSecretMembers: the member-name case, with placeholders and
// references that are not credentials.
func TestSecretMembers(t *testing.T) {
	type scanCase struct {
		name string
		doc  any
		want []Hit
	}
	tests := []scanCase{
		{"password member", map[string]any{"password": "s3cr3t-Pa55"},
			[]Hit{{Pointer: "/password", Kind: KindMember, Member: "password", Masked: "s3cr… (11 characters, masked)"}}},
		{"member name case kept", map[string]any{"meta": map[string]any{"API_KEY": "abc"}},
			[]Hit{{Pointer: "/meta/API_KEY", Kind: KindMember, Member: "API_KEY", Masked: "… (3 characters, masked)"}}},
		{"escaped pointer", map[string]any{"a/b~c": map[string]any{"token": "xyz12"}},
			[]Hit{{Pointer: "/a~1b~0c/token", Kind: KindMember, Member: "token", Masked: "… (5 characters, masked)"}}},
		{"name not listed", map[string]any{"api_token/x": "abc", "tokens": "abc", "secret_santa": "bob"}, nil},
		{"array element is no member", map[string]any{"password": []any{"hunter2hunter2"}}, nil},
		{"non-string value", map[string]any{"password": json.Number("12345678"), "token": true, "secret": nil}, nil},
		{"member and shape", map[string]any{"token": "ghp_0123456789abcdefghijABCDEFGHIJ012345"}, []Hit{
			{Pointer: "/token", Kind: KindMember, Member: "token", Masked: "ghp_… (40 characters, masked)"},
			{Pointer: "/token", Kind: "a GitHub token", Masked: "ghp_… (40 characters, masked)"},
		}},
		{"non-ASCII value", map[string]any{"password": "пароль-секрет"},
			[]Hit{{Pointer: "/password", Kind: KindMember, Member: "password", Masked: "паро… (13 characters, masked)"}}},
	}
	for _, value := range []string{"${DB_PASSWORD}", "$DB_PASSWORD", "<redacted>", "null", "  ", "***", "REDACTED", " changeme ", "N/A", "{{ vault }}", "(set later)", "[hidden]"} {
		tests = append(tests, scanCase{"placeholder " + value, map[string]any{"password": value}, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Scan(tt.doc); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Scan = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "… (0 characters, masked)",
		"12345678":             "… (8 characters, masked)",
		"123456789":            "1234… (9 characters, masked)",
		"ключ-доступа":         "ключ… (12 characters, masked)",
		"export AWS_KEY=AKIAI": "expo… (20 characters, masked)",
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTheSecretIsMasked: no hit shows the credential.
func TestTheSecretIsMasked(t *testing.T) {
	hits := Scan(notes("export AWS_KEY=AKIAIOSFODNN7EXAMPLE"))
	if len(hits) == 0 {
		t.Fatal("no hit")
	}
	for _, h := range hits {
		if strings.Contains(h.Masked, "IOSFODNN7EXAMPLE") {
			t.Errorf("hit %+v shows the secret", h)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	var doc any = map[string]any{"password": "hunter2hunter2"}
	const depth = 5000
	for range depth {
		doc = []any{doc}
	}
	hits := Scan(doc)
	if len(hits) != 1 {
		t.Fatalf("%d hits, want 1", len(hits))
	}
	want := strings.Repeat("/0", depth) + "/password"
	if hits[0].Pointer != want {
		t.Errorf("pointer has %d characters, want %d", len(hits[0].Pointer), len(want))
	}
}

// TestBounded: a document full of keys reports MaxHits, the same ones
// every time.
func TestBounded(t *testing.T) {
	doc := map[string]any{}
	for i := range 3 * MaxHits {
		doc[fmt.Sprintf("k%03d", i)] = map[string]any{"token": "abcdefgh", "n": "AKIAIOSFODNN7EXAMPLE"}
	}
	first := Scan(doc)
	if len(first) != MaxHits {
		t.Fatalf("%d hits, want %d", len(first), MaxHits)
	}
	if first[0].Pointer != "/k000/n" || first[len(first)-1].Pointer != "/k049/token" {
		t.Errorf("kept %s to %s, want /k000/n to /k049/token", first[0].Pointer, first[len(first)-1].Pointer)
	}
	for range 5 {
		if again := Scan(doc); !reflect.DeepEqual(again, first) {
			t.Fatal("a second scan kept other hits")
		}
	}
	if got := Text(strings.Repeat("AKIAIOSFODNN7EXAMPLE ", 500)); len(got) != 1 {
		t.Errorf("Text gave %d hits for one kind, want 1", len(got))
	}
}

// TestScanOrder: hits come by pointer, whatever the map order.
func TestScanOrder(t *testing.T) {
	doc := map[string]any{"b": "pwd=abcdef", "a": []any{"x", "AKIAIOSFODNN7EXAMPLE"}, "c": map[string]any{"secret": "zzzz"}}
	got := []string{}
	for _, h := range Scan(doc) {
		got = append(got, h.Pointer)
	}
	if want := []string{"/a/1", "/b", "/c/secret"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pointers %q, want %q", got, want)
	}
}

// TestSuspectsCoverMatches: every match of a pattern holds one of its
// markers, so the prefilter never hides a credential.
func TestSuspectsCoverMatches(t *testing.T) {
	for _, s := range []string{
		"PASSWORD = hunter22", "Client-Secret: abcdef", "ApiKey=abcd1234", "AUTH_TOKEN: qwerty12",
		"secret\n=\nabcd", "A3TXIOSFODNN7EXAMPLE", "-----BEGIN OPENSSH PRIVATE KEY-----",
		"paſſwd=abcdefg", "ACCESS-TOKEN:abcd", "auth_to\u212aen = abcdef", "Paß: paſſword=abcd",
	} {
		found := suspects(s)
		for i, p := range patterns {
			if p.re().MatchString(s) && found&(1<<i) == 0 {
				t.Errorf("%q matches %s but holds none of its markers", s, p.kind)
			}
		}
		if len(Text(s)) == 0 {
			t.Errorf("Text(%q) found nothing", s)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"key AKIAIOSFODNN7EXAMPLE in use", "-----BEGIN RSA PRIVATE KEY-----", "ghp_0123456789abcdefghijABCDEFGHIJ012345",
		"password=hunter2hunter2", "SECRET:\tletmein-now", "${DB_PASSWORD}", "пароль", "paſſword=x1234", "apike\u212a: k-12345", "",
	} {
		f.Add("password", s)
		f.Add("notes", s)
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		doc := map[string]any{name: value, "list": []any{value, map[string]any{name: value}}}
		hits := Scan(doc)
		if len(hits) > MaxHits {
			t.Fatalf("%d hits", len(hits))
		}
		for _, h := range hits {
			if h.Kind == "" || !strings.Contains(h.Masked, "masked)") {
				t.Fatalf("bad hit %+v", h)
			}
			if h.Kind == KindMember && h.Member != name {
				t.Fatalf("member %q, want %q", h.Member, name)
			}
		}
		// The prefilter only skips: with every pattern tried, no more
		// kinds are found.
		want := 0
		for _, p := range patterns {
			if p.re().MatchString(value) {
				want++
			}
		}
		if got := len(Text(value)); got != want {
			t.Fatalf("Text(%q) found %d kinds, the patterns alone %d", value, got, want)
		}
	})
}

func BenchmarkScan(b *testing.B) {
	steps := []any{}
	for i := range 50 {
		steps = append(steps, map[string]any{
			"task_id": "T001", "agent": "executor", "timestamp": "2025-09-29T16:00:00Z",
			"summary": fmt.Sprintf("iteration %d: token expiry checked, secret key rotation documented", i),
			"status":  "passed", "artifacts": []any{"executor_report.json", "src/auth/jwt.py"},
		})
	}
	doc := map[string]any{"run_id": "run-1", "steps": steps, "meta": map[string]any{"password": "${DB}"}}
	b.ReportAllocs()
	for b.Loop() {
		if hits := Scan(doc); len(hits) != 0 {
			b.Fatalf("%d hits", len(hits))
		}
	}
}
