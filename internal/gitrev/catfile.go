package gitrev

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// catFile is one `git cat-file --batch` process. Exchanges are serialised:
// each one writes one or more "<object>\n" lines and reads every answer
// before the next exchange starts.
type catFile struct {
	dir string

	mu      sync.Mutex
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *bufio.Reader
	stderr  *limitedBuffer
	broken  error // set once the pipe is out of step; every later call fails with it
	started int   // processes started (for tests and benchmarks)
	reqs    int
	trips   int // exchanges: one round trip each, however many objects
	// contents counts file contents asked for (Read, Stream, Blobs), as
	// opposed to folders and object names.
	contents int
}

// header is the first line of an answer: "<oid> <type> <size>".
type header struct {
	oid, typ string
	size     int64
}

// start launches the process on first use, so a check that never reads a
// base file never starts one.
func (c *catFile) start() error {
	if c.cmd != nil {
		return nil
	}
	cmd := gitCommand(c.dir, "cat-file", "--batch")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	c.stderr = &limitedBuffer{max: 4096}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start git cat-file: %w", err)
	}
	c.cmd, c.stdin, c.stdout = cmd, stdin, bufio.NewReaderSize(stdout, 64<<10)
	c.started++
	return nil
}

// request sends one object name and calls body with the answer's content
// (nil when the object is missing). body may stop early: the rest of the
// content is discarded so that the next answer starts where it should.
func (c *catFile) request(object string, body func(h header, r io.Reader) error) (exists bool, err error) {
	var found bool
	err = c.requestAll([]string{object}, func(_ int, h header, r io.Reader) error {
		found = true
		return body(h, r)
	})
	return found, err
}

// maxAhead bounds the request lines written before their answers are read.
// Between exchanges the process has consumed every earlier line, so a write
// this size fits in an empty pipe and cannot block on a process that is
// itself blocked writing answers nobody reads yet.
const maxAhead = 16 << 10

// requestAll sends every object name and then reads the answers in order,
// so that a batch costs one round trip instead of one per object. body is
// called for each object found, with its index in objects; a missing
// object gets no call. An error from body concerns its own object: the
// other answers are still read, and the first such error is returned
// (with the pipe still usable). Any other error breaks the pipe.
func (c *catFile) requestAll(objects []string, body func(i int, h header, r io.Reader) error) error {
	for _, object := range objects {
		if strings.ContainsAny(object, "\n\r\x00") {
			return fmt.Errorf("path %q contains a line break or NUL, which git cat-file --batch cannot read", object)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	if err := c.start(); err != nil {
		c.broken = err
		return err
	}
	var first error
	var lines []byte
	for from := 0; from < len(objects); {
		lines = lines[:0]
		to := from
		for to < len(objects) && (to == from || len(lines)+len(objects[to])+1 <= maxAhead) {
			lines = append(lines, objects[to]...)
			lines = append(lines, '\n')
			to++
		}
		c.reqs += to - from
		c.trips++
		if _, err := c.stdin.Write(lines); err != nil {
			return c.fail(fmt.Errorf("writing to git cat-file: %w", err))
		}
		for i := from; i < to; i++ {
			err := c.answer(objects[i], func(h header, r io.Reader) error { return body(i, h, r) })
			if errors.Is(err, errBroken) {
				return c.broken
			}
			if err != nil && first == nil {
				first = err
			}
		}
		from = to
	}
	return first
}

// errBroken marks an error after which the pipe was closed (c.broken says why).
var errBroken = errors.New("git cat-file pipe broken")

// answer reads the answer to object and hands its content to body.
func (c *catFile) answer(object string, body func(h header, r io.Reader) error) error {
	line, err := c.stdout.ReadString('\n')
	if err != nil {
		c.fail(fmt.Errorf("reading from git cat-file: %w", err))
		return errBroken
	}
	line = strings.TrimSuffix(line, "\n")
	h, ok := parseHeader(line)
	if !ok {
		switch {
		case line == object+" missing":
			return nil
		case line == object+" ambiguous":
			return fmt.Errorf("%q is ambiguous in this repository", object)
		}
		c.fail(fmt.Errorf("unexpected answer from git cat-file for %q: %q", object, line))
		return errBroken
	}
	content := io.LimitReader(c.stdout, h.size)
	berr := body(h, content)
	// Whatever body left unread, and the LF after the content, must go.
	if _, err := io.Copy(io.Discard, content); err != nil {
		c.fail(fmt.Errorf("reading %q from git cat-file: %w", object, err))
		return errBroken
	}
	if b, err := c.stdout.ReadByte(); err != nil || b != '\n' {
		c.fail(fmt.Errorf("git cat-file answer for %q is not terminated by a line feed", object))
		return errBroken
	}
	return berr
}

// fail marks the pipe unusable: after a partial answer the next one cannot
// be found.
func (c *catFile) fail(err error) error {
	if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
		err = fmt.Errorf("%w (git said: %s)", err, msg)
	}
	c.broken = err
	c.close()
	return err
}

func (c *catFile) close() error {
	if c.cmd == nil {
		return nil
	}
	c.stdin.Close() // EOF on stdin ends cat-file
	err := c.cmd.Wait()
	c.cmd = nil
	return err
}

func (c *catFile) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken == nil {
		c.broken = errors.New("git cat-file is closed")
	}
	return c.close()
}

// parseHeader reads "<oid> <type> <size>"; ok is false for any other line.
func parseHeader(line string) (header, bool) {
	f := strings.Split(line, " ")
	if len(f) != 3 || (len(f[0]) != 40 && len(f[0]) != 64) || strings.Trim(f[0], "0123456789abcdef") != "" {
		return header{}, false
	}
	switch f[1] {
	case "blob", "tree", "commit", "tag":
	default:
		return header{}, false
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || n < 0 {
		return header{}, false
	}
	return header{oid: f[0], typ: f[1], size: n}, true
}

// limitedBuffer keeps the first max bytes of what git writes to stderr; it
// is written by the process's copying goroutine and read on failure.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
