package main

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// published is one module of the release: its rewritten go.mod and go.sum,
// its zip and the two hashes a dependent's go.sum records.
type published struct {
	dir     string // slash-separated, relative to the repository root; "." is the root
	path    string // the module path
	gomod   []byte
	zip     []byte
	zipHash string // h1: of the zip's files
	modHash string // h1: of go.mod alone
}

// tag is the git tag the module's version lives under: Go reads a module in
// a subdirectory from tags prefixed with that directory.
func (m *published) tag(version string) string {
	if m.dir == "." {
		return version
	}
	return m.dir + "/" + version
}

// release is everything a release writes, computed before anything is.
type release struct {
	repo      string
	version   string
	time      time.Time
	files     []string          // tracked files, slash-separated, relative to repo
	rewritten map[string][]byte // repo-relative path -> new content (go.mod, go.sum, go.work)
	published []*published
}

// plan computes the release of the modules in dirs (dependency order) at
// version from the repository's tracked files as they are on disk.
func plan(repo, version string, dirs []string) (*release, error) {
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	files, err := trackedFiles(repo)
	if err != nil {
		return nil, err
	}
	r := &release{repo: repo, version: version, time: commitTime(repo), files: files, rewritten: map[string][]byte{}}
	released := map[string]string{} // module path -> dir
	for _, dir := range dirs {
		dir = path.Clean(filepath.ToSlash(dir))
		data, err := r.read(path.Join(dir, "go.mod"))
		if err != nil {
			return nil, err
		}
		mp := modfile.ModulePath(data)
		if mp == "" {
			return nil, fmt.Errorf("%s/go.mod names no module", dir)
		}
		if _, dup := released[mp]; dup {
			return nil, fmt.Errorf("module %s is listed twice", mp)
		}
		released[mp] = dir
		r.published = append(r.published, &published{dir: dir, path: mp})
	}
	if err := r.rewriteWorkspace(released); err != nil {
		return nil, err
	}
	done := map[string]*published{}
	for _, m := range r.published {
		if err := r.build(m, released, done); err != nil {
			return nil, err
		}
		done[m.path] = m
	}
	return r, nil
}

// checkVersion accepts a canonical semantic version of major 0 or 1: the
// module paths carry no /vN suffix, so a v2 would need new paths first.
func checkVersion(v string) error {
	if !semver.IsValid(v) || semver.Canonical(v) != v {
		return fmt.Errorf("version %q is not of the form vMAJOR.MINOR.PATCH[-PRERELEASE]", v)
	}
	if m := semver.Major(v); m != "v0" && m != "v1" {
		return fmt.Errorf("version %s: major %s needs module paths ending in /%s", v, m, m)
	}
	return nil
}

// build rewrites one published module's go.mod and go.sum, zips it and
// hashes it. done holds the modules already built: a module may only
// require those, which is what dependency order means.
func (r *release) build(m *published, released map[string]string, done map[string]*published) error {
	gomodPath := path.Join(m.dir, "go.mod")
	gomod, reqs, err := r.rewriteGoMod(gomodPath, released, true)
	if err != nil {
		return err
	}
	m.gomod = gomod
	var lines []sumLine
	for _, req := range reqs {
		dep := done[req]
		if dep == nil {
			return fmt.Errorf("%s requires %s, which is not before it in the module list", gomodPath, req)
		}
		lines = append(lines, sumLine{req, r.version, dep.zipHash}, sumLine{req, r.version + "/go.mod", dep.modHash})
	}
	sumPath := path.Join(m.dir, "go.sum")
	oldSum, err := r.read(sumPath)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if oldSum != nil || len(lines) > 0 {
		r.rewritten[sumPath] = rewriteGoSum(oldSum, released, lines)
	}
	if m.zip, err = r.zipModule(m); err != nil {
		return err
	}
	if m.zipHash, err = hashZip(m.zip); err != nil {
		return err
	}
	m.modHash, err = hashGoMod(m.gomod)
	return err
}

