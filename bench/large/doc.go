// Package large benchmarks decoding large, realistic answers through each
// generated client on loopback: a GitHub-shaped list of 100 repositories
// (the document's own example object, repeated with distinct ids) and a
// Stripe-shaped list of 100 charges (one charge written after the example of
// Stripe's API reference, repeated). The clients are generated from excerpts
// of the real documents (bench/spec/github-repos.json,
// bench/spec/stripe-charges.json; see bench/cmd/excerpt) into
// bench/clients/large. The encoding/json contender decodes into idemgen's own
// types with net/http and encoding/json; those types' Nullable and union
// methods call the runtime's codec, so bench/run.sh takes that row from a
// build with -tags idemgen_stdjson, where they use encoding/json too.
package large
