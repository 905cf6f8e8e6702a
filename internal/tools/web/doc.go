// Package web fetches pages for the web tools, and is the one place that
// decides which network addresses a fetch may reach.
//
// Invariants, for every request a Fetcher makes (the first, each redirect,
// direct or through a proxy):
//
//   - Only http and https URLs are fetched.
//   - The target host is resolved and every address it resolves to is
//     checked before anything is sent; one forbidden address refuses the
//     host (so a name that also resolves to 10.0.0.1 cannot be raced in).
//     Forbidden: loopback, private (RFC 1918, fc00::/7), link-local
//     (169.254.0.0/16 with the cloud metadata address, fe80::/10),
//     unspecified, CGNAT, multicast, reserved, and the IPv6 forms that
//     embed one of those (IPv4-mapped, IPv4-compatible, NAT64, 6to4).
//   - A direct connection dials the checked address itself, never the name
//     again, so DNS cannot answer differently between check and dial.
//   - Through a proxy (HTTP_PROXY, HTTPS_PROXY and NO_PROXY, or Options.Proxy)
//     the target is resolved and checked locally first and refused rather
//     than sent. The proxy's own address is the user's configuration and is
//     not checked; what the proxy resolves is beyond our reach.
//   - A response body larger than MaxBytes is refused, and a fetch (all its
//     redirects included) ends after Timeout.
//
// HTML is converted to Markdown; other text is returned as it is. The
// conversion's work is bounded, not only its bytes (bound.go): it is
// linear in the page, the parser's tree grows by a few nodes a token at
// most, and a page of more than maxHTMLTokens tags, texts and comments
// is converted up to there, its Markdown saying so first.
package web