// rewriteGoMod sets the requirements of the go.mod at p on released modules
// to the release version, records the result and returns it with the
// released modules it requires. strict (a published
// module) refuses replace and exclude directives: `go install module@version`
// rejects a module that has them.
func (r *release) rewriteGoMod(p string, released map[string]string, strict bool) ([]byte, []string, error) {
	data, err := r.read(p)
	if err != nil {
		return nil, nil, err
	}
	f, err := modfile.Parse(p, data, nil)
	if err != nil {
		return nil, nil, err
	}
	if strict && (len(f.Replace) > 0 || len(f.Exclude) > 0) {
		return nil, nil, fmt.Errorf("%s has replace or exclude directives, which a published module cannot have "+
			"(go install refuses it); the workspace (go.work) is where local paths belong", p)
	}
	var reqs []string
	for _, req := range f.Require {
		if _, ok := released[req.Mod.Path]; ok {
			reqs = append(reqs, req.Mod.Path)
		}
	}
	for _, mp := range reqs {
		if err := f.AddRequire(mp, r.version); err != nil {
			return nil, nil, err
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, nil, err
	}
	r.rewritten[p] = out
	return out, reqs, nil
}

// rewriteWorkspace moves go.work's versioned replaces of the released
// modules to the release version (in place, so the file keeps its order),
// adds one for a released module a workspace module requires that has none,
// and moves the requirements of the unpublished workspace modules (bench/)
// to the release version: the work tree then still builds without
// fetching what is not yet published.
func (r *release) rewriteWorkspace(released map[string]string) error {
	data, err := r.read("go.work")
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	wf, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		return err
	}
	required := map[string]bool{}
	for _, use := range wf.Use {
		dir := path.Clean(filepath.ToSlash(use.Path))
		_, isPublished := r.publishedAt(dir)
		reqs, err := r.workspaceRequires(dir, released, !isPublished)
		if err != nil {
			return err
		}
		for _, mp := range reqs {
			required[mp] = true
		}
	}
	for _, rep := range wf.Replace {
		if _, ok := released[rep.Old.Path]; !ok || rep.Old.Version == "" {
			continue
		}
		if err := setReplacedVersion(rep, r.version); err != nil {
			return err
		}
		delete(required, rep.Old.Path)
	}
	for _, m := range r.published {
		if required[m.path] {
			if err := wf.AddReplace(m.path, r.version, "./"+strings.TrimPrefix(m.dir, "."), ""); err != nil {
				return err
			}
		}
	}
	wf.Cleanup()
	r.rewritten["go.work"] = modfile.Format(wf.Syntax)
	return nil
}

// workspaceRequires returns the released modules the workspace module in
// dir requires, rewriting its go.mod when it is not published (a published
// one is rewritten by build, strictly).
func (r *release) workspaceRequires(dir string, released map[string]string, rewrite bool) ([]string, error) {
	p := path.Join(dir, "go.mod")
	if rewrite {
		_, reqs, err := r.rewriteGoMod(p, released, false)
		return reqs, err
	}
	data, err := r.read(p)
	if err != nil {
		return nil, err
	}
	f, err := modfile.Parse(p, data, nil)
	if err != nil {
		return nil, err
	}
	var reqs []string
	for _, req := range f.Require {
		if _, ok := released[req.Mod.Path]; ok {
			reqs = append(reqs, req.Mod.Path)
		}
	}
	return reqs, nil
}

// setReplacedVersion changes the old version of a go.work replace line in
// its syntax tree: "[replace] path version => new".
func setReplacedVersion(rep *modfile.Replace, version string) error {
	tok := rep.Syntax.Token
	for i := 0; i+1 < len(tok); i++ {
		if tok[i] == rep.Old.Path && tok[i+1] == rep.Old.Version {
			tok[i+1] = version
			rep.Old.Version = version
			return nil
		}
	}
	return fmt.Errorf("go.work: cannot find the version of the replace of %s@%s", rep.Old.Path, rep.Old.Version)
}

func (r *release) publishedAt(dir string) (*published, bool) {
	for _, m := range r.published {
		if m.dir == dir {
			return m, true
		}
	}
	return nil, false
}

// read returns a repository file's content: the rewritten one when there is.
func (r *release) read(p string) ([]byte, error) {
	if data, ok := r.rewritten[p]; ok {
		return data, nil
	}
	return os.ReadFile(filepath.Join(r.repo, filepath.FromSlash(p)))
}

// trackedFiles lists the files git tracks, as a tagged commit holds them;
// untracked and ignored files (build output, editor files) never reach a zip.
func trackedFiles(repo string) ([]string, error) {
	out, err := exec.Command("git", "-C", repo, "ls-files", "-z").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", repo, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// commitTime is HEAD's commit time, the time a proxy reports for a tag on
// it; the current time when there is no commit.
func commitTime(repo string) time.Time {
	out, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%cI").Output()
	if t, perr := time.Parse(time.RFC3339, strings.TrimSpace(string(out))); err == nil && perr == nil {
		return t.UTC()
	}
	return time.Now().UTC().Truncate(time.Second)
}
