package mock

// echoDiffSource is echo_diff.go of the harness program: the comparison of
// the echo check, under the normalizations echoHarnessSource lists.
const echoDiffSource = `package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage(nil))
)

// differ compares under the normalizations of the file's comment;
// emptyAbsent adds the one of parameters and form bodies.
type differ struct{ emptyAbsent bool }

// diff is the path of the first difference between a and b ("" when they
// agree).
func (df differ) diff(path string, a, b reflect.Value) string {
	if df.emptyAbsent && empty(a) && empty(b) {
		return ""
	}
	if !a.IsValid() || !b.IsValid() {
		if a.IsValid() != b.IsValid() {
			return path + ": one side is missing"
		}
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: sent a %s, got a %s", path, a.Type(), b.Type())
	}
	switch {
	case a.Type() == timeType && a.CanInterface():
		if !a.Interface().(time.Time).Equal(b.Interface().(time.Time)) {
			return fmt.Sprintf("%s: sent %v, got %v", path, a.Interface(), b.Interface())
		}
		return ""
	case a.Type() == readerType:
		if x, y := readAgain(a), readAgain(b); !bytes.Equal(x, y) {
			return fmt.Sprintf("%s: sent %q, got %q", path, x, y)
		}
		return ""
	case a.Type() == rawType && a.Len() > 0 && b.Len() > 0:
		var x, y any
		if json.Unmarshal(a.Bytes(), &x) == nil && json.Unmarshal(b.Bytes(), &y) == nil && reflect.DeepEqual(x, y) {
			return ""
		}
		return fmt.Sprintf("%s: sent %s, got %s", path, a.Bytes(), b.Bytes())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: sent %s, got %s", path, show(a), show(b))
			}
			return ""
		}
		return df.diff(path, a.Elem(), b.Elem())
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: sent %d items %s, got %d %s", path, a.Len(), show(a), b.Len(), show(b))
		}
		for i := range a.Len() {
			if d := df.diff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() && !df.emptyAbsent {
			return fmt.Sprintf("%s: sent %d entries %s, got %d %s", path, a.Len(), show(a), b.Len(), show(b))
		}
		for _, k := range append(a.MapKeys(), b.MapKeys()...) {
			if d := df.diff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k)); d != "" {
				return d
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if d := df.diff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
	default:
		return diffScalar(path, a, b)
	}
	return ""
}

// empty reports whether v has no pair on a form's or a query's wire: no
// value, an object of empty members, a list of empty items.
func empty(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	if v.Type() == rawType {
		s := strings.TrimSpace(string(v.Bytes()))
		return s == "" || s == "{}" || s == "[]" || s == "null"
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || empty(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !empty(v.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if !empty(v.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range v.NumField() {
			if !empty(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}

func diffScalar(path string, a, b reflect.Value) string {
	var same bool
	switch a.Kind() {
	case reflect.Bool:
		same = a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		same = a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		same = a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		same = a.Float() == b.Float()
	case reflect.String:
		same = a.String() == b.String()
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		same = a.Pointer() == b.Pointer()
	default:
		same = a.Kind() == b.Kind()
	}
	if same {
		return ""
	}
	return fmt.Sprintf("%s: sent %s, got %s", path, show(a), show(b))
}

// show prints a value for a report, bounded.
func show(v reflect.Value) string {
	s := fmt.Sprintf("%v", v)
	if v.CanInterface() {
		if b, err := json.Marshal(v.Interface()); err == nil {
			s = string(b)
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
`
