//go:build !unix

package jsoncodec_test

import "time"

// threadCPU cannot be read here: the fuzz targets' time check is off.
func threadCPU() time.Duration { return -1 }
