package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/ratelimit"
)

// signInLimits counts failed sign-ins per client address and email, and per client address
// (config.LoginRateLimit and LoginIPRateLimit). Each attempt counts before the password is
// checked, so that parallel guesses cannot slip past the limit, and a successful one is
// given back. Keying by the client's address means nobody elsewhere can lock a user out.
type signInLimits struct {
	perEmail, perAddress *ratelimit.Window
}

func newSignInLimits(c config.Config) signInLimits {
	return signInLimits{perEmail: ratelimit.NewWindow(c.LoginRateLimit, config.LoginWindow),
		perAddress: ratelimit.NewWindow(c.LoginIPRateLimit, config.LoginWindow)}
}

func signInKey(ip, email string) string { return ip + " " + strings.ToLower(strings.TrimSpace(email)) }

// begin counts a sign-in attempt from ip for email. When refused, the password must not be
// checked, and retryAfter says when an attempt will be allowed.
func (l signInLimits) begin(ip, email string) (ok bool, retryAfter time.Duration) {
	if ok, wait := l.perAddress.Take(ip); !ok {
		return false, wait
	}
	if ok, wait := l.perEmail.Take(signInKey(ip, email)); !ok {
		l.perAddress.Give(ip)
		return false, wait
	}
	return true, 0
}

// succeeded clears the failures of email from ip and gives back the attempt.
func (l signInLimits) succeeded(ip, email string) {
	l.perEmail.Forget(signInKey(ip, email))
	l.perAddress.Give(ip)
}

// limitPasswordAuth applies the same limits to PocketBase's own password sign-in for users
// and for the dashboard's superusers (/api/collections/{users,_superusers}/auth-with-password),
// which would otherwise let anyone guess passwords without them.
func (w *Web) limitPasswordAuth(e *core.RecordAuthWithPasswordRequestEvent) error {
	ip := e.RealIP()
	if ok, wait := w.signIns.begin(ip, e.Identity); !ok {
		return tooManyAPIRequests(e.RequestEvent, wait, "Too many failed sign-ins")
	}
	if err := e.Next(); err != nil {
		return err
	}
	w.signIns.succeeded(ip, e.Identity)
	return nil
}

// mailRequest reports whether a request is one of PocketBase's anonymous requests that mail
// an account (a password reset, a verification or a one-time password), for users and
// superusers alike.
func mailRequest(r *http.Request) bool {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/api/collections/") {
		return false
	}
	for _, action := range []string{"/request-password-reset", "/request-verification", "/request-otp"} {
		if strings.HasSuffix(r.URL.Path, action) {
			return true
		}
	}
	return false
}

// limitMailRequests counts PocketBase's anonymous mail requests against limits of their own,
// as many as sign-in's (config.LoginRateLimit per address and email, LoginIPRateLimit per
// address, in a LoginWindow): each one may send a mail to someone else's inbox, so every
// one counts, and none is given back.
func (w *Web) limitMailRequests(e *core.RequestEvent) error {
	if !mailRequest(e.Request) {
		return e.Next()
	}
	var body struct {
		Email string `json:"email" form:"email"`
	}
	_ = e.BindBody(&body) // the body stays readable for PocketBase, which reports a bad one
	if ok, wait := w.mailRequests.begin(e.RealIP(), body.Email); !ok {
		return tooManyAPIRequests(e, wait, "Too many requests for mail")
	}
	return e.Next()
}

// tooManyAPIRequests answers a PocketBase API request with its JSON 429 and Retry-After.
func tooManyAPIRequests(e *core.RequestEvent, retryAfter time.Duration, what string) error {
	e.Response.Header().Set("Retry-After", strconv.Itoa(ratelimit.Seconds(retryAfter)))
	return e.TooManyRequestsError(what+"; try again in "+retryIn(retryAfter)+".", nil)
}

// tooManyRequests renders page as a 429 with Retry-After.
func tooManyRequests(e *core.RequestEvent, retryAfter time.Duration, page templ.Component) error {
	e.Response.Header().Set("Retry-After", strconv.Itoa(ratelimit.Seconds(retryAfter)))
	return render(e, http.StatusTooManyRequests, page)
}

// retryIn says how long to wait, for people: "45 seconds", "1 minute", "15 minutes".
func retryIn(d time.Duration) string {
	n, unit := ratelimit.Seconds(d), "second"
	if n >= 60 {
		n, unit = (n+59)/60, "minute"
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
