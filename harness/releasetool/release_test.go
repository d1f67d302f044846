package main

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newRepo makes a git repository with a root module that requires a module
// in sub/, a workspace that also uses an unpublished tools/ module, and an
// untracked file.
func newRepo(t *testing.T, rootMod string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not in PATH")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":         rootMod,
		"go.work":        "go 1.26.0\n\nuse (\n\t.\n\t./sub\n\t./tools\n)\n\n// the next release\nreplace example.com/m/sub v0.0.1 => ./sub\n",
		"LICENSE":        "the license\n",
		"m.go":           "package m\n",
		"sub/go.mod":     "module example.com/m/sub\n\ngo 1.26.0\n",
		"sub/sub.go":     "package sub\n",
		"tools/go.mod":   "module example.com/m/tools\n\ngo 1.26.0\n\nrequire (\n\texample.com/m v0.0.1\n\texample.com/m/sub v0.0.1\n)\n\nreplace example.com/other => ../other\n",
		"tools/tools.go": "package tools\n",
	}
	for name, content := range files {
		write(t, filepath.Join(dir, name), content)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "--quiet")
	git("add", ".")
	git("commit", "--quiet", "-m", "init")
	write(t, filepath.Join(dir, "untracked.go"), "package m\n")
	return dir
}

const rootMod = "module example.com/m\n\ngo 1.26.0\n\nrequire example.com/m/sub v0.0.1\n"

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func zipNames(t *testing.T, data []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

// TestPlan: the zips hold a module's tracked files only (no nested module,
// no untracked file; the root LICENSE in the nested module's), requirements
// move to the release version, go.sum records the required module's hashes,
// and go.work's versioned replaces follow.
func TestPlan(t *testing.T) {
	repo := newRepo(t, rootMod)
	r, err := plan(repo, "v0.2.0", []string{"sub", "."})
	if err != nil {
		t.Fatal(err)
	}
	sub, root := r.published[0], r.published[1]
	if got, want := zipNames(t, root.zip), []string{"example.com/m@v0.2.0/LICENSE", "example.com/m@v0.2.0/go.mod",
		"example.com/m@v0.2.0/go.sum", "example.com/m@v0.2.0/go.work", "example.com/m@v0.2.0/m.go"}; !slices.Equal(got, want) {
		t.Errorf("root zip: %v, want %v", got, want)
	}
	if got, want := zipNames(t, sub.zip), []string{"example.com/m/sub@v0.2.0/LICENSE", "example.com/m/sub@v0.2.0/go.mod",
		"example.com/m/sub@v0.2.0/sub.go"}; !slices.Equal(got, want) {
		t.Errorf("sub zip: %v, want %v", got, want)
	}
	if !bytes.Contains(root.gomod, []byte("require example.com/m/sub v0.2.0\n")) {
		t.Errorf("root go.mod:\n%s", root.gomod)
	}
	wantSum := "example.com/m/sub v0.2.0 " + sub.zipHash + "\nexample.com/m/sub v0.2.0/go.mod " + sub.modHash + "\n"
	if got := string(r.rewritten["go.sum"]); got != wantSum {
		t.Errorf("root go.sum:\n%s\nwant:\n%s", got, wantSum)
	}
	if h, _ := hashZip(sub.zip); h != sub.zipHash || !strings.HasPrefix(h, "h1:") {
		t.Errorf("sub zip hash %q, recorded %q", h, sub.zipHash)
	}
	work := string(r.rewritten["go.work"])
	for _, want := range []string{"// the next release\nreplace example.com/m/sub v0.2.0 => ./sub\n", "replace example.com/m v0.2.0 => ./\n"} {
		if !strings.Contains(work, want) {
			t.Errorf("go.work lacks %q:\n%s", want, work)
		}
	}
	tools := string(r.rewritten["tools/go.mod"])
	if !strings.Contains(tools, "\texample.com/m v0.2.0\n\texample.com/m/sub v0.2.0\n") || !strings.Contains(tools, "replace example.com/other") {
		t.Errorf("tools/go.mod (unpublished: requirements move, its replace stays):\n%s", tools)
	}
	if _, ok := r.rewritten["sub/go.sum"]; ok {
		t.Error("sub/ requires no released module, yet gets a go.sum")
	}
}

func TestPlanRefuses(t *testing.T) {
	repo := newRepo(t, rootMod)
	for _, c := range []struct {
		version string
		dirs    []string
		want    string
	}{
		{"v2.0.0", []string{"sub", "."}, "/v2"},
		{"1.0.0", []string{"sub", "."}, "not of the form"},
		{"v1.0", []string{"sub", "."}, "not of the form"},
		{"v1.0.0+meta", []string{"sub", "."}, "not of the form"},
		{"v1.0.0", []string{".", "sub"}, "not before it"},
		{"v1.0.0", []string{"sub", ".", "sub"}, "listed twice"},
		{"v1.0.0", []string{"sub", "nowhere"}, "no such file"},
	} {
		if _, err := plan(repo, c.version, c.dirs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plan(%s, %v): %v, want an error with %q", c.version, c.dirs, err, c.want)
		}
	}
	withReplace := newRepo(t, rootMod+"\nreplace example.com/m/sub => ./sub\n")
	if _, err := plan(withReplace, "v1.0.0", []string{"sub", "."}); err == nil || !strings.Contains(err.Error(), "replace") {
		t.Errorf("a published go.mod with a replace: %v", err)
	}
}

// TestRunWritesProxyAndRepo: -proxy lays out the module proxy (a second
// version joins the list) and leaves the repository alone; -write rewrites
// the files in place and prints the tags in dependency order.
func TestRunWritesProxyAndRepo(t *testing.T) {
	repo := newRepo(t, rootMod)
	proxy := t.TempDir()
	for _, v := range []string{"v0.3.0", "v0.2.0"} {
		if err := run([]string{"-repo", repo, "-version", v, "-proxy", proxy, "sub", "."}, new(bytes.Buffer)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"example.com/m/@v/v0.2.0.info", "example.com/m/@v/v0.2.0.mod", "example.com/m/@v/v0.2.0.zip",
		"example.com/m/sub/@v/v0.3.0.zip"} {
		if _, err := os.Stat(filepath.Join(proxy, f)); err != nil {
			t.Error(err)
		}
	}
	if list, _ := os.ReadFile(filepath.Join(proxy, "example.com/m/sub/@v/list")); string(list) != "v0.2.0\nv0.3.0\n" {
		t.Errorf("list: %q", list)
	}
	if info, _ := os.ReadFile(filepath.Join(proxy, "example.com/m/@v/v0.2.0.info")); !bytes.HasPrefix(info, []byte(`{"Version":"v0.2.0","Time":"`)) {
		t.Errorf("info: %s", info)
	}
	status := func() string {
		out, err := exec.Command("git", "-C", repo, "status", "--porcelain").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if s := status(); s != "?? untracked.go\n" {
		t.Errorf("-proxy changed the repository:\n%s", s)
	}
	var out bytes.Buffer
	if err := run([]string{"-repo", repo, "-version", "v0.2.0", "-write", "sub", "."}, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "sub/v0.2.0\nv0.2.0\n" {
		t.Errorf("tags: %q", out.String())
	}
	if s := status(); s != " M go.mod\n M go.work\n M tools/go.mod\n?? go.sum\n?? untracked.go\n" {
		t.Errorf("-write changed:\n%s", s)
	}
	for _, args := range [][]string{{"-version", "v0.2.0", "sub"}, {"-version", "v0.2.0", "-write", "-proxy", proxy, "sub"},
		{"-version", "v0.2.0", "-write"}} {
		if err := run(append([]string{"-repo", repo}, args...), new(bytes.Buffer)); err == nil {
			t.Errorf("run %v: no error", args)
		}
	}
}
