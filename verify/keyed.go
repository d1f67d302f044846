package verify

import (
	"context"
	"sync"

	"github.com/idemgen/idemgen/ir"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// keyedReplay: the same key and body twice get the same status and body,
// and the repeat is shown to be a replay (marked Idempotent-Replayed, or a
// fresh key gets another answer); x-lookup, when declared, finds the
// executed call.
func (c *opCheck) keyedReplay(ctx context.Context) {
	before := c.countList(ctx)
	key := idemrt.NewKey()
	first := c.send(ctx, sendOpts{key: key})
	if first.err != nil {
		c.add(CheckKeyedReplay, c.keySource(), Fail, "the first request got %s", first)
		return
	}
	if !first.success() {
		c.add(CheckKeyedReplay, c.keySource(), Skip, "the first request got %s: give a body and parameters in --fixtures", first)
		return
	}
	c.replayKey = key
	again := c.send(ctx, sendOpts{key: key})
	switch d := firstDifference(first.body, again.body); {
	case again.err != nil || again.status != first.status:
		c.add(CheckKeyedReplay, c.keySource(), Fail, "the same key and body got %d, then %s", first.status, again)
		return
	case d != "":
		c.add(CheckKeyedReplay, c.keySource(), Fail, "keys are not honoured: the same key and body got another body (%s), so the repeat ran again or its answer is not the stored one", d)
		return
	}
	if msg, ok := c.lookupFinds(ctx, key); !ok {
		c.add(CheckKeyedReplay, c.op.Lookup.Source, Fail, "%s", msg)
		return
	}
	listed, once := c.executions(ctx, before, "one key sent twice: the repeat executed again")
	if !once {
		c.add(CheckKeyedReplay, c.keySource(), Fail, "%s", listed)
		return
	}
	if again.header.Get(idemrt.ReplayedHeader) == "true" {
		c.add(CheckKeyedReplay, c.keySource(), Pass, "%d twice with the same body; the repeat is marked %s: true%s", first.status, idemrt.ReplayedHeader, listed)
		return
	}
	fresh := c.send(ctx, sendOpts{key: idemrt.NewKey()})
	if !fresh.success() {
		c.add(CheckKeyedReplay, c.keySource(), Skip, "%d twice with the same body, unmarked; a fresh key, the control that would show the repeat was a replay, got %s", first.status, fresh)
		return
	}
	if fresh.status == first.status && firstDifference(first.body, fresh.body) == "" {
		c.add(CheckKeyedReplay, c.keySource(), Fail, "keys are not honoured: a fresh key with the same body gets the same answer (%d), and no answer is marked %s, so the repeat cannot be told from a second execution", first.status, idemrt.ReplayedHeader)
		return
	}
	c.add(CheckKeyedReplay, c.keySource(), Pass, "%d twice with the same body, and a fresh key got another answer (%s), so the repeat was a replay%s", first.status, firstDifference(first.body, fresh.body), listed)
}

// lookupFinds runs the operation's x-lookup with key when the lookup takes
// the idempotency key: false with a message when it does not find the call
// that executed.
func (c *opCheck) lookupFinds(ctx context.Context, key string) (string, bool) {
	l := c.op.Lookup
	if l == nil || l.Operation == nil || l.Key == nil {
		return "", true
	}
	in := c.v.input(l.Operation)
	params := map[string]string{}
	for k, v := range in.Params {
		params[k] = v
	}
	params[l.Key.Name] = key
	in.Params = params
	ex := c.v.send(ctx, l.Operation, in, sendOpts{noBody: true})
	if !ex.success() {
		return "x-lookup " + l.Operation.ID + " does not find the call that executed: " + ex.String(), false
	}
	if l.Found != "" && !pointerPresent(ex.body, l.Found) {
		return "x-lookup " + l.Operation.ID + " answers without a value at " + l.Found + " for the call that executed", false
	}
	return "", true
}

// keyedReuse: the key of keyed-replay with another body is refused.
func (c *opCheck) keyedReuse(ctx context.Context) {
	if c.replayKey == "" {
		c.add(CheckKeyedReuse, c.keySource(), Skip, "needs the executed call of keyed-replay")
		return
	}
	body2 := c.in.Body2
	if body2 == nil {
		body2 = otherBody(c.in.Body)
	}
	if c.in.MediaType == "" || body2 == nil {
		c.add(CheckKeyedReuse, c.keySource(), Skip, "no body member to change: give body2 in --fixtures")
		return
	}
	ex := c.send(ctx, sendOpts{key: c.replayKey, body: body2})
	switch {
	case ex.err == nil && ex.status == 422:
		c.add(CheckKeyedReuse, c.keySource(), Pass, "another body under a used key: 422")
	case ex.err == nil && (ex.status == 400 || ex.status == 409):
		c.add(CheckKeyedReuse, c.keySource(), Pass, "another body under a used key: %d (draft-ietf-httpapi-idempotency-key-header says 422)", ex.status)
	case ex.success():
		c.add(CheckKeyedReuse, c.keySource(), Fail, "another body under a used key was accepted (%s): keys are not honoured, or a stored answer is served to another request", ex)
	default:
		c.add(CheckKeyedReuse, c.keySource(), Fail, "another body under a used key got %s; want 422", ex)
	}
}

// keyedConcurrent: two requests with one key at once give one execution:
// the same answer twice, or one answer and a 409.
func (c *opCheck) keyedConcurrent(ctx context.Context) {
	before := c.countList(ctx)
	key := idemrt.NewKey()
	var twins [2]exchange
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range twins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			twins[i] = c.v.send(ctx, c.op, c.in, sendOpts{key: key})
		}()
	}
	close(start)
	wg.Wait()
	for _, ex := range twins {
		if ex.err == nil {
			c.seen = append(c.seen, ex)
		}
	}
	a, b := twins[0], twins[1]
	if a.success() && b.success() && firstDifference(a.body, b.body) == "" {
		// The same answer twice may still hide two executions.
		if listed, once := c.executions(ctx, before, "two concurrent requests with one key: both executed"); !once {
			c.add(CheckKeyedConcurrent, c.keySource(), Fail, "%s", listed)
			return
		}
	}
	c.judgeTwins(a, b)
}

