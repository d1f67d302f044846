package webhook

import (
	"fmt"
	"net/http"
)

// mismatch says why a delivery routed to rt is another webhook's ("" when
// it is rt's). A signed payload proves its bytes, not the path it was
// posted to nor an unsigned X-GitHub-Event, so the route must agree with
// what the payload and its headers name:
//
//   - X-GitHub-Event, with the payload's action, names rt (as it would on
//     the receiver's root);
//   - a route pinned to a payload type (a type that is not its own name)
//     takes only payloads of that type;
//   - any other route with a type refuses a payload whose type another
//     webhook of the receiver claims.
//
// A route whose type another webhook claims (eventType "") is checked by
// the first rule only: its payloads are of the other's type.
func (rc *Receiver) mismatch(r *http.Request, env envelope, rt *Route) string {
	if ev := r.Header.Get("X-GitHub-Event"); ev != "" && rc.githubRoute(ev, env.Action) != rt {
		return fmt.Sprintf("X-GitHub-Event %q with the payload's action %q is not the %s webhook", clip(ev), clip(env.Action), rt.name)
	}
	if rt.eventType == "" || env.Type == rt.eventType {
		return ""
	}
	if rt.eventType != rt.name {
		return fmt.Sprintf("the payload's type %q is not %q, the %s webhook's", clip(env.Type), rt.eventType, rt.name)
	}
	if owner := rc.byType[env.Type]; owner != nil {
		return fmt.Sprintf("the payload's type %q is the %s webhook's, not %s's", clip(env.Type), owner.name, rt.name)
	}
	return ""
}
