package history

import "testing"

// TestLFSTracked: .gitattributes lines are read as git reads them, the
// last matching line deciding, deeper files after the top's.
func TestLFSTracked(t *testing.T) {
	top := AttrFile{Dir: "", Data: []byte("# comment\n*.png filter=lfs diff=lfs merge=lfs -text\nruns/**/artifacts/*.bin filter=lfs\n/data/*.csv filter=lfs\n")}
	run := AttrFile{Dir: "runs/r", Data: []byte("*.png -filter\nartifacts/big.txt filter=lfs\r\n")}
	tests := []struct {
		files []AttrFile
		path  string
		want  bool
	}{
		{[]AttrFile{top}, "a/b/c.png", true},
		{[]AttrFile{top}, "c.png", true},
		{[]AttrFile{top}, "runs/r/artifacts/x.bin", true},
		{[]AttrFile{top}, "runs/r/artifacts/deep/x.bin", false},
		{[]AttrFile{top}, "data/x.csv", true},
		{[]AttrFile{top}, "sub/data/x.csv", false},
		{[]AttrFile{top}, "a.txt", false},
		{[]AttrFile{top, run}, "runs/r/pic.png", false},
		{[]AttrFile{top, run}, "runs/r/artifacts/big.txt", true},
		{[]AttrFile{top, run}, "other/artifacts/big.txt", false},
		{[]AttrFile{{Data: []byte("!*.png filter=lfs\n*.txt filter=lfs\n*.txt filter=other\n")}}, "a.txt", false},
	}
	for _, tc := range tests {
		if got := lfsTracked(tc.files, tc.path); got != tc.want {
			t.Errorf("lfsTracked(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if got := attrDirs("runs/r/artifacts/a.txt"); len(got) != 4 || got[0] != "" || got[3] != "runs/r/artifacts" {
		t.Errorf("attrDirs = %q", got)
	}
	if got := attrDirs("a.txt"); len(got) != 1 {
		t.Errorf("attrDirs(a.txt) = %q, want the top only", got)
	}
}
