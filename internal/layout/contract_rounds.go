package layout

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
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

// ContractLastRound is where the auditor of a contract run writes,
// relative to the run: the highest-numbered rounds/round-<n>/ folder
// holding one of a round's documents, or "." when the run has no such
// folder. Two folders of that number (round-2 and round-02) are an error,
// and so is a symbolic link where the round would be: the checker writes
// into a run only through real folders.
func ContractLastRound(run *os.Root) (string, error) {
	info, err := run.Lstat("rounds")
	if errors.Is(err, fs.ErrNotExist) {
		return ".", nil
	}
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("rounds is a symbolic link; the checker writes into a run only through real folders")
		}
		return ".", nil
	}
	d, err := run.Open("rounds")
	if err != nil {
		return "", err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return "", err
	}
	var rounds []contractRound
	for _, e := range ents {
		n, ok := contractRoundNumber(e.Name())
		if !ok {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("rounds/%s is a symbolic link; the checker writes into a run only through real folders", e.Name())
		}
		dir := "rounds/" + e.Name()
		if e.IsDir() && holdsRound(run, dir) {
			rounds = append(rounds, contractRound{N: n, Dir: dir})
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

// holdsRound reports whether dir holds one of a round's documents: an
// empty or unrelated folder is not a round.
func holdsRound(run *os.Root, dir string) bool {
	for _, role := range contractRoles {
		if info, err := run.Lstat(dir + "/" + role.name + ".json"); err == nil && !info.IsDir() {
			return true
		}
	}
	return false
}
