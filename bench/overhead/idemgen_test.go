package overhead

import "net/http/httptest"

// newIdemgen returns an empty contender until clients/idemgen exists.
func newIdemgen(*httptest.Server) (client, error) {
	return client{name: "idemgen"}, nil
}
