// Package publicnet keeps the server's own outgoing HTTP requests (webhook deliveries, OAuth
// client metadata documents) to public addresses: a URL a user gives must not reach the
// server's loopback, its private network or a cloud metadata service.
package publicnet

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Non-public ranges that netip's predicates do not name.
var otherRanges = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "a \"this network\" address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local NAT64 address"},
}

// NonPublic says what kind of non-public address ip is ("" for a public one): loopback,
// private, link-local, unique-local, unspecified, multicast and the other special ranges.
func NonPublic(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() && netip.MustParsePrefix("64:ff9b::/96").Contains(ip) {
		// NAT64: the IPv4 address inside is what is reached.
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsPrivate():
		if ip.Is6() {
			return "a unique-local address"
		}
		return "a private-network address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	}
	for _, r := range otherRanges {
		if r.prefix.Contains(ip) {
			return r.what
		}
	}
	return ""
}

// RefusedError is the error of a connection refused because of where it would go.
type RefusedError struct {
	IP   netip.Addr
	What string
	// Hint says how the operator allows such addresses.
	Hint string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to connect to %s, %s: %s", e.IP, e.What, e.Hint)
}

// dialControl refuses, at connect time, an address that is not public: it sees the address
// actually dialled, after any DNS answer.
func dialControl(hint string) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("refused to connect to %q: not an IP address", host)
		}
		if what := NonPublic(ip); what != "" {
			return &RefusedError{IP: ip.Unmap(), What: what, Hint: hint}
		}
		return nil
	}
}

// Client returns an HTTP client for requests to addresses users give: no proxy, no redirects
// (the caller sees a 3xx), a timeout per request, and, unless allowPrivate, no connection to
// a non-public address (checked on the address actually dialled, after any DNS answer);
// hint ends the refusal's error, saying how the operator allows private addresses.
func Client(timeout time.Duration, allowPrivate bool, hint string) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = dialControl(hint)
	}
	t := &http.Transport{
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: t, Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
