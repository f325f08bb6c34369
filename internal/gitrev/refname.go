package gitrev

import (
	"fmt"
	"slices"
	"strings"
)

// unambiguous rewrites rev so that its leading name is a full ref name
// (refs/tags/v1~2 for v1~2), after checking that the name means one
// thing. A full object name, HEAD and names that no ref matches are
// returned as they are.
func (r *Repo) unambiguous(rev string) (string, error) {
	name, rest := splitRev(rev)
	if name == "" || name == "HEAD" || name == "@" || isObjectName(name) {
		return rev, nil
	}
	if strings.HasPrefix(name, "refs/") && r.hasRef(name) {
		// A full ref name is the first of git's rules: it means that ref.
		return rev, nil
	}
	refs, err := r.refsNamed(name)
	if err != nil {
		return "", err
	}
	candidates := append([]string(nil), refs...)
	if len(refs) > 0 && isHex(name) && len(name) >= 4 {
		// A ref named like an abbreviated commit name: git would read
		// the ref, and the name was perhaps meant as the commit.
		objects, err := r.objectsNamed(name)
		if err != nil {
			return "", err
		}
		for _, o := range objects {
			candidates = append(candidates, "commit "+o)
		}
	}
	switch {
	case len(candidates) > 1:
		// The example is a branch: a tag is what a change can add most
		// easily.
		example := candidates[0]
		for _, c := range candidates {
			if strings.HasPrefix(c, "refs/heads/") || strings.HasPrefix(c, "refs/remotes/") {
				example = c
				break
			}
		}
		return "", &RemedyError{Remedy: NameInFull, Example: example + rest, Err: fmt.Errorf("revision %q is ambiguous: it names %s; pass the one you mean in full",
			rev, strings.Join(candidates, " and "))}
	case len(refs) == 1:
		return refs[0] + rest, nil
	}
	return rev, nil
}

// splitRev cuts a revision into its leading name and what follows it
// (~, ^, :, @{...}).
func splitRev(rev string) (name, rest string) {
	i := strings.IndexAny(rev, "~^:")
	if j := strings.Index(rev, "@{"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return rev, ""
	}
	return rev[:i], rev[i:]
}

func isHex(s string) bool { return s != "" && strings.Trim(s, "0123456789abcdef") == "" }

// refsNamed lists the refs a short name could stand for, by git's rules
// (gitrevisions: refs/<name>, refs/tags/<name>, refs/heads/<name>,
// refs/remotes/<name>, refs/remotes/<name>/HEAD), that exist.
func (r *Repo) refsNamed(name string) ([]string, error) {
	want := []string{"refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"}
	out, err := gitOutput(r.Root, append([]string{"for-each-ref", "--format=%(refname)", "--"}, want...)...)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		have[l] = true
	}
	var found []string
	for _, w := range want {
		if have[w] && !slices.Contains(found, w) {
			found = append(found, w)
		}
	}
	return found, nil
}

// hasRef reports whether the full ref name exists.
func (r *Repo) hasRef(ref string) bool {
	out, err := gitOutput(r.Root, "for-each-ref", "--format=%(refname)", "--", ref)
	if err != nil {
		return false
	}
	return slices.Contains(strings.Split(out, "\n"), ref)
}

// objectsNamed lists the commits whose object name starts with prefix.
func (r *Repo) objectsNamed(prefix string) ([]string, error) {
	out, err := gitOutput(r.Root, "rev-parse", "--disambiguate="+prefix)
	if err != nil {
		// No object at all has that prefix (or it is too short to ask).
		return nil, nil
	}
	var list []string
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			continue
		}
		if t, err := gitOutput(r.Root, "cat-file", "-t", l); err == nil && (t == "commit" || t == "tag") {
			list = append(list, short(l))
		}
	}
	return list, nil
}

// refCommit resolves a full ref name to its commit; ok is false when the
// ref does not exist. for-each-ref answers with the object it points at,
// so the base is chosen without an exchange with the cat-file process.
func (r *Repo) refCommit(ref string) (sha string, ok bool, err error) {
	found, err := r.refCommits(ref)
	if err != nil {
		return "", false, err
	}
	a, ok := found[ref]
	return a.sha, ok, a.err
}

// refAnswer is what for-each-ref says of one ref that exists: its commit,
// or why it names none.
type refAnswer struct {
	sha string
	err error
}

// refCommits resolves several full ref names with one git process; a ref
// that does not exist has no entry.
func (r *Repo) refCommits(refs ...string) (map[string]refAnswer, error) {
	args := append([]string{"for-each-ref", "--format=%(refname) %(objecttype) %(objectname) %(*objecttype) %(*objectname)", "--"}, refs...)
	out, err := gitOutput(r.Root, args...)
	if err != nil {
		return nil, err
	}
	found := map[string]refAnswer{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		// A pattern also matches the refs below it (refs/heads/main/x):
		// only the names asked for count.
		if len(f) < 3 || !slices.Contains(refs, f[0]) {
			continue
		}
		switch {
		case f[1] == "commit":
			found[f[0]] = refAnswer{sha: f[2]}
		case len(f) == 5 && f[3] == "commit":
			found[f[0]] = refAnswer{sha: f[4]}
		default:
			found[f[0]] = refAnswer{err: fmt.Errorf("%s does not point at a commit", f[0])}
		}
	}
	return found, nil
}
