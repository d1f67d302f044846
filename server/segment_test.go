package idemsrv

import "testing"

// TestPathSegment: the segments a split of the path on "/" gives, and
// none past the last.
func TestPathSegment(t *testing.T) {
	for _, tc := range []struct {
		path string
		n    int
		want string
		ok   bool
	}{
		{"/orders/ord_1", 1, "ord_1", true},
		{"/orders/ord_1", 0, "orders", true},
		{"/a/b%2Fc/d", 1, "b%2Fc", true},
		{"/a//c", 1, "", true},
		{"/orders/", 1, "", true},
		{"/orders", 1, "", false},
		{"", 0, "", true},
		{"/a/b", 5, "", false},
	} {
		got, ok := pathSegment(tc.path, tc.n)
		if got != tc.want || ok != tc.ok {
			t.Errorf("pathSegment(%q, %d) = %q, %v; want %q, %v", tc.path, tc.n, got, ok, tc.want, tc.ok)
		}
	}
}
