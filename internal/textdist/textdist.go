// Package textdist measures how far apart two short words are, for the
// "did you mean" hints of the configuration and schema messages.
package textdist

// MaxRunes bounds the inputs: names and enum values longer than this are
// too long to be typos of each other, and the bound keeps the work small.
const MaxRunes = 64

// Levenshtein is the edit distance between a and b, in runes. Beyond
// MaxRunes it returns the longer length, which is never a near miss.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > MaxRunes || len(rb) > MaxRunes {
		return max(len(ra), len(rb))
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
