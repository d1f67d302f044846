package releasetest

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/sumdb/dirhash"
)

// module is one published module: its directory and path.
type module struct{ dir, path string }

// publishedModules reads the published modules from scripts/release's
// MODULES list, the one place that names them, in dependency order.
func publishedModules(t *testing.T, root string) []module {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(root, "scripts", "release"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^MODULES=\(([^)]*)\)$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("scripts/release has no MODULES=(...) line")
	}
	var mods []module
	for _, dir := range strings.Fields(string(m[1])) {
		data, err := os.ReadFile(filepath.Join(root, dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, module{dir, modfile.ModulePath(data)})
	}
	return mods
}

// TestReleaseMatchesGoCommand releases the work tree in a clone of the repository
// (scripts/release: rewrite, commit, tag), then has the go command fetch
// each module straight from the clone's tags, building the zips from git as
// a module proxy does. The hashes it computes must be the ones the release
// commit wrote into go.sum, and the ones of the zips a dry run of the same
// commit writes: the dry run's proxy serves what the real tags will.
func TestReleaseMatchesGoCommand(t *testing.T) {
	root := repoRoot(t)
	version := workVersion(t, root)
	modules := publishedModules(t, root)
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "idemgen")
	git := func(dir string, args ...string) string {
		t.Helper()
		return runCmd(t, dir, cleanEnv(), "git", args...)
	}
	git(tmp, "clone", "--quiet", root, clone)
	git(clone, "checkout", "--quiet", "-B", "releasetest")
	copyWorkTree(t, root, clone, git)
	host := hostEnv(t, "GOMODCACHE")
	// The clone builds releasetool in its workspace, offline: nothing of the
	// release may need the network. -trimpath keeps the build cache shared
	// with earlier runs whatever the clone's directory.
	env := append(cleanEnv(), "GOENV=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly -trimpath", "GOPROXY=off",
		"GOMODCACHE="+host[0], "GIT_AUTHOR_NAME=releasetest", "GIT_AUTHOR_EMAIL=releasetest@example.com",
		"GIT_COMMITTER_NAME=releasetest", "GIT_COMMITTER_EMAIL=releasetest@example.com")
	runCmd(t, clone, env, "bash", "scripts/release", version)
	var want []string
	for _, m := range modules {
		want = append(want, strings.TrimPrefix(path.Join(m.dir, version), "./"))
	}
	slices.Sort(want)
	if tags := strings.Fields(git(clone, "tag", "--points-at", "HEAD")); !slices.Equal(tags, want) {
		t.Fatalf("tags on the release commit: %v, want %v", tags, want)
	}
	// PROXYDIR relative to the caller's directory, which is not the
	// repository's: the proxy lands there, and nothing in the clone.
	proxy := filepath.Join(tmp, "proxy")
	runCmd(t, tmp, env, "bash", filepath.Join(clone, "scripts", "release"), "--dry-run", version, "proxy")
	if _, err := os.Stat(filepath.Join(proxy, "github.com")); err != nil {
		t.Fatalf("the dry run's relative PROXYDIR: %v", err)
	}
	if out := git(clone, "status", "--porcelain"); out != "" {
		t.Errorf("the dry run changed the clone:\n%s", out)
	}

	// GOPROXY=direct resolves github.com/idemgen/idemgen with git, which the
	// insteadOf rule sends to the clone: no network, zips built from tags.
	g := newGo(t, "GOPROXY=direct", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off",
		"GOPATH="+filepath.Join(tmp, "gopath"), "GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GIT_ALLOW_PROTOCOL=file", "GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=url.file://"+filepath.ToSlash(clone)+".insteadOf", "GIT_CONFIG_VALUE_0=https://github.com/idemgen/idemgen")
	args := []string{"mod", "download", "-json"}
	for _, m := range modules {
		args = append(args, m.path+"@"+version)
	}
	dec := json.NewDecoder(strings.NewReader(g.run(t, tmp, args...)))
	fetched := map[string][2]string{}
	for dec.More() {
		var m struct{ Path, Sum, GoModSum, Error string }
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if m.Error != "" {
			t.Fatalf("%s: %s", m.Path, m.Error)
		}
		fetched[m.Path] = [2]string{m.Sum, m.GoModSum}
	}
	for _, m := range modules {
		got := fetched[m.path]
		zipHash, err := dirhash.HashZip(filepath.Join(proxy, filepath.FromSlash(m.path), "@v", version+".zip"), dirhash.Hash1)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] == "" || zipHash != got[0] {
			t.Errorf("%s: the dry run's zip hashes to %s, the tag's to %q", m.path, zipHash, got[0])
		}
	}
	checked := 0
	// What the release commit's go.sum files record for the modules they
	// require: every published module's go.sum names each one before it
	// that its go.mod requires.
	for i, m := range modules {
		gomod, err := os.ReadFile(filepath.Join(clone, m.dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse("go.mod", gomod, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range f.Require {
			if !slices.ContainsFunc(modules[:i], func(d module) bool { return d.path == req.Mod.Path }) {
				continue
			}
			if req.Mod.Version != version {
				t.Errorf("%s/go.mod requires %s %s, want %s", m.dir, req.Mod.Path, req.Mod.Version, version)
			}
			rec := sumLines(t, filepath.Join(clone, m.dir, "go.sum"), req.Mod.Path, version)
			if got := fetched[req.Mod.Path]; rec["h1"] != got[0] || rec["go.mod"] != got[1] {
				t.Errorf("%s/go.sum records %s %s as %v, the go command computes %v", m.dir, req.Mod.Path, version, rec, got)
			}
			checked++
		}
	}
	if checked < len(modules)-1 {
		t.Errorf("only %d go.sum lines checked: the published modules do not require one another", checked)
	}
}

// copyWorkTree makes the clone's HEAD the work tree as it is, uncommitted
// changes and new files included, so the test checks the code under test
// rather than the last commit.
func copyWorkTree(t *testing.T, root, clone string, git func(string, ...string) string) {
	t.Helper()
	changed := strings.Split(git(root, "ls-files", "-z", "--modified", "--others", "--exclude-standard"), "\x00")
	for _, f := range changed {
		if f == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			git(clone, "rm", "--quiet", "--", f)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(clone, f), string(data))
	}
	git(clone, "add", "--all")
	if git(clone, "status", "--porcelain") != "" {
		git(clone, "-c", "user.name=releasetest", "-c", "user.email=releasetest@example.com", "commit", "--quiet", "-m", "work tree")
	}
}
