package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// breakRun applies one breakage to a written run.
func (g *runGen) breakRun(b Breakage) error {
	switch b.Name {
	case "hash_mismatch":
		return g.edit("artifacts/executor/test_output_green.txt", func(data []byte) ([]byte, error) {
			return append(data, "1 test re-run by hand\n"...), nil
		})
	case "missing_artifact":
		return g.remove("artifacts/executor/test_output_red.txt")
	case "schema_violation":
		return g.edit("state.json", replace(`"G3_production_ready": "not_started"`, `"G3_production_ready": "done"`))
	case "json_syntax":
		return g.edit("state/CURRENT_TASK.json", func(data []byte) ([]byte, error) { return data[:len(data)/2], nil })
	case "run_id_mismatch":
		// Another valid run id: the same time, a different UUID.
		other := g.id[:len(g.id)-1] + string("0123456789abcdef"[(indexHex(g.id[len(g.id)-1])+1)%16])
		return g.edit("state.json", replace(fmt.Sprintf(`"run_id": %q`, g.id), fmt.Sprintf(`"run_id": %q`, other)))
	case "tmp_leftover":
		data, err := os.ReadFile(g.path("state.json"))
		if err != nil {
			return err
		}
		return g.writeFile("state.json.tmp", data)
	case "missing_file":
		return g.remove("state/ROADMAP.md")
	case "malformed_record":
		// An extra entry without its hash; the real entries stay intact.
		return g.edit("state/EVIDENCE_LOG.md", replace("## Artifact Index\n", "## Artifact Index\n- `artifacts/executor/notes.txt` - written by hand\n"))
	}
	return fmt.Errorf("unknown breakage %q", b.Name)
}

func indexHex(c byte) int { return bytes.IndexByte([]byte("0123456789abcdef"), c) }

func (g *runGen) path(rel string) string { return filepath.Join(g.dir, filepath.FromSlash(rel)) }

// replace returns an edit that replaces old, which must occur exactly once.
func replace(old, with string) func([]byte) ([]byte, error) {
	return func(data []byte) ([]byte, error) {
		if n := bytes.Count(data, []byte(old)); n != 1 {
			return nil, fmt.Errorf("expected %q once, found it %d times", old, n)
		}
		return bytes.Replace(data, []byte(old), []byte(with), 1), nil
	}
}

func (g *runGen) edit(rel string, change func([]byte) ([]byte, error)) error {
	data, err := os.ReadFile(g.path(rel))
	if err != nil {
		return err
	}
	out, err := change(data)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	g.bytes += int64(len(out) - len(data))
	return os.WriteFile(g.path(rel), out, 0o644)
}

func (g *runGen) remove(rel string) error {
	info, err := os.Stat(g.path(rel))
	if err != nil {
		return err
	}
	g.files--
	g.bytes -= info.Size()
	return os.Remove(g.path(rel))
}
