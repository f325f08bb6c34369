package e2e

import (
	"go/ast"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/h3a-check/h3a-check"

// importLayers orders the module's packages from the top (the command)
// to the bottom (types and parsers that know nothing of the rest). A
// package imports only packages of the layers below its own: an import
// that runs up, or across one layer, is a change of the architecture,
// made here on purpose, not by accident in a refactor.
var importLayers = [][]string{
	{"cmd/h3a-check"},
	{"internal/cli"},
	{"internal/runner", "internal/runwrite", "internal/trusted"},
	{"internal/history", "internal/policy", "internal/report", "internal/config", "internal/trust"},
	{"internal/layout", "internal/schema", "internal/waiver", "internal/audit", "internal/secrets", "internal/evidence", "internal/gitrev", "internal/regoplan"},
	{"internal/rundir", "internal/ledger", "internal/status", "internal/atomicfile", "internal/pathglob", "internal/textdist", "internal/finding", "schemas", "policies"},
	{"internal/yamlpos"},
	{"internal/jsonpos"},
}

// Packages that only tests, benchmarks and generators use stand outside
// the layers: they may import anything, and nothing shipped imports them.
var outsideLayers = []string{"internal/e2e", "internal/synth", "internal/longtest", "internal/audit/audittest", "internal/txtar", "internal/gitrev/gittest", "internal/policy/plangen", "internal/policy/regofmt"}

func outside(pkg string) bool {
	for _, o := range outsideLayers {
		if pkg == o || strings.HasPrefix(pkg, o+"/") {
			return true
		}
	}
	return false
}

// TestImportLayers: every package of the module is in a layer (or named
// as one for tests only), and every import of a shipped file runs down.
func TestImportLayers(t *testing.T) {
	layerOf := map[string]int{}
	for i, layer := range importLayers {
		for _, pkg := range layer {
			layerOf[pkg] = i
		}
	}
	seen := map[string]bool{}
	goFiles(t, func(rel string, fset *token.FileSet, f *ast.File) {
		pkg := path.Dir(rel)
		if outside(pkg) {
			return
		}
		seen[pkg] = true
		from, ok := layerOf[pkg]
		if !ok {
			return // reported once below
		}
		if strings.HasSuffix(rel, "_test.go") {
			return // tests may use anything of the module
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			dep, ok := strings.CutPrefix(imp, modulePath+"/")
			if !ok {
				continue
			}
			if outside(dep) {
				t.Errorf("%s imports %s, which is for tests only", rel, dep)
				continue
			}
			to, ok := layerOf[dep]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is in no layer of importLayers", rel, dep)
			case to <= from:
				t.Errorf("%s (layer %d) imports %s (layer %d): imports run down the layers in importLayers; move the code, or change the layers on purpose", rel, from, dep, to)
			}
		}
	})
	var missing []string
	for pkg := range seen {
		if _, ok := layerOf[pkg]; !ok {
			missing = append(missing, pkg)
		}
	}
	slices.Sort(missing)
	for _, pkg := range missing {
		t.Errorf("package %s is in no layer of importLayers (nor in outsideLayers): say where it stands", pkg)
	}
}
