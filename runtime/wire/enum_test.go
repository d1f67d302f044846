package wire

import "testing"

type color string

type level int

func TestKnown(t *testing.T) {
	if !Known(color("red"), "red", "green") || Known(color("blue"), "red", "green") || Known(color("")) {
		t.Error("string enum")
	}
	if !Known(level(2), 1, 2) || Known(level(3), 1, 2) {
		t.Error("integer enum")
	}
}
