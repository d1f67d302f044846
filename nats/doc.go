// Package idemnats carries outbox events (github.com/idemgen/idemgen/ledger/outbox)
// through a NATS JetStream stream without losing the stable event id on the
// way, so the downstream effect happens once.
//
// The path of one event:
//
//	business transaction --outbox.Add--> idem_outbox row (event id stored once)
//	outbox.Relay --Publisher.Publish--> JetStream, header Nats-Msg-Id = source:event id
//	JetStream stream --durable consumer--> Consumer.Handle
//	Consumer.Handle --outbox.Consume--> effect + idem_consumed row in one transaction, then Ack
//
// Two layers absorb repeats. A relay that published but died before marking
// the event delivered publishes it again; JetStream drops the copy inside the
// stream's duplicate window (the PubAck says Duplicate; the Publisher checks
// that the message stored under the id is this event, and parks one that
// is not: ErrMsgIDCollision). A copy that gets
// past it (a republish after the window, a message redelivered because its
// ack was lost) finds its id in idem_consumed and is acked without applying.
//
// What cannot succeed is parked, not retried for ever: an event the broker
// refuses (too large, a topic that is no subject) stays in idem_outbox,
// parked, until outbox.Outbox.Unpark; a message whose apply fails on
// Consumer.MaxDeliveries deliveries, Nak'd with a growing delay between
// them, is recorded in idem_parked and terminated, until Consumer.Retry.
// `idemgen ledger` lists both.
//
// The package is a Go module of its own (github.com/idemgen/idemgen/nats)
// so that the idemgen module, the ledger and every generated SDK never
// download a NATS client or server: only a program that imports this package
// pays for them.
package idemnats
