// Package config reads Loreweave's settings once, from command-line flags and LOREWEAVE_*
// environment variables, into a validated struct. Every setting has a default that makes
// `loreweave serve` work with no configuration at all.
package config

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Plans are the world plans, cheapest first.
var Plans = []string{"free", "pro", "studio"}

// SignupModes are the values of Signup: anyone may create an account at /signup, or only
// the operator, with `loreweave users create`.
var SignupModes = []string{"open", "closed"}

// Config is Loreweave's configuration.
type Config struct {
	// DefaultPlan is the plan new worlds get (LOREWEAVE_DEFAULT_PLAN, --default-plan).
	DefaultPlan string
	// Signup says whether anyone may create an account at /signup: "open" or "closed"
	// (LOREWEAVE_SIGNUP, --signup). Closed, accounts come from `loreweave users create`.
	Signup string
	// BaseURL is the public URL of this instance, no trailing slash (LOREWEAVE_BASE_URL,
	// --base-url). Empty means "derive it from the listen address".
	BaseURL string
	// KeyRateLimit is how many requests a minute one credential (API key, OAuth token or
	// session) may make to the API and the MCP endpoint (LOREWEAVE_RATE_LIMIT_KEY,
	// --rate-limit-key). 0 turns the limit off.
	KeyRateLimit int
	// IPRateLimit is how many requests a minute one client address may make to them
	// (LOREWEAVE_RATE_LIMIT_IP, --rate-limit-ip). 0 turns the limit off.
	IPRateLimit int
	// LoginRateLimit is how many failed sign-ins one client address may make for one email
	// in a LoginWindow (LOREWEAVE_RATE_LIMIT_LOGIN, --rate-limit-login); then signing in is
	// refused until the oldest failure is that old. 0 turns the limit off.
	LoginRateLimit int
	// LoginIPRateLimit is how many failed sign-ins one client address may make in a
	// LoginWindow, whatever the emails (LOREWEAVE_RATE_LIMIT_LOGIN_IP, --rate-limit-login-ip).
	// 0 turns the limit off.
	LoginIPRateLimit int
	// SignupRateLimit is how many sign-up attempts, and separately how many OAuth client
	// registrations, one client address may make in a SignupWindow
	// (LOREWEAVE_RATE_LIMIT_SIGNUP, --rate-limit-signup). 0 turns the limit off.
	SignupRateLimit int
	// StreamIPLimit is how many long-lived streams (event streams, MCP requests, PocketBase's
	// realtime) one client address may hold open at once, signed in or not
	// (LOREWEAVE_MAX_STREAMS_IP, --max-streams-ip). 0 turns the limit off.
	StreamIPLimit int
	// MaxImageBytes and MaxModelBytes bound one uploaded image (PNG, JPEG, WebP, GIF) and one
	// 3D model (glTF) (LOREWEAVE_MAX_IMAGE_MIB, --max-image-mib, LOREWEAVE_MAX_MODEL_MIB,
	// --max-model-mib; set in MiB, held in bytes).
	MaxImageBytes, MaxModelBytes int
	// MCPAllowedOrigins are the web origins (besides this server's own) whose pages may call
	// the MCP endpoint from a browser (LOREWEAVE_MCP_ALLOWED_ORIGINS, --mcp-allowed-origins;
	// comma-separated, "*" for any). A request with any other Origin gets 403.
	MCPAllowedOrigins []string
	// WebhooksAllowPrivate lets webhooks call loopback, private-network, link-local and
	// other non-public addresses (LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE, --webhooks-allow-private).
	WebhooksAllowPrivate bool
	// WebhookRetryBase is the wait before a failed delivery's second attempt; each later
	// wait doubles, up to an hour (LOREWEAVE_WEBHOOKS_RETRY_BASE, a Go duration such as 30s;
	// shorter values are for tests).
	WebhookRetryBase time.Duration
	// MaxImportBytes bounds one world archive sent to POST /api/v1/worlds/import
	// (LOREWEAVE_MAX_IMPORT_MIB, --max-import-mib; set in MiB, held in bytes).
	MaxImportBytes int
	// MemoryLimit is the soft limit of the Go runtime's memory, in bytes
	// (LOREWEAVE_MEMORY_LIMIT_MIB, --memory-limit-mib; set in MiB): nearing it, the garbage
	// collector runs more often rather than let the heap grow. 0 (the default): 90% of the
	// container's memory limit (cgroup) when there is one, else none. GOMEMLIMIT, when set,
	// wins over both.
	MemoryLimit int64
}