func (c *opCheck) judgeTwins(a, b exchange) {
	if !a.success() {
		a, b = b, a
	}
	src := c.keySource()
	switch {
	case a.err != nil || b.err != nil:
		c.add(CheckKeyedConcurrent, src, Fail, "the twins got %s; %s", a, b)
	case !a.success():
		c.add(CheckKeyedConcurrent, src, Skip, "neither request succeeded (%s; %s)", a, b)
	case b.success() && a.status == b.status && firstDifference(a.body, b.body) == "":
		c.add(CheckKeyedConcurrent, src, Pass, "both got the same answer (%d)", a.status)
	case b.success():
		c.add(CheckKeyedConcurrent, src, Fail, "two answers to one key, two executions: %s", firstDifference(a.body, b.body))
	case b.err == nil && b.status == 409:
		c.add(CheckKeyedConcurrent, src, Pass, "one executed (%d), the other got 409 (in progress)", a.status)
	default:
		c.add(CheckKeyedConcurrent, src, Fail, "one executed (%d), the other got %s; want 409 or the same answer", a.status, b)
	}
}

// keyedTTL states how long the server keeps a key: documented behaviour,
// not judged (verify does not wait that long).
func (c *opCheck) keyedTTL() {
	if ttl := c.op.Retry.KeyTTL; ttl > 0 {
		c.add(CheckKeyedTTL, c.keySource(), Info, "keys are kept %s (x-idempotent ttl): a key sent later is a new intent and runs again; not judged", ttl)
		return
	}
	c.add(CheckKeyedTTL, c.keySource(), Info, "no key TTL declared (x-idempotent ttl): clients assume 24h, and a key sent after the server forgets it runs again; not judged")
}

// unsettleable: an unsafe operation without x-lookup leaves a caller whose
// answer was lost no way to learn whether it ran.
func (c *opCheck) unsettleable() {
	if l := c.op.Lookup; l != nil && l.Operation != nil {
		c.add(CheckUnsafeUnsettleable, l.Source, Pass, "a lost answer is settled by x-lookup %s", l.Operation.ID)
		return
	}
	c.add(CheckUnsafeUnsettleable, ir.Source{}, Info, "a lost answer cannot be settled: no idempotency key and no x-lookup, so a caller whose connection drops cannot learn whether it ran (add a key with x-idempotent, or x-lookup)")
}
