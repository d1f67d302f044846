package ir

// OAuthFlow is an OAuth2 flow of a security scheme of type "oauth2".
type OAuthFlow struct {
	// TokenURL is the flow's tokenUrl as the document writes it: an
	// absolute http or https URL, or a reference relative to the server
	// URL, which the client resolves against the server each call goes
	// to. The parser refuses any other (another scheme, user information,
	// a fragment, a control character).
	TokenURL string
	// Scopes are the flow's scope names, sorted.
	Scopes []string
}
