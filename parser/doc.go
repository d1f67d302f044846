// Package parser loads an OpenAPI document (3.0, 3.1 or Swagger 2.0) with
// kin-openapi, checks and resolves the retry-contract extensions
// x-idempotent and x-retryable-status, and builds the intermediate model of
// package ir that the generator consumes.
//
// A load runs four stages, and each file belongs to one (see load):
// load (load.go: the parser's own YAML trees, the source of every position),
// repair (repair*.go: fix in the trees what kin-openapi would refuse),
// kin load (kinload.go: kin-openapi reads the repaired bytes), and build
// (build.go and the files it calls: kin-openapi's model plus the trees -> IR).
// docs/parser.md says which of the two models answers which question.
package parser
