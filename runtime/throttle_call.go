package runtime

// The call does not keep its throttle: the Runner's handle finds it with
// one atomic load (the call state stays within its size class).

// throttleAllows consults the host's adaptive throttle before a send.
func (c *call) throttleAllows() bool {
	now := c.r.clock.Now()
	t := c.r.throttles.forURL(c.req.URL, now)
	return t == nil || t.allow(now, c.r.rand)
}

// throttleRecord tells the throttle how the host answered a send that
// reached it: a transport failure or an overload status is no accept.
func (c *call) throttleRecord(s *sent) {
	if s.reached {
		c.throttleCount(s.err == nil && accepted(c.op, s.resp.StatusCode))
	}
}

// throttleCount counts one send the host answered or failed.
func (c *call) throttleCount(accepted bool) {
	now := c.r.clock.Now()
	if t := c.r.throttles.forURL(c.req.URL, now); t != nil {
		t.record(now, accepted)
	}
}
