package layout

// A layout never opens a file itself: besides its Files, a check may need
// files that the run's documents name (an artifact's loc, a summary's
// path, the files a round touched) or whose presence is a fact of the
// input (a stage document). The layout lists them as Needs once its
// documents are parsed, and the load stage reads or looks at each once,
// confined to the run (or to the repository, for a Need with Repo),
// within the run's memory budget, and records what it found in the Run.

// Want is what a check needs of a file.
type Want int

const (
	// Text: the bytes of a regular file inside the run, at most Limit of
	// them. A file that is there but cannot be read (a link leading out
	// of the run, not a regular file, too large, past the run's memory
	// budget) is a finding at NamedBy, never left out in silence.
	Text Want = iota + 1
	// RegularFile: only whether a regular file is there, inside the run.
	RegularFile
	// Entry: only whether anything (a file, a folder, a link) is there,
	// inside Repo.
	Entry
)

// Need is one file a check needs besides the layout's Files.
type Need struct {
	Path string // as written, relative to the run (or to Repo)
	Want Want
	// Repo, when set, is the absolute folder Path is inside instead of the
	// run: the repository a run belongs to (Contract). Only Entry looks there.
	Repo  string
	Limit int64 // Text: the largest file read
	// NamedBy and Pointer say where the run names Path: a finding about
	// a Text that cannot be read is reported there ("" for Path itself).
	NamedBy, Pointer string
}

// Needer is a layout whose checks need files besides its Files. Needs is
// asked once the layout's documents are parsed, and again while it names
// needs not yet met (at most maxNeedRounds times), since what one file
// holds may decide whether another is needed; it lists every need each
// time, met or not.
type Needer interface {
	Needs(r *Run) []Need
}

// MaxNeedRounds bounds how often the load stage asks a Needer.
const MaxNeedRounds = 3

// Found is what the load stage found at a Need's path.
type Found struct {
	OK      bool   // read (Text) or there (RegularFile, Entry)
	Missing bool   // nothing is there
	Data    []byte // Text: the file's bytes
}

// needKey is what a Found is recorded under.
type needKey struct {
	repo, path string
	want       Want
}

func keyOf(n Need) needKey { return needKey{n.Repo, n.Path, n.Want} }

// Met reports whether the load stage has looked at n.
func (r *Run) Met(n Need) bool {
	_, ok := r.found[keyOf(n)]
	return ok
}

// Record keeps what the load stage found at n.
func (r *Run) Record(n Need, f Found) {
	if r.found == nil {
		r.found = map[needKey]Found{}
	}
	r.found[keyOf(n)] = f
}

// Text is what the load stage read of the run's file p (a Text need).
func (r *Run) Text(p string) Found { return r.found[needKey{"", p, Text}] }

// IsFile reports whether the load stage found a regular file at the run's
// path p (a RegularFile need).
func (r *Run) IsFile(p string) bool { return r.found[needKey{"", p, RegularFile}].OK }

// InRepo reports whether the load stage found anything at p inside the
// folder repo (an Entry need).
func (r *Run) InRepo(repo, p string) bool { return r.found[needKey{repo, p, Entry}].OK }
