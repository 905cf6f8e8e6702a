package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// forbidden names the kind of address a fetch must not reach, or "" when
// addr may be fetched. Forms that embed an IPv4 address are judged by it.
func forbidden(addr netip.Addr) string {
	addr = addr.WithZone("")
	if addr.Is4In6() {
		return forbidden(addr.Unmap())
	}
	if addr.Is6() {
		if v4, ok := embeddedIPv4(addr); ok {
			if why := forbidden(v4); why != "" {
				return why
			}
		}
	}
	switch {
	case !addr.IsValid():
		return "invalid"
	case addr.IsUnspecified():
		return "unspecified"
	case addr.IsLoopback():
		return "loopback"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast():
		return "link-local"
	case addr.IsMulticast():
		return "multicast"
	}
	for _, r := range reserved {
		if r.prefix.Contains(addr) {
			return r.why
		}
	}
	return ""
}

// reserved are the ranges netip has no predicate for.
var reserved = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},        // "this network"
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"}, // RFC 6598
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},        // IETF protocol assignments
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved"},       // benchmarking
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},         // includes 255.255.255.255
	{netip.MustParsePrefix("::/96"), "reserved"},               // IPv4-compatible, deprecated
	{netip.MustParsePrefix("64:ff9b:1::/48"), "private"},       // local-use NAT64
	{netip.MustParsePrefix("fec0::/10"), "private"},            // site-local, deprecated
	{netip.MustParsePrefix("100::/64"), "reserved"},            // discard-only
	{netip.MustParsePrefix("2001:db8::/32"), "reserved"},       // documentation
}

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// embeddedIPv4 is the IPv4 address an IPv6 address reaches through, for
// the translation schemes that can lead back into a private network.
func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	b := addr.As16()
	switch {
	case nat64.Contains(addr):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixTo4.Contains(addr):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// BlockedError refuses a host that resolves to a forbidden address.
type BlockedError struct {
	Host string
	Addr netip.Addr
	Why  string // "loopback", "private", ...
}

func (e *BlockedError) Error() string {
	if e.Addr.String() == strings.Trim(e.Host, "[]") {
		return fmt.Sprintf("access to %s is not allowed: it is a %s address", e.Host, e.Why)
	}
	return fmt.Sprintf("access to %s is not allowed: it resolves to %s, a %s address", e.Host, e.Addr, e.Why)
}

// checkHost resolves host (a name or an IP literal, brackets allowed) and
// returns its addresses, or a *BlockedError when any of them is forbidden.
func checkHost(ctx context.Context, r Resolver, host string) ([]netip.Addr, error) {
	bare := strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if bare == "" {
		return nil, errors.New("the URL has no host")
	}
	var addrs []netip.Addr
	if addr, err := netip.ParseAddr(bare); err == nil {
		addrs = []netip.Addr{addr}
	} else if isLocalhostName(bare) {
		// RFC 6761: localhost names are loopback whatever a resolver
		// says, and are refused even where none knows them (a machine
		// without /etc/hosts).
		addrs = []netip.Addr{netip.IPv6Loopback()}
	} else {
		found, err := r.LookupNetIP(ctx, "ip", bare)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", bare, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("resolving %s: no addresses", bare)
		}
		addrs = found
	}
	for _, addr := range addrs {
		if why := forbidden(addr); why != "" {
			return nil, &BlockedError{Host: host, Addr: addr.WithZone(""), Why: why}
		}
	}
	return addrs, nil
}

// isLocalhostName reports whether host is "localhost" or a name under it.
func isLocalhostName(host string) bool {
	host = strings.ToLower(host)
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// Dialer opens a connection to a host:port; (*net.Dialer).DialContext is one.
type Dialer func(ctx context.Context, network, address string) (net.Conn, error)