// LoginWindow and SignupWindow are the periods LoginRateLimit, LoginIPRateLimit and
// SignupRateLimit count over.
const (
	LoginWindow  = 15 * time.Minute
	SignupWindow = time.Hour
)

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{DefaultPlan: "studio", Signup: "open", KeyRateLimit: 1200, IPRateLimit: 3000, LoginRateLimit: 10, LoginIPRateLimit: 50, SignupRateLimit: 20, StreamIPLimit: 200,
		MaxImageBytes: 25 << 20, MaxModelBytes: 100 << 20, WebhookRetryBase: 30 * time.Second, MaxImportBytes: 2048 << 20}
}

// Flags holds the flag values until Load reads them.
type Flags struct {
	defaultPlan string
	signup      string
	baseURL     string
	keyRate     string
	ipRate      string
	loginRate   string
	loginIPRate string
	signupRate  string
	streamIP    string
	maxImageMiB string
	maxModelMiB string
	mcpOrigins  string
	hooksAllow  bool
	maxImport   string
	memLimit    string
}

// Bind registers Loreweave's flags on fs (the root command's persistent flags).
func Bind(fs *pflag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.defaultPlan, "default-plan", "", "plan of new worlds: free, pro or studio (env LOREWEAVE_DEFAULT_PLAN; default studio)")
	fs.StringVar(&f.signup, "signup", "", "who may create an account at /signup: open (anyone) or closed (accounts only from the users create command) (env LOREWEAVE_SIGNUP; default open)")
	fs.StringVar(&f.baseURL, "base-url", "", "public URL of this instance, e.g. https://lore.example.com (env LOREWEAVE_BASE_URL; default: the listen address)")
	fs.StringVar(&f.keyRate, "rate-limit-key", "", "API and MCP requests a minute per key, token or session; 0 = off (env LOREWEAVE_RATE_LIMIT_KEY; default 1200)")
	fs.StringVar(&f.ipRate, "rate-limit-ip", "", "API and MCP requests a minute per client address; 0 = off (env LOREWEAVE_RATE_LIMIT_IP; default 3000)")
	fs.StringVar(&f.loginRate, "rate-limit-login", "", "failed sign-ins per 15 minutes per client address and email; 0 = off (env LOREWEAVE_RATE_LIMIT_LOGIN; default 10)")
	fs.StringVar(&f.loginIPRate, "rate-limit-login-ip", "", "failed sign-ins per 15 minutes per client address; 0 = off (env LOREWEAVE_RATE_LIMIT_LOGIN_IP; default 50)")
	fs.StringVar(&f.signupRate, "rate-limit-signup", "", "sign-ups, and OAuth client registrations, an hour per client address; 0 = off (env LOREWEAVE_RATE_LIMIT_SIGNUP; default 20)")
	fs.StringVar(&f.streamIP, "max-streams-ip", "", "streams (event streams, MCP requests, PocketBase realtime) open at once per client address; 0 = off (env LOREWEAVE_MAX_STREAMS_IP; default 200)")
	fs.StringVar(&f.maxImageMiB, "max-image-mib", "", "largest uploaded image (PNG, JPEG, WebP, GIF), in MiB (env LOREWEAVE_MAX_IMAGE_MIB; default 25)")
	fs.StringVar(&f.maxModelMiB, "max-model-mib", "", "largest uploaded 3D model (.glb, .gltf), in MiB (env LOREWEAVE_MAX_MODEL_MIB; default 100)")
	fs.StringVar(&f.mcpOrigins, "mcp-allowed-origins", "", "web origins whose pages may call the MCP endpoint from a browser, comma-separated, e.g. https://inspector.example.com; * = any (env LOREWEAVE_MCP_ALLOWED_ORIGINS; default: this server's own only)")
	fs.BoolVar(&f.hooksAllow, "webhooks-allow-private", false, "let webhooks call loopback and private-network addresses (env LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE=true; default: refused)")
	fs.StringVar(&f.memLimit, "memory-limit-mib", "", "soft limit of the server's Go memory in MiB: the garbage collector works harder as it nears it (env LOREWEAVE_MEMORY_LIMIT_MIB; default: 90% of the container's memory limit if any; GOMEMLIMIT wins)")
	fs.StringVar(&f.maxImport, "max-import-mib", "", "largest world archive POST /api/v1/worlds/import takes, in MiB (env LOREWEAVE_MAX_IMPORT_MIB; default 2048)")
	return f
}

