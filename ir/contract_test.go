package ir

import "testing"

func TestIsKeyHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Idempotency-Key": true, "idempotency-key": true, "IDEMPOTENCY-KEY": true,
		"X-Idempotency-Key": false, "Idempotency_Key": false, "": false,
	} {
		if got := IsKeyHeader(name); got != want {
			t.Errorf("IsKeyHeader(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestInferredSafety(t *testing.T) {
	for method, want := range map[string]Safety{
		"GET": Idempotent, "get": Idempotent, "HEAD": Idempotent, "OPTIONS": Idempotent, "TRACE": Idempotent,
		"PUT": Idempotent, "DELETE": Idempotent, "QUERY": Idempotent, "query": Idempotent,
		"POST": Unsafe, "PATCH": Unsafe, "CONNECT": Unsafe, "PURGE": Unsafe, "": Unsafe,
	} {
		if got := InferredSafety(method); got != want {
			t.Errorf("InferredSafety(%q) = %v, want %v", method, got, want)
		}
	}
}

func TestOperationMethod(t *testing.T) {
	for key, want := range map[string]string{
		"get": "GET", "query": "QUERY", "connect": "CONNECT", "trace": "TRACE",
		"GET": "", "parameters": "", "x-idempotent": "", "summary": "",
	} {
		got, ok := OperationMethod(key)
		if got != want || ok != (want != "") {
			t.Errorf("OperationMethod(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
}
