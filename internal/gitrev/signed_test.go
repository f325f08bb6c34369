package gitrev_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h3a-check/h3a-check/internal/gitrev"
	"github.com/h3a-check/h3a-check/internal/gitrev/gittest"
)

// sshKey makes an ed25519 key pair and returns the private key's path and
// the public key's line.
func sshKey(t *testing.T, name string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		if os.Getenv("H3A_CI") == "1" {
			t.Fatal("ssh-keygen is not installed (openssh-client); CI must have it")
		}
		t.Skip("ssh-keygen is not installed")
	}
	key := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return key, strings.TrimSpace(string(pub))
}

// TestBlameAndSignature: the commit that added each line since the base,
// and git's word on its signature against an allowed signers file.
func TestBlameAndSignature(t *testing.T) {
	g := gittest.Init(t)
	alice, alicePub := sshKey(t, "alice")
	mallory, _ := sshKey(t, "mallory")
	g.Write(map[string]string{"log.md": "one\ntwo\n"})
	base := g.Commit("base")
	g.Write(map[string]string{"log.md": "one\ntwo\nthree\n"})
	unsigned := g.Commit("unsigned")
	g.Write(map[string]string{"log.md": "one\ntwo\nthree\nfour\n"})
	g.Git("-c", "gpg.format=ssh", "-c", "user.signingkey="+alice, "commit", "-q", "-a", "-S", "-m", "by alice")
	signed := g.Git("rev-parse", "HEAD")
	g.Write(map[string]string{"log.md": "one\ntwo\nthree\nfour\nfive\n"})
	g.Git("-c", "gpg.format=ssh", "-c", "user.signingkey="+mallory, "commit", "-q", "-a", "-S", "-m", "by mallory")
	other := g.Git("rev-parse", "HEAD")

	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	lines, err := repo.BlameSince(base, "log.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []gitrev.BlamedLine{
		{"one", base, true, "log.md", 1}, {"two", base, true, "log.md", 2}, {"three", unsigned, false, "log.md", 3},
		{"four", signed, false, "log.md", 4}, {"five", other, false, "log.md", 5},
	}
	if len(lines) != len(want) {
		t.Fatalf("blame: %+v", lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i+1, lines[i], want[i])
		}
	}

	allowed := []byte("alice@example.com namespaces=\"git\" " + alicePub + "\n")
	for _, tc := range []struct {
		commit, status string
	}{{unsigned, "N"}, {signed, "G"}, {other, "U"}} {
		sig, err := repo.Signature(tc.commit, allowed)
		if err != nil {
			t.Fatal(err)
		}
		if sig.Status != tc.status {
			t.Errorf("%s: status %q, want %q (%+v)", gitrev.Short(tc.commit), sig.Status, tc.status, sig)
		}
		if tc.commit == signed && (!strings.HasPrefix(sig.Fingerprint, "SHA256:") || sig.Signer != "alice@example.com") {
			t.Errorf("signed: %+v", sig)
		}
	}
	// A line alice signed in another file, which a later commit renamed
	// onto this one: git blames it on her commit, under the old name.
	g.Write(map[string]string{"elsewhere.md": "decided\n"})
	g.Git("add", "elsewhere.md")
	g.Git("-c", "gpg.format=ssh", "-c", "user.signingkey="+alice, "commit", "-q", "-S", "-m", "alice, elsewhere")
	g.Git("rm", "-q", "log.md")
	g.Commit("log.md removed, unsigned")
	g.Git("mv", "elsewhere.md", "log.md")
	g.Commit("elsewhere.md renamed to log.md, unsigned")
	moved, err := repo.BlameSince(base, "log.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != 1 || moved[0].Text != "decided" || moved[0].File != "elsewhere.md" {
		t.Errorf("blame after the move: %+v, want the line under its old name elsewhere.md", moved)
	}
	if _, err := repo.BlameSince("HEAD~1", "log.md"); err == nil {
		t.Error("a base that is not a full object name was accepted")
	}
	if _, err := repo.Signature("--output=/tmp/x", allowed); err == nil {
		t.Error("an option as a commit was accepted")
	}
}

// TestSignatureIgnoresReplaceObjects: a replace object in the clone
// (refs/replace/, which a change can bring) cannot lend a person's
// signature to the commit that actually added a line.
func TestSignatureIgnoresReplaceObjects(t *testing.T) {
	g := gittest.Init(t)
	alice, alicePub := sshKey(t, "alice")
	g.Write(map[string]string{"log.md": "one\n"})
	base := g.Commit("base")
	g.Write(map[string]string{"log.md": "one\ntwo\n"})
	real := g.Commit("unsigned")
	g.Git("checkout", "-q", "--detach", base)
	g.Write(map[string]string{"log.md": "one\ntwo\n"})
	g.Git("-c", "gpg.format=ssh", "-c", "user.signingkey="+alice, "commit", "-q", "-a", "-S", "-m", "signed stand-in")
	fake := g.Git("rev-parse", "HEAD")
	g.Git("checkout", "-q", "main")
	g.Git("replace", real, fake)
	repo, err := gitrev.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	allowed := []byte("alice@example.com namespaces=\"git\" " + alicePub + "\n")
	lines, err := repo.BlameSince(base, "log.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[1].Commit != real {
		t.Fatalf("blame: %+v (want %s)", lines, gitrev.Short(real))
	}
	sig, err := repo.Signature(real, allowed)
	if err != nil {
		t.Fatal(err)
	}
	if sig.Status == "G" {
		t.Errorf("the replace object's signature was read: %+v", sig)
	}
}
