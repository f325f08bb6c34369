package runwrite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/h3a-check/h3a-check/internal/atomicfile"
	"github.com/h3a-check/h3a-check/internal/evidence"
	"github.com/h3a-check/h3a-check/internal/layout"
	"github.com/h3a-check/h3a-check/internal/ledger"
	"github.com/h3a-check/h3a-check/internal/rundir"
)

// EvidenceLogPath is the evidence log, relative to the run.
const EvidenceLogPath = "state/EVIDENCE_LOG.md"

// SpecHashDigits is how many hex digits of the SHA-256 the specification
// logs ("first 16 chars of SHA-256 hex digest").
const SpecHashDigits = 16

// MaxLogSize bounds the evidence log that Log reads to check the append.
const MaxLogSize = 64 << 20

// DefaultLockWait is how long Log waits for another writer's lock on the
// evidence log before it gives up.
const DefaultLockWait = 30 * time.Second

// LogOptions is one artifact to log.
type LogOptions struct {
	Run         string    // the run directory
	File        string    // the artifact, as a path from the working directory (or absolute)
	Description string    // one line of text
	Full        bool      // log all 64 hex digits instead of the specification's 16
	Now         time.Time // the entry's time
	LockWait    time.Duration
}

// Logged is the entry Log appended.
type Logged struct {
	Entry ledger.Entry // Line is the entry's line in the log
	Text  string       // the line as written, without its line ending
}

// Log hashes opts.File and appends its entry to the run's evidence log,
// under an exclusive lock on the log and flushed to disk before it
// returns. It refuses a file outside the run, a symbolic link (on the way
// or at the end), a folder or any other non-regular file, a missing file,
// the log itself, and a description that is not one line of text. It
// never rewrites a byte of the log: the entry is appended at its end.
func Log(opts LogOptions) (Logged, error) {
	desc, err := checkDescription(opts.Description)
	if err != nil {
		return Logged{}, err
	}
	runAbs, err := filepath.Abs(opts.Run)
	if err != nil {
		return Logged{}, err
	}
	if !(layout.H3A{}).Detect(os.DirFS(runAbs), ".") {
		return Logged{}, fmt.Errorf("%q is not an h3a run: expected state.json and a state/ folder (h3a-check init makes one)", opts.Run)
	}
	rel, err := artifactPath(opts.Run, runAbs, opts.File)
	if err != nil {
		return Logged{}, err
	}
	root, err := os.OpenRoot(runAbs)
	if err != nil {
		return Logged{}, err
	}
	defer root.Close()
	sum, err := hashArtifact(root, runAbs, rel, opts.File)
	if err != nil {
		return Logged{}, err
	}
	digits := SpecHashDigits
	if opts.Full {
		digits = len(sum.Hex)
	}
	entry := ledger.Entry{Path: rel, Hash: sum.Hex[:digits], Time: opts.Now.UTC().Format("2006-01-02T15:04:05Z"), Description: desc}
	if _, err := ledger.FormatEvidenceEntry(entry); err != nil {
		return Logged{}, err
	}
	wait := opts.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	return appendEntry(root, runAbs, entry, wait)
}

// checkDescription trims the description and refuses what cannot be one
// line of an entry: nothing, invalid UTF-8, a line break or any other
// control character (a line or paragraph separator included).
func checkDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	if d == "" {
		return "", errors.New("the description is empty: say what the artifact shows, e.g. \"GREEN phase (all tests passing)\"")
	}
	if !utf8.ValidString(d) {
		return "", errors.New("the description is not valid UTF-8")
	}
	if i, r := controlChar(d); i >= 0 {
		return "", fmt.Errorf("the description holds the control character %U at byte %d; an entry is one line of plain text", r, i)
	}
	return d, nil
}

func controlChar(s string) (int, rune) {
	for i, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return i, r
		}
	}
	return -1, 0
}

// artifactPath turns file (a path from the working directory) into its
// path relative to the run, slash-separated, as the checker will read it.
func artifactPath(run, runAbs, file string) (string, error) {
	fileAbs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(runAbs, fileAbs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		msg := fmt.Sprintf("%q is outside the run %q; only files inside the run directory can be logged", file, run)
		if hint := runRelativeHint(runAbs, run, file); hint != "" {
			msg += hint
		}
		return "", errors.New(msg)
	}
	rel = filepath.ToSlash(rel)
	if i, r := controlChar(rel); i >= 0 {
		return "", fmt.Errorf("%q holds the control character %U; rename the file to log it", file, r)
	}
	if clean, p := rundir.CleanRef(rel); p != nil || clean != rel {
		return "", fmt.Errorf("%q would be read back by the checker as another path; rename the file to log it", file)
	}
	if rel == EvidenceLogPath {
		return "", fmt.Errorf("%q is the evidence log itself, which changes with every entry; log artifacts, not the log", file)
	}
	return rel, nil
}

