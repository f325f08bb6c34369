package layout

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// contractRoundNumber is the number of a round folder, named round-<n>;
// ok is false for any other name, and for a number too large to be one
// (contractRoundDigits tells that case apart). The loaded run (rounds) and
// the auditor's folder on disk (ContractLastRound) both number rounds by it.
func contractRoundNumber(name string) (n int, ok bool) {
	if !contractRoundName.MatchString(name) {
		return -1, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "round-"))
	return n, err == nil
}

// contractRoundDigits is the number of a folder named round-<digits> as
// written, without leading zeros ("0" for zero); ok is false for any other
// name. Unlike contractRoundNumber it reads a number of any size, so a
// round whose number overflows an int is still placed by its value.
func contractRoundDigits(name string) (digits string, ok bool) {
	if !contractRoundName.MatchString(name) {
		return "", false
	}
	digits = strings.TrimLeft(strings.TrimPrefix(name, "round-"), "0")
	if digits == "" {
		digits = "0"
	}
	return digits, true
}

// roundRank orders the kinds of rounds: the flat run's one round first,
// then the numbered folders, then a round-<digits> folder whose number is
// too large to read (its value is larger than any number read), then a
// folder whose name is no number at all. A folder of the last two kinds
// is h3a.structure.contract_round_number: it is never taken for an
// earlier round, which would hide the numbered rounds' true last one.
func roundRank(r contractRound) int {
	switch {
	case r.Dir == "":
		return 0
	case r.N >= 0:
		return 1
	}
	if _, ok := contractRoundDigits(path.Base(r.Dir)); ok {
		return 2
	}
	return 3
}

// compareRounds orders rounds by number, then by folder: the last round
// is the last one. Numbers too large for an int compare by their digits.
func compareRounds(a, b contractRound) int {
	ra, rb := roundRank(a), roundRank(b)
	if c := cmp.Compare(ra, rb); c != 0 {
		return c
	}
	switch ra {
	case 1:
		if c := cmp.Compare(a.N, b.N); c != 0 {
			return c
		}
	case 2:
		da, _ := contractRoundDigits(path.Base(a.Dir))
		db, _ := contractRoundDigits(path.Base(b.Dir))
		if c := cmp.Compare(len(da), len(db)); c != 0 {
			return c
		}
		if c := strings.Compare(da, db); c != 0 {
			return c
		}
	}
	return strings.Compare(a.Dir, b.Dir)
}

// unreadableRoundNumber says why the number of a round folder cannot be
// read ("" when it can, and for the flat run's round).
func unreadableRoundNumber(dir string) string {
	if dir == "" {
		return ""
	}
	name := path.Base(dir)
	if _, ok := contractRoundNumber(name); ok {
		return ""
	}
	if _, ok := contractRoundDigits(name); ok {
		return fmt.Sprintf("its number %s is too large to read", strings.TrimPrefix(name, "round-"))
	}
	return fmt.Sprintf("%q is not a round number (round-<n>, n = 1, 2, 3, ...)", strings.TrimPrefix(name, "round-"))
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
// round-02) are an error, and so is a round-<digits> folder holding a
// round whose number is too large to read (which round is last would be a
// guess), and a symbolic link where a round would be: the checker writes
// into a run only through real folders.
func ContractLastRound(entries []ContractRoundFolder) (string, error) {
	var rounds []contractRound
	for _, e := range entries {
		if _, ok := contractRoundDigits(e.Name); !ok {
			continue
		}
		if e.Symlink {
			return "", fmt.Errorf("rounds/%s is a symbolic link; the checker writes into a run only through real folders", e.Name)
		}
		if !holdsRound(e.Files) {
			continue
		}
		n, ok := contractRoundNumber(e.Name)
		if !ok {
			return "", fmt.Errorf("rounds/%s holds a round but %s, so which round is last is unknown: rename it to the number the orchestrator gave the round", e.Name, unreadableRoundNumber("rounds/"+e.Name))
		}
		rounds = append(rounds, contractRound{N: n, Dir: "rounds/" + e.Name})
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
