package webhooks

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/loreweave/loreweave/app/apierr"
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

// nonPublic says what kind of non-public address ip is ("" for a public one): loopback,
// private, link-local, unique-local, unspecified, multicast and the other special ranges.
func nonPublic(ip netip.Addr) string {
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

// privateHint is what every refusal of a non-public target ends with.
const privateHint = "webhooks may call only public addresses unless the server's operator allows private ones (--webhooks-allow-private or LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE=true)"

// refusedTarget is the error of a connection refused because of where it would go.
type refusedTarget struct {
	ip   netip.Addr
	what string
}

func (e *refusedTarget) Error() string {
	return fmt.Sprintf("refused to connect to %s, %s: %s", e.ip, e.what, privateHint)
}

// checkURL refuses a URL a webhook may not call: not http(s), with credentials, or, unless
// private targets are allowed, naming or resolving to a non-public address. A name that does
// not resolve now passes: every connection is checked again (dialControl), so a later
// answer (DNS rebinding) cannot reach a private address either.
func checkURL(ctx context.Context, raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return apierr.Field("url", "the webhook's URL must be an absolute http:// or https:// URL")
	}
	if u.User != nil {
		return apierr.Field("url", "the webhook's URL may not carry a user name or password; receivers check the signature instead")
	}
	if allowPrivate {
		return nil
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	refuse := func(what string) error {
		return apierr.New(http.StatusUnprocessableEntity, "private_target", "%s is %s: %s", u.Hostname(), what, privateHint).With("field", "url")
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return refuse("a loopback address")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if what := nonPublic(ip); what != "" {
			return refuse(what)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil // checked at every connection
	}
	for _, ip := range ips {
		if what := nonPublic(ip); what != "" {
			return refuse("resolves to " + ip.Unmap().String() + ", " + what)
		}
	}
	return nil
}

// dialControl refuses, at connect time, an address that is not public: it sees the address
// actually dialled, after any DNS answer.
func dialControl(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("refused to connect to %q: not an IP address", host)
	}
	if what := nonPublic(ip); what != "" {
		return &refusedTarget{ip: ip.Unmap(), what: what}
	}
	return nil
}

// newClient returns the HTTP client deliveries are sent with: no proxy, no redirects (a 3xx
// is a failed attempt), timeout per attempt, and, unless allowPrivate, no connection to a
// non-public address.
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = dialControl
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
