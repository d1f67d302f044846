// Package oauth authenticates a generated client's calls with OAuth2
// access tokens: the client credentials flow (RFC 6749 section 4.4) that an
// API document declares, or any golang.org/x/oauth2 TokenSource. Generated
// code imports it as idemoauth and wraps it as With<Scheme>ClientCredentials
// and With<Scheme>TokenSource; a program seldom calls it directly.
//
// The token requests are golang.org/x/oauth2's (clientcredentials.Config);
// this package adds what a retrying client needs around them:
//
//   - one token for every call, reused until ExpiryMargin before it
//     expires, and one token request when many calls need a new one at once
//     (the others wait for it, each within its own deadline);
//   - after a 401 the call's refresh (idemrt.WithCredentialSource) drops
//     the refused token and fetches one anew, once; calls refused with the
//     same token at the same time share that one fetch;
//   - a token request that fails is an error matching ErrTokenEndpoint and
//     idemrt.ErrUnauthorized: the call ends without sending anything to the
//     API, and the call's retry loop never repeats it;
//   - the client secret goes to the token URL's host only (a token endpoint
//     that redirects is refused), and the token to the API's server only
//     (the engine strips it from a redirect to another host).
package oauth
