package idemnats

import (
	"errors"
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// ErrTopic is wrapped by the error for an event topic that cannot be a NATS
// subject: empty, too long, with an empty token ("a..b"), or containing a
// wildcard ('*', '>') or white space or a control character.
var ErrTopic = errors.New("idemnats: event topic is not a valid subject")

// maxTopic bounds a topic, so a subject stays far below the server's
// control-line limit (4 KiB by default).
const maxTopic = 1024

// TopicError reports the event whose topic was refused.
type TopicError struct {
	EventID, Topic, Reason string
}

func (e *TopicError) Error() string {
	return fmt.Sprintf("idemnats: event %s: topic %.64q is not a valid subject: %s", e.EventID, e.Topic, e.Reason)
}

// Unwrap returns ErrTopic.
func (e *TopicError) Unwrap() error { return ErrTopic }

// Subject returns the subject an event is published to: prefix, a dot, then
// the event's topic unchanged ("orders" and "order.created" give
// "orders.order.created"). To let consumers filter or order by aggregate,
// put the aggregate in the topic ("order.ord_42.created"). A topic is never
// escaped: one that is not a valid subject is refused with a *TopicError,
// because rewriting it could send two topics to one subject.
func Subject(prefix string, e outbox.Event) (string, error) {
	if reason := checkTopic(e.Topic); reason != "" {
		return "", &TopicError{EventID: e.ID, Topic: e.Topic, Reason: reason}
	}
	return prefix + "." + e.Topic, nil
}

func checkTopic(topic string) string {
	if topic == "" {
		return "empty"
	}
	if len(topic) > maxTopic {
		return fmt.Sprintf("longer than %d bytes", maxTopic)
	}
	for _, tok := range strings.Split(topic, ".") {
		if tok == "" {
			return "empty token"
		}
		if tok == "*" || tok == ">" {
			return "wildcard token"
		}
	}
	for _, r := range topic {
		if r <= ' ' || r == 0x7f || r == '*' || r == '>' {
			return fmt.Sprintf("contains %q", r)
		}
	}
	return ""
}
