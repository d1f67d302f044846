// Package overhead holds the request-overhead benchmarks: the same two calls
// of bench/spec/api.yaml (a keyed JSON POST and a GET) made against one
// loopback server by a hand-written net/http + encoding/json client (the
// floor) and by the clients idemgen, oapi-codegen and ogen generated from
// the spec. Run them with
//
//	go test -run '^$' -bench . -benchmem ./overhead/
//
// Every benchmark makes a real HTTP round trip over 127.0.0.1 with a kept-
// alive connection, so ns/op and allocs/op include the server's share; that
// share is the same for every client, so the differences are the clients'.
package overhead
