package ledger

import (
	"strconv"
	"sync/atomic"

	"github.com/google/uuid"
)

// ownerPrefix makes this process's owner names unlike any other's; the
// counter makes each execution's unlike the others of this process.
var (
	ownerPrefix = uuid.NewString() + "-"
	ownerSeq    atomic.Uint64
)

// newOwner is Config.Owner's default: a random UUID drawn once per process
// and a sequence number, unique as a UUID per execution would be, for one
// allocation instead of a draw from the system's random source and two.
func newOwner() string {
	var buf [64]byte
	b := append(buf[:0], ownerPrefix...)
	return string(strconv.AppendUint(b, ownerSeq.Add(1), 10))
}
