package annotate

import (
	"bytes"
	"fmt"
)

// diffContext is the number of unchanged lines shown around each change, as
// in `diff -u`.
const diffContext = 3

// Unified returns the unified diff (as `diff -u` prints it, with a/ and b/
// prefixes on the names, so `git apply` and `patch -p1` accept it) that turns
// a into b, or nil when they are equal.
func Unified(aName, bName string, a, b []byte) []byte {
	if bytes.Equal(a, b) {
		return nil
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	var out bytes.Buffer
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", aName, bName)
	for _, h := range hunks(ops) {
		writeHunk(&out, h, al, bl)
	}
	return out.Bytes()
}

// splitLines cuts s after each newline; a last line without one is kept.
func splitLines(s []byte) []string {
	var lines []string
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, string(s))
			break
		}
		lines = append(lines, string(s[:i+1]))
		s = s[i+1:]
	}
	return lines
}

// opKind is one step of an edit script.
type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

// diffOp is one line of the edit script; ai and bi are the 0-based indexes
// of the line in a and b (for an insertion ai is where it lands in a, and
// for a deletion bi likewise).
type diffOp struct {
	kind   opKind
	ai, bi int
}

// diffLines returns a shortest edit script from a to b. It trims the common
// prefix and suffix, then runs Myers' O((N+M)D) algorithm on the middle:
// annotate's diffs are a few hundred insertions into files of up to a
// hundred thousand lines, which that handles in well under a second.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := range pre {
		ops = append(ops, diffOp{opEqual, i, i})
	}
	ids := internLines(a[pre:len(a)-suf], b[pre:len(b)-suf])
	for _, op := range myers(ids[0], ids[1]) {
		ops = append(ops, diffOp{op.kind, op.ai + pre, op.bi + pre})
	}
	for i := range suf {
		ops = append(ops, diffOp{opEqual, len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// internLines maps equal lines to equal integers so comparisons are cheap.
func internLines(a, b []string) [2][]int {
	ids := map[string]int{}
	var out [2][]int
	for i, lines := range [][]string{a, b} {
		out[i] = make([]int, len(lines))
		for j, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i][j] = id
		}
	}
	return out
}

// myers computes a shortest edit script with Myers' greedy algorithm,
// keeping for each round d only the 2d+3 diagonals it can reach so the trace
// costs O(D²) memory rather than O((N+M)·D).
func myers(a, b []int) []diffOp {
	n, m := len(a), len(b)
	var trace [][]int // trace[d][k+d+1] is the furthest x on diagonal k before round d
	v := []int{0, 0, 0}
	for d := 0; ; d++ {
		trace = append(trace, v)
		next := make([]int, 2*d+5)
		for k := -d; k <= d; k += 2 {
			x := pick(v, d, k)
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			next[k+d+2] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
		v = next
	}
}

// pick returns the starting x on diagonal k in round d: one step down from
// diagonal k+1 (an insertion) or right from k-1 (a deletion), whichever went
// further. v holds round d's starting diagonals, offset by d+1.
func pick(v []int, d, k int) int {
	if k == -d || (k != d && v[k-1+d+1] < v[k+1+d+1]) {
		return v[k+1+d+1]
	}
	return v[k-1+d+1] + 1
}

// backtrack walks the trace from (n, m) back to (0, 0) and returns the edit
// script in forward order.
func backtrack(trace [][]int, n, m int) []diffOp {
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		v, k := trace[d], x-y
		var prevK int
		if k == -d || (k != d && v[k-1+d+1] < v[k+1+d+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[prevK+d+1]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, diffOp{opEqual, x, y})
		}
		if d == 0 {
			break
		}
		if x == prevX {
			y--
			rev = append(rev, diffOp{opInsert, x, y})
		} else {
			x--
			rev = append(rev, diffOp{opDelete, x, y})
		}
		x, y = prevX, prevY
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// hunks groups an edit script into hunks: runs of changes with up to
// diffContext equal lines around them, merging runs whose gap is small.
func hunks(ops []diffOp) [][]diffOp {
	var out [][]diffOp
	i := 0
	for {
		for i < len(ops) && ops[i].kind == opEqual {
			i++
		}
		if i == len(ops) {
			return out
		}
		// A hunk ends only when the next change is more than 2*diffContext
		// equal lines away, so this context never overlaps the previous one.
		start := max(i-diffContext, 0)
		last := i
		for j := i; j < len(ops) && j-last <= 2*diffContext+1; j++ {
			if ops[j].kind != opEqual {
				last = j
			}
		}
		end := min(last+diffContext+1, len(ops))
		out = append(out, ops[start:end])
		i = end
	}
}

// writeHunk prints one hunk with its `@@ -l,s +l,s @@` header.
func writeHunk(out *bytes.Buffer, h []diffOp, a, b []string) {
	var na, nb int
	for _, op := range h {
		if op.kind != opInsert {
			na++
		}
		if op.kind != opDelete {
			nb++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(h[0].ai, na), hunkRange(h[0].bi, nb))
	for _, op := range h {
		var line string
		if op.kind == opDelete {
			line = a[op.ai]
		} else {
			line = b[op.bi]
		}
		out.WriteByte(byte(op.kind))
		out.WriteString(line)
		if len(line) == 0 || line[len(line)-1] != '\n' {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange renders one side of a hunk header: the 1-based first line and
// the line count, the count left out when it is 1 and the start naming the
// line before when it is 0, as GNU diff does.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
