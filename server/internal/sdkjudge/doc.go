// Package sdkjudge makes the vendors' official Go SDKs (openai-go,
// stripe-go) call servers idemgen generates, on 127.0.0.1: the SDKs are the
// judges of what the generated server decodes and answers. It is a module of
// its own, never published, so the SDKs stay out of every published module's
// go.mod (docs/server.md, "Official SDKs as judges").
package sdkjudge
