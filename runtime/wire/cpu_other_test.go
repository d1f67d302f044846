//go:build !unix

package wire

import "time"

// threadCPU cannot be read here: the fuzz targets' time check is off.
func threadCPU() time.Duration { return -1 }
