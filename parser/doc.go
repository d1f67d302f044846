// Package parser loads an OpenAPI document (3.0, 3.1 or Swagger 2.0) with
// kin-openapi, checks and resolves the retry-contract extensions
// x-idempotent and x-retryable-status, and builds the intermediate model of
// package ir that the generator consumes.
package parser