// Load reads flags (which win) and environment variables into a validated Config.
func (f *Flags) Load() (Config, error) {
	c := Default()
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return os.Getenv(env)
	}
	if v := pick(f.defaultPlan, "LOREWEAVE_DEFAULT_PLAN"); v != "" {
		c.DefaultPlan = v
	}
	if v := pick(f.signup, "LOREWEAVE_SIGNUP"); v != "" {
		c.Signup = v
	}
	c.BaseURL = pick(f.baseURL, "LOREWEAVE_BASE_URL")
	for _, o := range strings.Split(pick(f.mcpOrigins, "LOREWEAVE_MCP_ALLOWED_ORIGINS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.MCPAllowedOrigins = append(c.MCPAllowedOrigins, o)
		}
	}
	for _, r := range []struct {
		raw, name string
		dst       *int
	}{
		{pick(f.keyRate, "LOREWEAVE_RATE_LIMIT_KEY"), "rate-limit-key", &c.KeyRateLimit},
		{pick(f.ipRate, "LOREWEAVE_RATE_LIMIT_IP"), "rate-limit-ip", &c.IPRateLimit},
		{pick(f.loginRate, "LOREWEAVE_RATE_LIMIT_LOGIN"), "rate-limit-login", &c.LoginRateLimit},
		{pick(f.loginIPRate, "LOREWEAVE_RATE_LIMIT_LOGIN_IP"), "rate-limit-login-ip", &c.LoginIPRateLimit},
		{pick(f.signupRate, "LOREWEAVE_RATE_LIMIT_SIGNUP"), "rate-limit-signup", &c.SignupRateLimit},
		{pick(f.streamIP, "LOREWEAVE_MAX_STREAMS_IP"), "max-streams-ip", &c.StreamIPLimit},
	} {
		if r.raw == "" {
			continue
		}
		n, err := strconv.Atoi(r.raw)
		if err != nil {
			return c, fmt.Errorf("config: %s %q is not a whole number", r.name, r.raw)
		}
		*r.dst = n
	}
	for _, r := range []struct {
		raw, name string
		dst       *int
	}{
		{pick(f.maxImageMiB, "LOREWEAVE_MAX_IMAGE_MIB"), "max-image-mib", &c.MaxImageBytes},
		{pick(f.maxModelMiB, "LOREWEAVE_MAX_MODEL_MIB"), "max-model-mib", &c.MaxModelBytes},
		{pick(f.maxImport, "LOREWEAVE_MAX_IMPORT_MIB"), "max-import-mib", &c.MaxImportBytes},
	} {
		if r.raw == "" {
			continue
		}
		n, err := strconv.Atoi(r.raw)
		if err != nil || n < 1 || n > 1<<20 {
			return c, fmt.Errorf("config: %s %q is not a whole number of MiB from 1", r.name, r.raw)
		}
		*r.dst = n << 20
	}
	if v := pick(f.memLimit, "LOREWEAVE_MEMORY_LIMIT_MIB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > 1<<30 {
			return c, fmt.Errorf("config: memory-limit-mib %q is not a whole number of MiB (0: automatic)", v)
		}
		c.MemoryLimit = n << 20
	}
	if f.hooksAllow {
		c.WebhooksAllowPrivate = true
	} else if v := os.Getenv("LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("config: LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE %q is not true or false", v)
		}
		c.WebhooksAllowPrivate = b
	}
	if v := os.Getenv("LOREWEAVE_WEBHOOKS_RETRY_BASE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("config: LOREWEAVE_WEBHOOKS_RETRY_BASE %q is not a positive duration such as 30s", v)
		}
		c.WebhookRetryBase = d
	}
	return c, c.Validate()
}

// Validate checks every setting and says which one is wrong.
func (c *Config) Validate() error {
	if !slices.Contains(Plans, c.DefaultPlan) {
		return fmt.Errorf("config: default plan %q is not one of %s", c.DefaultPlan, strings.Join(Plans, ", "))
	}
	if !slices.Contains(SignupModes, c.Signup) {
		return fmt.Errorf("config: signup %q is not one of %s", c.Signup, strings.Join(SignupModes, ", "))
	}
	if min(c.KeyRateLimit, c.IPRateLimit, c.LoginRateLimit, c.LoginIPRateLimit, c.SignupRateLimit, c.StreamIPLimit) < 0 {
		return fmt.Errorf("config: rate limits must be 0 (off) or positive")
	}
	if c.MaxImageBytes < 1 || c.MaxModelBytes < 1 || c.MaxImportBytes < 1 {
		return fmt.Errorf("config: upload limits must be positive")
	}
	if c.BaseURL != "" {
		c.BaseURL = strings.TrimRight(c.BaseURL, "/")
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("config: base URL %q must be an absolute http(s) URL", c.BaseURL)
		}
	}
	return nil
}

// SignupOpen reports whether anyone may create an account at /signup.
func (c Config) SignupOpen() bool { return c.Signup == "open" }
