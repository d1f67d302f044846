//go:build unix

package releasetest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeInstall holds the lines of README.md's Install section that a user
// copies: the go commands (indented code lines) and the go:generate line.
type readmeInstall struct {
	install, getTool, getOtel []string
	generate                  string
}

func readReadme(t *testing.T, root string) readmeInstall {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no Install section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var r readmeInstall
	for _, line := range strings.Split(section, "\n") {
		cmd := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "//go:generate "):
			r.generate = line
		case !strings.HasPrefix(line, "    go ") || len(cmd) < 3:
		case cmd[1] == "install":
			r.install = cmd[1:]
		case cmd[1] == "get" && cmd[2] == "-tool":
			r.getTool = cmd[1:]
		case cmd[1] == "get" && strings.Contains(line, "/otel"):
			r.getOtel = cmd[1:]
		}
	}
	if r.install == nil || r.getTool == nil || r.getOtel == nil || r.generate == "" {
		t.Fatalf("README.md's Install section lacks a go install, go get -tool, go get .../otel or //go:generate line:\n%s", section)
	}
	return r
}

// TestInstallFromRelease installs idemgen as a new user would, running the
// README's own install lines against a dry-run release: in empty modules
// whose only source of idemgen's modules is the dry run's file proxy
// (GOPROXY=file://..., then the machine's module cache and proxy for
// third-party modules), with no workspace, no replace and no checksum
// database. It checks the installed idemgen's version, generates and builds
// a package through `go tool idemgen` from go:generate, generates a --module
// SDK whose go.mod requires the released runtime and runs its tests, and
// builds a program on the otel module.
func TestInstallFromRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemgen from a dry-run release; skipped under -short")
	}
	root := repoRoot(t)
	readme := readReadme(t, root)
	version := workVersion(t, root)
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	start := time.Now()
	runCmd(t, root, append(cleanEnv(), "GOTOOLCHAIN=local"), "bash", "scripts/release", "--dry-run", version, proxy)

	host := hostEnv(t, "GOCACHE", "GOMODCACHE", "GOPROXY")
	// A module cache of the test's own, so the dry run's modules never land
	// in the machine's; the machine's cache serves third-party modules to it
	// as a proxy before the network is asked. goindex=0: the go command
	// indexes a module cache's packages in GOCACHE by path and version, taking
	// them as immutable, but every run releases idemgen anew at the same
	// version, so a kept index would list the files of an earlier run.
	g := newGo(t, "GOCACHE="+host[0], "GODEBUG=goindex=0", "GOPATH="+filepath.Join(tmp, "gopath"), "GOMODCACHE="+testModCache(t),
		"GOBIN="+filepath.Join(tmp, "bin"), "GOFLAGS=-mod=mod", "GOWORK=off",
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(host[1], "cache", "download"))+","+proxiesOnly(host[2]),
		"GOSUMDB=off", "GONOSUMDB=github.com/idemgen", "GOPRIVATE=")

	// go install ...@latest: the dry run's version is the latest the proxy lists.
	home := filepath.Join(tmp, "home")
	writeFile(t, filepath.Join(home, "README"), "an empty directory\n")
	g.run(t, home, readme.install...)
	idemgen := filepath.Join(tmp, "bin", "idemgen")
	if out := runCmd(t, home, g.env, idemgen, "version"); out != "idemgen "+version+"\n" {
		t.Errorf("installed idemgen version: %q, want idemgen %s", out, version)
	}

	// go get -tool, then the README's go:generate line.
	spec, err := os.ReadFile(filepath.Join(root, "testdata", "specs", "orders.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(tmp, "app")
	writeFile(t, filepath.Join(app, "api", "orders.yaml"), string(spec))
	writeFile(t, filepath.Join(app, "orders", "gen.go"), readme.generate+"\n\npackage orders\n")
	g.run(t, app, "mod", "init", "example.com/app")
	g.run(t, app, readme.getTool...)
	g.run(t, app, "generate", "./...")
	g.run(t, app, "mod", "tidy")
	g.run(t, app, "vet", "./...")
	appMod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the app's go.mod", appMod, "tool github.com/idemgen/idemgen/cmd/idemgen")
	mustContain(t, "the app's go.mod", appMod, "github.com/idemgen/idemgen/runtime "+version)

	// A --module SDK from `go tool idemgen`: it requires the released
	// runtime and builds and runs its examples with nothing replaced.
	sdk := filepath.Join(tmp, "payments-go")
	g.run(t, app, "tool", "idemgen", "generate", filepath.Join(app, "api", "orders.yaml"),
		"--module", "github.com/acme/payments-go", "-o", sdk)
	sdkMod, err := os.ReadFile(filepath.Join(sdk, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the SDK's go.mod", sdkMod, "\nrequire github.com/idemgen/idemgen/runtime "+version+"\n")
	if strings.Contains(string(sdkMod), "replace") {
		t.Errorf("the SDK's go.mod has a replace:\n%s", sdkMod)
	}
	// The binary go install wrote names the same runtime.
	sdk2 := filepath.Join(tmp, "payments-go-2")
	runCmd(t, app, g.env, idemgen, "generate", filepath.Join(app, "api", "orders.yaml"), "--module", "github.com/acme/payments-go", "-o", sdk2)
	if sdk2Mod, err := os.ReadFile(filepath.Join(sdk2, "go.mod")); err != nil || !bytes.Equal(sdk2Mod, sdkMod) {
		t.Errorf("the installed idemgen's go.mod differs from go tool idemgen's (%v):\n%s", err, sdk2Mod)
	}
	out := g.run(t, sdk, "test", "-count=1", "-run", "Example", "-v", "./...")
	if !strings.Contains(out, "--- PASS: ExampleClient_GetOrder") {
		t.Errorf("the SDK's examples did not run:\n%s", out)
	}

	// go get .../otel, and a program that imports it.
	tel := filepath.Join(tmp, "telapp")
	writeFile(t, filepath.Join(tel, "main.go"), "package main\n\nimport (\n\t\"fmt\"\n\n\tidemotel \"github.com/idemgen/idemgen/otel\"\n)\n\n"+
		"func main() {\n\ttel, err := idemotel.New()\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tfmt.Println(len(tel.Options()), \"options\")\n}\n")
	g.run(t, tel, "mod", "init", "example.com/telapp")
	g.run(t, tel, readme.getOtel...)
	g.run(t, tel, "mod", "tidy")
	if out := g.run(t, tel, "run", "."); out != "2 options\n" {
		t.Errorf("the otel program printed %q", out)
	}
	t.Logf("install test: %.1fs", time.Since(start).Seconds())
}

// proxiesOnly is a GOPROXY list without "direct": the test may reach a
// module proxy, never a repository.
func proxiesOnly(list string) string {
	var keep []string
	for _, p := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == '|' }) {
		if p != "direct" {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return "off"
	}
	return strings.Join(keep, ",")
}

// testModCache returns the install test's module cache, emptied of
// idemgen's modules (each run releases them anew, at the same version) and
// locked for the test's duration. It stays between runs at one path
// because a package's build cache key includes its directory: `go tool`
// takes no -trimpath, so only a stable module cache lets it reuse the
// compiled third-party packages (modernc's sqlite alone is minutes of CPU)
// from `go install` and from earlier runs.
func testModCache(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory for the test's module cache: %v", err)
	}
	dir := filepath.Join(base, "idemgen-releasetest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// Another run of the test (another work tree) waits here.
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	mc := filepath.Join(dir, "mod")
	for _, p := range []string{filepath.Join(mc, "github.com", "idemgen"), filepath.Join(mc, "cache", "download", "github.com", "idemgen")} {
		removeAll(t, p)
	}
	return mc
}

// removeAll removes a module cache directory, whose files the go command
// makes read-only.
func removeAll(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chmod(p, 0o755)
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
}
