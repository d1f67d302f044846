package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestWaitersIR reads testdata/specs/waiters.yaml: a bare member name
// becomes a pointer, numbers and booleans their string forms, durations
// their values, and what the document leaves out stays zero.
func TestWaitersIR(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "waiters.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	api, diags, err := LoadData("waiters.yaml", data, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("LoadData: %v %v", err, diags.Errors())
	}
	var ws []*ir.Waiter
	for _, op := range api.Operations {
		ws = append(ws, op.Waiters...)
	}
	if len(ws) != 2 {
		t.Fatalf("%d waiters, want 2", len(ws))
	}
	for _, w := range ws {
		w.Source = ir.Source{}
	}
	want := []*ir.Waiter{{
		Name: "PaymentSucceeded", GoName: "PaymentSucceeded",
		Until:         ir.WaitMatch{Pointer: "/status", In: []string{"succeeded"}},
		FailOn:        &ir.WaitMatch{Pointer: "/status", In: []string{"failed", "canceled"}},
		PendingStatus: []int{404}, Delay: 2 * time.Second, MaxDelay: 30 * time.Second, Timeout: 10 * time.Minute,
	}, {
		Name: "PaymentSettled", GoName: "PaymentSettled",
		Until:  ir.WaitMatch{Pointer: "/settlement/code", In: []string{"0"}},
		FailOn: &ir.WaitMatch{Pointer: "/settlement/final", In: []string{"true"}},
	}}
	if !reflect.DeepEqual(ws, want) {
		t.Errorf("waiters:\n got %+v %+v\nwant %+v %+v", *ws[0], *ws[1], *want[0], *want[1])
	}
}

// TestNumberTextAgrees: the parser writes x-waiters numbers as the runtime
// writes the numbers of a result, so equal numbers match.
func TestNumberTextAgrees(t *testing.T) {
	for _, f := range []float64{0, 2, -17, 2.5, 1e21, 1.5e7, 123456789012345, 0.1, 1e-7} {
		got, _ := numberText(f)
		if want := idemrt.NumberText(got); got != want {
			t.Errorf("numberText(%v) = %q, the runtime's canonical text is %q", f, got, want)
		}
	}
}