// runRelativeHint suggests the path from the working directory when file
// names an existing file relative to the run, the other reading an agent
// may have meant.
func runRelativeHint(runAbs, run, file string) string {
	if filepath.IsAbs(file) {
		return ""
	}
	if info, err := os.Lstat(filepath.Join(runAbs, file)); err == nil && !info.IsDir() {
		return fmt.Sprintf(" (FILE is a path from the working directory: did you mean %q?)", filepath.Join(run, file))
	}
	return ""
}

// afterLstat, when set (by tests), runs between the look at the artifact
// and its open.
var afterLstat func()

// hashArtifact hashes the regular file at rel, refusing a symbolic link
// anywhere on the way from the run, and reading the very file it looked
// at: the file is opened through the run's os.Root and compared with
// what lstat saw.
func hashArtifact(root *os.Root, runAbs, rel, file string) (evidence.Sum, error) {
	parts := strings.Split(rel, "/")
	var info fs.FileInfo
	for i := range parts {
		cur := filepath.Join(append([]string{runAbs}, parts[:i+1]...)...)
		var err error
		info, err = os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return evidence.Sum{}, fmt.Errorf("%q does not exist", file)
		case err != nil:
			return evidence.Sum{}, fmt.Errorf("cannot read %q: %w", file, err)
		case info.Mode()&fs.ModeSymlink != 0:
			return evidence.Sum{}, fmt.Errorf("%q is a symbolic link (%q); log the file it points to, inside the run", file, strings.Join(parts[:i+1], "/"))
		case i < len(parts)-1 && !info.IsDir():
			return evidence.Sum{}, fmt.Errorf("%q does not exist: %q is not a folder", file, strings.Join(parts[:i+1], "/"))
		}
	}
	if info.IsDir() {
		return evidence.Sum{}, fmt.Errorf("%q is a folder; log each file in it", file)
	}
	if !info.Mode().IsRegular() {
		return evidence.Sum{}, fmt.Errorf("%q is not a regular file", file)
	}
	if afterLstat != nil {
		afterLstat()
	}
	// Non-blocking: a FIFO put in the file's place since the look above
	// must not stall the open; the comparison below then refuses it.
	f, err := root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return evidence.Sum{}, fmt.Errorf("cannot open %q: %w", file, err)
	}
	defer f.Close()
	// The type too: a file removed and replaced may get its inode number.
	if opened, err := f.Stat(); err != nil || !os.SameFile(opened, info) || !opened.Mode().IsRegular() {
		return evidence.Sum{}, fmt.Errorf("%q changed while it was being logged; try again", file)
	}
	sum, err := evidence.HashReader(f)
	if err != nil {
		return evidence.Sum{}, fmt.Errorf("cannot read %q: %w", file, err)
	}
	return sum, nil
}

// appendEntry adds entry to the evidence log under an exclusive lock,
// where a person would write it (ledger.InsertEvidenceEntry: under the
// artifact section of the agent whose folder holds the file), after
// checking on the log's current bytes that the parser reads it as the
// entry that counts for its path, and syncs the log before returning. An
// entry at the end is appended; one inside the log is written by
// replacing the log atomically (temporary file and rename), so a reader
// sees the old log or the new one. No existing line changes either way.
func appendEntry(root *os.Root, runAbs string, entry ledger.Entry, wait time.Duration) (Logged, error) {
	deadline := time.Now().Add(wait)
	for {
		logged, replaced, err := appendOnce(root, runAbs, entry, max(time.Until(deadline), time.Millisecond))
		if !replaced {
			return logged, err
		}
		// Another writer replaced the log while this one waited for the
		// lock: the lock was on the old file, so start again on the new.
		if time.Now().After(deadline) {
			return Logged{}, fmt.Errorf("%s kept being replaced by other writers for %v; try again", EvidenceLogPath, wait)
		}
	}
}

