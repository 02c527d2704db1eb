package webhooks

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/publicnet"
)

// privateHint is what every refusal of a non-public target ends with.
const privateHint = "webhooks may call only public addresses unless the server's operator allows private ones (--webhooks-allow-private or LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE=true)"

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
		if what := publicnet.NonPublic(ip); what != "" {
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
		if what := publicnet.NonPublic(ip); what != "" {
			return refuse("resolves to " + ip.Unmap().String() + ", " + what)
		}
	}
	return nil
}

// newClient returns the HTTP client deliveries are sent with: no proxy, no redirects (a 3xx
// is a failed attempt), timeout per attempt, and, unless allowPrivate, no connection to a
// non-public address.
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	return publicnet.Client(timeout, allowPrivate, privateHint)
}
