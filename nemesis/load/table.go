package load

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// BendGain is the throughput gain below which more clients no longer
// pay: the curve bends where the next level's probe rate is less than
// BendGain times this level's.
const BendGain = 1.5

// WriteTable writes the cells as one Markdown table, in their order.
func WriteTable(w io.Writer, cells []Cell) error {
	var b strings.Builder
	b.WriteString("| store | ledger | clients | max req/s (closed loop) | offered req/s | req/s (open loop) | p50 | p99 | errors | CPU, cores (load generator's) | CPU per request | WAL flushes per request |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, c := range cells {
		fmt.Fprintf(&b, "| %s | %s | %d | %.0f | %.0f | %.0f | %s | %s | %d / %d | %.2f (%.2f) | %d µs | %s |\n", c.Store, onOff(c.Ledger), c.Clients,
			c.MaxRate, c.MaxRate*Load, c.Rate, ms(c.P50), ms(c.P99), c.Errors, c.Requests, c.Cores, c.GeneratorCores, c.CPUPerRequest.Microseconds(),
			flushes(c.FlushesPerRequest))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// flushes prints the WAL flushes per request, or "-" when not counted.
func flushes(f float64) string {
	if f < 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", f)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// ms prints a latency in milliseconds, to the tenth below 100ms.
func ms(d time.Duration) string {
	m := float64(d) / float64(time.Millisecond)
	if m < 100 {
		return fmt.Sprintf("%.1f ms", m)
	}
	return fmt.Sprintf("%.0f ms", m)
}

// Bends says, for each series of cells (one store, the ledger on or off,
// clients increasing), where the curve bends: the first level from which
// more clients raise the closed-loop rate by less than BendGain, with the
// rates and the p99 on both sides; or that it did not bend.
func Bends(cells []Cell) []string {
	var out []string
	for i := 0; i < len(cells); {
		j := i + 1
		for j < len(cells) && cells[j].Store == cells[i].Store && cells[j].Ledger == cells[i].Ledger {
			j++
		}
		out = append(out, bend(cells[i:j]))
		i = j
	}
	return out
}

func bend(series []Cell) string {
	first, last := series[0], series[len(series)-1]
	name := fmt.Sprintf("%s, ledger %s", first.Store, onOff(first.Ledger))
	for k := 1; k < len(series); k++ {
		a, b := series[k-1], series[k]
		if a.MaxRate <= 0 || b.MaxRate < BendGain*a.MaxRate {
			return fmt.Sprintf("%s: bends at %s: %d -> %d clients gives x%.2f req/s (%.0f -> %.0f) while p99 goes %s -> %s",
				name, clients(a.Clients), a.Clients, b.Clients, gain(a.MaxRate, b.MaxRate), a.MaxRate, b.MaxRate, ms(a.P99), ms(b.P99))
		}
	}
	return fmt.Sprintf("%s: no bend up to %d clients (%.0f -> %.0f req/s)", name, last.Clients, first.MaxRate, last.MaxRate)
}

func clients(n int) string {
	if n == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", n)
}

func gain(a, b float64) float64 {
	if a <= 0 {
		return 0
	}
	return b / a
}
