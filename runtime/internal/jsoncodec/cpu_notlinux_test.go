//go:build !linux

package jsoncodec_test

// rusageThread is 0 where threads have no usage of their own to read.
const rusageThread = 0
