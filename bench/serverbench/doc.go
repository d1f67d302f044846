// Package serverbench compares idemgen's generated server with ogen's and
// oapi-codegen's (strict server for net/http), all generated from
// bench/spec/api.yaml into bench/servers and given the same handler: GET
// /orders/{orderId} answers the canned order (fixtures.OrderJSON), POST
// /orders decodes the keyed body and answers 201 with that order.
//
// TestServersAgree checks first that every server answers every request of
// the benchmarks the same way (status, media type, the same JSON value).
// The benchmarks call each server's ServeHTTP in process with a prepared
// request and a ResponseWriter that keeps the last answer, so they measure
// the server's CPU and allocations per request, without the network.
// idemgen's keyed POST is measured without the ledger (WithoutLedger, the
// peers have none) and with the ledger on SQLite, with a fresh key per
// request and as a replay of one key. docs/server.md ("Speed") has the
// table and the command.
package serverbench
