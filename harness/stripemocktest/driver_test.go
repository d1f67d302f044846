package stripemocktest

// driverSource is the test the temp module runs: it calls every planned
// operation by reflection (the method by name, its body and params decoded
// from the plan's JSON into the generated types), tags each call with an
// X-Call header for the recording proxy, and writes each outcome with the
// result re-encoded as JSON.
const driverSource = `package driver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"

	"example.com/smtest/stripe"
)

type call struct {
	ID     string                     ` + "`json:\"id\"`" + `
	Method string                     ` + "`json:\"method\"`" + `
	Body   json.RawMessage            ` + "`json:\"body\"`" + `
	Params map[string]json.RawMessage ` + "`json:\"params\"`" + `
}

type outcome struct {
	ID     string          ` + "`json:\"id\"`" + `
	Status int             ` + "`json:\"status\"`" + `
	Err    string          ` + "`json:\"err,omitempty\"`" + `
	Result json.RawMessage ` + "`json:\"result,omitempty\"`" + `
}

func TestDrive(t *testing.T) {
	base := os.Getenv("SM_URL")
	raw, err := os.ReadFile(os.Getenv("SM_CALLS"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []call
	if err := json.Unmarshal(raw, &calls); err != nil {
		t.Fatal(err)
	}
	c, err := stripe.NewClient(base, stripe.WithBearerAuth("sk_test_123"),
		idemrt.WithPolicy(idemrt.Interactive, idemrt.Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	// The files server (uploads, PDFs) is the same stripe-mock.
	if c, err = c.WithServerURL(stripe.ServerFilesStripeCom, base); err != nil {
		t.Fatal(err)
	}
	out := make([]outcome, 0, len(calls))
	for _, cl := range calls {
		out = append(out, invoke(c, cl))
	}
	b, _ := json.Marshal(out)
	if err := os.WriteFile(os.Getenv("SM_OUT"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func invoke(c *stripe.Client, cl call) (o outcome) {
	o.ID = cl.ID
	defer func() {
		if r := recover(); r != nil {
			o.Err = "panic: " + reflect.ValueOf(r).String()
		}
	}()
	m := reflect.ValueOf(c).MethodByName(cl.Method)
	if !m.IsValid() {
		o.Err = "no method " + cl.Method
		return o
	}
	mt := m.Type()
	args := []reflect.Value{reflect.ValueOf(context.Background())}
	for i := 1; i < mt.NumIn()-1; i++ {
		v, err := value(mt.In(i), cl)
		if err != nil {
			o.Err = "plan: " + err.Error()
			return o
		}
		args = append(args, v)
	}
	args = append(args, reflect.ValueOf(idemrt.WithHeader("X-Call", cl.ID)))
	res := m.Call(args)
	if e, _ := res[len(res)-1].Interface().(error); e != nil {
		o.Err = e.Error()
		var se *idemrt.StatusError
		if errors.As(e, &se) {
			o.Status = se.StatusCode
		}
		return o
	}
	o.Status = 200
	if len(res) == 2 {
		o.Result, _ = json.Marshal(res[0].Interface())
	}
	return o
}

// value builds the params struct or the body of a call.
func value(t reflect.Type, cl call) (reflect.Value, error) {
	if strings.HasSuffix(t.Name(), "Params") {
		v := reflect.New(t).Elem()
		for name, raw := range cl.Params {
			f := v.FieldByName(name)
			if !f.IsValid() {
				return v, errors.New("no params field " + name)
			}
			p := reflect.New(f.Type())
			if err := json.Unmarshal(raw, p.Interface()); err != nil {
				return v, errors.New(name + ": " + err.Error())
			}
			f.Set(p.Elem())
		}
		return v, nil
	}
	p := reflect.New(t)
	if len(cl.Body) == 0 || string(cl.Body) == "null" {
		return p.Elem(), nil
	}
	if err := json.Unmarshal(cl.Body, p.Interface()); err != nil {
		return p.Elem(), errors.New("body: " + err.Error())
	}
	fillFiles(p.Elem())
	return p.Elem(), nil
}

// fillFiles gives every idemrt.File field content (the plan leaves binary
// members out: JSON cannot carry them).
func fillFiles(v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Type() == reflect.TypeFor[idemrt.File]() && f.CanSet() {
			f.Set(reflect.ValueOf(idemrt.File{Name: "a.txt", ContentType: "text/plain", Content: strings.NewReader("hello")}))
		}
	}
}
`
