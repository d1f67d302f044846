package wire

import "net/url"

// setEscapedPath sets u's path from raw, its escaped form. A raw path that
// is already its own default encoding (no escapes, no character that
// url.URL.EscapedPath would escape) is stored as Path alone: net/http then
// writes the request line with one scan of Path, where a RawPath costs it a
// validation and an unescape on every send (about 700 instructions a call
// on the bench GET, callgrind). Any other path keeps RawPath, as before, so
// the bytes on the wire are the same either way.
func setEscapedPath(u *url.URL, raw string) error {
	if plainPath(raw) {
		u.Path, u.RawPath = raw, ""
		return nil
	}
	p, err := url.PathUnescape(raw)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = p, raw
	return nil
}

// plainPath reports whether url.URL.EscapedPath leaves s as it is: every
// byte is unreserved or one of the reserved characters a path may carry
// (net/url's shouldEscape in its encodePath mode). A '%' is not plain: it
// is an escape to decode.
func plainPath(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainPathByte[s[i]] {
			return false
		}
	}
	return true
}

// plainPathByte marks the bytes plainPath accepts.
var plainPathByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range []byte("-_.~$&+,/:;=@") {
		t[c] = true
	}
	return t
}()
