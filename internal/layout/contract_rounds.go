package layout

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// contractRoundNumber is the number of a round folder, named round-<n>;
// ok is false for any other name, and for a number too large to be one.
// The loaded run (rounds) and the auditor's folder on disk
// (ContractLastRound) both number rounds by it.
func contractRoundNumber(name string) (n int, ok bool) {
	if !contractRoundName.MatchString(name) {
		return -1, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "round-"))
	return n, err == nil
}

// compareRounds orders rounds by number, then by folder: the last round
// is the last one.
func compareRounds(a, b contractRound) int {
	if c := cmp.Compare(a.N, b.N); c != 0 {
		return c
	}
	return strings.Compare(a.Dir, b.Dir)
}

// ContractRoundFolder is an entry of a contract run's rounds/ folder, as
// the writer of the auditor's audit.json finds it on disk.
type ContractRoundFolder struct {
	Name    string   // the entry's name: a round is round-<n>
	Symlink bool     // a symbolic link, not a folder
	Files   []string // the names of what a folder holds other than folders
}

// ContractLastRound is where the auditor of a contract run writes,
// relative to the run, given the entries of its rounds/ folder: the
// highest-numbered round-<n> folder holding one of a round's documents,
// or "." when there is none. Two folders of that number (round-2 and
// round-02) are an error, and so is a symbolic link where a round would
// be: the checker writes into a run only through real folders.
func ContractLastRound(entries []ContractRoundFolder) (string, error) {
	var rounds []contractRound
	for _, e := range entries {
		n, ok := contractRoundNumber(e.Name)
		if !ok {
			continue
		}
		if e.Symlink {
			return "", fmt.Errorf("rounds/%s is a symbolic link; the checker writes into a run only through real folders", e.Name)
		}
		if holdsRound(e.Files) {
			rounds = append(rounds, contractRound{N: n, Dir: "rounds/" + e.Name})
		}
	}
	if len(rounds) == 0 {
		return ".", nil
	}
	last := slices.MaxFunc(rounds, compareRounds)
	var same []string
	for _, r := range rounds {
		if r.N == last.N {
			same = append(same, r.Dir)
		}
	}
	if len(same) > 1 {
		slices.Sort(same)
		return "", fmt.Errorf("%s are the same round %d: rename one so that the last round is clear", strings.Join(same, " and "), last.N)
	}
	return last.Dir, nil
}

// holdsRound reports whether a folder's files include one of a round's
// documents: an empty or unrelated folder is not a round.
func holdsRound(files []string) bool {
	for _, role := range contractRoles {
		if slices.Contains(files, role.name+".json") {
			return true
		}
	}
	return false
}