func appendOnce(root *os.Root, runAbs string, entry ledger.Entry, wait time.Duration) (logged Logged, replaced bool, err error) {
	native := filepath.FromSlash(EvidenceLogPath)
	if info, err := os.Lstat(filepath.Join(runAbs, "state")); err != nil || !info.IsDir() {
		return Logged{}, false, fmt.Errorf("the run's state/ is not a folder (a symbolic link?); the evidence log must be a file of the run")
	}
	info, err := os.Lstat(filepath.Join(runAbs, native))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Logged{}, false, fmt.Errorf("the run has no %s (h3a-check init makes one)", EvidenceLogPath)
	case err != nil:
		return Logged{}, false, err
	case !info.Mode().IsRegular():
		return Logged{}, false, fmt.Errorf("%s is not a regular file (a symbolic link or a folder); the evidence log must be a file of the run", EvidenceLogPath)
	}
	f, err := root.OpenFile(native, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return Logged{}, false, err
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !os.SameFile(opened, info) || !opened.Mode().IsRegular() {
		return Logged{}, true, nil // replaced between the look and the open
	}
	// A second name (a hard link) may be a file outside the run: appending
	// would write there too, and the run's log would not be its own.
	switch n, err := linkCount(f); {
	case err != nil:
		return Logged{}, false, fmt.Errorf("%s: %w; the evidence log is not appended to", EvidenceLogPath, err)
	case n > 1:
		return Logged{}, false, fmt.Errorf("%s has %d names (hard links), so appending to it would change another file too; give the run a log of its own (in the run folder: cp %s %s.new && mv %s.new %s)",
			EvidenceLogPath, n, EvidenceLogPath, EvidenceLogPath, EvidenceLogPath, EvidenceLogPath)
	}
	unlock, err := lockFile(f, wait)
	if err != nil {
		return Logged{}, false, fmt.Errorf("locking %s: %w", EvidenceLogPath, err)
	}
	defer unlock()
	if now, err := os.Lstat(filepath.Join(runAbs, native)); err != nil || !os.SameFile(now, info) {
		return Logged{}, true, nil
	}

	data, err := io.ReadAll(io.LimitReader(f, MaxLogSize+1))
	if err != nil {
		return Logged{}, false, fmt.Errorf("reading %s: %w", EvidenceLogPath, err)
	}
	if len(data) > MaxLogSize {
		return Logged{}, false, fmt.Errorf("%s is over %d MiB, the most log reads", EvidenceLogPath, MaxLogSize>>20)
	}
	out, line, atEnd, err := ledger.InsertEvidenceEntry(data, entry)
	if err != nil {
		return Logged{}, false, fmt.Errorf("%s: %w", EvidenceLogPath, err)
	}
	if atEnd {
		if err := appendAll(f, int64(len(data)), out[len(data):]); err != nil {
			return Logged{}, false, err
		}
	} else if err := replaceLog(root, out); err != nil {
		return Logged{}, false, fmt.Errorf("writing %s: %w", EvidenceLogPath, err)
	}
	entry.Line = line
	text := strings.Split(string(out), "\n")[line-1]
	return Logged{Entry: entry, Text: strings.TrimRight(text, "\r")}, false, nil
}

// appendAll appends add to the log f, which holds size bytes, and flushes
// it. An append cut short (a full disk, a quota, the file size limit) or
// not flushed is undone: the log is cut back to size, so it never ends in
// part of an entry, which the next entry would follow on the same line.
func appendAll(f *os.File, size int64, add []byte) error {
	n, err := f.Write(add)
	if err == nil {
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("flushing %s: %w", EvidenceLogPath, err)
		}
	} else {
		err = fmt.Errorf("appending to %s: %w", EvidenceLogPath, err)
	}
	if err == nil {
		return nil
	}
	// Cut back only the bytes written here: the lock keeps other writers
	// of the log out, but a writer that takes no lock may have appended.
	if info, serr := f.Stat(); serr == nil && info.Size() == size+int64(n) {
		if terr := f.Truncate(size); terr != nil {
			return fmt.Errorf("%w; the log could not be cut back to its %d bytes before the entry (%v): remove its unfinished last line", err, size, terr)
		}
		f.Sync()
		return fmt.Errorf("%w; the log is left as it was", err)
	}
	return fmt.Errorf("%w; the log may end in part of the entry: check its last line", err)
}

// replaceLog writes the log's new content beside it and renames it into
// place, keeping its mode.
func replaceLog(root *os.Root, data []byte) error {
	state, err := root.OpenRoot("state")
	if err != nil {
		return err
	}
	defer state.Close()
	return atomicfile.WriteIn(state, path.Base(EvidenceLogPath), data)
}
