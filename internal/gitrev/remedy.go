package gitrev

// Remedy is how the user resolves an error by naming a revision
// themselves; the caller words it, as its user names a revision (the
// command line: --base).
type Remedy int

const (
	// NameTheBase: say which revision to compare with.
	NameTheBase Remedy = iota + 1
	// NameTheTarget: name the commit the change is to land on, instead
	// of fetching the default branch.
	NameTheTarget
	// NameInFull: name one of several revisions in full (Example).
	NameInFull
)

// RemedyError is an error that naming a revision resolves. Its text says
// what is wrong; the caller adds how to name the revision.
type RemedyError struct {
	Err     error
	Remedy  Remedy
	Example string // for NameInFull: one of the revisions, in full
}

func (e *RemedyError) Error() string { return e.Err.Error() }
func (e *RemedyError) Unwrap() error { return e.Err }
