package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// printTables writes the generation, size/build and refusal tables.
func printTables(w io.Writer, cfg config, cs []contender, rows []row) {
	fmt.Fprintf(w, "### Generation: wall time, CPU time (user+sys; medians of %d runs) and peak RSS\n\n", cfg.runs)
	fmt.Fprintf(w, "| spec | size |")
	for _, c := range cs {
		fmt.Fprintf(w, " %s |", c.name)
	}
	fmt.Fprintf(w, " idemgen / floor | idemgen / load | idemgen / oapi-codegen | idemgen / ogen |\n")
	fmt.Fprintf(w, "|---|---:|%s\n", strings.Repeat("---:|", len(cs)+4))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %.1f MB |", r.spec, float64(r.bytes)/1e6)
		for _, cl := range r.cells {
			fmt.Fprintf(w, " %s |", genCell(cl))
		}
		for _, other := range []int{iFloor, iLoad, iOapi, iOgen} {
			fmt.Fprintf(w, " %s |", ratioCell(r.cells[iIdemgen], r.cells[other]))
		}
		fmt.Fprintln(w)
	}
	printSizeTable(w, cs, rows)
	printRefusals(w, cs, rows)
}

// printSizeTable writes lines of generated code and build time per
// generator.
func printSizeTable(w io.Writer, cs []contender, rows []row) {
	fmt.Fprintf(w, "\n### Generated code: .go files / lines, and `go build` time of the package\n\n| spec |")
	for _, c := range cs[nFloors:] {
		fmt.Fprintf(w, " %s |", c.name)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(cs)-nFloors))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |", r.spec)
		for _, cl := range r.cells[nFloors:] {
			fmt.Fprintf(w, " %s |", sizeCell(cl))
		}
		fmt.Fprintln(w)
	}
}

// printRefusals lists the first error line of every failed run, so the
// tables can stay one short cell wide.
func printRefusals(w io.Writer, cs []contender, rows []row) {
	var lines []string
	for _, r := range rows {
		for i, cl := range r.cells {
			if err := cellErr(cl); err != nil && !errors.Is(err, errMissing) {
				lines = append(lines, fmt.Sprintf("- %s on %s: %v", cs[i].name, r.spec, err))
			}
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\n### Refusals and failures (first line of the error)\n\n%s\n", strings.Join(lines, "\n"))
	}
}

// cellErr is the error that ended a cell's measurement, if any.
func cellErr(cl cell) error {
	if cl.gen.err != nil {
		return cl.gen.err
	}
	if cl.build.err != nil {
		return fmt.Errorf("go build: %w", cl.build.err)
	}
	return nil
}

// genCell shows a generation sample: "1.23 s, 120 MB" or why there is none.
func genCell(cl cell) string {
	switch {
	case errors.Is(cl.gen.err, errMissing):
		return "not built"
	case cl.gen.err != nil:
		return fmt.Sprintf("refused (%s, %s)", seconds(cl.gen.wall), megabytes(cl.gen.rssKB))
	}
	return fmt.Sprintf("%s (cpu %s), %s", seconds(cl.gen.wall), seconds(cl.gen.cpu), megabytes(cl.gen.rssKB))
}

// sizeCell shows files, lines and the build time of one generated package.
func sizeCell(cl cell) string {
	if cl.gen.err != nil {
		return "-"
	}
	s := fmt.Sprintf("%d / %d", cl.files, cl.loc)
	switch {
	case !cl.built:
	case cl.build.err != nil:
		s += ", build FAILED"
	default:
		s += ", " + seconds(cl.build.wall)
	}
	return s
}

// ratioCell shows idemgen's wall time, CPU time and memory as multiples of
// other's.
func ratioCell(idem, other cell) string {
	if idem.gen.err != nil || other.gen.err != nil || other.gen.wall == 0 || other.gen.cpu == 0 || other.gen.rssKB == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx time, %.2fx cpu, %.2fx RSS",
		idem.gen.wall.Seconds()/other.gen.wall.Seconds(),
		idem.gen.cpu.Seconds()/other.gen.cpu.Seconds(),
		float64(idem.gen.rssKB)/float64(other.gen.rssKB))
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func megabytes(kb int64) string { return fmt.Sprintf("%d MB", kb/1024) }
