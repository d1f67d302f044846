package api

// The client and its server (server_gen.go) are generated from the nemesis
// workload's spec; run `go generate` here after editing openapi.yaml and
// commit the result.
//go:generate go run github.com/idemgen/idemgen/cmd/idemgen generate openapi.yaml --package api --out . --server
