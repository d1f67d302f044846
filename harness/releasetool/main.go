// Command releasetool prepares a release of the repository's modules; it is
// scripts/release's engine (docs/contributing.md, "Releasing").
//
//	releasetool -version vX -write DIR...      rewrite go.mod, go.sum and go.work in place, print the tags
//	releasetool -version vX -proxy OUT DIR...  write a file-based module proxy, touch nothing else
//
// DIR... are the published modules' directories relative to the repository
// root, in dependency order (a module after every module it requires).
// Requirements on those modules are set to vX in every go.mod of the
// workspace; a published module's go.sum gets the hashes of the zips built
// for the modules it requires, so the release commit needs nothing else.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "releasetool:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("releasetool", flag.ContinueOnError)
	version := fs.String("version", "", "the release version, vMAJOR.MINOR.PATCH (major 0 or 1)")
	repo := fs.String("repo", ".", "the repository root")
	write := fs.Bool("write", false, "rewrite the go.mod, go.sum and go.work files in place and print the tags to create")
	proxy := fs.String("proxy", "", "write every module's list, .info, .mod and .zip into this directory, laid out as GOPROXY=file://DIR reads it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *write == (*proxy != "") {
		return errors.New("give exactly one of -write and -proxy")
	}
	if fs.NArg() == 0 {
		return errors.New("name the published modules' directories, in dependency order")
	}
	r, err := plan(*repo, *version, fs.Args())
	if err != nil {
		return err
	}
	if *proxy != "" {
		return r.writeProxy(*proxy)
	}
	if err := r.writeRepo(); err != nil {
		return err
	}
	for _, m := range r.published {
		if _, err := fmt.Fprintln(stdout, m.tag(r.version)); err != nil {
			return err
		}
	}
	return nil
}
