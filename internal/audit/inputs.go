package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unique"
)

// Input is one file a check read, with its SHA-256.
type Input struct {
	Path   string
	SHA256 [sha256.Size]byte
}

// Inputs lists the files a run's check read, sorted by path, each path
// once. It is encoded as the object {path: hex digest} that a map would
// give, keys in the same order, but a check keeps one per run until the
// report is written, so it holds the raw digests (half the size of their hex
// form, and no map buckets) and paths shared with every run that names the
// same relative file.
type Inputs []Input

// InputsFromHex builds Inputs from digests in lower-case hex by path, the
// form the checking stages compare with logged hashes. A digest in any other
// form is an error: it could not be written back byte for byte.
func InputsFromHex(hexByPath map[string]string) (Inputs, error) {
	if hexByPath == nil {
		return nil, nil
	}
	in := make(Inputs, 0, len(hexByPath))
	for path, sum := range hexByPath {
		digest, ok := decodeDigest(sum)
		if !ok {
			return nil, fmt.Errorf("input %q: digest %q is not %d lower-case hex digits", path, sum, 2*sha256.Size)
		}
		in = append(in, Input{Path: unique.Make(path).Value(), SHA256: digest})
	}
	slices.SortFunc(in, func(x, y Input) int { return strings.Compare(x.Path, y.Path) })
	return in, nil
}

// decodeDigest accepts exactly what hex.EncodeToString makes of a SHA-256.
func decodeDigest(sum string) (digest [sha256.Size]byte, ok bool) {
	if len(sum) != 2*sha256.Size || strings.ToLower(sum) != sum {
		return digest, false
	}
	_, err := hex.Decode(digest[:], []byte(sum))
	return digest, err == nil
}

// SHA256Hex returns the lower-case hex digest of path, if the check read it.
func (in Inputs) SHA256Hex(path string) (string, bool) {
	i, ok := slices.BinarySearchFunc(in, path, func(x Input, p string) int { return strings.Compare(x.Path, p) })
	if !ok {
		return "", false
	}
	return hex.EncodeToString(in[i].SHA256[:]), true
}

// MarshalJSON writes what encoding/json writes for the map
// {path: hex digest}: null for nil
// Inputs, else an object with keys in byte order.
func (in Inputs) MarshalJSON() ([]byte, error) {
	if in == nil {
		return []byte("null"), nil
	}
	var buf bytes.Buffer
	buf.Grow(len(in) * (2*sha256.Size + 32))
	buf.WriteByte('{')
	var digest [2 * sha256.Size]byte
	for i, x := range in {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := json.Marshal(x.Path)
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteString(`:"`)
		hex.Encode(digest[:], x.SHA256[:])
		buf.Write(digest[:])
		buf.WriteByte('"')
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes, so a report reads back into
// Audits.
func (in *Inputs) UnmarshalJSON(data []byte) error {
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	decoded, err := InputsFromHex(m)
	if err != nil {
		return err
	}
	*in = decoded
	return nil
}
