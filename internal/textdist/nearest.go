package textdist

import "strings"

// Nearest returns the candidate that word most likely is a slip of: the same
// up to case and separators, or within a small edit distance, or else the
// only candidate word is the start of. It returns false when no candidate is
// close enough to be worth suggesting.
func Nearest(word string, candidates []string) (string, bool) {
	best, bestDist := "", -1
	for _, cand := range candidates {
		if cand == word {
			continue
		}
		d := 0
		if fold(cand) != fold(word) {
			// Too short to tell a typo from a different word.
			if len(word) < 3 {
				continue
			}
			lw, lc := strings.ToLower(word), strings.ToLower(cand)
			d = Levenshtein(lw, lc)
			if d == 2 && swapped(lw, lc) {
				d = 1 // "tset" for "test" is one slip, not two
			}
			// One slip in a short word, two in a longer one; more than that
			// suggests a different word, not a typo.
			limit := 1
			if max(len(word), len(cand)) > 4 {
				limit = 2
			}
			if d > limit {
				continue
			}
		}
		if bestDist < 0 || d < bestDist || d == bestDist && cand < best {
			best, bestDist = cand, d
		}
	}
	if bestDist >= 0 {
		return best, true
	}
	return uniquePrefix(word, candidates)
}

// uniquePrefix returns the only candidate that starts with word (ignoring
// case and separators), as in "G1" for "G1_implementation".
func uniquePrefix(word string, candidates []string) (string, bool) {
	w := fold(word)
	if len(w) < 2 {
		return "", false
	}
	found := ""
	for _, cand := range candidates {
		if strings.HasPrefix(fold(cand), w) {
			if found != "" {
				return "", false
			}
			found = cand
		}
	}
	return found, found != ""
}

// fold removes the differences that are style rather than spelling:
// case and the separators of snake_case, kebab-case and "spaced words".
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// swapped reports whether a and b differ only by two neighbouring runes
// written the other way round.
func swapped(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if ra[i] != rb[i] {
			return i+1 < len(ra) && ra[i] == rb[i+1] && ra[i+1] == rb[i] && string(ra[i+2:]) == string(rb[i+2:])
		}
	}
	return false
}
