package mock

import (
	"strings"
	"testing"
)

func TestNestingExceedsSkipsStrings(t *testing.T) {
	deep := strings.Repeat("[", 11) + strings.Repeat("]", 11)
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"a":[1,{"b":2}]}`, false},
		{deep, true},
		{`{"s":"` + deep + `"}`, false},
		{`{"s":"\"` + deep + `"}`, false},
		{`{"s":"\\"}` + deep, true},
		{strings.Repeat("[", 10) + strings.Repeat("]", 10), false},
	} {
		if got := nestingExceeds([]byte(tc.body), 10); got != tc.want {
			t.Errorf("nestingExceeds(%s, 10) = %v, want %v", tc.body, got, tc.want)
		}
	}
}

func TestFormKeysNestAtMost32Deep(t *testing.T) {
	key := func(n int) string { return "a" + strings.Repeat("[b]", n) + "=1" }
	if _, ok := decodeForm([]byte(key(32))); !ok {
		t.Errorf("a key 32 deep was refused")
	}
	if _, ok := decodeForm([]byte(key(33))); ok {
		t.Errorf("a key 33 deep was decoded")
	}
}
